"""Hosted tournaments through the real host: the front door's Tournaments
service, a tournament actor per tournament, tables opened through the
lobby's placement and played by bots over gRPC, results collected from the
rooms; bad requests refused with their reasons; a tournament actor killed
mid-round resumes with nothing lost or counted twice; the CLI's simulation.

Only organisers the operator issued a token to create tournaments, at most
the host's cap of them unfinished at once; a tournament not started in time
expires and its process ends; a finished tournament's process ends too and
its log answers for it; standings and results come a page at a time."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from collections import Counter

import grpc
import psutil
import pytest
import ray
from conftest import TOKEN_SECRET, run
from support import kill, wait_until
from test_cli import ROOT, TABLEHOST

from tablehost.actors.store.event_log import open_event_log
from tablehost.actors.tournament.actor import RELEASE_AFTER_S, tournament_actor_name
from tablehost.clients.bots import PlayStats, RandomBot
from tablehost.clients.sdk import LobbyClient
from tablehost.clients.tournament import TournamentClient, play_tournament
from tablehost.host.organisers import (REGISTRY_CACHE_S, Organiser, OrganiserClaim, OrganiserRegistry, now_ms,
                                       sign_organiser_token)
from tablehost.v1 import tournament_pb2 as pb

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DECK = {"deck": "mage-basic"}
DAY_MS = 24 * 3600 * 1000


def registry(host) -> OrganiserRegistry:
    """The host's registry of organisers, as the operator's tools reach it."""
    return OrganiserRegistry(open_event_log(host.host.config.store))


def issue(host, name: str, valid_for_ms: int = DAY_MS, at_ms: int | None = None) -> tuple[str, Organiser]:
    return registry(host).issue(host.host.config.token_secret, name, valid_for_ms,
                                now_ms() if at_ms is None else at_ms)


@pytest.fixture(scope="module")
def token(host) -> str:
    """An organiser token for the tests that play tournaments."""
    return issue(host, "tournament tests")[0]


def tournaments_in_store(host) -> set[str]:
    return {name for name in open_event_log(host.host.config.store).names() if name.startswith("t-")}


def actor_gone(tournament_id: str) -> bool:
    try:
        ray.get_actor(tournament_actor_name(tournament_id))
        return False
    except ValueError:
        return True


def process_gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


async def play_all(client: TournamentClient, lobby: LobbyClient, tournament_id: str,
                   keys: dict[str, str]) -> list:
    stats = PlayStats()
    return await asyncio.gather(*(play_tournament(client, lobby, tournament_id, player, key, RandomBot(index), stats)
                                  for index, (player, key) in enumerate(keys.items())))


async def register(client: TournamentClient, tournament_id: str, players: list[str], join=None) -> dict[str, str]:
    registrations = await asyncio.gather(*(client.register(tournament_id, p, join) for p in players))
    return {r.player: r.player_key for r in registrations}


def check_complete(status: pb.TournamentStatus, results: pb.TournamentResults, rounds: int, tables_per_round: int,
                   players: int, points_per_table: float) -> None:
    assert status.state == "finished", status
    table_ids = [r.table_id for r in results.results]
    assert len(table_ids) == len(set(table_ids)) == rounds * tables_per_round
    assert Counter(r.round for r in results.results) == {n: tables_per_round for n in range(1, rounds + 1)}
    assert not any(any(r.forfeited) for r in results.results)
    assert status.games_played == rounds * tables_per_round
    # Standings are the sum of the results (byes score 1 in Swiss).
    total = sum(s.points for s in status.standings)
    assert total == pytest.approx(rounds * tables_per_round * points_per_table + len(results.byes_player))
    assert len(status.standings) == players


def test_a_swiss_duel_tournament_plays_every_round_through_the_host(host, token) -> None:
    async def scenario():
        async with TournamentClient(host.target, organiser_token=token) as client, LobbyClient(host.target) as lobby:
            created = await client.create("swiss duel", "duel", "swiss", rounds=3)
            players = [f"duelist-{i}" for i in range(7)]
            keys = await register(client, created.tournament_id, players, DECK)
            playing = asyncio.ensure_future(play_all(client, lobby, created.tournament_id, keys))
            await client.start(created.tournament_id, created.organiser_key)
            reports = await asyncio.wait_for(playing, 300)
            status = await client.full_status(created.tournament_id)
            results = await client.all_results(created.tournament_id)
            pages = await _result_pages(client, created.tournament_id, 4)
            # Its process ends soon after it finished; its log answers the same from then on.
            await wait_until(lambda: actor_gone(created.tournament_id), timeout=RELEASE_AFTER_S + 30)
            logged = (await client.full_status(created.tournament_id), await client.all_results(created.tournament_id))
            return reports, status, results, pages, logged

    reports, status, results, pages, logged = run(scenario(), timeout=420)
    check_complete(status, results, rounds=3, tables_per_round=3, players=7, points_per_table=1.0)
    assert len(results.byes_player) == len(set(results.byes_player)) == 3  # 7 players: a bye a round, never twice
    assert sorted(len(r.tables) + len(r.byes) for r in reports) == [3] * 7
    # Every table a player was told of is one whose result counts.
    assert {t for r in reports for t in r.tables} == {r.table_id for r in results.results}
    # Results a page at a time: in the order recorded, each once, the byes with the last page.
    assert [len(page.results) for page in pages] == [4, 4, 1]
    assert [r for page in pages for r in page.results] == list(results.results)
    assert [len(page.byes_player) for page in pages] == [0, 0, 3] and pages[-1].results_total == 9
    assert logged == (status, results)


async def _result_pages(client: TournamentClient, tournament_id: str, size: int) -> list[pb.TournamentResults]:
    pages = [await client.results(tournament_id, size)]
    while pages[-1].next_page_token:
        pages.append(await client.results(tournament_id, size, pages[-1].next_page_token))
    return pages


def test_a_big_two_table_round_tournament_seats_four_to_a_table(host, token) -> None:
    async def scenario():
        async with TournamentClient(host.target, organiser_token=token) as client, LobbyClient(host.target) as lobby:
            created = await client.create("big two", "bigtwo", "table_rounds", rounds=2, seats=4)
            keys = await register(client, created.tournament_id, [f"bt-{i}" for i in range(8)])
            playing = asyncio.ensure_future(play_all(client, lobby, created.tournament_id, keys))
            await client.start(created.tournament_id, created.organiser_key)
            await asyncio.wait_for(playing, 300)
            status = await client.status(created.tournament_id)
            results = await client.all_results(created.tournament_id)
            return status, results

    status, results = run(scenario(), timeout=360)
    # A 4-seat table shares out 3 + 2 + 1 + 0 points.
    check_complete(status, results, rounds=2, tables_per_round=2, players=8, points_per_table=6.0)
    assert all(len(r.players) == 4 for r in results.results)


def test_bad_requests_are_refused_with_their_reasons_and_change_nothing(host, token) -> None:
    async def scenario():
        async with TournamentClient(host.target, organiser_token=token) as client:
            refusals = {}

            async def refused(name, call):
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await call
                refusals[name] = (caught.value.code(), caught.value.details())

            await refused("unknown game", client.create("x", "chess", "swiss"))
            await refused("swiss of four", client.create("x", "bigtwo", "swiss"))
            await refused("too many rounds", client.create("x", "duel", "swiss", rounds=65))
            await refused("waits too long", client.create("x", "duel", "swiss", start_within_s=24 * 3600 + 1))
            created = await client.create("checks", "duel", "swiss", rounds=2, start_within_s=120)
            tid = created.tournament_id
            await client.register(tid, "alice", DECK)
            await refused("again", client.register(tid, "alice", DECK))
            await refused("bad deck", client.register(tid, "bob", {"deck": "no-such-deck"}))
            await refused("bad id", client.register(tid, "bob smith!", DECK))
            await refused("no tournament", client.register("t-0000000000000000", "bob", DECK))
            await refused("not an id", client.status("../etc"))
            await refused("wrong key", client.start(tid, "not-the-key"))
            await refused("alone", client.start(tid, created.organiser_key))
            await refused("watch with a wrong key", _first_event(client, tid, "alice", "wrong"))
            status = await client.status(tid)
            return refusals, status

    refusals, status = run(scenario(), timeout=60)
    codes = {name: code for name, (code, _) in refusals.items()}
    assert codes == {
        "unknown game": grpc.StatusCode.INVALID_ARGUMENT, "swiss of four": grpc.StatusCode.INVALID_ARGUMENT,
        "too many rounds": grpc.StatusCode.INVALID_ARGUMENT, "again": grpc.StatusCode.FAILED_PRECONDITION,
        "waits too long": grpc.StatusCode.INVALID_ARGUMENT,
        "bad deck": grpc.StatusCode.INVALID_ARGUMENT, "bad id": grpc.StatusCode.INVALID_ARGUMENT,
        "no tournament": grpc.StatusCode.NOT_FOUND, "not an id": grpc.StatusCode.INVALID_ARGUMENT,
        "wrong key": grpc.StatusCode.PERMISSION_DENIED, "alone": grpc.StatusCode.FAILED_PRECONDITION,
        "watch with a wrong key": grpc.StatusCode.PERMISSION_DENIED,
    }
    assert "no-such-deck" in refusals["bad deck"][1]
    assert status.state == "registering" and status.players == 1 and status.round == 0


async def _first_event(client: TournamentClient, tournament_id: str, player: str, key: str):
    async for event in client.watch(tournament_id, player, key):
        return event


def test_a_tournament_actor_killed_mid_round_resumes_and_counts_every_result_once(host, token) -> None:
    async def scenario():
        async with TournamentClient(host.target, organiser_token=token) as client, LobbyClient(host.target) as lobby:
            created = await client.create("survivor", "duel", "swiss", rounds=3)
            tid = created.tournament_id
            keys = await register(client, tid, [f"s-{i}" for i in range(8)], DECK)
            playing = asyncio.ensure_future(play_all(client, lobby, tid, keys))
            await client.start(tid, created.organiser_key)
            actor = ray.get_actor(tournament_actor_name(tid))
            kills = 0
            for round_number in (1, 2):
                # Some of this round's results are in. Usually the round's other tables are still open; bots
                # can finish all four between two polls, so a later round counts too rather than waiting for
                # a moment that has passed.
                await wait_until(lambda: _reached(actor, round_number, games_played=(round_number - 1) * 4 + 1),
                                 timeout=120)
                pid = await asyncio.wait_for(actor.pid.remote(), 30)
                kill(pid)
                kills += 1
                await wait_until(lambda: _alive_with_new_pid(actor, pid), timeout=60)
            await asyncio.wait_for(playing, 300)
            status = await client.status(tid)
            results = await client.all_results(tid)
            return kills, status, results

    kills, status, results = run(scenario(), timeout=420)
    assert kills == 2
    check_complete(status, results, rounds=3, tables_per_round=4, players=8, points_per_table=1.0)


async def _reached(actor, round_number: int, games_played: int) -> bool:
    """Whether the tournament is in `round_number` (or later) with at least `games_played` results, asked
    without blocking the loop the players' bots run on. One status read, so round and count agree."""
    try:
        status = await asyncio.wait_for(actor.status.remote(), 10)
    except (ray.exceptions.RayActorError, asyncio.TimeoutError):
        return False
    return status.round >= round_number and status.games_played >= games_played


