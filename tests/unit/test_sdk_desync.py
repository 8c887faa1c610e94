"""The SDK after a desync: a delta whose hash is not the host's, or that
does not apply, leaves the session out of step, and it offers no request
from that view until the host's snapshot (which the mismatching ack asks
for) arrives. The session is fed the messages a room sends through its own
handlers; tests/integration/test_desync_recovery.py does it over a real stream."""

from __future__ import annotations

import asyncio

import pytest

from tablehost.clients.codec import encode, view_hash
from tablehost.clients.sdk import Assignment, TableSession
from tablehost.v1 import table_pb2

ASKED = {"hand": ["3C"], "request": {"legal_actions": [{"type": "pass"}]}}
ASKED_AGAIN = {"hand": ["3C", "4D"], "request": {"legal_actions": [{"type": "pass"}]}}


def snapshot(seq: int, view: dict) -> table_pb2.Snapshot:
    return table_pb2.Snapshot(seq=seq, view=encode(view), view_hash=view_hash(view), seat=0, table_id="t-1")


def test_no_request_is_offered_between_a_desync_and_the_snapshot() -> None:
    async def scenario() -> list[tuple[bool, dict | None]]:
        playing = TableSession(Assignment("t-1", "127.0.0.1:1", 0, "token", "bigtwo", ("a", "b"), "ticket"))
        replica = playing._replica
        seen = []
        replica.on_snapshot(snapshot(3, ASKED))
        seen.append((playing.in_step, playing.request))
        # A delta that applies, but whose result is not the host's view (its hash differs) ...
        replica.on_delta(table_pb2.Delta(seq=4, delta=encode([[["hand"], ["3C", "4D"]]]), view_hash="f" * 64))
        seen.append((playing.in_step, playing.request))
        # ... one that does not apply at all (it deletes what the view does not have) ...
        replica.on_delta(table_pb2.Delta(seq=5, delta=encode([[["missing"]]]), view_hash="0" * 64))
        seen.append((playing.in_step, playing.request))
        # ... and the host's snapshot.
        replica.on_snapshot(snapshot(5, ASKED_AGAIN))
        seen.append((playing.in_step, playing.request))
        assert playing.desyncs == 2
        return seen

    request = ASKED["request"]
    assert asyncio.run(scenario()) == [(True, request), (False, None), (False, None), (True, request)]


class _Wire:
    """Stands in for the stream's write side: the acks the session sends."""

    def __init__(self) -> None:
        self.acks: list[tuple[int, str]] = []

    async def __call__(self, message: table_pb2.ClientMessage) -> bool:
        self.acks.append((message.ack.seq, message.ack.view_hash))
        return True


def _count_delta(view: dict, count: int) -> tuple[dict, table_pb2.Delta]:
    after = {**view, "count": count}
    return after, table_pb2.Delta(seq=count, delta=encode([[["count"], count]]), view_hash=view_hash(after))


def test_in_step_views_are_acked_every_ack_every_changes_and_a_mismatch_at_once() -> None:
    async def scenario() -> list[tuple[int, str]]:
        playing = TableSession(Assignment("t-1", "127.0.0.1:1", 0, "token", "bigtwo", ("a", "b"), "ticket"),
                               ack_every=4)
        stream = playing._stream
        wire = stream.connection.send = _Wire()  # type: ignore[method-assign]
        view: dict = {"count": 0}
        await stream._dispatch(table_pb2.ServerMessage(snapshot=snapshot(0, view)))
        for count in range(1, 10):
            view, delta = _count_delta(view, count)
            await stream._dispatch(table_pb2.ServerMessage(delta=delta))
        # Seq 10 does not match: acked at once with the hash the session computed.
        wrong = table_pb2.Delta(seq=10, delta=encode([[["count"], 10]]), view_hash="f" * 64)
        await stream._dispatch(table_pb2.ServerMessage(delta=wrong))
        assert not playing.in_step
        return wire.acks

    acks = asyncio.run(scenario())
    assert [seq for seq, _ in acks] == [4, 8, 10]
    assert acks[-1][1] == view_hash({"count": 10}) != "f" * 64


def test_ack_every_must_be_at_least_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        TableSession(Assignment("t-1", "127.0.0.1:1", 0, "token", "bigtwo", ("a", "b"), "ticket"), ack_every=0)
