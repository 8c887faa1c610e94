"""The admin plane through the real host: its own listener, an admin token
or UNAUTHENTICATED, tables closed, seats taken and results decided with the
players told why, tournaments paused, resumed, cancelled and a player
removed, every action in the audit log with who, what and why."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from conftest import ADMIN_SECRET, admin_call_metadata, player_token, run
from conftest import admin_token as admin_token_of_tests
from ray_processes import wait_for
from support import (close_all, kill, play_randomly, room_of, rooms_by_id, seat_table, wait_for_quiet_lobby,
                     wait_until)
from test_tournaments import DECK, register, token  # noqa: F401 (token: the module's organiser fixture)

from tablehost.clients.sdk import Assignment, ClosedByAdministrator, LobbyClient, TableSession
from tablehost.clients.tournament import TournamentClient
from tablehost.host.admin_auth import admin_metadata, admin_token
from tablehost.v1 import admin_pb2 as pb
from tablehost.v1 import admin_pb2_grpc

pytestmark = [pytest.mark.integration]

LONG_TURN_MS = 600_000  # nobody's turn ends by the timer while a test looks


def audit_lines(host) -> list[dict]:
    return [json.loads(line) for line in Path(host.host.config.audit_file).read_text().splitlines()]


def audited(host, select, count: int) -> list[dict]:
    """The audit lines `select` keeps, once there are `count` of them: a
    refusal's line is written by the front door's thread as its status goes
    out, so the caller may hear the refusal a moment before the line is there."""
    wait_for(lambda: len([line for line in audit_lines(host) if select(line)]) >= count, 10, "the audit lines")
    return [line for line in audit_lines(host) if select(line)]


async def admin_call(host, method: str, request, metadata=None):
    async with grpc.aio.insecure_channel(host.admin_target) as channel:
        stub = admin_pb2_grpc.AdminStub(channel)
        return await getattr(stub, method)(request, metadata=admin_call_metadata() if metadata is None else metadata,
                                           timeout=30)


async def refusal(call) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await call
    return refused.value.code(), refused.value.details()


async def running_tables(host, game: str = "") -> list[pb.TableSummary]:
    return list((await admin_call(host, "ListTables", pb.ListTablesRequest(game=game, limit=1000))).tables)


def test_calls_without_a_valid_admin_token_are_refused_and_change_nothing(host) -> None:
    now_ms = time.time_ns() // 1_000_000
    forged = admin_token(b"another host's admin secret, not this one's", "mallory", now_ms + 60_000)
    expired = admin_token(ADMIN_SECRET.encode(), "tests", now_ms - 1)

    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        try:
            table_id = sessions[0].table_id
            close = pb.CloseTableRequest(table_id=table_id, reason="should not happen")
            answers = [await refusal(admin_call(host, "CloseTable", close, metadata))
                       for metadata in ((), admin_metadata(forged), admin_metadata(expired),
                                        (("authorization", f"Bearer {player_token('alice')}"),),
                                        (("authorization", "Basic YWRtaW46YWRtaW4="),))]
            status = await refusal(admin_call(host, "Status", pb.StatusRequest(), ()))
            still_running = [t.table_id for t in await running_tables(host)]
            return table_id, answers, status, still_running
        finally:
            await close_all(lobbies, sessions)

    table_id, answers, status, still_running = run(scenario())
    assert all(code == grpc.StatusCode.UNAUTHENTICATED for code, _ in [*answers, status])
    assert "needs an admin token" in answers[0][1] and "not signed with this host's" in answers[1][1]
    assert "expired" in answers[2][1] and "not signed" in answers[3][1] and "not 'Bearer TOKEN'" in answers[4][1]
    assert table_id in still_running
    refused = audited(host, lambda line: line["action"] == "refused", 6)
    assert len(refused) >= 6 and all(line["peer"] and line["why"] for line in refused)


def test_closing_a_table_ends_every_stream_with_the_reason_and_is_audited(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        try:
            table_id = sessions[0].table_id
            listed = [t for t in await running_tables(host, "bigtwo") if t.table_id == table_id]
            done = await admin_call(host, "CloseTable", pb.CloseTableRequest(table_id=table_id,
                                                                             reason="collusion under review"))
            await wait_until(lambda: all(s.failure is not None for s in sessions), timeout=10)
            await wait_until(lambda: _not_listed(host, table_id), timeout=10)
            again = await refusal(admin_call(host, "CloseTable", pb.CloseTableRequest(table_id=table_id,
                                                                                      reason="twice")))
            blank = await refusal(admin_call(host, "CloseTable", pb.CloseTableRequest(table_id=table_id, reason=" ")))
            return table_id, listed, done, [s.failure for s in sessions], again, blank
        finally:
            await close_all(lobbies, sessions)

    table_id, listed, done, failures, again, blank = run(scenario())
    assert [(t.game, len(t.players), t.tournament_id) for t in listed] == [("bigtwo", 4, "")]
    assert table_id in done.summary
    assert all(isinstance(f, ClosedByAdministrator) and "collusion under review" in str(f) for f in failures)
    assert again[0] == grpc.StatusCode.NOT_FOUND and blank[0] == grpc.StatusCode.INVALID_ARGUMENT
    lines = audited(host, lambda line: line.get("table_id") == table_id, 2)
    assert [(line["action"], line["outcome"], line["admin"]) for line in lines] == [
        ("close_table", "done", "tests"), ("close_table", "refused", "tests")]
    assert lines[0]["reason"] == "collusion under review" and lines[1]["status"] == "NOT_FOUND"
    assert all(line["at_ms"] > 0 for line in lines)


async def _not_listed(host, table_id: str) -> bool:
    return table_id not in [t.table_id for t in await running_tables(host)]


def test_a_removed_seat_loses_its_stream_and_token_while_the_others_play_on(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        try:
            table_id = sessions[0].table_id
            removed = sessions[2]
            done = await admin_call(host, "RemoveSeat", pb.RemoveSeatRequest(table_id=table_id, seat=removed.seat,
                                                                              reason="abusive chat"))
            await wait_until(lambda: removed.failure is not None, timeout=10)
            with pytest.raises(ClosedByAdministrator) as back:
                await TableSession.connect(removed.assignment, lobbies[2], connect_timeout=10)
            no_such_seat = await refusal(admin_call(host, "RemoveSeat", pb.RemoveSeatRequest(
                table_id=table_id, seat=9, reason="no such seat")))
            others = [s for s in sessions if s is not removed]
            still_listed = not await _not_listed(host, table_id)
            return done, removed.failure, str(back.value), no_such_seat, [s.failure for s in others], still_listed
        finally:
            await close_all(lobbies, sessions)

    done, failure, back, no_such_seat, others, still_listed = run(scenario())
    assert "removed" in done.summary
    assert isinstance(failure, ClosedByAdministrator) and "abusive chat" in str(failure)
    assert "PERMISSION_DENIED" in back and "abusive chat" in back
    assert no_such_seat[0] == grpc.StatusCode.INVALID_ARGUMENT
    assert others == [None, None, None] and still_listed


async def _sit_at_tables(client: TournamentClient, lobby: LobbyClient, tournament_id: str, player: str, key: str,
                         sessions: list[TableSession]) -> None:
    """Follow the tournament as `player`, connecting to each table it is
    given and playing nothing (a table whose players are there stays open)."""
    async for event in client.watch(tournament_id, player, key):
        if event.WhichOneof("event") == "round_started" and event.round_started.HasField("table"):
            sessions.append(await TableSession.connect(Assignment.from_proto(event.round_started.table), lobby))


def test_an_administrator_pauses_adjudicates_removes_resumes_and_cancels_a_tournament(host, token) -> None:
    async def scenario():
        sessions: list[TableSession] = []
        async with TournamentClient(host.target, organiser_token=token) as client, LobbyClient(host.target) as lobby:
            created = await client.create("administered", "duel", "swiss", rounds=3, turn_timeout_ms=LONG_TURN_MS,
                                          no_show_after_s=600)
            tid = created.tournament_id
            keys = await register(client, tid, [f"a-{i}" for i in range(4)], DECK)
            following = [asyncio.ensure_future(_sit_at_tables(client, lobby, tid, p, k, sessions))
                         for p, k in keys.items()]
            try:
                await client.start(tid, created.organiser_key)
                await wait_until(lambda: _tournament_tables(host, tid, 2), timeout=60)
                await wait_until(lambda: len(sessions) == 4, timeout=60)
                paused = await admin_call(host, "PauseTournament", pb.TournamentActionRequest(tournament_id=tid,
                                                                                              reason="venue break"))
                first, second = sorted(t.table_id for t in await running_tables(host) if t.tournament_id == tid)
                await admin_call(host, "AdjudicateTable", pb.AdjudicateTableRequest(table_id=first, places=[1, 0],
                                                                                    reason="disconnect dispute"))
                await admin_call(host, "CloseTable", pb.CloseTableRequest(table_id=second, reason="suspected bot"))
                await wait_until(lambda: _games_played(client, tid, 2), timeout=60)
                while_paused = await client.status(tid)
                removed = await admin_call(host, "RemovePlayer", pb.RemovePlayerRequest(
                    tournament_id=tid, player="a-3", reason="left the venue"))
                await admin_call(host, "ResumeTournament", pb.TournamentActionRequest(tournament_id=tid,
                                                                                      reason="break over"))
                await wait_until(lambda: _round(client, tid, 2), timeout=60)
                # Three players left: one table and a bye.
                await wait_until(lambda: _tournament_tables(host, tid, 1), timeout=60)
                round_two = [t for t in await running_tables(host) if t.tournament_id == tid]
                cancelled = await admin_call(host, "CancelTournament", pb.TournamentActionRequest(
                    tournament_id=tid, reason="fire alarm"))
                await wait_until(lambda: _tournament_tables(host, tid, 0), timeout=60)
                final = await client.status(tid)
                results = await client.all_results(tid)
                after = await refusal(admin_call(host, "ResumeTournament", pb.TournamentActionRequest(
                    tournament_id=tid, reason="too late")))
            finally:
                for task in following:
                    task.cancel()
                await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)
            return (paused, while_paused, removed, round_two, cancelled, final, results, after, first, second)

    (paused, while_paused, removed, round_two, cancelled, final, results, after, first,
     second) = run(scenario(), timeout=300)
    assert "paused in round 1" in paused.summary
    assert (while_paused.state, while_paused.round, while_paused.tables_pending) == ("paused", 1, 0)
    assert "a-3 withdrawn" in removed.summary
    assert round_two and all("a-3" not in t.players for t in round_two)
    assert "cancelled" in cancelled.summary
    assert final.state == "finished" and final.finish_reason == "cancelled by an administrator: fire alarm"
    by_table = {r.table_id: r for r in results.results}
    assert list(by_table[first].places) == [1, 0] and list(by_table[first].points) == [0.0, 1.0]
    assert list(by_table[second].forfeited) == [True, True]
    assert set(by_table) == {first, second}  # round 2 was cancelled, not played
    assert after[0] == grpc.StatusCode.FAILED_PRECONDITION
    actions = [line["action"] for line in audited(host, lambda line: line.get("tournament_id") == final.tournament_id, 5)]
    assert actions == ["pause_tournament", "remove_player", "resume_tournament", "cancel_tournament",
                       "resume_tournament"]


async def _tournament_tables(host, tournament_id: str, count: int) -> bool:
    return len([t for t in await running_tables(host) if t.tournament_id == tournament_id]) == count


async def _games_played(client: TournamentClient, tournament_id: str, games: int) -> bool:
    return (await client.status(tournament_id)).games_played == games


async def _round(client: TournamentClient, tournament_id: str, number: int) -> bool:
    status = await client.status(tournament_id)
    return status.round == number and status.tables_pending > 0


def test_a_removed_seat_stays_removed_when_its_table_resumes_in_another_room(host) -> None:
    """The removal is the lobby's record of the table, not only its room's:
    the room that resumes the table after a crash refuses the seat too."""

    async def scenario():
        await wait_for_quiet_lobby(host)
        lobbies, sessions = await seat_table(host.target)
        table_id = sessions[0].table_id
        room_id = room_of(host, table_id)
        try:
            await admin_call(host, "RemoveSeat", pb.RemoveSeatRequest(table_id=table_id, seat=1, reason="cheating"))
            await wait_until(lambda: sessions[1].failure is not None, timeout=10)
            kill(rooms_by_id(host)[room_id].pid)
            await wait_until(lambda: room_of(host, table_id) not in ("", room_id), timeout=30)
            await wait_until(lambda: all(s.reconnects >= 1 for s in (sessions[0], sessions[2], sessions[3])),
                             timeout=30)
            with pytest.raises(ClosedByAdministrator) as back:
                await TableSession.connect(sessions[1].assignment, lobbies[1], connect_timeout=10)
            return str(back.value), [s.failure for s in (sessions[0], sessions[2], sessions[3])]
        finally:
            await close_all(lobbies, sessions)

    back, others = run(scenario())
    assert "PERMISSION_DENIED" in back and "cheating" in back
    assert others == [None, None, None]


def test_an_operator_drains_a_room_through_the_admin_plane_and_its_table_plays_on_elsewhere(host) -> None:
    """`tablehost admin drain`: the room's table moves mid-game, the command
    follows the status until the room has stopped; an unknown room is
    refused in one line and changes nothing."""
    environment = {**os.environ, "TABLEHOST_ADMIN_TOKEN": admin_token_of_tests()}
    command = [sys.executable, "-m", "tablehost.host.cli", "admin", "drain", "--target", host.admin_target]

    async def scenario():
        await wait_for_quiet_lobby(host)
        lobbies, sessions = await seat_table(host.target)
        table_id = sessions[0].table_id
        room_id = room_of(host, table_id)
        try:
            # The table moves while its game is on; its players then play it to the end where it went.
            drained = await asyncio.to_thread(subprocess.run, [*command, "--room", room_id, "--reason", "kernel patch"],
                                              capture_output=True, text=True, timeout=120, env=environment)
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return room_id, table_id, drained, sessions
        finally:
            await close_all(lobbies, sessions)

    room_id, table_id, drained, sessions = run(scenario())
    assert drained.returncode == 0, drained.stderr
    assert drained.stdout.startswith(f"draining {room_id}: 1 tables moving to other rooms")
    assert drained.stdout.strip().endswith(f"drained and stopped: {room_id}")
    assert room_id not in rooms_by_id(host) and room_of(host, table_id) != room_id
    assert all(s.result is not None and s.desyncs == 0 and s.reconnects >= 1 for s in sessions)
    [line] = [line for line in audit_lines(host) if line["action"] == "drain" and line["room_ids"] == [room_id]]
    assert line["outcome"] == "done" and line["reason"] == "kernel patch"
    refused = subprocess.run([*command, "--room", "room-9999", "--reason", "typo"], capture_output=True, text=True,
                             timeout=60, env=environment)
    assert refused.returncode == 1
    assert refused.stderr.startswith("tablehost admin drain: INVALID_ARGUMENT: no room 'room-9999'")
    assert "draining" not in {room.state for room in rooms_by_id(host).values()}
