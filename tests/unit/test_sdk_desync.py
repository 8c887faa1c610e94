"""The SDK after a desync: a delta whose hash is not the host's, or that
does not apply, leaves the session out of step, and it offers no request
from that view until the host's snapshot (which the mismatching ack asks
for) arrives. The session is fed the messages a room sends through its own
handlers; tests/integration/test_desync_recovery.py does it over a real stream."""

from __future__ import annotations

import asyncio

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
        seen = []
        playing._on_snapshot(snapshot(3, ASKED))
        seen.append((playing.in_step, playing.request))
        # A delta that applies, but whose result is not the host's view (its hash differs) ...
        await playing._on_delta(table_pb2.Delta(seq=4, delta=encode([[["hand"], ["3C", "4D"]]]), view_hash="f" * 64))
        seen.append((playing.in_step, playing.request))
        # ... one that does not apply at all (it deletes what the view does not have) ...
        await playing._on_delta(table_pb2.Delta(seq=5, delta=encode([[["missing"]]]), view_hash="0" * 64))
        seen.append((playing.in_step, playing.request))
        # ... and the host's snapshot.
        playing._on_snapshot(snapshot(5, ASKED_AGAIN))
        seen.append((playing.in_step, playing.request))
        assert playing.desyncs == 2
        return seen

    request = ASKED["request"]
    assert asyncio.run(scenario()) == [(True, request), (False, None), (False, None), (True, request)]
