"""A room's table without the network: flood control per stream.
The Table is the real object the room serves; only the gRPC edge is absent."""

import asyncio

import msgpack

from tablehost.actors.outbound import RejectionOut
from tablehost.actors.table import Table
from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.engine.errors import Reason


def drain(subscriber) -> list:
    return subscriber.outbox.take_all()


def test_commits_beyond_the_burst_are_rejected_rate_limited_and_change_nothing() -> None:
    async def scenario():
        table = Table("t-1", BIGTWO, 7, ["a", "b", "c", "d"], {}, rate=1.0, burst=3.0)
        not_to_act = (BIGTWO.to_act(table.match.state) + 1) % 4
        stream = table.subscribe(not_to_act, 0)
        drain(stream)
        hash_before = table.match.state_hash()
        for i in range(5):
            table.commit(stream, f"c{i}", msgpack.packb({"type": "pass"}))
        table.close("done")
        return [m.reason for m in drain(stream) if isinstance(m, RejectionOut)], hash_before, table

    reasons, hash_before, table = asyncio.run(scenario())
    assert reasons == [Reason.NOT_YOUR_TURN] * 3 + [Reason.RATE_LIMITED] * 2
    assert table.match.state_hash() == hash_before and table.seq == 0


def test_acks_have_their_own_budget_so_acking_never_costs_a_move() -> None:
    async def scenario():
        table = Table("t-2", BIGTWO, 7, ["a", "b", "c", "d"], {}, rate=1.0, burst=1.0)
        seat = BIGTWO.to_act(table.match.state)
        stream = table.subscribe(seat, 0)
        snapshot = drain(stream)[0]
        for _ in range(3):
            assert not table.rate_limited(stream)  # acks: 4x the commit budget
            table.ack(stream, 0, snapshot.view_hash)
        action = table.match.view(seat)["request"]["legal_actions"][0]
        table.commit(stream, "move", msgpack.packb(action))
        table.close("done")
        return table.seq, drain(stream)

    seq, messages = asyncio.run(scenario())
    assert seq == 1
    assert not any(isinstance(m, RejectionOut) for m in messages)
