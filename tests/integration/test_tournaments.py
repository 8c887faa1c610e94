"""Hosted tournaments through the real host: the front door's Tournaments
service, a tournament actor per tournament, tables opened through the
lobby's placement and played by bots over gRPC, results collected from the
rooms; bad requests refused with their reasons; a tournament actor killed
mid-round resumes with nothing lost or counted twice; the CLI's simulation."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections import Counter

import grpc
import pytest
import ray
from conftest import run
from support import kill, wait_until
from test_cli import ROOT, TABLEHOST

from tablehost.actors.tournament.actor import tournament_actor_name
from tablehost.clients.bots import PlayStats, RandomBot
from tablehost.clients.sdk import LobbyClient
from tablehost.clients.tournament import TournamentClient, play_tournament
from tablehost.v1 import tournament_pb2 as pb

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DECK = {"deck": "mage-basic"}


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


def test_a_swiss_duel_tournament_plays_every_round_through_the_host(host) -> None:
    async def scenario():
        async with TournamentClient(host.target) as client, LobbyClient(host.target) as lobby:
            created = await client.create("swiss duel", "duel", "swiss", rounds=3)
            players = [f"duelist-{i}" for i in range(7)]
            keys = await register(client, created.tournament_id, players, DECK)
            playing = asyncio.ensure_future(play_all(client, lobby, created.tournament_id, keys))
            await client.start(created.tournament_id, created.organiser_key)
            reports = await asyncio.wait_for(playing, 300)
            status = await client.status(created.tournament_id)
            results = await client.stub.GetResults(pb.GetTournamentRequest(tournament_id=created.tournament_id))
            return reports, status, results

    reports, status, results = run(scenario(), timeout=360)
    check_complete(status, results, rounds=3, tables_per_round=3, players=7, points_per_table=1.0)
    assert len(results.byes_player) == len(set(results.byes_player)) == 3  # 7 players: a bye a round, never twice
    assert sorted(len(r.tables) + len(r.byes) for r in reports) == [3] * 7
    # Every table a player was told of is one whose result counts.
    assert {t for r in reports for t in r.tables} == {r.table_id for r in results.results}


def test_a_big_two_table_round_tournament_seats_four_to_a_table(host) -> None:
    async def scenario():
        async with TournamentClient(host.target) as client, LobbyClient(host.target) as lobby:
            created = await client.create("big two", "bigtwo", "table_rounds", rounds=2, seats=4)
            keys = await register(client, created.tournament_id, [f"bt-{i}" for i in range(8)])
            playing = asyncio.ensure_future(play_all(client, lobby, created.tournament_id, keys))
            await client.start(created.tournament_id, created.organiser_key)
            await asyncio.wait_for(playing, 300)
            status = await client.status(created.tournament_id)
            results = await client.stub.GetResults(pb.GetTournamentRequest(tournament_id=created.tournament_id))
            return status, results

    status, results = run(scenario(), timeout=360)
    # A 4-seat table shares out 3 + 2 + 1 + 0 points.
    check_complete(status, results, rounds=2, tables_per_round=2, players=8, points_per_table=6.0)
    assert all(len(r.players) == 4 for r in results.results)


def test_bad_requests_are_refused_with_their_reasons_and_change_nothing(host) -> None:
    async def scenario():
        async with TournamentClient(host.target) as client:
            refusals = {}

            async def refused(name, call):
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await call
                refusals[name] = (caught.value.code(), caught.value.details())

            await refused("unknown game", client.create("x", "chess", "swiss"))
            await refused("swiss of four", client.create("x", "bigtwo", "swiss"))
            await refused("too many rounds", client.create("x", "duel", "swiss", rounds=65))
            created = await client.create("checks", "duel", "swiss", rounds=2)
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


def test_a_tournament_actor_killed_mid_round_resumes_and_counts_every_result_once(host) -> None:
    async def scenario():
        async with TournamentClient(host.target) as client, LobbyClient(host.target) as lobby:
            created = await client.create("survivor", "duel", "swiss", rounds=3)
            tid = created.tournament_id
            keys = await register(client, tid, [f"s-{i}" for i in range(8)], DECK)
            playing = asyncio.ensure_future(play_all(client, lobby, tid, keys))
            await client.start(tid, created.organiser_key)
            actor = ray.get_actor(tournament_actor_name(tid))
            kills = 0
            for round_number in (1, 2):
                # Mid-round: the round's tables are open and some results are in.
                await wait_until(lambda: _status(actor)["round"] == round_number
                                 and _status(actor)["games_played"] > (round_number - 1) * 4, timeout=120)
                pid = ray.get(actor.pid.remote(), timeout=30)
                kill(pid)
                kills += 1
                await wait_until(lambda: _alive_with_new_pid(actor, pid), timeout=60)
            await asyncio.wait_for(playing, 300)
            status = await client.status(tid)
            results = await client.stub.GetResults(pb.GetTournamentRequest(tournament_id=tid))
            return kills, status, results

    kills, status, results = run(scenario(), timeout=420)
    assert kills == 2
    check_complete(status, results, rounds=3, tables_per_round=4, players=8, points_per_table=1.0)


def _status(actor) -> dict:
    try:
        return ray.get(actor.status.remote(), timeout=10)
    except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError):
        return {"round": -1, "games_played": -1}


def _alive_with_new_pid(actor, old_pid: int) -> bool:
    try:
        return ray.get(actor.pid.remote(), timeout=5) != old_pid
    except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError):
        return False


def test_the_cli_simulates_a_tournament_and_exports_its_results(host, tmp_path) -> None:
    out = tmp_path / "out"
    ran = subprocess.run(
        [*TABLEHOST, "tournament", "simulate", "--target", host.target, "--players", "6", "--game", "duel",
         "--format", "round_robin", "--no-progress", "--out", str(out)],
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


def test_a_player_who_never_comes_forfeits_after_the_no_show_window(host) -> None:
    async def scenario():
        async with TournamentClient(host.target) as client, LobbyClient(host.target) as lobby:
            created = await client.create("no-shows", "duel", "swiss", rounds=1, no_show_after_s=3)
            tid = created.tournament_id
            keys = await register(client, tid, [f"n-{i}" for i in range(4)], DECK)
            absent = "n-3"
            present = {player: key for player, key in keys.items() if player != absent}
            playing = asyncio.ensure_future(play_all(client, lobby, tid, present))
            await client.start(tid, created.organiser_key)
            reports = await asyncio.wait_for(playing, 300)
            status = await client.status(tid)
            results = await client.stub.GetResults(pb.GetTournamentRequest(tournament_id=tid))
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


def test_a_four_seat_game_goes_on_without_its_no_show_who_forfeits_it(host) -> None:
    async def scenario():
        async with TournamentClient(host.target) as client, LobbyClient(host.target) as lobby:
            created = await client.create("late", "bigtwo", "table_rounds", rounds=1, seats=4, turn_timeout_ms=300,
                                          no_show_after_s=2)
            tid = created.tournament_id
            keys = await register(client, tid, [f"b-{i}" for i in range(4)])
            present = {player: key for player, key in keys.items() if player != "b-0"}
            playing = asyncio.ensure_future(play_all(client, lobby, tid, present))
            await client.start(tid, created.organiser_key)
            await asyncio.wait_for(playing, 300)
            return await client.stub.GetResults(pb.GetTournamentRequest(tournament_id=tid))

    results = run(scenario(), timeout=360)
    assert len(results.results) == 1
    table = results.results[0]
    seat = list(table.players).index("b-0")
    # The game was played out (the timers passed for the absent seat); only it forfeits.
    assert list(table.forfeited) == [s == seat for s in range(4)]
    assert table.points[seat] == 0 and table.places[seat] == 3
    assert sum(p for s, p in enumerate(table.points) if s != seat) > 0


def test_a_withdrawn_player_is_never_paired_and_stays_in_the_standings_as_withdrawn(host) -> None:
    async def scenario():
        async with TournamentClient(host.target) as client, LobbyClient(host.target) as lobby:
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
            results = await client.stub.GetResults(pb.GetTournamentRequest(tournament_id=tid))
            return wrong_key.value.code(), status, results

    code, status, results = run(scenario(), timeout=360)
    assert code == grpc.StatusCode.PERMISSION_DENIED
    check_complete(status, results, rounds=2, tables_per_round=2, players=5, points_per_table=1.0)
    assert not any("w-4" in r.players for r in results.results) and "w-4" not in results.byes_player
    assert [s.withdrawn for s in status.standings if s.player == "w-4"] == [True]
