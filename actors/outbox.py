"""A stream's queue of outbound records: the table appends from its step,
the stream's writer drains everything queued at once.

Every move queues one record per stream of its table, so this is the
hottest queue in a room. asyncio.Queue makes a future per waiting get and
looks its loop up on every call (asyncio.get_running_loop() makes a
getpid() system call each time); this keeps its loop, and makes at most one
future per wake-up, whatever the number of records queued meanwhile."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class Outbox(Generic[T]):
    __slots__ = ("_items", "_waiter", "_loop")

    def __init__(self) -> None:
        self._items: deque[T] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def __len__(self) -> int:
        return len(self._items)

    def put(self, item: T) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def take_all(self) -> list[T]:
        """Everything queued now, oldest first (possibly nothing)."""
        items = list(self._items)
        self._items.clear()
        return items

    async def drain(self) -> list[T]:
        """Wait until something is queued, then take it all."""
        while not self._items:
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
