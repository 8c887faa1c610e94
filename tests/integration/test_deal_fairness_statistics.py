"""Nobody chooses their seat, role, first move or cards by when they join,
what they are called or what they bring: for every built-in game, a few
hundred tables are filled through the real host in a chosen arrival order,
with display names and join data from a fixed PRNG, and each independence is
tested (chi-square, or an exact binomial test for two outcomes) at the
significance level of fairness_sampling.SIGNIFICANCE (0.001). The host's
seed and every client's entropy are fixed, so the samples are the same on
every run, as long as the session's lobby keeps that seed: this module is
named to run before test_failover, which restarts the lobby (and checks
that it has not been). tests/benchmarks/bench_fairness.py runs the same
with thousands of tables."""

from __future__ import annotations

import asyncio

import pytest
from conftest import admin_token, run
from fairness_sampling import SAMPLINGS, SIGNIFICANCE, AdminPlane, TableSample, findings, sample_tables, uniform

pytestmark = [pytest.mark.integration, pytest.mark.slow]
TABLES = {"bigtwo": 200, "duel": 200, "kingdoms": 200}


@pytest.fixture(scope="module")
def samples(host) -> dict[str, list[TableSample]]:
    """Every game's tables, the games sampled at once (each one table at a time)."""
    # The deals repeat only while the lobby keeps the host's fixed seed: a lobby
    # Ray restarted (test_failover kills it) deals from the OS's randomness,
    # and the statistics would no longer be deterministic.
    assert host.lobby("status").seed == host.host.config.seed, (
        "the session's lobby was restarted by an earlier test: run this module before test_failover")

    async def sample_all() -> list[list[TableSample]]:
        admin_plane = AdminPlane(host.admin_target, admin_token())
        return await asyncio.gather(*(sample_tables(host.target, admin_plane, SAMPLINGS[game], tables, seed=2026)
                                      for game, tables in TABLES.items()))
    return dict(zip(TABLES, run(sample_all(), timeout=900)))


@pytest.mark.parametrize("game", sorted(TABLES))
def test_seats_roles_first_moves_and_deals_are_independent_of_order_name_and_join_data(
    samples: dict[str, list[TableSample]], game: str
) -> None:
    assert len(samples[game]) == TABLES[game]
    found = findings(SAMPLINGS[game], samples[game])
    assert len(found) >= 3, "the seat and at least one outcome, against order and name"
    failed = [f"{f.question}: p = {f.p_value:.2g}, counts {f.counts}" for f in found if not f.holds]
    assert not failed, f"{game}: dependence at the {SIGNIFICANCE} level:\n" + "\n".join(failed)


def test_the_statistics_catch_a_first_move_decided_by_arrival_order() -> None:
    """What the host did before each purpose had its own stream: the second
    player to join always moved first. The same test must reject it."""
    samples = [TableSample((1, 0), ("ann", "zed"), ("", ""), {"first": 1}) for _ in range(60)]
    verdict = uniform("first: arrival position", [s.outcomes["first"] for s in samples], [0, 1])
    assert not verdict.holds and verdict.p_value < 1e-15


def test_the_statistics_catch_a_first_joiner_who_is_lord_twice_as_often_as_fair() -> None:
    """A subtler bias: the first to join is lord 40% of the time at five seats."""
    outcomes = [0] * 64 + [1, 2, 3, 4] * 24
    verdict = uniform("lord: arrival position", outcomes, range(5))
    assert not verdict.holds
