"""The front door under one hostile client (tests/benchmarks/bench_front_door.py):
what the attacker does, what the honest players do beside it, and how the
host's memory is read meanwhile.

Each attack runs in a process of its own, from 127.0.0.1 and without a
player token, so the front door counts every call of it against one
address's allowance (host/quotas.py), as it would a hostile client's. It
runs at nice 19: on this 2-core machine the attacker takes the CPU the host
and the honest players leave, as one on a machine of its own would take
none of theirs (what the host spends answering it stays the host's):

    python -m hostbench.door_attacks attack KIND --target HOST:PORT [--code C]
        [--organiser-token T] [--tournament ID] [--calls N] [--players N]

It prints {"ready": true}, starts at the next line on stdin ("go"), and
prints what it sent and what came back (each kind of call's gRPC statuses,
with the reasons the host gave, numbers left out) when the line after that
arrives, or as soon as it has done all it does. KINDS says what each does.

The refusal floor, a bare grpc.aio server refusing every call, which the
malformed joins' attacker floods alone before the host starts:

    python -m hostbench.door_attacks floor

The honest players are one process for the whole run:

    python -m hostbench.door_attacks honest --target HOST:PORT --tables N

Each bot signs in with a player token of its own (signed with the host's
TABLEHOST_PLAYER_AUTH_SECRET, as a game's account service would) and plays
Big Two through clients.loadrun.run_tables, thinking THINK_S before each
move: from each "go" line, rounds of N
tables (every bot joins the queue at once, plays its game, and the next
round starts) until the next line; then the window's figures: tables seated
per second (each round's tables over the time until its last seat was given),
every JoinQueue's wait, the move round trip p50/p99 over every round.

Both run with tests/benchmarks and the project on PYTHONPATH, as
hostbench.children.Child starts them; the benchmark ends them by PID.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import sys
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

import grpc  # noqa: E402

from hostbench.host import HostUnderTest  # noqa: E402
from hostbench.procs import MIB, ForeignLoad, cmdline, read_processes  # noqa: E402
from tablehost.v1 import lobby_pb2, lobby_pb2_grpc, table_pb2, tournament_pb2, tournament_pb2_grpc  # noqa: E402

# {"deck": "mage-basic", b"deck": "x"}: a msgpack map with a string key and a
# bytes key, which once failed the lobby's whole batch of joins.
MIXED_KEYS = b"\x82\xa4deck\xaamage-basic\xc4\x04deck\xa1x"
LOOKUP_TABLE = "/tablehost.v1.Lobby/LookupTable"
PLAY = "/tablehost.v1.Table/Play"
# Each channel on a connection of its own (gRPC shares one among a process's
# channels otherwise), as a client spreading its calls over connections would.
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]
CALL_TIMEOUT_S = 10.0
CREATE_TIMEOUT_S = 30.0
# Once told to stop, an attack's calls still waiting are given this long, then cancelled.
STOP_GRACE_S = 3.0
# What each attack sends at once (its concurrency); "as fast as it can" is
# as fast as these many calls in flight go.
FLOOD_CALLS_AT_ONCE = 32
LOOKUPS_PER_S = 1000
LOOKUPS_IN_FLIGHT = 2000
GHOST_CALLS = 8000
GHOST_CALLS_AT_ONCE = 2000  # an address's seats waited for at once (host/quotas.py ADDRESS)
GHOST_SEAT_WAIT_S = 30.0
REFUSED_PAUSE_S = 1.0
SLOWLORIS_CALLS = 20_000
SLOWLORIS_CONNECTIONS = 8
CROWD_PLAYERS = 45_000
CROWD_CALLS_AT_ONCE = 64
MAX_PAGE = 1000  # GetTournament's largest page (actors/tournament/kept.py MAX_PAGE_SIZE)
FORTY_NINE_DAYS_MS = 49 * 24 * 3600 * 1000
ROUND_TIMEOUT_S = 90.0
ATTACKER_NICENESS = 19
# Each honest bot's pause before each move. Bots that move at once keep the
# machine's two cores busy by themselves (the baseline then left 5% idle),
# and anything added beside them, an attacker's process included, stretches
# every move; a player thinks, and leaves the host room to serve an attack.
THINK_S = 0.05
TOKEN_LIFETIME_MS = 6 * 3600 * 1000


# -- what came back ----------------------------------------------------------------------


def _shape(details: str) -> str:
    """A reason with its numbers left out, so equal refusals count together."""
    return re.sub(r"\d+(\.\d+)?", "#", details)[:110]


class Tally:
    """The answers to one kind of call: each gRPC status, and the reasons given."""

    def __init__(self) -> None:
        self.codes: Counter[str] = Counter()
        self.reasons: dict[str, Counter[str]] = {}

    def ok(self) -> None:
        self.codes["OK"] += 1

    def refused(self, error: grpc.aio.AioRpcError) -> None:
        code = error.code().name
        self.codes[code] += 1
        self.reasons.setdefault(code, Counter())[_shape(error.details() or "")] += 1

    @property
    def sent(self) -> int:
        return sum(self.codes.values())

    def to_json(self) -> dict[str, Any]:
        return {"sent": self.sent, "codes": dict(self.codes),
                "reasons": {code: dict(reasons.most_common(4)) for code, reasons in self.reasons.items()}}


async def _answer(tally: Tally, call: Awaitable[Any]) -> Any:
    """The call's reply (None when refused), counted in `tally`."""
    try:
        reply = await call
    except grpc.aio.AioRpcError as error:
        tally.refused(error)
        return None
    tally.ok()
    return reply


