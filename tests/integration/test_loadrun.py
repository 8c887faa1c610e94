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
            run_tables(host.target, "bigtwo", 2, seed=0, timeout_s=60),
            run_tables(host.target, "bigtwo", 2, seed=100, timeout_s=60),
        )

    first, second = run(scenario())
    for summary in (first, second):
        assert summary.ok, format_summary(summary)
        assert summary.bots_finished == summary.bots_expected == 8
        assert 2 <= summary.games_completed <= 4 and summary.moves > 0
    assert "8/8 bots finished" in format_summary(first)
