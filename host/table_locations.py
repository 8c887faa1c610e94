"""Where tables are, as a front door answers LookupTable and Spectate: not
with one lobby call each.

Every lookup joins the next batch: one `describe_tables` call carries every
table asked about meanwhile (at most one call in flight, so a flood of
lookups costs the lobby a few calls a second however many clients send
it), and callers asking about the same table share its answer. That a table
is not running is kept for `ttl_s`, so asking again and again about an
unknown or finished table costs nothing; where a running table is is always
asked afresh (a player looks a table up when its room went away, the very
moment an answer kept from before would be wrong). What is kept and what
waits is bounded: the oldest answers are forgotten first, and past
`max_waiting` tables waiting for the lobby a lookup is refused
(RESOURCE_EXHAUSTED) rather than queued."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from tablehost.actors.matchmaking import LobbyRefused, Refusal
from tablehost.actors.table_directory import TableDescription

# A running table's description, or None: not running.
Description = TableDescription | None
Describe = Callable[[list[str]], Awaitable[dict[str, Description]]]

TTL_S = 1.0
MAX_KEPT = 100_000
MAX_WAITING = 10_000
MAX_BATCH = 2_000


class TableLocations:
    def __init__(self, describe: Describe, *, ttl_s: float = TTL_S, max_kept: int = MAX_KEPT,
                 max_waiting: int = MAX_WAITING, clock: Callable[[], float] = time.monotonic) -> None:
        self._describe = describe
        self._ttl_s = ttl_s
        self._max_kept = max_kept
        self._max_waiting = max_waiting
        self._clock = clock
        self._kept: OrderedDict[str, tuple[float, Description]] = OrderedDict()
        self._waiting: dict[str, asyncio.Future[Description]] = {}
        self._asking: asyncio.Task[None] | None = None
        self.lobby_calls = 0

    async def describe(self, table_id: str) -> TableDescription:
        """The running table's description; LobbyRefused NOT_FOUND when it is
        not running, RESOURCE_EXHAUSTED when too many lookups wait."""
        kept = self._kept.get(table_id)
        if kept is not None and kept[0] > self._clock():
            description = kept[1]
        else:
            # Shielded: callers share the future, and one hanging up must
            # not cancel it for the others.
            description = await asyncio.shield(self._ask(table_id))
        if description is None:
            raise LobbyRefused(Refusal.NOT_FOUND, f"no table {table_id!r} is running")
        return description

    def _ask(self, table_id: str) -> asyncio.Future[Description]:
        waiting = self._waiting.get(table_id)
        if waiting is not None:
            return waiting
        if len(self._waiting) >= self._max_waiting:
            raise LobbyRefused(Refusal.RESOURCE_EXHAUSTED,
                               f"this front door has {len(self._waiting)} table lookups waiting for the lobby; "
                               "try again shortly")
        waiting = self._waiting[table_id] = asyncio.get_running_loop().create_future()
        if self._asking is None:
            self._asking = asyncio.get_running_loop().create_task(self._ask_lobby())
        return waiting

    async def _ask_lobby(self) -> None:
        """One describe_tables call at a time, each taking every table asked
        about since the last began (at most MAX_BATCH)."""
        try:
            while self._waiting:
                table_ids = [table_id for table_id, _ in zip(self._waiting, range(MAX_BATCH))]
                futures = [self._waiting.pop(table_id) for table_id in table_ids]
                self.lobby_calls += 1
                try:
                    answers = await self._describe(table_ids)
                except Exception as error:  # the lobby's failure is each waiting caller's
                    for future in futures:
                        if not future.done():
                            future.set_exception(error)
                    continue
                expires = self._clock() + self._ttl_s
                for table_id, future in zip(table_ids, futures):
                    description = answers.get(table_id)
                    if description is None:
                        self._keep(table_id, expires, description)
                    if not future.done():
                        future.set_result(description)
        finally:
            self._asking = None

    def _keep(self, table_id: str, expires: float, description: Description) -> None:
        self._kept[table_id] = (expires, description)
        self._kept.move_to_end(table_id)
        while len(self._kept) > self._max_kept:
            self._kept.popitem(last=False)