async def _flood(stop: asyncio.Event, at_once: int, one_call: Callable[[int], Awaitable[None]]) -> None:
    """`one_call(k)` again and again from `at_once` callers until `stop`."""

    async def caller(k: int) -> None:
        while not stop.is_set():
            await one_call(k)

    await asyncio.gather(*(caller(k) for k in range(at_once)))


def _lobby(channel: grpc.aio.Channel) -> lobby_pb2_grpc.LobbyStub:
    return lobby_pb2_grpc.LobbyStub(channel)


def _tournaments(channel: grpc.aio.Channel) -> tournament_pb2_grpc.TournamentsStub:
    return tournament_pb2_grpc.TournamentsStub(channel)


# -- the attacks -------------------------------------------------------------------------


async def malformed_joins(args: argparse.Namespace, stop: asyncio.Event, report: dict[str, Any]) -> None:
    """JoinQueue (Duel, checked at the door) and JoinPrivateTable (an honest
    player's table, checked by the lobby) with join data of mixed string and
    bytes keys, as fast as the attacker can."""
    queue, private = report["join_queue"], report["join_private_table"] = Tally(), Tally()
    async with grpc.aio.insecure_channel(args.target) as channel:
        stub = _lobby(channel)

        async def one(k: int) -> None:
            if k % 2:
                await _answer(queue, stub.JoinQueue(lobby_pb2.JoinQueueRequest(
                    game="duel", display_name="mallory", join_data=MIXED_KEYS), timeout=CALL_TIMEOUT_S))
            else:
                await _answer(private, stub.JoinPrivateTable(lobby_pb2.JoinPrivateTableRequest(
                    code=args.code, display_name="mallory", join_data=MIXED_KEYS), timeout=CALL_TIMEOUT_S))

        await _flood(stop, FLOOD_CALLS_AT_ONCE, one)


async def tournament_creates(args: argparse.Namespace, stop: asyncio.Event, report: dict[str, Any]) -> None:
    """CreateTournament without a credential, and with one organiser's token
    past its cap, both as fast as the attacker can."""
    without, with_token = report["without_credential"], report["with_one_credential"] = Tally(), Tally()
    async with grpc.aio.insecure_channel(args.target) as channel:
        stub = _tournaments(channel)

        async def one(k: int) -> None:
            credential = args.organiser_token if k % 2 else ""
            request = tournament_pb2.CreateTournamentRequest(name=f"flood-{k}", game="bigtwo",
                                                             format=tournament_pb2.TABLE_ROUNDS,
                                                             organiser_token=credential)
            await _answer(with_token if credential else without, stub.CreateTournament(request,
                                                                                      timeout=CREATE_TIMEOUT_S))

        await _flood(stop, 8, one)


async def lookups(args: argparse.Namespace, stop: asyncio.Event, report: dict[str, Any]) -> None:
    """LookupTable and Spectate, in turn, for tables that do not exist (a
    new id each time), LOOKUPS_PER_S a second or as fast as the attacker can."""
    lookup, spectate = report["lookup_table"], report["spectate"] = Tally(), Tally()
    in_flight: set[asyncio.Task[Any]] = set()
    asked = 0
    async with grpc.aio.insecure_channel(args.target) as channel:
        stub = _lobby(channel)
        started = time.monotonic()
        while not stop.is_set():
            due = int((time.monotonic() - started) * LOOKUPS_PER_S)
            while asked < due and len(in_flight) < LOOKUPS_IN_FLIGHT:
                asked += 1
                table_id = f"t-nosuch-{asked:012d}"
                call = (_answer(lookup, stub.LookupTable(lobby_pb2.LookupTableRequest(table_id=table_id),
                                                         timeout=CALL_TIMEOUT_S)) if asked % 2 else
                        _answer(spectate, stub.Spectate(lobby_pb2.SpectateRequest(table_id=table_id),
                                                        timeout=CALL_TIMEOUT_S)))
                task = asyncio.ensure_future(call)
                in_flight.add(task)
                task.add_done_callback(in_flight.discard)
            await asyncio.sleep(0.005)
        report["asked_per_s"] = round(asked / max(time.monotonic() - started, 1e-9), 1)
        if in_flight:
            await asyncio.wait(in_flight, timeout=STOP_GRACE_S)


