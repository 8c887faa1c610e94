"""A room's table without the network: flood control per stream.
The Table is the real object the room serves; only the gRPC edge is absent."""

import asyncio

import msgpack

from tablehost.actors.outbound import CloseOut, RejectionOut, StreamEnd
from tablehost.actors.budgets import FLOOD_COOLDOWN_S
from tablehost.actors.table import Table
from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.engine.errors import Reason
from tablehost.games.engine.fairness import TableSeed


def drain(subscriber) -> list:
    return subscriber.outbox.take_all()


def test_commits_beyond_the_burst_are_rejected_rate_limited_and_change_nothing() -> None:
    async def scenario():
        table = Table("t-1", BIGTWO, TableSeed.numbered(7), ["a", "b", "c", "d"], {}, rate=1.0, burst=3.0)
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


def test_a_new_stream_of_a_seat_does_not_refill_its_budget() -> None:
    async def scenario():
        table = Table("t-1b", BIGTWO, TableSeed.numbered(7), ["a", "b", "c", "d"], {}, rate=1.0, burst=3.0)
        not_to_act = (BIGTWO.to_act(table.match.state) + 1) % 4
        reasons = []
        for stream_number in range(2):
            stream = table.subscribe(not_to_act, 0)  # replaces the one before
            drain(stream)
            for i in range(2):
                table.commit(stream, f"s{stream_number}c{i}", msgpack.packb({"type": "pass"}))
            reasons += [m.reason for m in drain(stream) if isinstance(m, RejectionOut)]
        spectator = table.subscribe(-1, 0)
        drain(spectator)
        table.commit(spectator, "watching", msgpack.packb({"type": "pass"}))
        reasons.append(next(m.reason for m in drain(spectator) if isinstance(m, RejectionOut)))
        table.close("done")
        return reasons

    reasons = asyncio.run(scenario())
    # Three commits of budget for the seat, across both of its streams; a spectator has its own.
    assert reasons == [Reason.NOT_YOUR_TURN] * 3 + [Reason.RATE_LIMITED, Reason.NOT_YOUR_SEAT]


def test_acks_have_their_own_budget_so_acking_never_costs_a_move() -> None:
    async def scenario():
        table = Table("t-2", BIGTWO, TableSeed.numbered(7), ["a", "b", "c", "d"], {}, rate=1.0, burst=1.0)
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


def test_a_seat_flooding_past_its_allowance_has_its_stream_ended_and_is_refused_streams_for_a_while() -> None:
    """Over its budget a seat is answered RATE_LIMITED as long again as its
    burst; past that its stream ends (RESOURCE_EXHAUSTED on the wire) and
    nothing more is answered, so a flood costs the room no answers, and the
    seat may not open a stream again until its cooldown has passed."""

    async def scenario():
        table = Table("t-flood", BIGTWO, TableSeed.numbered(7), ["a", "b", "c", "d"], {}, rate=1.0, burst=3.0)
        not_to_act = (BIGTWO.to_act(table.match.state) + 1) % 4
        assert table.streams.cooling_down(not_to_act) == 0
        stream = table.subscribe(not_to_act, 0)
        drain(stream)
        hash_before = table.match.state_hash()
        for i in range(20):
            table.commit(stream, f"c{i}", msgpack.packb({"type": "pass"}))
        for _ in range(20):
            table.rate_limited(stream)  # acks of a flooder: ignored once its stream has ended
        messages = drain(stream)
        served, cooling = stream in table.streams.live, table.streams.cooling_down(not_to_act)
        others = table.subscribe((not_to_act + 1) % 4, 0)
        other_cooling = table.streams.cooling_down((not_to_act + 1) % 4)
        table.close("done")
        return messages, served, cooling, other_cooling, hash_before, table, others

    messages, served, cooling, other_cooling, hash_before, table, _ = asyncio.run(scenario())
    reasons = [m.reason for m in messages if isinstance(m, RejectionOut)]
    assert reasons == [Reason.NOT_YOUR_TURN] * 3 + [Reason.RATE_LIMITED] * 3
    ending = messages[-1]
    assert isinstance(ending, CloseOut) and ending.ending is StreamEnd.FLOODED
    assert "far over its budget (1 commits a second, 3 at once)" in ending.details
    assert not served and 0 < cooling <= FLOOD_COOLDOWN_S and other_cooling == 0
    assert table.stats.floods == 1 and table.match.state_hash() == hash_before and table.seq == 0


