"""A client that falls out of step recovers through the protocol alone: a
delta it cannot apply makes it ack with a hash that is not the host's, the
room counts a desync and sends a snapshot, and the client plays on from the
host's view. The fault is in the client (its delta codec fails once); the
host and the stream are real."""

from __future__ import annotations

import asyncio

import pytest

from tablehost.clients import table_replica
from tablehost.clients.codec import DeltaError
from tests.integration.conftest import HostThread, run
from tests.integration.support import close_all, play_randomly, seat_table, table_status, wait_until

pytestmark = pytest.mark.integration


def test_a_client_out_of_step_gets_the_hosts_view_back_and_plays_on(host: HostThread,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario() -> tuple[int, dict]:
        lobbies, sessions = await seat_table(host.target, names=[f"desync-{i}" for i in range(4)])
        try:
            actor = next(s for s in sessions if s.request is not None)
            watcher = next(s for s in sessions if s is not actor)
            failing = {"left": 1}
            applying = table_replica.apply_delta

            def fails_once_for_the_watcher(view, delta):
                if view is watcher.view and failing["left"]:
                    failing["left"] -= 1
                    raise DeltaError("injected: this client's codec failed")
                return applying(view, delta)

            monkeypatch.setattr(table_replica, "apply_delta", fails_once_for_the_watcher)
            seq = actor.seq
            outcome = await actor.commit(actor.request["legal_actions"][0])
            assert outcome.accepted
            # The room answers the wrong ack with a snapshot at the same seq.
            await wait_until(lambda: watcher.desyncs == 1 and watcher.in_step and watcher.seq == seq + 1, timeout=10)
            moves = sum(await asyncio.gather(*(play_randomly(s, seed=i) for i, s in enumerate(sessions))))
            assert all(s.game_over for s in sessions) and moves > 0
            return failing["left"], await table_status(host, watcher.table_id)
        finally:
            await close_all(lobbies, sessions)

    left, status = run(scenario())
    assert left == 0 and status.desyncs == 1