async def private_tables(args: argparse.Namespace, stop: asyncio.Event, report: dict[str, Any]) -> None:
    """CreatePrivateTable as fast as the attacker can: one client trying to
    hold every private table there is."""
    created = report["create_private_table"] = Tally()
    async with grpc.aio.insecure_channel(args.target) as channel:
        stub = _lobby(channel)

        async def one(_k: int) -> None:
            await _answer(created, stub.CreatePrivateTable(lobby_pb2.CreatePrivateTableRequest(game="bigtwo"),
                                                           timeout=CALL_TIMEOUT_S))

        await _flood(stop, 8, one)


async def registrations(args: argparse.Namespace, stop: asyncio.Event, report: dict[str, Any]) -> None:
    """Register a new player id to one tournament as fast as the attacker
    can (nothing proves a registering player), while reading GetTournament
    twice a second at the default page and at a page as large as asked for
    as it can: how large each reply is."""
    registered, read = report["register"], report["get_tournament"] = Tally(), Tally()
    largest: dict[str, int] = report.setdefault("largest_reply_bytes", {})
    numbers = iter(range(10**9))
    async with grpc.aio.insecure_channel(args.target) as channel:
        stub = _tournaments(channel)

        async def one(k: int) -> None:
            if k == 0:
                for label, size in (("default page", 0), ("page_size 100,000", 100_000)):
                    reply = await _answer(read, stub.GetTournament(tournament_pb2.GetTournamentRequest(
                        tournament_id=args.tournament, page_size=size), timeout=CALL_TIMEOUT_S))
                    if reply is not None:
                        largest[label] = max(largest.get(label, 0), reply.ByteSize())
                        report["standings_total"] = reply.standings_total
                await asyncio.sleep(0.5)
                return
            await _answer(registered, stub.Register(tournament_pb2.RegisterRequest(
                tournament_id=args.tournament, player=f"stuffed-{next(numbers)}"), timeout=CALL_TIMEOUT_S))

        await _flood(stop, 16, one)


async def standings_reads(args: argparse.Namespace, stop: asyncio.Event, report: dict[str, Any]) -> None:
    """Once the tournament is full: one more player registered, then the
    standings read, a first page of MAX_PAGE and the next by its page token,
    again and again as fast as the attacker can. Each registration makes new
    standings, which the first read computes and the token keeps."""
    registered, read = report["register"], report["get_tournament"] = Tally(), Tally()
    largest = report["largest_reply_bytes"] = 0
    numbers = iter(range(10**9))
    async with grpc.aio.insecure_channel(args.target) as channel:
        stub = _tournaments(channel)

        async def one(_k: int) -> None:
            nonlocal largest
            await _answer(registered, stub.Register(tournament_pb2.RegisterRequest(
                tournament_id=args.tournament, player=f"reader-{next(numbers)}"), timeout=CALL_TIMEOUT_S))
            token = ""
            for _ in range(2):
                page = await _answer(read, stub.GetTournament(tournament_pb2.GetTournamentRequest(
                    tournament_id=args.tournament, page_size=MAX_PAGE, page_token=token), timeout=CALL_TIMEOUT_S))
                if page is None or not page.next_page_token:
                    break
                largest = report["largest_reply_bytes"] = max(largest, page.ByteSize())
                token = page.next_page_token

        await _flood(stop, 4, one)


async def ghost_seats(args: argparse.Namespace, stop: asyncio.Event, report: dict[str, Any]) -> None:
    """GHOST_CALLS JoinQueue calls in the public Big Two queue, as many at
    once as an address may wait for; every seat given is kept and its table
    stream never opened. A refused caller pauses REFUSED_PAUSE_S."""
    joins = report["join_queue"] = Tally()
    tables: set[str] = set()
    first_ghost_refusal: list[float] = []
    made = 0
    started = time.monotonic()
    channels = [grpc.aio.insecure_channel(args.target, options=OWN_CONNECTION) for _ in range(8)]
    try:
        async def caller(k: int) -> None:
            nonlocal made
            stub = _lobby(channels[k % len(channels)])
            while not stop.is_set() and made < args.calls:
                made += 1
                try:
                    seat = await stub.JoinQueue(lobby_pb2.JoinQueueRequest(game="bigtwo", display_name="ghost"),
                                                timeout=GHOST_SEAT_WAIT_S)
                except grpc.aio.AioRpcError as error:
                    joins.refused(error)
                    if "never came" in (error.details() or "") and not first_ghost_refusal:
                        first_ghost_refusal.append(time.monotonic() - started)
                    await asyncio.sleep(REFUSED_PAUSE_S)
                    continue
                joins.ok()
                tables.add(seat.table_id)  # and never connects to it

        await asyncio.gather(*(caller(k) for k in range(GHOST_CALLS_AT_ONCE)))
    finally:
        report["seated_at_tables"] = len(tables)
        report["refused_as_a_ghost_after_s"] = round(first_ghost_refusal[0], 1) if first_ghost_refusal else None
        report["calls_s"] = round(time.monotonic() - started, 1)
        for channel in channels:
            await channel.close()


