"""A table's deal, without the network: it waits for every seat's hello (each
bringing the player's entropy) or its deadline, is made durable and
published as the first change, survives a room's death with every command
(a finished game's record needs them all), and ends with the game record."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import msgpack
import pytest

from tablehost.actors.outbound import DeltaOut, GameOverOut, RejectionOut, SnapshotOut
from tablehost.actors.store import Appends, TableHeader
from tablehost.actors.store.local import LocalStore
from tablehost.actors import table_commands
from tablehost.actors.table import Table, resume_table
from tablehost.actors.versions import code_versions
from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.engine.errors import Reason
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import DEALER_SEAT, DEALING_STAGE
from tablehost.games.engine.verification import replayed_hashes
from tablehost.games.engine.views import decode
from opened_tables import opened

PLAYERS = ["a", "b", "c", "d"]


def waiting_table(table_id: str = "t-deal", **extra) -> Table:
    return Table(table_id, BIGTWO, TableSeed.numbered(5), list(PLAYERS), {}, deal_wait_ms=60_000, **extra)


async def wait_for(predicate, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        await asyncio.sleep(0.01)


def test_the_table_deals_once_every_seat_said_hello_with_each_first_hellos_entropy() -> None:
    async def scenario():
        table = waiting_table()
        streams = [table.subscribe(seat, 0, bytes([seat + 1])) for seat in range(3)]
        before = [s.outbox.take_all() for s in streams]
        again = table.subscribe(1, 0, b"changed my mind")  # a second hello cannot change seat 1's entropy
        refused_commit = table.match.dealt
        streams[1] = again
        streams.append(table.subscribe(3, 0, b""))
        return table, before, refused_commit, [s.outbox.take_all() for s in streams]

    table, before, dealt_early, after = asyncio.run(scenario())
    assert not dealt_early
    for messages in before:
        assert [type(m) for m in messages] == [SnapshotOut]
        assert decode(messages[0].view)["stage"] == DEALING_STAGE and messages[0].seq == 0
    assert table.match.dealt and table.seq == 1
    assert table.match.commands[0].seat == DEALER_SEAT
    assert table.match.commands[0].action["entropy"] == ["01", "02", "03", ""]
    assert [type(m) for m in after[0]] == [DeltaOut] and after[0][0].seq == 1 and after[0][0].automatic
    assert [type(m) for m in after[3]] == [SnapshotOut, DeltaOut], "the last seat hears of the deal after its snapshot"


def test_before_the_deal_a_commit_is_refused_and_changes_nothing() -> None:
    async def scenario():
        table = waiting_table()
        stream = table.subscribe(0, 0, b"x")
        stream.outbox.take_all()
        table.commit(stream, "early", msgpack.packb({"type": "pass"}))
        return table, stream.outbox.take_all()

    table, answers = asyncio.run(scenario())
    assert [(type(m), m.reason) for m in answers] == [(RejectionOut, Reason.NOT_YOUR_TURN)]
    assert "not dealt" in answers[0].message and table.seq == 0


def test_at_its_deadline_the_table_deals_without_the_seats_still_missing() -> None:
    async def scenario():
        table = Table("t-late", BIGTWO, TableSeed.numbered(6), list(PLAYERS), {}, deal_wait_ms=50)
        stream = table.subscribe(2, 0, b"only me")
        await wait_for(lambda: table.match.dealt)
        return table, stream.outbox.take_all()

    table, messages = asyncio.run(scenario())
    assert table.match.commands[0].action["entropy"] == ["", "", "6f6e6c79206d65", ""]
    assert [type(m) for m in messages] == [SnapshotOut, DeltaOut]


def test_a_spectators_hello_neither_brings_entropy_nor_deals() -> None:
    async def scenario():
        table = waiting_table()
        table.subscribe(-1, 0, b"spectating")
        for seat in range(3):
            table.subscribe(seat, 0, b"")
        return table

    table = asyncio.run(scenario())
    assert not table.match.dealt


def slow_move(table: Table, seat: int) -> dict:
    """The seat's smallest play (a pass only when it has none): every seat
    sheds one card at a time, a long game."""
    return table.match.view(seat)["request"]["legal_actions"][0]


class StoreJournal:
    """Writes each entry (and checkpoint) to a real store, then releases it."""

    def __init__(self, store: LocalStore, table_id: str) -> None:
        self.store, self.table_id = store, table_id

    def submit(self, table, entry, checkpoint=None) -> None:
        failed = self.store.append({self.table_id: Appends(1, [entry], checkpoint)})
        assert failed == {}
        table.released(entry.seq)


def test_a_table_resumed_after_a_checkpoint_keeps_every_command_and_ends_with_a_whole_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_commands, "CHECKPOINT_EVERY", 8)  # several checkpoints in one short game
    store = LocalStore(str(tmp_path))

    async def scenario():
        table = waiting_table("t-resume")
        store.create([TableHeader("t-resume", "run", table.match.header(), opened("t-resume"), code_versions(BIGTWO))])
        table.commands.journal = StoreJournal(store, "t-resume")
        streams = {seat: table.subscribe(seat, 0, bytes([seat])) for seat in range(4)}
        while table.seq < 20:
            seat = BIGTWO.to_act(table.match.state)
            table.commit(streams[seat], f"m{table.seq}", msgpack.packb(slow_move(table, seat)))
        store.forget("t-resume")
        assert store.load("t-resume").checkpoint.seq >= 16
        resumed = resume_table(store.claim("t-resume"), BIGTWO, journal=None, owner=None, rate=200, burst=400)
        assert resumed.match.commands == table.match.commands
        streams = {seat: resumed.subscribe(seat, resumed.seq) for seat in range(4)}
        while resumed.match.result is None:
            seat = BIGTWO.to_act(resumed.match.state)
            resumed.commit(streams[seat], f"m{resumed.seq}", msgpack.packb(slow_move(resumed, seat)))
        return resumed, [m for m in streams[2].outbox.take_all() if isinstance(m, GameOverOut)]

    resumed, game_overs = asyncio.run(scenario())
    assert len(game_overs) == 1
    record = decode(game_overs[0].record)
    assert len(record["commands"]) == resumed.seq, "every command from the deal on, one per seq"
    hashes = dict(replayed_hashes(BIGTWO, record, 2))
    assert hashes[resumed.seq] == resumed._views.published.current(2).hash
