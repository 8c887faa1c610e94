"""Persist, then publish, at one table: with a journal that holds its
writes, nothing of a command reaches any stream until the journal releases
it, and a stream that says hello meanwhile hears of the game's end only
after the last change (not before: it would stop one move short)."""

import asyncio

import msgpack

from tablehost.actors.outbound import CloseOut, DeltaOut, GameOverOut, RejectionOut
from tablehost.actors.table import Table
from tablehost.actors.table_commands import MAX_QUEUED_COMMITS
from tablehost.games.engine.errors import Reason
from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.engine.fairness import TableSeed


class HeldJournal:
    """Takes the table's entries and releases them only when told."""

    def __init__(self) -> None:
        self.held = []

    def submit(self, table, entry, checkpoint=None) -> None:
        self.held.append((table, entry))

    def release_all(self) -> None:
        held, self.held = self.held, []
        for table, entry in held:
            table.released(entry.seq)


def move(table: Table, streams: dict) -> None:
    seat = BIGTWO.to_act(table.match.state)
    action = table.match.view(seat)["request"]["legal_actions"][0]
    table.commit(streams[seat], f"move-{table.match.state_hash()[:8]}", msgpack.packb(action))


def kinds(stream) -> list:
    return [type(m).__name__ for m in stream.outbox.take_all() if not isinstance(m, CloseOut)]


def test_nothing_of_a_command_is_published_until_the_journal_holds_it() -> None:
    async def scenario():
        journal = HeldJournal()
        table = Table("t-d1", BIGTWO, TableSeed.numbered(21), ["a", "b", "c", "d"], {}, journal=journal)
        streams = {seat: table.subscribe(seat, 0) for seat in range(4)}
        for stream in streams.values():
            stream.outbox.take_all()  # the snapshots
        move(table, streams)
        before = {seat: kinds(stream) for seat, stream in streams.items()}
        seq_before = table.seq
        journal.release_all()
        after = {seat: kinds(stream) for seat, stream in streams.items()}
        return before, seq_before, after, table.seq

    before, seq_before, after, seq_after = asyncio.run(scenario())
    assert before == {seat: [] for seat in range(4)} and seq_before == 0
    assert after == {seat: ["DeltaOut"] for seat in range(4)} and seq_after == 1


def test_a_stream_saying_hello_while_the_last_command_is_in_flight_hears_of_the_end_after_it() -> None:
    async def scenario():
        journal = HeldJournal()
        table = Table("t-d2", BIGTWO, TableSeed.numbered(22), ["a", "b", "c", "d"], {}, journal=journal)
        streams = {seat: table.subscribe(seat, 0) for seat in range(4)}
        while True:
            move(table, streams)
            if table.match.result is not None:
                break
            journal.release_all()
        assert not table.over  # its last command is not durable yet
        late = table.subscribe(0, 0)  # seat 0 says hello again, from seq 0
        queued_before_release = late.outbox.take_all()
        journal.release_all()
        return table.seq, queued_before_release, late.outbox.take_all(), table.over

    last_seq, before, after, over = asyncio.run(scenario())
    assert over
    assert not any(isinstance(m, GameOverOut) for m in before)
    assert [type(m) for m in after] == [DeltaOut, GameOverOut]
    assert after[0].seq == last_seq and after[1].seq == last_seq


def test_commits_behind_one_in_flight_queue_up_to_a_bound_and_the_next_is_told_the_table_is_busy() -> None:
    async def scenario():
        journal = HeldJournal()
        table = Table("t-d3", BIGTWO, TableSeed.numbered(21), ["a", "b", "c", "d"], {}, journal=journal, rate=1e6, burst=1e6)
        streams = {seat: table.subscribe(seat, 0) for seat in range(4)}
        for stream in streams.values():
            stream.outbox.take_all()
        move(table, streams)  # held by the journal: in flight
        for number in range(MAX_QUEUED_COMMITS + 1):
            table.commit(streams[0], f"queued-{number}", msgpack.packb({"type": "pass"}))
        return [m for m in streams[0].outbox.take_all() if isinstance(m, RejectionOut)]

    rejections = asyncio.run(scenario())
    assert [(r.act_id, r.reason) for r in rejections] == [(f"queued-{MAX_QUEUED_COMMITS}", Reason.RATE_LIMITED)]
    assert "busy" in rejections[0].message