def test_an_ack_flood_is_ended_citing_the_budget_of_acks() -> None:
    """Acks have four times the commit budget: the ending says so, rather
    than quoting the commit rate the flooder never came near."""
    async def scenario():
        table = Table("t-ack-flood", BIGTWO, TableSeed.numbered(7), ["a", "b", "c", "d"], {}, rate=1.0, burst=3.0)
        stream = table.subscribe(0, 0)
        drain(stream)
        limited = [table.rate_limited(stream) for _ in range(30)]
        messages = drain(stream)
        table.close("done")
        return limited, messages

    limited, messages = asyncio.run(scenario())
    assert limited[:12] == [False] * 12 and all(limited[12:])  # a burst of 4 x 3 acks, then over
    assert [m.reason for m in messages if isinstance(m, RejectionOut)] == [Reason.RATE_LIMITED] * 3
    ending = messages[-1]
    assert isinstance(ending, CloseOut) and ending.ending is StreamEnd.FLOODED
    assert "far over its budget (4 acks and other messages a second, 12 at once)" in ending.details


# -- bounded memory, one stream per seat, hostile bytes ------------------------

import logging  # noqa: E402

import pytest  # noqa: E402

from tablehost.actors import table_views  # noqa: E402
from tablehost.actors.outbound import DeltaOut, SnapshotOut  # noqa: E402
from tablehost.actors.act_outcomes import REMEMBERED_REJECTIONS_PER_SEAT  # noqa: E402


def new_table(**limits) -> Table:
    return Table("t-3", BIGTWO, TableSeed.numbered(7), ["a", "b", "c", "d"], {}, **limits)


def move_of(table: Table) -> tuple[int, bytes]:
    seat = BIGTWO.to_act(table.match.state)
    return seat, msgpack.packb(table.match.view(seat)["request"]["legal_actions"][0])


def test_remembered_rejections_are_bounded_per_seat_and_accepted_act_ids_are_kept() -> None:
    async def scenario():
        table = new_table(rate=10_000.0, burst=10_000.0)
        seat, move = move_of(table)
        stream = table.subscribe(seat, 0)
        table.commit(stream, "accepted-move", move)
        idle = table.subscribe((BIGTWO.to_act(table.match.state) + 1) % 4, 0)  # not asked: every pass refused
        for i in range(1000):
            table.commit(idle, f"refused-{i}", msgpack.packb({"type": "pass"}))
        drain(idle)
        remembered = table.remembered_rejections
        table.commit(idle, "refused-999", msgpack.packb({"type": "pass"}))  # still remembered: sent again
        table.commit(stream, "accepted-move", move)  # accepted: answered with its seq
        table.close("done")
        return remembered, drain(idle), drain(stream), table

    remembered, idle_messages, mover_messages, table = asyncio.run(scenario())
    assert remembered == REMEMBERED_REJECTIONS_PER_SEAT
    assert len(table._answers.outcomes._outcomes) == REMEMBERED_REJECTIONS_PER_SEAT + 1  # and the one accepted act_id
    repeat = [m for m in idle_messages if isinstance(m, RejectionOut)]
    assert [(m.act_id, m.reason) for m in repeat] == [("refused-999", Reason.NOT_YOUR_TURN)]
    assert any(getattr(m, "act_id", "") == "accepted-move" and getattr(m, "seq", 0) == 1 for m in mover_messages)


