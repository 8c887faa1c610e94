"""A room's journal: persist, then publish. Every accepted command of every
table of the room is written to the store before anyone hears of it, in
group commits: while the journal's thread writes one batch, the next
accumulates, so a busy room pays one write and one sync per batch, not
per move.

A table hands its accepted entries here (`submit`) and publishes a change
only when `released` is called for it. If the store refuses a table's
entries (another incarnation owns it, or the disk failed), that table is
told (`journal_failed`) and closes; the room's other tables go on. A store
that is unreachable (Redis restarting) is retried with backoff for up to
STORE_OUTAGE_S: the commands wait unpublished, none is lost, and the tables
carry on when it is back. A retried batch the store had in fact taken (its
reply was lost) is taken once: the stores recognise a repeated append."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Protocol, TypeVar

from tablehost.actors import crash_points
from tablehost.actors.metrics import CHECKPOINTS, STORE_WRITE_LATENCY, STORE_WRITES
from tablehost.actors.store import Appends, Checkpoint, Fenced, JournalEntry, StoreUnavailable, TableStore

log = logging.getLogger("tablehost.journal")

# How long a table's commands wait for a store that fails before the table
# gives up, and the backoff between tries.
STORE_OUTAGE_S = 30.0
_FIRST_RETRY_S = 0.05
_LAST_RETRY_S = 1.0


T = TypeVar("T")


async def through_outage(call: Callable[..., T], *args: object) -> T:
    """`call(*args)` in a worker thread, tried again with the journal's
    backoff while the store is unreachable, for up to STORE_OUTAGE_S: a table
    created or resumed while Redis restarts waits for it, as commands do,
    instead of failing its players."""
    loop = asyncio.get_running_loop()
    give_up_at = loop.time() + STORE_OUTAGE_S
    backoff = _FIRST_RETRY_S
    while True:
        try:
            return await asyncio.to_thread(call, *args)
        except StoreUnavailable:
            if loop.time() + backoff > give_up_at:
                raise
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, _LAST_RETRY_S)


class Journaled(Protocol):
    """What the journal needs of a table."""

    table_id: str
    epoch: int

    def released(self, seq: int) -> None:
        """Entries up to `seq` are durable: publish them."""

    def journal_failed(self, error: Exception) -> None:
        """The store refused this table's entries: it can take no more commands."""


@dataclass
class _Pending:
    table: Journaled
    entries: list[JournalEntry] = field(default_factory=list)
    checkpoint: Checkpoint | None = None
    failing_since: float | None = None  # the first failed try of these entries

    def then(self, later: _Pending | None) -> _Pending:
        """These entries (a failed try), then any submitted since."""
        if later is not None:
            self.entries += later.entries
            self.checkpoint = later.checkpoint or self.checkpoint
        return self


class Journal:
    """Group commits in a writer thread of the journal's own. A table's
    command crosses the room's event loop once, on its way back to be
    published; as a task awaiting a worker thread it crossed it up to three
    times (the task started, the thread's result, the task resumed), and
    under a flood that fills every turn of the loop each crossing is a wait."""

    def __init__(self, store: TableStore) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._submitted = threading.Condition(self._lock)
        self._pending: dict[str, _Pending] = {}
        self._closed = False
        self._writer: threading.Thread | None = None

    def submit(self, table: Journaled, entry: JournalEntry, checkpoint: Checkpoint | None = None) -> None:
        """Queue an accepted command (and, every so often, a checkpoint after
        it); called on the room's loop, which hears back in `table.released`."""
        with self._lock:
            pending = self._pending.get(table.table_id)
            if pending is None:
                pending = self._pending[table.table_id] = _Pending(table)
            pending.entries.append(entry)
            if checkpoint is not None:
                pending.checkpoint = checkpoint
            self._submitted.notify()
        if self._writer is None:
            self._writer = threading.Thread(target=self._write_until_closed, args=(asyncio.get_running_loop(),),
                                            name="journal", daemon=True)
            self._writer.start()

    def close(self, timeout_s: float = 5.0) -> None:
        """Stop the writer after the batch it is writing. What is still
        queued was never published, so no player has heard of it: as after a
        crash, its clients resend it by act_id to wherever the table resumes."""
        with self._lock:
            self._closed = True
            self._submitted.notify()
        if self._writer is not None:
            self._writer.join(timeout_s)

    def _next_batch(self, retrying: dict[str, _Pending]) -> dict[str, _Pending] | None:
        """What to write next, retried entries first; None once closed."""
        with self._lock:
            while not (self._pending or retrying or self._closed):
                self._submitted.wait()
            if self._closed:
                return None
            batch, self._pending = self._pending, {}
        for table_id, failed_before in retrying.items():
            batch[table_id] = failed_before.then(batch.get(table_id))
        return batch

    def _write_until_closed(self, loop: asyncio.AbstractEventLoop) -> None:
        retrying: dict[str, _Pending] = {}
        backoff = _FIRST_RETRY_S
        while (batch := self._next_batch(retrying)) is not None:
            appends = {table_id: Appends(p.table.epoch, p.entries, p.checkpoint) for table_id, p in batch.items()}
            started = time.perf_counter()
            try:
                failed = self.store.append(appends)
            except Exception as error:  # a store that raises instead of reporting: every table fails
                log.exception("the journal could not write a batch of %d tables", len(batch))
                failed = {table_id: error for table_id in batch}
            STORE_WRITE_LATENCY.observe(time.perf_counter() - started)
            STORE_WRITES.inc()
            CHECKPOINTS.inc(sum(1 for a in appends.values() if a.checkpoint is not None))
            crash_points.reached(crash_points.AFTER_APPEND)
            written, given_up, retrying = self._sort(batch, failed)
            try:
                loop.call_soon_threadsafe(self._settle, written, given_up)
            except RuntimeError:
                return  # the loop is closed: the room is gone, and nobody is left to tell
            if retrying:
                time.sleep(backoff)
                backoff = min(backoff * 2, _LAST_RETRY_S)
            else:
                backoff = _FIRST_RETRY_S

    @staticmethod
    def _sort(batch: dict[str, _Pending], failed: dict[str, Exception]
              ) -> tuple[list[_Pending], list[tuple[_Pending, Exception]], dict[str, _Pending]]:
        """A written batch's tables: written (to publish), given up (fenced,
        or failing for STORE_OUTAGE_S) and to try again."""
        now = time.monotonic()
        written: list[_Pending] = []
        given_up: list[tuple[_Pending, Exception]] = []
        retrying: dict[str, _Pending] = {}
        for table_id, pending in batch.items():
            error = failed.get(table_id)
            if error is None:
                written.append(pending)
                continue
            pending.failing_since = pending.failing_since or now
            if isinstance(error, Fenced) or now - pending.failing_since >= STORE_OUTAGE_S:
                given_up.append((pending, error))
                continue
            if pending.failing_since == now:
                log.warning("table %s: the store failed (%s); trying again for up to %.0f s",
                            table_id, error, STORE_OUTAGE_S)
            retrying[table_id] = pending
        return written, given_up, retrying

    @staticmethod
    def _settle(written: list[_Pending], given_up: list[tuple[_Pending, Exception]]) -> None:
        """On the room's loop: publish what was written, fail what was given up."""
        for pending in written:
            pending.table.released(pending.entries[-1].seq)
            crash_points.reached(crash_points.AFTER_PUBLISH)
        for pending, error in given_up:
            pending.table.journal_failed(error)
