"""Resuming through a faulty network: Big Two tables whose every seat plays
through its own fault proxy (tests/integration/fault_proxy.py) while the
proxies drop, reset, blackhole and delay the seats' connections, at least
200 forced disconnects in all. Every game must end with no gap in any
client's seqs, no act_id taking effect twice, and every client holding the
server's final state. The first tests hold the proxy itself to what it
promises.

Routing: a session connects to its Assignment's endpoint, and after a failed
attempt to the endpoint the lobby's LookupTable names. Each seat gets an
assignment naming its proxy and a lobby client whose `lookup_table` points
the proxy at the endpoint the lobby names and answers the proxy's address,
as a gateway in front of the rooms would: every reconnect goes through the
proxy too, with no change to the SDK.

Noticing: a drop or a reset ends the stream at once and the SDK reconnects
by itself with its last seq, sending again the commits still in flight. A
blackholed stream ends nothing, and the SDK sets no keepalive on its table
channel, so the seat's player notices by a timeout (no request, or no
commit outcome, within STALL_S), drops the session, reconnects and sends its
commit again with the same act_id. While one seat is blackholed its table
waits for it, so its other seats time out too: those restarts are counted
apart ("its table stalled"). New streams dropped again and again before
any message make the SDK give up once its backoff has run through its
connect attempts (SessionDisconnected: a room that accepts and drops at once
must not loop it); the player then calls `reconnect()` itself ("the SDK
gave up").

The fault injector follows each table through a spectator connected to the
room directly (no proxy): on every FAULT_EVERY-th seq it breaks the live
connection of one seat, the seat asked to act (its commit is about to be in
flight) half of the time, with the next fault of FAULT_CYCLE; every other
DELAY_PHASE seqs the table's proxies hold every chunk for DELAY_S, so
faults also catch bytes in flight."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from conftest import run
from fault_proxy import Fault, FaultProxy

from tablehost.clients.bots import RandomBot
from tablehost.clients.codec import view_hash
from tablehost.clients.sdk import CommitOutcome, GameResult, LobbyClient, SessionDisconnected, TableSession, ViewUpdate
from tablehost.games.bigtwo.game import RULES as BIG_TWO
from tablehost.games.engine.match import Command, DEALER_SEAT, MatchHeader, replay
from tablehost.games.engine.views import encode_view
from tablehost.v1 import table_pb2

pytestmark = pytest.mark.integration

TABLES = 8
SEATS = 4
SPECTATOR = -1
# Every table starts with its deal, seq 1, before any move.
DEALT = 1
MIN_FORCED_DISCONNECTS = 200
FAULT_EVERY = 1
FAULT_CYCLE = (Fault.DROP, Fault.RESET, Fault.DROP, Fault.RESET, Fault.DROP, Fault.RESET, Fault.BLACKHOLE)
DELAY_PHASE = 8
DELAY_S = 0.004
STALL_S = 0.75
CONNECT_TIMEOUT_S = 3.0
GAME_TIMEOUT_S = 60.0


# -- the proxy itself --------------------------------------------------------------


async def echo_through_proxy() -> tuple[asyncio.Server, FaultProxy, asyncio.StreamReader, asyncio.StreamWriter]:
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(1024):
            writer.write(data)
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    proxy = await FaultProxy(f"127.0.0.1:{server.sockets[0].getsockname()[1]}").start()
    reader, writer = await asyncio.open_connection(*proxy.address.split(":"))
    writer.write(b"ping")
    assert await asyncio.wait_for(reader.readexactly(4), 5) == b"ping"
    return server, proxy, reader, writer


async def close_echo(server: asyncio.Server, proxy: FaultProxy, writer: asyncio.StreamWriter) -> None:
    writer.close()
    await proxy.close()
    server.close()


def test_the_proxy_forwards_in_order_and_delays_every_chunk() -> None:
    async def scenario() -> tuple[bytes, float]:
        server, proxy, reader, writer = await echo_through_proxy()
        proxy.delay = 0.05
        started = time.monotonic()
        for word in (b"one ", b"two ", b"three"):
            writer.write(word)
        echoed = await asyncio.wait_for(reader.readexactly(13), 5)
        took = time.monotonic() - started
        await close_echo(server, proxy, writer)
        return echoed, took

    echoed, took = run(scenario())
    assert echoed == b"one two three" and took >= 0.1  # held once on the way there, once back


def test_a_dropped_connection_ends_and_a_reset_one_fails_with_a_reset() -> None:
    async def scenario(fault: Fault) -> tuple[bytes | type[BaseException], Counter[Fault]]:
        server, proxy, reader, writer = await echo_through_proxy()
        assert (proxy.latest.drop if fault is Fault.DROP else proxy.latest.reset)()
        try:
            ending: bytes | type[BaseException] = await asyncio.wait_for(reader.read(), 5)
        except ConnectionResetError as error:
            ending = type(error)
        await close_echo(server, proxy, writer)
        return ending, proxy.forced

    assert run(scenario(Fault.DROP)) == (b"", Counter({Fault.DROP: 1}))
    assert run(scenario(Fault.RESET)) == (ConnectionResetError, Counter({Fault.RESET: 1}))


def test_a_blackholed_connection_stays_open_and_forwards_nothing() -> None:
    async def scenario() -> tuple[bool, bool, Counter[Fault]]:
        server, proxy, reader, writer = await echo_through_proxy()
        connection = proxy.latest
        assert connection.blackhole() and not connection.blackhole()  # a second time does nothing
        writer.write(b"anyone?")
        try:
            await asyncio.wait_for(reader.read(1), 0.3)  # nothing may come back, not even an end
            answered = True
        except TimeoutError:
            answered = False
        still_open = not connection.ended.is_set()
        writer.close()  # the client gives up: the proxy ends the other side too
        await asyncio.wait_for(connection.ended.wait(), 5)
        await close_echo(server, proxy, writer)
        return answered, still_open, proxy.forced

    assert run(scenario()) == (False, True, Counter({Fault.BLACKHOLE: 1}))


# -- seating tables behind proxies -------------------------------------------------------


class RoutedLobby(LobbyClient):
    """A lobby client for a client behind a gateway: wherever the lobby says
    the table is served, the client connects to its proxy, which forwards there."""

    def __init__(self, target: str, proxy: FaultProxy) -> None:
        super().__init__(target)
        self.proxy = proxy

    async def lookup_table(self, table_id: str) -> str:
        self.proxy.target = await super().lookup_table(table_id)
        return self.proxy.address


@dataclass
class Seat:
    """One player: its session, its proxy, what it sent and what it saw."""

    session: TableSession
    lobby: RoutedLobby
    proxy: FaultProxy
    updates: asyncio.Queue[ViewUpdate]
    sent: dict[str, Any] = field(default_factory=dict)  # act_id -> action, each act_id once
    outcomes: dict[str, CommitOutcome] = field(default_factory=dict)
    commits_sent_again: int = 0  # by the player, after a restart
    restarts: Counter[str] = field(default_factory=Counter)
    stream: StreamCheck | None = None  # what its updates showed, once the game is over


@dataclass
class TableRun:
    table_id: str
    room: Any  # the room actor's handle
    seats: list[Seat]  # by seat
    spectator: TableSession
    witness: asyncio.Queue[ViewUpdate]
    log: dict[str, Any] | None = None
    status: dict[str, Any] | None = None
    witnessed: StreamCheck | None = None


async def seat_table(host, number: int) -> TableRun:
    """Four players at a private table, each through a proxy of its own,
    and a spectator connected to the room directly; nobody has moved yet."""
    async with LobbyClient(host.target) as creator:
        code = await creator.create_private_table("bigtwo")
    proxies = [FaultProxy("") for _ in range(SEATS)]  # pointed at the room once it is known
    lobbies = [RoutedLobby(host.target, proxy) for proxy in proxies]
    joins = (lobby.join_private_table(code, f"fp{number}-{i}") for i, lobby in enumerate(lobbies))
    assignments = await asyncio.gather(*joins)
    seats = []
    for assignment, lobby, proxy in zip(assignments, lobbies, proxies):
        proxy.target = assignment.endpoint
        await proxy.start()
        routed = dataclasses.replace(assignment, endpoint=proxy.address)
        session = await TableSession.connect(routed, lobby, connect_timeout=CONNECT_TIMEOUT_S, record=True)
        seats.append(Seat(session, lobby, proxy, session.subscribe()))
    seats.sort(key=lambda seat: seat.session.seat)
    table_id = assignments[0].table_id
    async with LobbyClient(host.target) as watcher:
        spectator = await TableSession.connect(await watcher.spectate(table_id))
    await asyncio.gather(*(session.wait_dealt(timeout=30) for session in [spectator, *(s.session for s in seats)]))
    assert spectator.seq == DEALT and all(seat.session.seq == DEALT for seat in seats), "a move before the players started"
    for seat in seats:
        drain(seat.updates)  # the checks start at the deal, where every client now is
    rooms = await host.host.lobby.room_handles.remote()
    room = rooms[host.lobby("table_record", table_id).room_id]
    return TableRun(table_id, room, seats, spectator, spectator.subscribe())


async def close_table(table: TableRun) -> None:
    for seat in table.seats:
        await seat.session.close()
        await seat.lobby.close()
        await seat.proxy.close()
    await table.spectator.close()


# -- playing through the faults ----------------------------------------------------------


async def restart(seat: Seat, error: Exception) -> None:
    """The player gives up on its stream and opens a new one with its last seq."""
    current = seat.proxy.latest
    if current is not None and current.blackholed:
        # (Also when the SDK had given up meanwhile: the room may end a silent
        # stream first, and the new one meets the blackholed seat's table stalled.)
        why = "noticed its blackhole"
    elif isinstance(error, SessionDisconnected):
        why = "the SDK gave up"  # its new streams kept ending before any message came
    else:
        why = "its table stalled"  # waiting on another seat's blackhole
    seat.restarts[why] += 1
    await seat.session.drop()
    await seat.session.reconnect()


async def commit_until_answered(seat: Seat, act_id: str, action: Any) -> CommitOutcome:
    while True:
        try:
            return await seat.session.commit(action, act_id=act_id, timeout=STALL_S)
        except (TimeoutError, SessionDisconnected) as error:
            await restart(seat, error)
            seat.commits_sent_again += 1


async def play_through_faults(seat: Seat, seed: int) -> GameResult:
    """A random bot's moves until the game ends, each under an act_id of its
    own, restarting the stream whenever it stops answering."""
    bot, session = RandomBot(seed), seat.session
    after_seq = -1
    while True:
        try:
            view = await session.wait_for_request(after_seq=after_seq, timeout=STALL_S)
        except (TimeoutError, SessionDisconnected) as error:
            await restart(seat, error)
            continue
        if view is None:
            assert session.result is not None
            return session.result
        act_id = f"{session.seat}-{len(seat.sent)}"
        action = seat.sent[act_id] = bot.choose(view)
        outcome = seat.outcomes[act_id] = await commit_until_answered(seat, act_id, action)
        assert outcome.accepted, f"seat {session.seat}'s {act_id} refused: {outcome.reason_name} {outcome.message}"
        after_seq = outcome.seq


async def inject_faults(table: TableRun, rnd: random.Random) -> None:
    """Break one seat's connection every FAULT_EVERY seqs until the game ends,
    following the table through the spectator's updates."""
    updates = table.spectator.subscribe()
    cycle = 0
    while (update := await asyncio.wait_for(updates.get(), GAME_TIMEOUT_S)).kind != "game_over":
        if update.kind != "delta":
            continue
        delay = DELAY_S if (update.seq // DELAY_PHASE) % 2 else 0.0
        for seat in table.seats:
            seat.proxy.delay = delay
        if update.seq % FAULT_EVERY:
            continue
        # Only a seat still playing whose stream is up, and only the
        # connection it uses (the last its proxy accepted): one still being
        # opened is the SDK's retry loop's business, an older one has been
        # given up, and a seat told the game is over has nothing to resume.
        targets = [seat for seat in table.seats if seat.session.result is None and seat.session.connected
                   and seat.proxy.latest is not None and seat.proxy.latest.live]
        if not targets:
            continue
        to_act = [seat for seat in targets if seat.session.seat == update.view.get("to_act")]
        connection = (to_act[0] if to_act and rnd.random() < 0.5 else rnd.choice(targets)).proxy.latest
        fault = FAULT_CYCLE[cycle % len(FAULT_CYCLE)]
        if {Fault.DROP: connection.drop, Fault.RESET: connection.reset, Fault.BLACKHOLE: connection.blackhole}[fault]():
            cycle += 1
    for seat in table.seats:
        seat.proxy.delay = 0.0


async def play_table(table: TableRun, seed: int) -> list[GameResult]:
    """Play the table to its end under faults; read its log and state from
    the room as soon as the game is over (it closes after its linger time)."""
    players = [asyncio.ensure_future(play_through_faults(seat, seed * SEATS + i)) for i, seat in enumerate(table.seats)]
    injector = asyncio.ensure_future(inject_faults(table, random.Random(seed)))
    try:
        while not injector.done():  # a player that fails stops the table at once
            done, _ = await asyncio.wait([injector, *players], timeout=GAME_TIMEOUT_S,
                                         return_when=asyncio.FIRST_COMPLETED)
            if not done:
                raise TimeoutError(f"table {table.table_id} did not finish within {GAME_TIMEOUT_S:g}s")
            for task in done:
                task.result()
        table.log, table.status = await asyncio.gather(
            table.room.table_log.remote(table.table_id), table.room.table_status.remote(table.table_id)
        )
        return list(await asyncio.wait_for(asyncio.gather(*players), GAME_TIMEOUT_S))
    finally:
        for task in [injector, *players]:
            task.cancel()
        await asyncio.gather(injector, *players, return_exceptions=True)


# -- the tests through the host ---------------------------------------------------------


def test_a_session_restarted_after_a_blackhole_gets_a_connection_of_its_own(host) -> None:
    """gRPC lets the channels of a process share one connection per target:
    a session reopened after its connection went silent must not be handed
    that same dead connection again."""

    async def scenario() -> tuple[bool, list[GameResult]]:
        table = await seat_table(host, 100)
        try:
            seat = table.seats[0]
            silent = seat.proxy.latest
            assert silent is not None and silent.blackhole()
            await seat.session.drop()
            await seat.session.reconnect()
            reopened = seat.proxy.latest is not silent and seat.proxy.latest.live
            if not reopened:
                return False, []
            players = (play_through_faults(s, i) for i, s in enumerate(table.seats))
            return True, await asyncio.wait_for(asyncio.gather(*players), GAME_TIMEOUT_S)
        finally:
            await close_table(table)

    reopened, results = run(scenario())
    assert reopened, "the reopened stream went out on the blackholed connection again"
    assert len(results) == SEATS and len({tuple(result.scores) for result in results}) == 1


@pytest.mark.slow
def test_games_resume_through_hundreds_of_forced_disconnects_without_gaps_or_duplicate_effects(host) -> None:
    async def scenario() -> tuple[list[TableRun], list[list[GameResult]], float]:
        tables: list[TableRun] = []
        try:
            for number in range(TABLES):
                tables.append(await seat_table(host, number))
            started = time.monotonic()
            results = await asyncio.gather(*(play_table(table, 1000 + n) for n, table in enumerate(tables)))
            return tables, results, time.monotonic() - started
        finally:
            for table in tables:
                await close_table(table)

    tables, results, elapsed = run(scenario(), timeout=150)
    for table in tables:
        table.witnessed = check_stream(drain(table.witness))
        for seat in table.seats:
            seat.stream = check_stream(drain(seat.updates))

    figures = summarize(tables, elapsed)
    print("fault proxy figures:", json.dumps(figures))
    assert figures["forced_disconnects"] >= MIN_FORCED_DISCONNECTS, figures
    # Blackholes happened and were noticed (a blackholed seat is the one asked to act:
    # its game finishes, checked below, only once the seat is back). Most are
    # noticed by the player's timeout; a room may end a silent stream first.
    assert figures["player_restarts"].get("noticed its blackhole", 0) > 0, figures
    assert figures["forced"].get("blackhole", 0) >= figures["player_restarts"]["noticed its blackhole"], figures
    for table, table_results in zip(tables, results):
        check_table(table, table_results)


def check_table(table: TableRun, results: list[GameResult]) -> None:
    """Assert every property of one table's game."""
    tid = table.table_id
    assert table.log is not None and table.status is not None, f"table {tid} closed before its log was read"
    commands = [Command.from_plain(plain) for plain in table.log.commands]
    final_seq = table.status.seq

    # Every game finished, with the same result for every client.
    assert table.status.over and len(commands) == final_seq
    assert len({(tuple(r.scores), r.winner) for r in results}) == 1
    assert table.spectator.result is not None and table.spectator.result.scores == results[0].scores
    # GameOver comes after the game's last delta, naming its seq.
    # (A stream saying hello while the last command was in flight once got
    # GameOver before that command's delta: GameOver waits for it now.)
    assert [result.seq for result in results] == [final_seq] * len(results), (tid, final_seq, results)
    assert table.spectator.result.seq == final_seq

    # 0 gaps: every client's deltas applied each on the seq it expected, from
    # the deal (seq 1) to the end.
    witness = table.witnessed
    streams = {seat.session.seat: seat.stream for seat in table.seats}
    assert witness is not None and all(stream is not None for stream in streams.values())
    clients = [("spectator", witness, table.spectator)]
    clients += [(f"seat {seat.session.seat}", streams[seat.session.seat], seat.session) for seat in table.seats]
    for name, check, session in clients:
        assert not check.gaps and session.gaps == 0, f"table {tid} {name}: gaps {check.gaps}, SDK: {session.gaps}"
        assert session.desyncs == 0, f"table {tid} {name}: {session.desyncs} desyncs"
        # A resync is a snapshot after the deal: the answer to a reconnect
        # still at its seq, or one a gap or a desync explains (there are none).
        assert check.other_resyncs == session.gaps + session.desyncs == 0, (
            f"table {tid} {name}: {check.other_resyncs} resyncs after the deal"
        )
    assert sorted(witness.act_ids) == list(range(DEALT + 1, final_seq + 1)) and witness.resyncs_at_the_deal == 0
    for seat, check in streams.items():
        assert all(witness.act_ids[seq] == act_id for seq, act_id in check.act_ids.items()), f"seat {seat}: act_ids"

    # 0 duplicate effects: each seq of the room's log is one command; a
    # player's command carries one of the act_ids its seat sent, with the
    # action sent under it, and no act_id takes effect at two seqs.
    applied: dict[str, int] = {}
    assert commands[0].seat == DEALER_SEAT, f"table {tid}: the log does not start with the deal"
    for seq, command in enumerate(commands[DEALT:], start=DEALT + 1):
        act_id = witness.act_ids[seq]
        if command.automatic:
            assert act_id == "", f"table {tid} seq {seq}: a timer's move carries act_id {act_id!r}"
            continue
        assert act_id not in applied, f"table {tid}: act_id {act_id} took effect at seqs {applied[act_id]} and {seq}"
        applied[act_id] = seq
        assert table.seats[command.seat].sent.get(act_id) == command.action, (
            f"table {tid} seq {seq}: {command} is not what {act_id} sent"
        )
    for seat in table.seats:
        mine = {act_id: seq for act_id, seq in applied.items() if act_id.startswith(f"{seat.session.seat}-")}
        assert mine == {act_id: outcome.seq for act_id, outcome in seat.outcomes.items()}, (
            f"table {tid} seat {seat.session.seat}: the log and the outcomes the player got disagree"
        )
        assert set(mine) == set(seat.sent), f"table {tid} seat {seat.session.seat}: a sent act_id never took effect"
        # A commit sent again after it had taken effect is answered with the
        # seq that applied it, not applied again.
        for act_id, seq in accepted_answers(seat.session):
            assert applied.get(act_id) == seq, f"table {tid}: Accepted({act_id}, {seq}), applied {applied.get(act_id)}"

    # The final state each client holds is the server's: the log replayed
    # gives the room's state hash, and each viewer's view of it the client's.
    assert replay(BIG_TWO, MatchHeader.from_plain(table.log.header), commands).state_hash() == table.status.state_hash
    for name, _, session in clients:
        assert session.seq == final_seq, f"table {tid} {name}: {session.seq}"
        at_its_seq = replay(BIG_TWO, MatchHeader.from_plain(table.log.header), commands[: session.seq])
        viewer = None if session.seat == SPECTATOR else session.seat
        assert view_hash(session.view) == encode_view(at_its_seq.view(viewer)).hash, (
            f"table {tid} {name} holds another view than the server's at seq {session.seq}"
        )


# -- what the clients saw ------------------------------------------------------------------


def drain(queue: asyncio.Queue[ViewUpdate]) -> list[ViewUpdate]:
    updates = []
    while not queue.empty():
        updates.append(queue.get_nowait())
    return updates


@dataclass
class StreamCheck:
    """One client's updates after the deal (seq 1), which every client had
    seen when the checks began: each delta must apply on the seq it
    expects. A later snapshot is a resync: one that answers a reconnect made
    still at the deal's seq is the protocol's; any other must be explained
    by a gap or a desync."""

    gaps: list[str] = field(default_factory=list)
    resyncs_at_the_deal: int = 0
    other_resyncs: int = 0
    act_ids: dict[int, str] = field(default_factory=dict)  # seq -> act_id of its delta


def check_stream(updates: list[ViewUpdate]) -> StreamCheck:
    check, seq = StreamCheck(), DEALT
    for update in updates:
        if update.kind == "delta":
            if update.seq != seq + 1:
                check.gaps.append(f"delta {update.seq} applied on seq {seq}")
            check.act_ids[update.seq] = update.act_id
            seq = update.seq
        elif update.kind == "snapshot":
            if seq == DEALT:
                check.resyncs_at_the_deal += 1
            else:
                check.other_resyncs += 1
            seq = update.seq
    return check


def accepted_answers(session: TableSession) -> list[tuple[str, int]]:
    """(act_id, seq) of every Accepted the session received: the room's
    answer to a commit sent again after it had taken effect."""
    messages = (table_pb2.ServerMessage.FromString(raw) for raw in session.received)
    return [(m.accepted.act_id, m.accepted.seq) for m in messages if m.WhichOneof("kind") == "accepted"]


def summarize(tables: list[TableRun], elapsed: float) -> dict[str, Any]:
    forced: Counter[str] = Counter()
    restarts: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    for table in tables:
        counts["seqs"] += table.status.seq if table.status else 0
        counts["automatic_moves"] += table.status.automatic_moves if table.status else 0
        for seat in table.seats:
            forced.update({fault.value: count for fault, count in seat.proxy.forced.items()})
            restarts.update(seat.restarts)
            counts["connections"] += seat.proxy.accepted
            counts["delayed_chunks"] += seat.proxy.delayed_chunks
            counts["reconnects"] += seat.session.reconnects
            counts["commits_sent_again_by_players"] += seat.commits_sent_again
            counts["resent_commits_answered_accepted"] += len(accepted_answers(seat.session))
            counts["resyncs_at_the_deal"] += seat.stream.resyncs_at_the_deal if seat.stream else 0
            counts["other_resyncs"] += seat.stream.other_resyncs if seat.stream else 0
            counts["gaps"] += seat.session.gaps
            counts["desyncs"] += seat.session.desyncs
    return {
        "tables": len(tables),
        "forced_disconnects": sum(forced.values()),
        "forced": dict(forced),
        "player_restarts": dict(restarts),
        **counts,
        "seconds": round(elapsed, 1),
    }