async def slowloris(args: argparse.Namespace, stop: asyncio.Event, report: dict[str, Any]) -> None:
    """args.calls LookupTable calls opened as fast as the attacker can, over
    SLOWLORIS_CONNECTIONS connections, none ever sending its request: how
    many the front door holds, and how long each held call lasts."""
    calls = report["unsent_calls"] = Tally()
    lifetimes: list[float] = []
    ended: list[float] = []
    unanswered = 0
    most_unanswered = 0
    channels = [grpc.aio.insecure_channel(args.target, options=OWN_CONNECTION)
                for _ in range(SLOWLORIS_CONNECTIONS)]

    async def hold(channel: grpc.aio.Channel) -> None:
        nonlocal unanswered, most_unanswered
        opened = time.monotonic()
        unanswered += 1
        most_unanswered = max(most_unanswered, unanswered)
        try:
            await channel.stream_unary(LOOKUP_TABLE)()  # the request is never written
            calls.ok()
        except grpc.aio.AioRpcError as error:
            calls.refused(error)
            if error.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
                lifetimes.append(time.monotonic() - opened)
                ended.append(time.monotonic())
        finally:
            unanswered -= 1

    started = time.monotonic()
    held: list[asyncio.Task[None]] = []
    try:
        for number in range(args.calls):
            if stop.is_set():
                break
            held.append(asyncio.ensure_future(hold(channels[number % len(channels)])))
            if number % 200 == 199:
                await asyncio.sleep(0)  # let the calls go out as they are made
        report["opened_in_s"] = round(time.monotonic() - started, 2)
        await asyncio.gather(*held)
    finally:
        lifetimes.sort()
        report["most_open_at_once"] = most_unanswered
        report["held_until_ended"] = len(lifetimes)
        report["most_held_at_once"] = _most_at_once([end - lifetimes[0] for end in ended], ended) if ended else 0
        report["held_lifetime_s"] = ({"min": round(lifetimes[0], 2), "p50": round(lifetimes[len(lifetimes) // 2], 2),
                                      "max": round(lifetimes[-1], 2)} if lifetimes else {})
        for channel in channels:
            await channel.close()


def _most_at_once(starts: list[float], ends: list[float]) -> int:
    """The most intervals [start, end] open at one moment. A held call's
    time at the front door is taken as its last request-timeout's worth
    before it ended (the shortest lifetime seen): the attacker's own clock
    also counts the time its crowded loop took to send the call."""
    events = sorted([(start, 1) for start in starts] + [(end, -1) for end in ends], key=lambda e: (e[0], e[1]))
    most = current = 0
    for _, change in events:
        current += change
        most = max(most, current)
    return most


async def crowd(args: argparse.Namespace, stop: asyncio.Event, report: dict[str, Any]) -> None:
    """Not an attack: the tournament filled to args.players by as many
    players, each signed in with a token of its own (45,000 registrations
    at one address's rate would take over half an hour). Then its
    standings are read page by page, as an address: each reply's size."""
    from tablehost.host.identity import player_token

    secret = os.environ["TABLEHOST_PLAYER_AUTH_SECRET"].encode()
    expires_ms = int(time.time() * 1000) + TOKEN_LIFETIME_MS
    registered = report["register"] = Tally()
    numbers = iter(range(args.players))
    started = time.monotonic()
    channels = [grpc.aio.insecure_channel(args.target, options=OWN_CONNECTION) for _ in range(4)]
    try:
        async def caller(k: int) -> None:
            stub = _tournaments(channels[k % len(channels)])
            for number in numbers:
                if stop.is_set():
                    return
                player = f"player-{number}"
                signed = (("authorization", f"Bearer {player_token(secret, player, expires_ms)}"),)
                await _answer(registered, stub.Register(tournament_pb2.RegisterRequest(
                    tournament_id=args.tournament, player=player), metadata=signed, timeout=CREATE_TIMEOUT_S))

        await asyncio.gather(*(caller(k) for k in range(CROWD_CALLS_AT_ONCE)))
        report["register_s"] = round(time.monotonic() - started, 1)
        report["registered_per_s"] = round(registered.codes["OK"] / max(time.monotonic() - started, 1e-9), 1)
        report["pages"] = await _read_every_page(channels[0], args.tournament)
    finally:
        for channel in channels:
            await channel.close()


async def _read_every_page(channel: grpc.aio.Channel, tournament_id: str) -> dict[str, Any]:
    """The standings read at the default page, then every page of MAX_PAGE."""
    stub = _tournaments(channel)
    first = await stub.GetTournament(tournament_pb2.GetTournamentRequest(tournament_id=tournament_id),
                                     timeout=CALL_TIMEOUT_S)
    sizes, token, started = [], "", time.monotonic()
    while True:
        page = await stub.GetTournament(tournament_pb2.GetTournamentRequest(
            tournament_id=tournament_id, page_size=100_000, page_token=token), timeout=CALL_TIMEOUT_S)
        sizes.append((page.ByteSize(), len(page.standings)))
        token = page.next_page_token
        if not token:
            break
    return {"standings_total": first.standings_total, "default_page_bytes": first.ByteSize(),
            "default_page_standings": len(first.standings), "largest_page_bytes": max(size for size, _ in sizes),
            "largest_page_standings": max(count for _, count in sizes), "pages_of_1000": len(sizes),
            "every_page_bytes": sum(size for size, _ in sizes), "read_s": round(time.monotonic() - started, 2)}


async def checks(args: argparse.Namespace, stop: asyncio.Event, report: dict[str, Any]) -> None:
    """Not a flood: a genuine seat token spelled with junk characters or
    extra padding, sent in a hello to its room; the genuine tokens (every
    seat of the table, so none is left empty); and private tables asked for
    with a turn timer of 1 ms and of 49 days."""
    from tablehost.clients.sdk import LobbyClient, LobbyError

    async with LobbyClient(args.target) as lobby:
        code = await lobby.create_private_table("bigtwo")
        seats = await asyncio.gather(*(lobby.join_private_table(code, f"checker-{n}") for n in range(4)))
        token, endpoint = seats[0].seat_token, seats[0].endpoint
        tokens = report["seat_tokens"] = {}
        for name, spelled in _misspelled(token).items():
            tokens[name] = await _hello_answer(endpoint, spelled)
        tokens["the genuine tokens of the table's four seats"] = [await _hello_answer(endpoint, seat.seat_token)
                                                                  for seat in seats]
        timers = report["turn_timeout_ms"] = {}
        for label, milliseconds in (("1 ms", 1), ("49 days", FORTY_NINE_DAYS_MS)):
            try:
                made = await lobby.create_private_table("bigtwo", turn_timeout_ms=milliseconds)
                timers[label] = {"status": "OK", "message": f"created {made}"}
            except LobbyError as error:
                timers[label] = {"status": error.code.name, "message": error.details[:160]}


def _misspelled(token: str) -> dict[str, str]:
    """A genuine token spelled the ways a lenient decoder would still take."""
    payload, signature = token.split(".")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    # The signature's 32 bytes take 43 characters, the last of which has 2
    # bits to spare: setting one leaves the bytes a lenient decoder reads.
    loose_last = alphabet[alphabet.index(signature[-1]) ^ 1]
    spelled = {
        "padding after the signature (=)": f"{token}=",
        "padding after the signature (==)": f"{token}==",
        "padding after the payload": f"{payload}{'=' * (-len(payload) % 4) or '='}.{signature}",
        "a junk character (!) in the signature": f"{payload}.{signature[:10]}!{signature[11:]}",
        "a junk character (%) added to the payload": f"{payload}%.{signature}",
        "a space after the token": f"{token} ",
        "a newline after the token": f"{token}\n",
        "a non-ASCII character (é) added": f"{token}é",
        "unused bits set in the signature's last character": f"{payload}.{signature[:-1]}{loose_last}",
    }
    if any(ch in token for ch in "-_"):
        spelled["the standard base64 alphabet (+ and /)"] = token.replace("-", "+").replace("_", "/")
    return spelled


async def _hello_answer(endpoint: str, seat_token: str) -> dict[str, str]:
    """What the room answers a hello with `seat_token`: the first message's
    kind (and a rejection's reason), then how the stream ended."""
    hello = table_pb2.ClientMessage(hello=table_pb2.Hello(seat_token=seat_token)).SerializeToString()
    answer: dict[str, str] = {}
    async with grpc.aio.insecure_channel(endpoint, options=OWN_CONNECTION) as channel:
        call = channel.stream_stream(PLAY)()
        try:
            await call.write(hello)
            first = await asyncio.wait_for(call.read(), CALL_TIMEOUT_S)
            if first is grpc.aio.EOF:
                answer["first"] = "end of stream"
            else:
                message = table_pb2.ServerMessage.FromString(first)
                kind = message.WhichOneof("kind") or "nothing"
                answer["first"] = kind
                if kind == "rejection":
                    answer["reason"] = table_pb2.RejectReason.Name(message.rejection.reason)
                    answer["message"] = message.rejection.message[:120]
                else:
                    call.cancel()  # accepted: the seat said hello, enough
                    answer["status"] = "accepted"
                    return answer
            answer["status"] = (await asyncio.wait_for(call.code(), CALL_TIMEOUT_S)).name
        except grpc.aio.AioRpcError as error:
            answer["status"] = error.code().name
            answer.setdefault("message", (error.details() or "")[:120])
        except TimeoutError:
            call.cancel()
            answer["status"] = "no answer"
    return answer


KINDS: dict[str, Callable[[argparse.Namespace, asyncio.Event, dict[str, Any]], Awaitable[None]]] = {
    "malformed_joins": malformed_joins,
    "tournament_creates": tournament_creates,
    "lookups": lookups,
    "private_tables": private_tables,
    "registrations": registrations,
    "standings_reads": standings_reads,
    "ghost_seats": ghost_seats,
    "slowloris": slowloris,
    "crowd": crowd,
    "checks": checks,
}


def _json_ready(report: dict[str, Any]) -> dict[str, Any]:
    return {key: value.to_json() if isinstance(value, Tally) else value for key, value in report.items()}


def _stdin_lines(loop: asyncio.AbstractEventLoop) -> asyncio.Queue[dict[str, Any]]:
    """stdin's JSON lines as they come ({"quit": true} at its end), read by a thread."""
    lines: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    def read() -> None:
        for line in sys.stdin:
            if line.strip():
                loop.call_soon_threadsafe(lines.put_nowait, json.loads(line))
        loop.call_soon_threadsafe(lines.put_nowait, {"quit": True})

    threading.Thread(target=read, name="stdin", daemon=True).start()
    return lines


async def attack_between_go_and_stop(kind: str, args: argparse.Namespace) -> int:
    """As a benchmark child: ready; the attack from "go" until the next line
    (or until it has done all it does); then its report, with the CPU seconds
    this process used and the wall seconds the attack ran."""
    lines = _stdin_lines(asyncio.get_running_loop())
    print(json.dumps({"ready": True}), flush=True)
    if (await lines.get()).get("quit"):
        return 0
    cpu_started, wall_started = time.process_time(), time.monotonic()
    stop, report = asyncio.Event(), {"kind": kind}
    attack = asyncio.ensure_future(KINDS[kind](args, stop, report))
    told = asyncio.ensure_future(lines.get())
    await asyncio.wait([attack, told], return_when=asyncio.FIRST_COMPLETED)
    stop.set()
    if not attack.done():
        await asyncio.wait([attack], timeout=STOP_GRACE_S)
        attack.cancel()
        await asyncio.gather(attack, return_exceptions=True)
    told.cancel()
    if attack.done() and not attack.cancelled() and attack.exception() is not None:
        report["failed"] = f"{type(attack.exception()).__name__}: {attack.exception()}"
    report["wall_s"] = round(time.monotonic() - wall_started, 2)
    report["cpu_s"] = round(time.process_time() - cpu_started, 2)
    print(json.dumps(_json_ready(report)), flush=True)
    return 0


# -- the honest players ------------------------------------------------------------------


def _nearest_rank(values: list[float], percentile: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(1, math.ceil(len(ordered) * percentile / 100)) - 1]


async def honest_window(target: str, tables: int, seed: int, stop: asyncio.Event) -> dict[str, Any]:
    """Rounds of `tables` Big Two tables of signed-in random bots until `stop`."""
    from tablehost.clients.bots import PlayStats
    from tablehost.clients.loadrun import run_tables
    from tablehost.host.identity import player_token

    secret = os.environ["TABLEHOST_PLAYER_AUTH_SECRET"].encode()
    expires_ms = int(time.time() * 1000) + TOKEN_LIFETIME_MS
    tokens: dict[str, str] = {}

    def token_of(player: str) -> str:
        if player not in tokens:
            tokens[player] = player_token(secret, player, expires_ms)
        return tokens[player]

    async def think(_session: object) -> None:
        await asyncio.sleep(THINK_S)

    stats = PlayStats()
    waits: list[float] = []
    spans: list[float] = []
    figures: dict[str, Any] = {"rounds": 0, "tables": 0, "games": 0, "bots": 0, "bots_finished": 0, "rejoins": 0,
                               "errors": 0, "error_messages": [], "refusals": []}
    started = time.monotonic()
    while not stop.is_set():
        summary = await run_tables(target, "bigtwo", tables, seed=seed + 1000 * figures["rounds"],
                                   timeout_s=ROUND_TIMEOUT_S, seats_per_table=4, player_token=token_of, stats=stats,
                                   before_move=think)
        figures["rounds"] += 1
        figures["tables"] += tables
        figures["games"] += summary.games_completed
        figures["bots"] += summary.bots_expected
        figures["bots_finished"] += summary.bots_finished
        figures["rejoins"] += summary.rejoins
        figures["errors"] += summary.errors
        figures["error_messages"] += summary.error_messages[:max(0, 5 - len(figures["error_messages"]))]
        if summary.refusal is not None and len(figures["refusals"]) < 3:
            figures["refusals"].append(list(summary.refusal))
        waits += summary.join_waits_s
        if summary.seated_at_s:
            spans.append(max(summary.seated_at_s))
    elapsed = time.monotonic() - started
    seated_tables = figures["tables"] if spans else 0
    return {**figures, "elapsed_s": round(elapsed, 1), "moves": stats.moves,
            "moves_per_s": round(stats.moves / max(elapsed, 1e-9), 1),
            "move_p50_ms": round(stats.percentile_ms(50), 2), "move_p99_ms": round(stats.percentile_ms(99), 2),
            "join_wait_p50_ms": round(_nearest_rank(waits, 50) * 1000, 1),
            "join_wait_p99_ms": round(_nearest_rank(waits, 99) * 1000, 1),
            "seating_s": [round(span, 3) for span in spans],
            "tables_seated_per_s": round(seated_tables / sum(spans), 1) if spans else 0.0}


async def honest(target: str, tables: int) -> int:
    """As a benchmark child: ready, then a window of rounds from each "go"
    line ({"go": LABEL, "seed": N}) until the next line, its figures printed."""
    lines = _stdin_lines(asyncio.get_running_loop())
    print(json.dumps({"ready": True}), flush=True)
    while True:
        command = await lines.get()
        if command.get("quit"):
            return 0
        stop = asyncio.Event()
        window = asyncio.ensure_future(honest_window(target, tables, int(command.get("seed", 0)), stop))
        told = asyncio.ensure_future(lines.get())
        await asyncio.wait([window, told], return_when=asyncio.FIRST_COMPLETED)
        stop.set()
        figures = await window
        print(json.dumps({"label": command.get("go"), **figures}), flush=True)
        if (await told).get("quit"):
            return 0


# -- the host's memory, read from the benchmark's process --------------------------------


def host_processes(host: HostUnderTest) -> list[tuple[int, str]]:
    """The host's process tree by kind, tournaments' actors apart from the rest of Ray."""
    return [(pid, "tournaments" if kind == "ray" and cmdline(pid).startswith("ray::TournamentActor") else kind)
            for pid, kind in host.processes()]


# Ray's own daemons in the host's tree (the GCS, the raylet, the dashboard
# and its agents, the log monitor), apart from the processes that run the
# host's code (the front door, the lobby, rooms, tournaments, and the Ray
# workers that become them): a call of the host's reaches them only as
# Ray's bookkeeping, such as the GCS's task events.
HOST_GROUP, RAY_DAEMONS = "host", "ray_daemons"


def memory_group(kind: str, name: str) -> str:
    if kind != "ray" or name.startswith("ray::") or name == "default_worker.py":
        return HOST_GROUP
    return RAY_DAEMONS


def _pss_mib(processes: list[tuple[int, str]], names: dict[int, str]) -> tuple[dict[str, float], dict[int, float]]:
    """PSS in MiB: in all, by kind and by group; and by PID."""
    reading = read_processes(processes, memory=True)
    totals: dict[str, float] = {"total": reading.total("pss") / MIB, HOST_GROUP: 0.0, RAY_DAEMONS: 0.0}
    by_pid: dict[int, float] = {}
    for (pid, kind), process in zip(processes, reading.processes):
        name = names.setdefault(pid, process_name(pid, kind))
        mib = process.pss / MIB
        by_pid[pid] = mib
        totals[kind] = totals.get(kind, 0.0) + mib
        totals[memory_group(kind, name)] += mib
    return {key: round(value, 1) for key, value in totals.items()}, by_pid


def process_name(pid: int, kind: str) -> str:
    """What a process of the host is, for the few that grew most: its kind,
    or for the rest of Ray its program (gcs_server, raylet, a script)."""
    if kind != "ray":
        return kind
    parts = cmdline(pid).split()
    if not parts:
        return f"pid {pid}"
    if parts[0].startswith("ray::"):
        return parts[0]
    script = next((part for part in parts[1:4] if part.endswith(".py")), parts[0])
    return Path(script).name


class PeakMemory:
    """The host tree's PSS (in all, by kind, by group, by process) at its highest while
    the block runs, read every `period_s` by a thread; and the CPU the
    machine's other processes used meanwhile (not this run's: someone
    else's work on a shared machine)."""

    def __init__(self, host: HostUnderTest, period_s: float = 1.0) -> None:
        self.host = host
        self.period_s = period_s
        self.peak: dict[str, float] = {"total": 0.0}
        self.process_peak: dict[int, float] = {}
        self.names: dict[int, str] = {}
        self.foreign = ForeignLoad(os.getpid())
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="peak-memory", daemon=True)

    def _read(self) -> None:
        totals, by_pid = _pss_mib(host_processes(self.host), self.names)
        for pid, mib in by_pid.items():
            self.process_peak[pid] = max(self.process_peak.get(pid, 0.0), mib)
        for key, mib in totals.items():
            self.peak[key] = max(self.peak.get(key, 0.0), mib)

    def _sample(self) -> None:
        ticks = 0
        while True:
            try:
                self._read()
                if ticks % 3 == 0:
                    self.foreign.sample()
            except OSError:
                pass
            ticks += 1
            if self._stop.wait(self.period_s):
                return

    def grew_most(self, before: dict[int, float], count: int = 4) -> list[tuple[str, float]]:
        """The processes (by name, summed) whose peak rose most over `before`."""
        growth: Counter[str] = Counter()
        for pid, peak in self.process_peak.items():
            growth[self.names[pid]] += peak - before.get(pid, 0.0)
        return [(name, round(mib, 1)) for name, mib in growth.most_common(count) if mib >= 1]

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)
        self._read()
        self.foreign.sample()


