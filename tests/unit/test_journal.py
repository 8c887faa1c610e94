"""The room's journal: group commits in a thread of its own, each table told
on the room's loop when its command is durable (or can never be). The store
here is scripted, so a test decides when a write finishes and what it
answers; the stores themselves are held to their contract in test_stores.py."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Mapping

import pytest

from tablehost.actors import journal as journal_module
from tablehost.actors.journal import Journal
from tablehost.actors.store import Appends, Fenced, JournalEntry, StoreUnavailable

WAIT_S = 10.0


def entry(seq: int) -> JournalEntry:
    return JournalEntry(seq, f"act-{seq}", 0, {"type": "pass"}, 1_000 + seq, False)


class ScriptedStore:
    """Records every append; each answer is taken from `answers` (an
    exception per table, as the real stores report them) until it runs out;
    `hold` keeps an append from finishing until it is set."""

    def __init__(self, answers: list[dict[str, Exception]] | None = None) -> None:
        self.appends: list[dict[str, list[int]]] = []
        self.answers = list(answers or [])
        self.hold = threading.Event()
        self.hold.set()
        self.writing = threading.Event()
        self.threads: set[threading.Thread] = set()

    def append(self, batch: Mapping[str, Appends]) -> dict[str, Exception]:
        self.threads.add(threading.current_thread())
        self.appends.append({table_id: [e.seq for e in appends.entries] for table_id, appends in batch.items()})
        self.writing.set()
        assert self.hold.wait(WAIT_S)
        return self.answers.pop(0) if self.answers else {}


class Recorder:
    """A table as the journal sees it, recording what it is told and on which thread."""

    def __init__(self, table_id: str, told: asyncio.Queue) -> None:
        self.table_id = table_id
        self.epoch = 1
        self.released_seqs: list[int] = []
        self.failures: list[Exception] = []
        self.told_on: set[str] = set()
        self._told = told

    def released(self, seq: int) -> None:
        self.told_on.add(threading.current_thread().name)
        self.released_seqs.append(seq)
        self._told.put_nowait((self.table_id, seq))

    def journal_failed(self, error: Exception) -> None:
        self.told_on.add(threading.current_thread().name)
        self.failures.append(error)
        self._told.put_nowait((self.table_id, error))


async def told(queue: asyncio.Queue, count: int) -> list:
    return [await asyncio.wait_for(queue.get(), WAIT_S) for _ in range(count)]


def run(test: Callable[[asyncio.Queue], object]) -> None:
    async def main() -> None:
        await test(asyncio.Queue())
    asyncio.run(main())


def test_commands_submitted_while_a_batch_is_written_go_together_in_the_next() -> None:
    store = ScriptedStore()
    journal = Journal(store)

    async def scenario(queue: asyncio.Queue) -> None:
        a, b, c = (Recorder(name, queue) for name in "abc")
        store.hold.clear()
        journal.submit(a, entry(1))
        assert await asyncio.to_thread(store.writing.wait, WAIT_S)
        journal.submit(b, entry(4))
        journal.submit(c, entry(9))
        store.hold.set()
        assert sorted(map(str, await told(queue, 3))) == sorted(map(str, [("a", 1), ("b", 4), ("c", 9)]))
        assert store.appends == [{"a": [1]}, {"b": [4], "c": [9]}]
        assert [thread.name for thread in store.threads] == ["journal"]
        assert {name for t in (a, b, c) for name in t.told_on} == {threading.main_thread().name}
        await asyncio.to_thread(journal.close)

    run(scenario)


def test_a_store_that_is_unreachable_is_tried_again_with_the_same_entries_until_it_answers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(journal_module, "_FIRST_RETRY_S", 0.001)
    down = StoreUnavailable("redis is restarting")
    store = ScriptedStore([{"a": down}, {"a": down}])
    journal = Journal(store)

    async def scenario(queue: asyncio.Queue) -> None:
        a = Recorder("a", queue)
        journal.submit(a, entry(5))
        assert await told(queue, 1) == [("a", 5)]
        assert store.appends == [{"a": [5]}] * 3
        assert a.failures == []
        await asyncio.to_thread(journal.close)

    run(scenario)


def test_a_fenced_table_fails_alone_and_the_rest_of_its_batch_is_published() -> None:
    fenced = Fenced("table a has epoch 2 now")
    store = ScriptedStore([{}, {"a": fenced}])
    journal = Journal(store)

    async def scenario(queue: asyncio.Queue) -> None:
        a, b, first = Recorder("a", queue), Recorder("b", queue), Recorder("first", queue)
        store.hold.clear()
        journal.submit(first, entry(1))  # holds the writer while a and b queue up together
        assert await asyncio.to_thread(store.writing.wait, WAIT_S)
        journal.submit(a, entry(3))
        journal.submit(b, entry(8))
        store.hold.set()
        outcomes = dict(await told(queue, 3))
        assert outcomes == {"first": 1, "a": fenced, "b": 8}
        # Tried once: a fenced table is not tried again.
        assert store.appends == [{"first": [1]}, {"a": [3], "b": [8]}]
        await asyncio.to_thread(journal.close)

    run(scenario)


def test_a_store_failing_for_longer_than_the_outage_bound_fails_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(journal_module, "_FIRST_RETRY_S", 0.001)
    monkeypatch.setattr(journal_module, "_LAST_RETRY_S", 0.001)
    monkeypatch.setattr(journal_module, "STORE_OUTAGE_S", 0.05)
    down = StoreUnavailable("the disk is gone")
    store = ScriptedStore([{"a": down}] * 10_000)
    journal = Journal(store)

    async def scenario(queue: asyncio.Queue) -> None:
        a = Recorder("a", queue)
        journal.submit(a, entry(2))
        assert await told(queue, 1) == [("a", down)]
        assert a.released_seqs == [] and len(store.appends) >= 2
        await asyncio.to_thread(journal.close)

    run(scenario)


def test_closing_stops_the_writer_thread() -> None:
    store = ScriptedStore()
    journal = Journal(store)

    async def scenario(queue: asyncio.Queue) -> None:
        journal.submit(Recorder("a", queue), entry(1))
        await told(queue, 1)
        await asyncio.to_thread(journal.close)
        (writer,) = store.threads
        assert not writer.is_alive()

    run(scenario)
