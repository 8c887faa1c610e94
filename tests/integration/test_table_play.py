"""Four SDK clients queue, are seated at random and play Big Two to the end
through a real lobby, real room actors and real gRPC streams."""

from __future__ import annotations

import asyncio

import pytest
from conftest import run
from support import close_all, play_randomly, seat_table

from tablehost.clients.sdk import LobbyClient, TableSession
from tablehost.games.engine.fairness import TableSeed

pytestmark = pytest.mark.integration


def test_four_clients_play_a_complete_game_and_every_hash_verifies(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target, names=["ann", "bob", "cat", "dan"])
        try:
            moves = await asyncio.gather(*(play_randomly(s, seed) for seed, s in enumerate(sessions)))
            results = [await s.wait_game_over(10) for s in sessions]
            return sessions, moves, results
        finally:
            await close_all(lobbies, sessions)

    sessions, moves, results = run(scenario())
    assert sorted(s.seat for s in sessions) == [0, 1, 2, 3]
    assert all(s.desyncs == 0 and s.gaps == 0 for s in sessions)
    assert sum(moves) + 1 == results[0].seq  # the deal, then one change per accepted commit
    assert all(r.scores == results[0].scores for r in results)
    assert sum(results[0].scores) == 0
    assert results[0].scores[results[0].winner] > 0
    assert results[0].result["cards_left"][results[0].winner] == 0
    table = host.lobby("table_record", sessions[0].table_id)
    assert sorted(table.players) == ["ann", "bob", "cat", "dan"]
    assert list(table.players) == list(sessions[0].assignment.display_names)


def test_the_seed_revealed_at_the_end_explains_the_seating(host) -> None:
    """Seats come from the table's secret seed (its own stream, not the
    game's): once the game is over and the seed revealed, it and the lobby's
    record of the arrival order give every seat."""
    async def scenario():
        lobbies, sessions = await seat_table(host.target, names=["w", "x", "y", "z"])
        try:
            await asyncio.gather(*(play_randomly(s, seed) for seed, s in enumerate(sessions)))
            return sessions[0].table_id, sessions[0].view["fairness"]
        finally:
            await close_all(lobbies, sessions)

    table_id, fairness = run(scenario())
    table = host.lobby("table_record", table_id)
    seed = TableSeed(fairness["seed"], fairness["salt"])
    assert seed.commitment == table.commitment == fairness["commitment"]
    assert seed.seated(table.entrants) == list(table.tickets)
