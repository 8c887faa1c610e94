"""A stream's queue of outbound records: the table appends from its step,
the stream's writer drains everything queued at once.

Every move queues one record per stream of its table, so this is the
hottest queue in a room. asyncio.Queue makes a future per waiting get and
looks its loop up on every call (asyncio.get_running_loop() makes a
getpid() system call each time); this keeps its loop, and makes at most one
future per wake-up, whatever the number of records queued meanwhile.

The queue is bounded, by records and by bytes: it grows only while the
client reads slower than its table changes (gRPC's flow control holds the
writer), and without a bound a client that never reads would grow its room
until the process died. A queue past either bound overflows: what it held is dropped, nothing more is
taken, `on_overflow` is called (the stream's writer ends the stream with
RESOURCE_EXHAUSTED) and `drain` raises Overflow. The client reconnects with
its last seq and is sent what it missed, or a snapshot."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Callable, Generic, TypeVar

T = TypeVar("T")

# Far above a live table's pace (a few changes a second) for a client that
# is merely slow for a while; the bytes bound is what a flood of large
# records meets first.
MAX_QUEUED_RECORDS = 1024
MAX_QUEUED_BYTES = 1024 * 1024


class Overflow(Exception):
    """The stream fell further behind than its queue may hold."""


class Outbox(Generic[T]):
    __slots__ = ("_items", "_waiter", "_loop", "_size", "_bytes", "max_records", "max_bytes", "overflowed",
                 "on_overflow")

    def __init__(
        self,
        size: Callable[[T], int] | None = None,
        max_records: int = MAX_QUEUED_RECORDS,
        max_bytes: int = MAX_QUEUED_BYTES,
    ) -> None:
        """`size` tells a record's bytes (without it only records are counted)."""
        self._items: deque[T] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._size = size
        self._bytes = 0
        self.max_records, self.max_bytes = max_records, max_bytes
        self.overflowed = False
        self.on_overflow: Callable[[], object] | None = None

    def __len__(self) -> int:
        return len(self._items)

    @property
    def queued_bytes(self) -> int:
        return self._bytes

    def put(self, item: T) -> None:
        if self.overflowed:
            return  # the stream is ending; nothing more is kept for it
        self._items.append(item)
        if self._size is not None:
            self._bytes += self._size(item)
        if len(self._items) > self.max_records or self._bytes > self.max_bytes:
            self._overflow()
            return
        self._wake()

    def take_all(self) -> list[T]:
        """Everything queued now, oldest first (possibly nothing)."""
        items = list(self._items)
        self._items.clear()
        self._bytes = 0
        return items

    async def drain(self) -> list[T]:
        """Wait until something is queued, then take it all; raises Overflow
        once the queue has overflowed."""
        while not self._items:
            if self.overflowed:
                raise Overflow()
            if self._loop is None:
                self._loop = asyncio.get_running_loop()
            waiter = self._loop.create_future()
            self._waiter = waiter
            try:
                await waiter
            finally:
                if self._waiter is waiter:
                    self._waiter = None
        return self.take_all()

    def _overflow(self) -> None:
        self.overflowed = True
        self._items.clear()
        self._bytes = 0
        self._wake()
        if self.on_overflow is not None:
            self.on_overflow()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)
