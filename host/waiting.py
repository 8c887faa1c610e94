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
the lobby never starts a table with it.

The lobby may die and be restarted by Ray with empty queues. Its players
keep waiting here: a batch the lobby did not take goes again, and when the
lobby answers with a new incarnation every join it had is sent again. The
front door reports NOT_SERVING meanwhile (`on_lobby`); players are refused
with UNAVAILABLE only if the lobby stays away for LOBBY_OUTAGE_S."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import ray

from tablehost.actors.door_exchange import DoorJoin, DoorMail
from tablehost.actors.matchmaking import LobbyRefused, Refusal
from tablehost.v1 import lobby_pb2

log = logging.getLogger("tablehost.waiting")

# At most this many joins in one exchange (a burst is split, never refused).
MAX_BATCH = 2_000
POLL_TIMEOUT_S = 5.0
_RETRY_AFTER_S = 1.0
# Waiting players wait this long for a lobby that is away (restarting).
LOBBY_OUTAGE_S = 30.0


@dataclass(eq=False)
class Waiter:
    ticket: str
    seated: asyncio.Future[lobby_pb2.TableAssignment]
    # Set once the lobby has answered the exchange that carried the join.
    delivered: asyncio.Event = field(default_factory=asyncio.Event)


class WaitingLine:
    """The waiting players of one front door and its two calls to the lobby.
    Made and used on the front door's event loop."""

    def __init__(self, lobby: Any, max_waiting: int, poll_timeout_s: float = POLL_TIMEOUT_S,
                 on_lobby: Callable[[bool], Awaitable[None]] | None = None) -> None:
        self.door_id = f"door-{uuid.uuid4().hex[:12]}"
        self._lobby = lobby
        self._max_waiting = max_waiting
        self._poll_timeout_s = poll_timeout_s
        self._on_lobby = on_lobby
        self._waiters: dict[str, Waiter] = {}
        self._joins: dict[str, DoorJoin] = {}  # to send
        self._delivered: dict[str, DoorJoin] = {}  # sent: the lobby's queues hold them
        self._incarnation: str | None = None  # the lobby's, as last seen
        self._lobby_lost_since: float | None = None
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

    async def wait_for_seat(self, join: DoorJoin) -> lobby_pb2.TableAssignment:
        """Wait until the lobby seats this ticket; raises LobbyRefused. If the
        caller goes away (this coroutine is cancelled), the ticket leaves."""
        ticket = join.ticket
        if ticket in self._waiters:
            raise LobbyRefused(Refusal.ALREADY_EXISTS, f"ticket {ticket} is already waiting")
        if len(self._waiters) >= self._max_waiting:
            raise LobbyRefused(Refusal.RESOURCE_EXHAUSTED,
                               f"this front door holds {self._max_waiting} waiting players already; try another or later")
        waiter = Waiter(ticket, self._loop.create_future())
        self._waiters[ticket] = waiter
        self._joins[ticket] = join
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
        self._delivered.pop(waiter.ticket, None)
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
        try:
            reply = await self._lobby.door_exchange.remote(self.door_id, joins, leaves, answers)
        except ray.exceptions.RayError as error:
            # Nothing is refused for the lobby's sake: the batch goes again
            # once it answers (answers aside: its proposals time out).
            log.error("the lobby did not take a batch of %d joins: %s", len(joins), error)
            for join in joins:
                if join.ticket in self._waiters:
                    self._joins.setdefault(join.ticket, join)
            self._leaves.extend(leaves)
            await self._lobby_away()
            await asyncio.sleep(_RETRY_AFTER_S)
            return
        await self._lobby_answered(reply.lobby)
        by_ticket = {join.ticket: join for join in joins}
        for waiter in sent:
            if self._waiters.get(waiter.ticket) is waiter:  # not seated or gone meanwhile
                self._delivered[waiter.ticket] = by_ticket[waiter.ticket]
            waiter.delivered.set()
        for ticket, (refusal, message) in reply.refused.items():
            self._resolve_refused(ticket, Refusal(refusal), message)

    async def _poll_forever(self) -> None:
        while True:
            try:
                mail = await self._lobby.door_poll.remote(self.door_id, self._poll_timeout_s)
            except ray.exceptions.RayError as error:
                log.error("polling the lobby failed: %s", error)
                await self._lobby_away()
                await asyncio.sleep(_RETRY_AFTER_S)
                continue
            await self._lobby_answered(mail.lobby)
            self._read_mail(mail)

    async def _lobby_away(self) -> None:
        """A call to the lobby failed: the front door is NOT_SERVING, and its
        players are let go only if the lobby stays away too long."""
        now = time.monotonic()
        if self._lobby_lost_since is None:
            self._lobby_lost_since = now
            if self._on_lobby is not None:
                await self._on_lobby(False)
        elif now - self._lobby_lost_since >= LOBBY_OUTAGE_S:
            self._fail_all(Refusal.UNAVAILABLE, f"the lobby has been unavailable for {LOBBY_OUTAGE_S:.0f} s")

    async def _lobby_answered(self, incarnation: str) -> None:
        """The lobby answered. If it is a new incarnation (Ray restarted it,
        its queues empty), every player it had is sent again."""
        if self._lobby_lost_since is not None:
            self._lobby_lost_since = None
            if self._on_lobby is not None:
                await self._on_lobby(True)
        if self._incarnation is not None and incarnation != self._incarnation:
            log.warning("the lobby restarted; sending its %d waiting players again", len(self._delivered))
            self._answers.clear()  # to the old lobby's proposals
            for ticket, join in self._delivered.items():
                self._joins.setdefault(ticket, join)
            self._delivered.clear()
            if self._joins:
                self._outgoing.set()
        self._incarnation = incarnation

    def _read_mail(self, mail: DoorMail) -> None:
        for group_id, ticket in mail.proposals:
            waiter = self._waiters.get(ticket)
            self._answers.append((group_id, ticket, waiter is not None and not waiter.seated.done()))
        if self._answers:
            self._outgoing.set()
        for assignment in mail.seated:
            self._delivered.pop(assignment.ticket, None)
            waiter = self._waiters.pop(assignment.ticket, None)
            if waiter is not None and not waiter.seated.done():
                waiter.seated.set_result(assignment)
        for ticket, refusal, message in mail.dropped:
            self._resolve_refused(ticket, Refusal(refusal), message)

    def _resolve_refused(self, ticket: str, refusal: Refusal, message: str) -> None:
        self._delivered.pop(ticket, None)
        waiter = self._waiters.pop(ticket, None)
        if waiter is not None and not waiter.seated.done():
            waiter.seated.set_exception(LobbyRefused(refusal, message))

    def _fail_all(self, refusal: Refusal, message: str) -> None:
        for ticket in list(self._waiters):
            self._resolve_refused(ticket, refusal, message)
        self._joins.clear()
        self._delivered.clear()