def host_pss_mib(host: HostUnderTest) -> tuple[dict[str, float], dict[int, float]]:
    """PSS of the host's process tree, in MiB: in all, by kind and by group;
    and each process's, by PID."""
    return _pss_mib(host_processes(host), {})


async def refusal_floor() -> int:
    """As a benchmark child: a bare grpc.aio server that reads each call's
    request and refuses it with RESOURCE_EXHAUSTED, served as the front door
    serves its unary calls (a request read from the call's stream). Flooded
    by the same attacker as the front door, its CPU per call is what a
    refused call costs gRPC and asyncio alone: the floor of the front door's
    own refusals. Prints {"ready": true, "port": N} once it listens on
    127.0.0.1:N; runs until ended."""
    from grpc import aio

    async def refuse(requests: Any, context: Any) -> None:
        await anext(requests, None)
        await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "too many join calls from this client")

    class EveryMethod(grpc.GenericRpcHandler):
        def service(self, handler_call_details: Any) -> Any:
            return grpc.stream_unary_rpc_method_handler(refuse)

    server = aio.server()
    server.add_generic_rpc_handlers((EveryMethod(),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(json.dumps({"ready": True, "port": port}), flush=True)
    await server.wait_for_termination()
    return 0


def door_argv(mode: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "hostbench.door_attacks", mode, *args]


def main(argv: list[str] | None = None) -> int:
    from hostbench.children import raise_nofile_limit

    parser = argparse.ArgumentParser(prog="hostbench.door_attacks")
    modes = parser.add_subparsers(dest="mode", required=True)
    players = modes.add_parser("honest")
    players.add_argument("--target", required=True)
    players.add_argument("--tables", type=int, required=True)
    modes.add_parser("floor")
    attack = modes.add_parser("attack")
    attack.add_argument("kind", choices=sorted(KINDS))
    attack.add_argument("--target", required=True)
    attack.add_argument("--code", default="", help="a private table's code (malformed_joins)")
    attack.add_argument("--organiser-token", default="", help="one organiser's token (tournament_creates)")
    attack.add_argument("--tournament", default="", help="a tournament's id (registrations, crowd)")
    attack.add_argument("--calls", type=int, default=0, help="calls in all (ghost_seats, slowloris)")
    attack.add_argument("--players", type=int, default=CROWD_PLAYERS, help="players to register (crowd)")
    args = parser.parse_args(argv)
    raise_nofile_limit()
    if args.mode == "honest":
        return asyncio.run(honest(args.target, args.tables))
    if args.mode == "floor":
        return asyncio.run(refusal_floor())
    if not args.calls:
        args.calls = GHOST_CALLS if args.kind == "ghost_seats" else SLOWLORIS_CALLS
    os.nice(ATTACKER_NICENESS)
    return asyncio.run(attack_between_go_and_stop(args.kind, args))


if __name__ == "__main__":
    sys.exit(main())
