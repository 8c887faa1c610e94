"""Overdue tournament rounds, and the front door's probes, without a host."""

from __future__ import annotations

import asyncio

from tablehost.actors.round_watch import RoundWatch
from tablehost.host.door_metrics import STUCK_AFTER_S, DoorMetrics


def test_a_round_counts_as_overdue_only_a_grace_period_past_its_deadline() -> None:
    watch = RoundWatch(grace_s=60)
    watch.started("t-a", 1, deadline_s=1_000)
    watch.started("t-b", 3, deadline_s=2_000)
    assert watch.overdue(1_060) == []
    assert watch.overdue(1_061) == ["t-a"]
    watch.started("t-a", 2, deadline_s=5_000)  # the next round replaces the last
    assert watch.overdue(2_100) == ["t-b"]
    watch.ended("t-b")
    watch.ended("t-never-seen")
    assert watch.overdue(4_000) == []


class _Waiting:
    waiting = 0


def test_the_front_door_is_ready_only_while_its_loop_runs_and_the_lobby_answers() -> None:
    metrics = DoorMetrics(lobby=None, waiting=_Waiting(), host="127.0.0.1", port=0)
    try:
        assert metrics._live() == (True, "live")
        assert metrics._ready() == (False, "the lobby did not answer the last refresh")
        metrics._status = {"nodes": []}
        assert metrics._ready() == (True, "ready")
        metrics._refreshed_at -= STUCK_AFTER_S + 1
        live, why = metrics._live()
        assert not live and "has not run for" in why and metrics._ready()[0] is False
    finally:
        asyncio.run(metrics.stop())
