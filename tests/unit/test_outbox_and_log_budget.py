"""A stream's queue is bounded by records and bytes, and overflows once;
a log budget lets a few lines through per period and counts the rest."""

from __future__ import annotations

import asyncio

import pytest

from tablehost.actors.log_budget import LogBudget, left_out_note
from tablehost.actors.outbound import DeltaOut, RejectionOut, record_size
from tablehost.actors.outbox import Outbox, Overflow
from tablehost.games.engine.errors import Reason


def test_a_queue_within_its_bounds_keeps_everything_in_order() -> None:
    outbox: Outbox[int] = Outbox(max_records=3)
    for item in (1, 2, 3):
        outbox.put(item)
    assert outbox.take_all() == [1, 2, 3] and not outbox.overflowed


def test_a_queue_past_its_record_bound_drops_everything_and_says_so_once() -> None:
    overflows: list[int] = []
    outbox: Outbox[int] = Outbox(max_records=3)
    outbox.on_overflow = lambda: overflows.append(len(outbox))
    for item in range(10):
        outbox.put(item)
    assert outbox.overflowed and len(outbox) == 0 and overflows == [0]

    async def drain() -> None:
        await outbox.drain()

    with pytest.raises(Overflow):
        asyncio.run(drain())


def test_a_queue_past_its_byte_bound_overflows_before_its_record_bound() -> None:
    outbox = Outbox(record_size, max_records=1000, max_bytes=10_000)
    delta = DeltaOut(1, "a", b"d" * 3000, "h" * 64, False)
    for _ in range(3):
        outbox.put(delta)
    assert not outbox.overflowed and outbox.queued_bytes == 3 * record_size(delta)
    outbox.put(delta)
    assert outbox.overflowed and outbox.queued_bytes == 0


def test_draining_resets_the_byte_count() -> None:
    outbox = Outbox(record_size, max_bytes=1000)
    rejection = RejectionOut("a", Reason.PROTOCOL, "m" * 400)
    for _ in range(10):
        outbox.put(rejection)
        outbox.take_all()
    assert not outbox.overflowed and outbox.queued_bytes == 0


def test_a_waiting_drain_wakes_with_overflow() -> None:
    async def scenario() -> str:
        outbox: Outbox[int] = Outbox(max_records=1)
        waiting = asyncio.ensure_future(outbox.drain())
        await asyncio.sleep(0)  # let it wait
        outbox.put(1)
        first = await waiting
        outbox.put(2)
        outbox.put(3)
        try:
            await outbox.drain()
        except Overflow:
            return f"got {first}, then overflow"
        return "no overflow"

    assert asyncio.run(scenario()) == "got [1], then overflow"


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_log_budget_lets_a_few_lines_through_and_reports_the_rest() -> None:
    clock = FakeClock()
    budget = LogBudget(lines=2, period_s=10.0, clock=clock)
    taken = [budget.take() for _ in range(5)]
    assert taken == [0, 0, None, None, None] and budget.suppressed == 3
    clock.now = 10.0
    assert budget.take() == 3  # the next line says how many were left out
    assert budget.suppressed == 0
    assert left_out_note(3) == " (3 similar lines left out)" and left_out_note(0) == ""
