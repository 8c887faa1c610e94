"""The load runner against the session's host: its summary stays right when
several runs share one host (and so share its public queue and tables)."""

from __future__ import annotations

import asyncio

import pytest
from conftest import run

from tablehost.clients.loadrun import format_summary, run_tables

pytestmark = pytest.mark.integration


def test_concurrent_load_runs_count_their_bots_not_the_tables_they_happened_to_share(host) -> None:
    async def scenario():
        return await asyncio.gather(
            run_tables(host.target, "bigtwo", 2, seed=0, timeout_s=60, seats_per_table=4),
            run_tables(host.target, "bigtwo", 2, seed=100, timeout_s=60, seats_per_table=4),
        )

    first, second = run(scenario())
    for summary in (first, second):
        assert summary.ok, format_summary(summary)
        assert summary.bots_finished == summary.bots_expected == 8
        assert 2 <= summary.games_completed <= 4 and summary.moves > 0
    assert "8/8 bots finished" in format_summary(first)


def test_a_load_run_plays_any_game_at_its_table_size_with_the_players_join_data(host) -> None:
    """The three-seat test game, which asks several seats at once and takes join data."""
    summary = run(run_tables(host.target, "trio", 2, seed=7, timeout_s=60, seats_per_table=3,
                             join_data={"league": "b"}))
    assert summary.ok, format_summary(summary)
    assert summary.bots_expected == summary.bots_finished == 6 and summary.games_completed == 2
    assert summary.moves > 0 and summary.rejects == 0
