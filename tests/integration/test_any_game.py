"""Games beyond Big Two through the real host: seats asked together and out
of turn (the three-seat test game, tests/testgames/trio.py), deadlines taken
by their defaults, per-player join data from JoinQueue to the match header
and a replay, and seat ids that never come from what a player typed."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from conftest import run
from support import close_all, seat_table

from tablehost.actors.room_tables import TableLog
from tablehost.clients.bots import PlayStats, RandomBot, play_seat
from tablehost.clients.sdk import LobbyClient, LobbyError, TableSession
from tablehost.games.engine.match import Command, MatchHeader, replay
from tablehost.v1 import lobby_pb2
from tests.testgames.trio import RULES as TRIO

pytestmark = pytest.mark.integration

LEAGUE_A = {"league": "a"}


async def seat_trio(host, join_data: list[dict], *, code: str | None = None) -> tuple[list, list[TableSession]]:
    lobbies = [LobbyClient(host.target) for _ in join_data]
    if code is None:
        joins = (lobby.join_queue("trio", f"t{i}", join_data=data) for i, (lobby, data) in enumerate(zip(lobbies, join_data)))
    else:
        joins = (lobby.join_private_table(code, f"t{i}", join_data=data)
                 for i, (lobby, data) in enumerate(zip(lobbies, join_data)))
    assignments = await asyncio.gather(*joins)
    sessions = await asyncio.gather(*(TableSession.connect(a, l) for a, l in zip(assignments, lobbies)))
    await asyncio.gather(*(session.wait_dealt(timeout=30) for session in sessions))
    order = sorted(range(len(sessions)), key=lambda i: sessions[i].seat)
    return [lobbies[i] for i in order], [sessions[i] for i in order]


async def table_log(host, table_id: str) -> TableLog:
    rooms = await host.host.lobby.room_handles.remote()
    return await rooms[host.lobby("table_record", table_id).room_id].table_log.remote(table_id)


async def room_state_hash(host, table_id: str) -> str:
    rooms = await host.host.lobby.room_handles.remote()
    status = await rooms[host.lobby("table_record", table_id).room_id].table_status.remote(table_id)
    return status.state_hash


def test_three_seats_asked_together_and_out_of_turn_play_to_the_end_with_every_hash_verified(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_trio(host, [LEAGUE_A, {"league": "a", "mark": "★"}, LEAGUE_A])
        try:
            stats = PlayStats()
            results = await asyncio.gather(*(play_seat(s, RandomBot(seed), stats) for seed, s in enumerate(sessions)))
            log = await table_log(host, sessions[0].table_id)
            state_hash = await room_state_hash(host, sessions[0].table_id)
            return sessions, results, stats, log, state_hash
        finally:
            await close_all(lobbies, sessions)

    sessions, results, stats, log, state_hash = run(scenario())
    assert all(s.desyncs == 0 and s.gaps == 0 for s in sessions) and stats.rejects == 0
    assert len({result.seq for result in results}) == 1 and sum(results[0].scores) in range(-9, 10)
    commands = [Command.from_plain(plain) for plain in log.commands]
    # Every round asks all three seats before anyone's pick is shown: the log
    # has picks from different seats with no other seat's move between them.
    picks = [c.seat for c in commands if c.action["type"] == "pick"]
    assert len(picks) == 9 and sorted(picks) == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    # The match header carries each seat's join data as the game checked it
    # (seats are shuffled, so in some order); a replay of header and commands
    # gives the room's state exactly.
    assert sorted(data["mark"] for data in log.header["join"]) == ["", "", "★"]
    assert all(data["league"] == "a" for data in log.header["join"])
    assert replay(TRIO, MatchHeader.from_plain(log.header), commands).state_hash() == state_hash


def test_requests_whose_deadlines_pass_are_answered_by_their_defaults(host) -> None:
    """Nobody acts at all: the host deals, each round every pick expires to 1
    (so nobody attacks), three rounds of automatic moves, and the game still ends."""

    async def scenario():
        async with LobbyClient(host.target) as creator:
            code = await creator.create_private_table("trio", turn_timeout_ms=150)
        lobbies, sessions = await seat_trio(host, [LEAGUE_A] * 3, code=code)
        try:
            updates = sessions[0].subscribe()
            await asyncio.gather(*(s.wait_game_over(timeout=30) for s in sessions))
            automatic = []
            while not updates.empty():
                update = updates.get_nowait()
                if update.kind == "delta" and update.seq > 1:  # seq 1, the deal, may come before the subscription
                    automatic.append(update.automatic)
            return sessions, automatic
        finally:
            await close_all(lobbies, sessions)

    sessions, automatic = run(scenario())
    assert automatic and all(automatic) and len(automatic) == 9
    assert sessions[0].result.scores == [0, 0, 0] and sessions[0].result.winner == -1


def test_join_data_is_checked_by_the_game_and_queues_seat_only_compatible_players(host) -> None:
    async def scenario():
        async with LobbyClient(host.target) as lobby:
            refused = []
            for data in ({"league": "c"}, {"league": "a", "deck": "x"}, {}):
                try:
                    await lobby.join_queue("trio", "x", join_data=data)
                except LobbyError as error:
                    refused.append((error.code, error.details))
            try:
                await lobby.stub.JoinQueue(lobby_pb2.JoinQueueRequest(game="trio", display_name="x",
                                                                      join_data=b"\xc1 not msgpack"))
            except grpc.aio.AioRpcError as error:
                refused.append((error.code(), error.details()))
        # Three of league a and three of league b, interleaved: two tables, one league each.
        leagues = ["a", "b"] * 3
        lobbies = [LobbyClient(host.target) for _ in leagues]
        try:
            assignments = await asyncio.gather(
                *(l.join_queue("trio", f"m{i}", join_data={"league": league}) for i, (l, league) in enumerate(zip(lobbies, leagues)))
            )
        finally:
            for lobby in lobbies:
                await lobby.close()
        tables = {}
        for assignment, league in zip(assignments, leagues):
            tables.setdefault(assignment.table_id, set()).add(league)
        return refused, tables

    refused, tables = run(scenario())
    assert [code for code, _ in refused] == [grpc.StatusCode.INVALID_ARGUMENT] * 4
    assert "unknown league 'c'" in refused[0][1] and "deck" in refused[1][1] and "not msgpack" in refused[3][1]
    assert len(tables) == 2 and sorted(map(sorted, tables.values())) == [["a"], ["b"]]


def test_two_players_with_one_display_name_get_separate_hands_over_the_wire(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target, names=["ann", "ann", "bob", "ann"])
        try:
            return [sorted(s.view["hand"]) for s in sessions], sessions[0].view
        finally:
            await close_all(lobbies, sessions)

    hands, view = run(scenario())
    assert view["hand_counts"] == [13, 13, 13, 13]
    assert all(len(hand) == 13 for hand in hands)
    assert len({card for hand in hands for card in hand}) == 52
    assert sorted(view["players"]) == ["ann", "ann", "ann", "bob"]


def test_a_seat_count_the_game_cannot_be_played_with_is_refused(host) -> None:
    async def scenario():
        async with LobbyClient(host.target) as lobby:
            with pytest.raises(LobbyError) as refusal:
                await lobby.join_queue("bigtwo", "x", seats=3)
            return refusal.value

    refusal = run(scenario())
    assert refusal.code == grpc.StatusCode.INVALID_ARGUMENT and "4 players, not 3" in refusal.details
