"""Where waiting players wait: at the front door they connected to.

Each waiting JoinQueue (or JoinPrivateTable) call is a future here, not a
Ray call: the front door trades with the lobby actor in batches over two
calls of its own, whatever the number of players waiting. The sender
carries joins, leaves and answers to the lobby's proposals in one
`door_exchange` at a time (what arrives meanwhile goes in the next batch);
the poller keeps one `door_poll` open for proposals ("is this player still
here?"), seatings and players the lobby let go.

A caller that hangs up leaves at once: its future is dropped here and the
leave goes out in the next batch; a proposal that names it is declined, so
the lobby never starts a table with it."""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass, field
from typing import Any

import ray

from tablehost.actors.matchmaking import LobbyRefused, Refusal

log = logging.getLogger("tablehost.waiting")

# At most this many joins in one exchange (a burst is split, never refused).
MAX_BATCH = 2_000
POLL_TIMEOUT_S = 5.0
_RETRY_AFTER_S = 1.0


@dataclass(eq=False)
class Waiter:
    ticket: str
    seated: asyncio.Future[dict[str, Any]]
    # Set once the lobby has answered the exchange that carried the join.
    delivered: asyncio.Event = field(default_factory=asyncio.Event)


class WaitingRoom:
    """The waiting players of one front door and its two calls to the lobby.
    Made and used on the front door's event loop."""

    def __init__(self, lobby: Any, max_waiting: int, poll_timeout_s: float = POLL_TIMEOUT_S) -> None:
        self.door_id = f"door-{uuid.uuid4().hex[:12]}"
        self._lobby = lobby
        self._max_waiting = max_waiting
        self._poll_timeout_s = poll_timeout_s
        self._waiters: dict[str, Waiter] = {}
        self._joins: dict[str, dict[str, str]] = {}
        self._leaves: list[str] = []
        self._answers: list[tuple[int, str, bool]] = []
        self._outgoing = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        # Looked up once: asyncio.get_running_loop() costs a system call.
        self._loop = asyncio.get_running_loop()

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    def start(self) -> None:
        loop = self._loop
        self._tasks = [
            loop.create_task(self._send_forever(), name=f"{self.door_id} sender"),
            loop.create_task(self._poll_forever(), name=f"{self.door_id} poller"),
        ]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._fail_all(Refusal.UNAVAILABLE, "the front door is shutting down")

    async def wait_for_seat(self, ticket: str, join: dict[str, str]) -> dict[str, Any]:
        """Wait until the lobby seats this ticket; raises LobbyRefused. If the
        caller goes away (this coroutine is cancelled), the ticket leaves."""
        if ticket in self._waiters:
            raise LobbyRefused(Refusal.ALREADY_EXISTS, f"ticket {ticket} is already waiting")
        if len(self._waiters) >= self._max_waiting:
            raise LobbyRefused(Refusal.RESOURCE_EXHAUSTED,
                               f"this front door holds {self._max_waiting} waiting players already; try another or later")
        waiter = Waiter(ticket, self._loop.create_future())
        self._waiters[ticket] = waiter
        self._joins[ticket] = {**join, "ticket": ticket}
        self._outgoing.set()
        try:
            return await waiter.seated
        except asyncio.CancelledError:
            self._forget(waiter)
            raise

    async def leave(self, ticket: str) -> bool:
        """LeaveQueue: withdraw a join not yet sent; otherwise let the lobby
        take the ticket out wherever it waits (its own front door then ends
        its JoinQueue with CANCELLED)."""
        waiter = self._waiters.get(ticket)
        if waiter is not None:
            if self._joins.pop(ticket, None) is not None:
                del self._waiters[ticket]
                waiter.seated.set_exception(LobbyRefused(Refusal.CANCELLED, "left the queue"))
                return True
            await waiter.delivered.wait()  # the join is on its way: let it land first
        return await self._lobby.leave_queue.remote(ticket)

    def _forget(self, waiter: Waiter) -> None:
        """The caller hung up: drop its place here and tell the lobby."""
        if self._waiters.get(waiter.ticket) is not waiter:
            return
        del self._waiters[waiter.ticket]
        if self._joins.pop(waiter.ticket, None) is None:
            self._leaves.append(waiter.ticket)
            self._outgoing.set()
        log.info("ticket %s hung up while waiting; it leaves the queue", waiter.ticket)

    # -- the two calls to the lobby ---------------------------------------------------

    async def _send_forever(self) -> None:
        while True:
            await self._outgoing.wait()
            self._outgoing.clear()
            while self._joins or self._leaves or self._answers:
                await self._send_one_batch()

    async def _send_one_batch(self) -> None:
        tickets = list(self._joins)[:MAX_BATCH]
        joins = [self._joins.pop(ticket) for ticket in tickets]
        sent = [waiter for waiter in map(self._waiters.get, tickets) if waiter is not None]
        leaves, self._leaves = self._leaves, []
        answers, self._answers = self._answers, []
        failed = False
        try:
            reply = await self._lobby.door_exchange.remote(self.door_id, joins, leaves, answers)
        except ray.exceptions.RayError as error:
            log.error("the lobby did not take a batch of %d joins: %s", len(joins), error)
            reply = {"refused": {ticket: (Refusal.UNAVAILABLE.value, "the lobby is unavailable") for ticket in tickets}}
            failed = True
        for waiter in sent:
            waiter.delivered.set()
        for ticket, (refusal, message) in reply["refused"].items():
            self._resolve_refused(ticket, Refusal(refusal), message)
        if failed:
            await asyncio.sleep(_RETRY_AFTER_S)

    async def _poll_forever(self) -> None:
        while True:
            try:
                mail = await self._lobby.door_poll.remote(self.door_id, self._poll_timeout_s)
            except ray.exceptions.RayError as error:
                log.error("polling the lobby failed: %s", error)
                self._fail_all(Refusal.UNAVAILABLE, "the lobby is unavailable")
                await asyncio.sleep(_RETRY_AFTER_S)
                continue
            self._read_mail(mail)

    def _read_mail(self, mail: dict[str, Any]) -> None:
        for group_id, ticket in mail["proposals"]:
            waiter = self._waiters.get(ticket)
            self._answers.append((group_id, ticket, waiter is not None and not waiter.seated.done()))
        if self._answers:
            self._outgoing.set()
        for assignment in mail["seated"]:
            waiter = self._waiters.pop(assignment["ticket"], None)
            if waiter is not None and not waiter.seated.done():
                waiter.seated.set_result(assignment)
        for ticket, refusal, message in mail["dropped"]:
            self._resolve_refused(ticket, Refusal(refusal), message)

    def _resolve_refused(self, ticket: str, refusal: Refusal, message: str) -> None:
        waiter = self._waiters.pop(ticket, None)
        if waiter is not None and not waiter.seated.done():
            waiter.seated.set_exception(LobbyRefused(refusal, message))

    def _fail_all(self, refusal: Refusal, message: str) -> None:
        for ticket in list(self._waiters):
            self._resolve_refused(ticket, refusal, message)
        self._joins.clear()