async def _alive_with_new_pid(actor, old_pid: int) -> bool:
    try:
        return await asyncio.wait_for(actor.pid.remote(), 5) != old_pid
    except (ray.exceptions.RayActorError, asyncio.TimeoutError):
        return False


def test_the_cli_simulates_a_tournament_and_exports_its_results(host, token, tmp_path) -> None:
    out = tmp_path / "out"
    ran = subprocess.run(
        [*TABLEHOST, "tournament", "simulate", "--target", host.target, "--players", "6", "--game", "duel",
         "--format", "round_robin", "--no-progress", "--out", str(out), "--organiser-token", token],
        cwd=ROOT, capture_output=True, text=True, timeout=400, env={**os.environ},
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    summary = json.loads(ran.stdout.strip().splitlines()[-1])
    # Round robin of 6: 5 rounds of 3 tables, everyone meets everyone once.
    assert summary["rounds"] == 5 and summary["games"] == 15 and summary["forfeited_tables"] == 0
    exported = json.loads((out / "results.json").read_text())
    pairs = Counter(frozenset(r["players"]) for r in exported["results"])
    assert len(pairs) == 15 and set(pairs.values()) == {1}
    assert (out / "standings.csv").read_text().splitlines()[0].startswith("place,player,points")
    csv_rows = (out / "results.csv").read_text().splitlines()
    assert len(csv_rows) == 1 + 15 * 2


def test_a_player_who_never_comes_forfeits_after_the_no_show_window(host, token) -> None:
    async def scenario():
        async with TournamentClient(host.target, organiser_token=token) as client, LobbyClient(host.target) as lobby:
            created = await client.create("no-shows", "duel", "swiss", rounds=1, no_show_after_s=3)
            tid = created.tournament_id
            keys = await register(client, tid, [f"n-{i}" for i in range(4)], DECK)
            absent = "n-3"
            present = {player: key for player, key in keys.items() if player != absent}
            playing = asyncio.ensure_future(play_all(client, lobby, tid, present))
            await client.start(tid, created.organiser_key)
            reports = await asyncio.wait_for(playing, 300)
            status = await client.status(tid)
            results = await client.all_results(tid)
            return reports, status, results

    reports, status, results = run(scenario(), timeout=360)
    assert status.state == "finished" and len(results.results) == 2
    by_absent = [r for r in results.results if "n-3" in r.players]
    assert len(by_absent) == 1
    table = by_absent[0]
    seat = list(table.players).index("n-3")
    assert list(table.forfeited) == [s == seat for s in range(2)]
    assert table.points[seat] == 0 and table.points[1 - seat] == 1 and table.places[1 - seat] == 0
    played = [r for r in results.results if "n-3" not in r.players][0]
    assert not any(played.forfeited) and sorted(played.points) == [0.0, 1.0]
    # The player who came was told of its table, played what there was, and saw the end.
    assert all(report.final is not None and report.final.state == "finished" for report in reports)


def test_a_four_seat_game_goes_on_without_its_no_show_who_forfeits_it(host, token) -> None:
    async def scenario():
        async with TournamentClient(host.target, organiser_token=token) as client, LobbyClient(host.target) as lobby:
            created = await client.create("late", "bigtwo", "table_rounds", rounds=1, seats=4, turn_timeout_ms=300,
                                          no_show_after_s=2)
            tid = created.tournament_id
            keys = await register(client, tid, [f"b-{i}" for i in range(4)])
            present = {player: key for player, key in keys.items() if player != "b-0"}
            playing = asyncio.ensure_future(play_all(client, lobby, tid, present))
            await client.start(tid, created.organiser_key)
            await asyncio.wait_for(playing, 300)
            return await client.all_results(tid)

    results = run(scenario(), timeout=360)
    assert len(results.results) == 1
    table = results.results[0]
    seat = list(table.players).index("b-0")
    # The game was played out (the timers passed for the absent seat); only it forfeits.
    assert list(table.forfeited) == [s == seat for s in range(4)]
    assert table.points[seat] == 0 and table.places[seat] == 3
    assert sum(p for s, p in enumerate(table.points) if s != seat) > 0


def test_a_withdrawn_player_is_never_paired_and_stays_in_the_standings_as_withdrawn(host, token) -> None:
    async def scenario():
        async with TournamentClient(host.target, organiser_token=token) as client, LobbyClient(host.target) as lobby:
            created = await client.create("withdrawals", "duel", "swiss", rounds=2)
            tid = created.tournament_id
            keys = await register(client, tid, [f"w-{i}" for i in range(5)], DECK)
            with pytest.raises(grpc.aio.AioRpcError) as wrong_key:
                await client.withdraw(tid, "w-4", keys["w-0"])
            await client.withdraw(tid, "w-4", keys["w-4"])
            staying = {player: key for player, key in keys.items() if player != "w-4"}
            playing = asyncio.ensure_future(play_all(client, lobby, tid, staying))
            await client.start(tid, created.organiser_key)
            await asyncio.wait_for(playing, 300)
            status = await client.status(tid)
            results = await client.all_results(tid)
            return wrong_key.value.code(), status, results

    code, status, results = run(scenario(), timeout=360)
    assert code == grpc.StatusCode.PERMISSION_DENIED
    check_complete(status, results, rounds=2, tables_per_round=2, players=5, points_per_table=1.0)
    assert not any("w-4" in r.players for r in results.results) and "w-4" not in results.byes_player
    assert [s.withdrawn for s in status.standings if s.player == "w-4"] == [True]


# -- organisers, the cap, expiry, paging --------------------------------------------------------


async def _refusal(call) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value.code(), caught.value.details()


def test_creating_a_tournament_needs_a_token_the_operator_issued_and_a_refusal_creates_nothing(host) -> None:
    secret = host.host.config.token_secret
    valid, organiser = issue(host, "Acme Cups")
    expired, _ = issue(host, "Old League", valid_for_ms=DAY_MS, at_ms=now_ms() - 2 * DAY_MS)
    revoked, gone = issue(host, "Gone League")
    registry(host).revoke(gone.organiser_id, now_ms())
    never_issued = sign_organiser_token(secret, OrganiserClaim("0123456789abcdef", "Ghost", now_ms() + DAY_MS))
    forged = sign_organiser_token(b"not the host's secret, but as long", OrganiserClaim(
        organiser.organiser_id, "Acme Cups", now_ms() + DAY_MS))
    payload, signature = valid.split(".")
    tampered = f"{payload[:-2]}{'A' if payload[-2] != 'A' else 'B'}{payload[-1]}.{signature}"

    async def scenario():
        refusals = {}
        before = tournaments_in_store(host)
        for name, given in (("none", ""), ("malformed", "not-a-token"), ("padded", valid + "="), ("forged", forged),
                            ("tampered", tampered), ("expired", expired), ("revoked", revoked),
                            ("never issued", never_issued)):
            async with TournamentClient(host.target, organiser_token=given) as client:
                refusals[name] = await _refusal(client.create("cup", "duel", "swiss"))
        refused_nothing = tournaments_in_store(host) == before
        async with TournamentClient(host.target, organiser_token=valid) as client:
            created = await client.create("cup", "duel", "swiss", start_within_s=60)
            status = await client.status(created.tournament_id)
        return refusals, refused_nothing, created, status

    refusals, refused_nothing, created, status = run(scenario(), timeout=120)
    codes = {name: code for name, (code, _) in refusals.items()}
    unauthenticated, denied = grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED
    assert codes == {"none": unauthenticated, "malformed": unauthenticated, "padded": unauthenticated,
                     "forged": unauthenticated, "tampered": unauthenticated, "expired": denied, "revoked": denied,
                     "never issued": denied}
    assert "needs an organiser token" in refusals["none"][1]
    assert "not issued by this host" in refusals["forged"][1]
    assert "'Old League'" in refusals["expired"][1] and "expired on" in refusals["expired"][1]
    assert "'Gone League'" in refusals["revoked"][1] and "revoked on" in refusals["revoked"][1]
    assert "not in this host's registry" in refusals["never issued"][1]
    assert refused_nothing
    assert created.organiser == status.organiser == "Acme Cups"
    assert now_ms() < created.start_by_ms == status.start_by_ms <= now_ms() + 60_000
    assert created.tournament_id in tournaments_in_store(host)


def test_an_organiser_revoked_after_creating_is_refused_once_front_doors_read_the_registry_again(host) -> None:
    token, organiser = issue(host, "Soon Revoked")

    async def scenario():
        async with TournamentClient(host.target, organiser_token=token) as client:
            await client.create("first", "duel", "swiss", start_within_s=5)
            registry(host).revoke(organiser.organiser_id, now_ms())
            await asyncio.sleep(REGISTRY_CACHE_S + 0.5)  # the bound under test: refused once the cache expired
            return await _refusal(client.create("second", "duel", "swiss", start_within_s=5))

    code, details = run(scenario(), timeout=60)
    assert code == grpc.StatusCode.PERMISSION_DENIED and "revoked" in details


# Short enough to keep the wait for their expiry brief.
CAPPED_START_WITHIN_S = 10


def test_an_organiser_holds_at_most_the_cap_of_unfinished_tournaments_and_an_expired_one_frees_a_place(host) -> None:
    cap = host.host.config.max_tournaments_per_organiser
    token, _ = issue(host, "Busy League")
    other, _ = issue(host, "Quiet League")

    async def create(client: TournamentClient, start_within_s: int):
        try:
            return await client.create("capped", "duel", "swiss", start_within_s=start_within_s)
        except grpc.aio.AioRpcError as error:
            return error.code(), error.details()

    async def scenario():
        async with TournamentClient(host.target, organiser_token=token) as client, \
                TournamentClient(host.target, organiser_token=other) as quiet:
            # Asked all at once (the cap holds however the calls interleave).
            outcomes = await asyncio.gather(*(create(client, CAPPED_START_WITHIN_S) for _ in range(cap + 2)))
            burst_answered_ms = now_ms()
            another_organiser = await create(quiet, 5)
            # Those tournaments are never started: they expire, and places come free.
            attempts = []  # (answered at, epoch ms; the answer)
            while not attempts or isinstance(attempts[-1][1], tuple):
                assert len(attempts) < 240, "no place came free after the tournaments expired"
                answer = await create(client, 5)
                attempts.append((now_ms(), answer))
                await asyncio.sleep(0.5)  # the pace of the retries, not a synchronisation
            return outcomes, burst_answered_ms, another_organiser, attempts

    outcomes, burst_answered_ms, another_organiser, attempts = run(scenario(), timeout=300)
    created = [outcome for outcome in outcomes if isinstance(outcome, pb.TournamentCreated)]
    refused = [outcome for outcome in outcomes if isinstance(outcome, tuple)]
    assert len(created) + len(refused) == cap + 2
    # Exactly the cap, unless the machine was so slow that the first of them
    # expired before the burst was answered: each place one of them freed may
    # have been taken again, never more.
    expired_meanwhile = sum(1 for tournament in created if tournament.start_by_ms <= burst_answered_ms)
    assert cap <= len(created) <= cap + expired_meanwhile
    for code, details in refused:
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert f"has {cap} tournaments not yet finished, the most this host allows ({cap})" in details
    assert isinstance(another_organiser, pb.TournamentCreated)
    # Refused for the cap until a place came free, and it came free only once
    # the first of them had expired.
    *before, (freed_at_ms, freed) = attempts
    assert all(answer[0] == grpc.StatusCode.RESOURCE_EXHAUSTED for _, answer in before)
    assert isinstance(freed, pb.TournamentCreated)
    assert freed_at_ms >= min(tournament.start_by_ms for tournament in created)


def test_a_tournament_not_started_in_time_expires_and_its_process_ends(host, token) -> None:
    async def scenario():
        async with TournamentClient(host.target, organiser_token=token) as client:
            created = await client.create("never started", "duel", "swiss", start_within_s=2)
            tid = created.tournament_id
            await client.register(tid, "alice", DECK)
            pid = ray.get(ray.get_actor(tournament_actor_name(tid)).pid.remote(), timeout=30)

            async def expired() -> bool:
                return (await client.status(tid)).finish_reason == "expired"

            await wait_until(expired, timeout=30, interval=0.2)
            await wait_until(lambda: process_gone(pid) and actor_gone(tid), timeout=RELEASE_AFTER_S + 30)
            status = await client.status(tid)  # from its log now
            refusals = {"register": await _refusal(client.register(tid, "bob", DECK)),
                        "start": await _refusal(client.start(tid, created.organiser_key))}
            events = [event async for event in client.watch(tid)]
            return status, refusals, events

    status, refusals, events = run(scenario(), timeout=120)
    assert (status.state, status.finish_reason, status.players) == ("finished", "expired", 1)
    assert [s.player for s in status.standings] == ["alice"]
    for code, details in refusals.values():
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "has finished: expired" in details
    assert len(events) == 1 and events[0].status.finish_reason == "expired"


def test_paging_gives_every_standing_exactly_once_even_as_players_register_between_pages(host, token) -> None:
    async def scenario():
        async with TournamentClient(host.target, organiser_token=token) as client:
            created = await client.create("crowd", "duel", "swiss", start_within_s=120)
            tid = created.tournament_id
            gate = asyncio.Semaphore(32)

            async def join(player: str) -> None:
                async with gate:  # from one client, whose rate the host limits: it keeps asking
                    await client.register(tid, player, DECK, patient_s=120)

            await asyncio.gather(*(join(f"crowd-{index:03d}") for index in range(250)))
            pages = [await client.status(tid, page_size=100)]
            await asyncio.gather(*(join(f"late-{index}") for index in range(10)))  # the standings change
            while pages[-1].next_page_token:
                pages.append(await client.status(tid, page_size=100, page_token=pages[-1].next_page_token))
            default, widest = await client.status(tid), await client.status(tid, page_size=5000)
            whole = await client.full_status(tid)
            bad = await _refusal(client.status(tid, page_token="not-a-token"))
            return pages, default, widest, whole, bad

    pages, default, widest, whole, bad = run(scenario(), timeout=180)
    assert [len(page.standings) for page in pages] == [100, 100, 50]
    assert [page.standings_total for page in pages] == [250] * 3 and pages[-1].next_page_token == ""
    players = [s.player for page in pages for s in page.standings]
    assert sorted(players) == [f"crowd-{index:03d}" for index in range(250)]  # each once, the late ones not
    assert len(default.standings) == 100 and default.standings_total == 260 and default.next_page_token
    assert len(widest.standings) == 260 and widest.next_page_token == ""  # 5,000 asked, at most 1,000 a page
    assert sorted(s.player for s in whole.standings) == sorted(s.player for s in widest.standings)
    assert bad[0] == grpc.StatusCode.INVALID_ARGUMENT and "page token" in bad[1]


def test_the_operator_issues_lists_and_revokes_organisers_with_the_cli(host) -> None:
    store = host.host.config.store
    env = {key: value for key, value in os.environ.items() if key != "TABLEHOST_ORGANISER_TOKEN"}

    def tablehost(*arguments: str, **more_env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*TABLEHOST, *arguments], capture_output=True, text=True, timeout=120, cwd=ROOT,
                              env={**env, **more_env}, stdin=subprocess.DEVNULL)

    issued = tablehost("organiser", "issue", "CLI League", "--days", "2", "--store", store,
                       TABLEHOST_TOKEN_SECRET=TOKEN_SECRET)
    assert issued.returncode == 0, issued.stderr
    organiser = json.loads(issued.stdout)
    create = ("tournament", "create", "--target", host.target, "--game", "duel", "--start-within", "30")
    created = tablehost(*create, "--organiser-token", organiser["token"])
    assert created.returncode == 0, created.stderr
    assert json.loads(created.stdout)["organiser"] == "CLI League"
    anonymous = tablehost(*create)
    assert anonymous.returncode == 1
    assert anonymous.stderr.startswith("tablehost tournament create: UNAUTHENTICATED: ")
    listed = [json.loads(line) for line in tablehost("organiser", "list", "--store", store, "--json").stdout.splitlines()]
    assert {"id": organiser["id"], "organiser": "CLI League", "status": "valid"}.items() <= next(
        row for row in listed if row["id"] == organiser["id"]).items()
    revoked = tablehost("organiser", "revoke", organiser["id"], "--store", store)
    assert revoked.returncode == 0 and organiser["id"] in revoked.stdout
    time.sleep(REGISTRY_CACHE_S + 0.5)  # the bound under test: a revocation holds once the cache has expired
    refused = tablehost(*create, TABLEHOST_ORGANISER_TOKEN=organiser["token"])
    assert refused.returncode == 1 and refused.stderr.startswith("tablehost tournament create: PERMISSION_DENIED: ")
    listed = [json.loads(line) for line in tablehost("organiser", "list", "--store", store, "--json").stdout.splitlines()]
    assert next(row for row in listed if row["id"] == organiser["id"])["status"] == "revoked"
    unknown = tablehost("organiser", "revoke", "ffffffffffffffff", "--store", store)
    assert unknown.returncode == 1 and "no organiser has the id" in unknown.stderr
    no_secret = tablehost("organiser", "issue", "Nobody", "--store", store)
    assert no_secret.returncode != 0 and "TABLEHOST_TOKEN_SECRET" in no_secret.stderr