def test_a_new_stream_for_a_seat_replaces_the_older_which_can_no_longer_act() -> None:
    async def scenario():
        table = new_table()
        seat, move = move_of(table)
        streams = [table.subscribe(seat, 0) for _ in range(4)]
        before = table.match.state_hash()
        for older in streams[:3]:
            table.commit(older, "from-an-old-stream", move)
        hash_after_old = table.match.state_hash()
        table.commit(streams[3], "from-the-newest", move)
        table.close("done")
        return streams, before, hash_after_old, table

    streams, before, hash_after_old, table = asyncio.run(scenario())
    for older in streams[:3]:
        messages = drain(older)
        assert isinstance(messages[-1], CloseOut) and messages[-1].ending is StreamEnd.REPLACED
        assert f"replaced by a newer stream for seat {older.seat}" in messages[-1].details
        assert not any(isinstance(m, (RejectionOut, DeltaOut)) for m in messages)
    assert table.seq == 1 and table.stats.moves == 1  # only the newest stream's move
    assert hash_after_old == before


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ({"type": "pass", "seat": "deep"}, Reason.MALFORMED),  # "deep" is replaced by a 1000-deep value
        ({"type": "pass", "seat": [[0]]}, Reason.NOT_YOUR_SEAT),
        ({"type": "pass", "seat": True}, Reason.NOT_YOUR_SEAT),  # True == 1, but not a seat
        ({"type": "play", "cards": [1.5]}, Reason.MALFORMED),
        ({"type": "pass", b"bytes-key": 1}, Reason.MALFORMED),
        ({"type": "x" * 1000}, Reason.UNKNOWN_ACTION),
    ],
)
def test_hostile_actions_are_rejected_with_a_reason_and_change_nothing(action, reason) -> None:
    if action.get("seat") == "deep":
        deep: object = 0
        for _ in range(1000):
            deep = [deep]
        action = {**action, "seat": deep}

    async def scenario():
        table = new_table()
        seat = BIGTWO.to_act(table.match.state)
        stream = table.subscribe(seat, 0)
        drain(stream)
        before = table.match.state_hash()
        table.commit(stream, "hostile", msgpack.packb(action))
        table.commit(stream, "hostile", msgpack.packb(action))  # the repeat gets the same answer
        return before, table.match.state_hash(), table.seq, drain(stream)

    before, after, seq, messages = asyncio.run(scenario())
    rejections = [m for m in messages if isinstance(m, RejectionOut)]
    assert [m.reason for m in rejections] == [reason, reason] and rejections[0] == rejections[1]
    assert all(len(m.message) <= 256 for m in rejections)
    assert before == after and seq == 0


def test_an_act_id_out_of_bounds_is_refused_without_being_echoed_or_remembered() -> None:
    async def scenario():
        table = new_table()
        stream = table.subscribe(-1, 0)
        drain(stream)
        table.commit(stream, "a" * 60_000, b"\x80")
        table.commit(stream, "", b"\x80")
        return drain(stream), table.remembered_rejections

    messages, remembered = asyncio.run(scenario())
    assert [(m.act_id, m.reason) for m in messages] == [("", Reason.PROTOCOL), ("", Reason.PROTOCOL)]
    assert "got 60000" in messages[0].message and remembered == 0


def test_rejections_are_logged_within_a_budget_and_quote_only_a_prefix(caplog) -> None:
    async def scenario():
        table = new_table(rate=10_000.0, burst=10_000.0)
        stream = table.subscribe(-1, 0)
        drain(stream)
        for i in range(200):
            table.commit(stream, f"{i}-" + "z" * 60, msgpack.packb({"type": "pass"}))
        table.commit(stream, "y" * 60_000, b"\x80")
        return drain(stream)

    with caplog.at_level(logging.INFO, logger="tablehost.table"):
        messages = asyncio.run(scenario())
    lines = [record.getMessage() for record in caplog.records if record.getMessage().startswith("rejected")]
    assert len(messages) == 201
    assert len(lines) == 5 and all(len(line) < 300 for line in lines)
    assert "z" * 33 not in "".join(lines)


def test_a_reconnect_missing_too_many_changes_gets_a_snapshot(monkeypatch) -> None:
    monkeypatch.setattr(table_views, "MAX_REPLAYED_CHANGES", 1)

    async def scenario():
        table = new_table()
        for index in range(3):
            seat, move = move_of(table)
            table.commit(table.subscribe(seat, 0), f"m{index}", move)
        near = table.subscribe(0, table.seq - 1)
        far = table.subscribe(1, 1)
        return [type(m) for m in drain(near)], [type(m) for m in drain(far)]

    near, far = asyncio.run(scenario())
    assert near == [DeltaOut] and far == [SnapshotOut]
