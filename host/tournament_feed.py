"""WatchTournament's fan-out at one front door: a stream does not hold a Ray
call each; the front door keeps one `updates` call open per tournament
watched here (TournamentFeed) and hands each of its watchers what is theirs:
the status, their own table and seat token when a round starts, the first
page of the standings when it ends."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import ray

from tablehost.actors.tournament.answers import TournamentStatus, Update
from tablehost.host.tournament_wire import standings_to_proto, status_to_proto
from tablehost.v1 import lobby_pb2
from tablehost.v1 import tournament_pb2 as pb

# A watcher that lets this many events pile up unread is ended (it may
# watch again and gets where the tournament stands first).
WATCHER_BACKLOG = 32
UPDATES_WAIT_S = 30.0
# While only results come in, a feed asks for the next update at most this
# often, so a round's burst of results reaches each watcher as a few
# statuses, not one per result (a new round or table is passed on at once).
FEED_INTERVAL_S = 0.5


@dataclass(eq=False)
class Watcher:
    player: str
    queue: asyncio.Queue[pb.TournamentEvent | None] = field(default_factory=lambda: asyncio.Queue(WATCHER_BACKLOG))
    round_sent: int = 0
    table_sent: str = ""
    overflowed: bool = False

    def offer(self, event: pb.TournamentEvent) -> None:
        try:
            self.queue.put_nowait(event)
        except asyncio.QueueFull:
            self.overflowed = True
            self.queue.get_nowait()
            self.queue.put_nowait(None)  # what the stream reads as "you fell behind"


@dataclass(eq=False)
class FannedUpdate:
    """An update and the messages built from it, once for every watcher."""

    update: Update
    status: pb.TournamentEvent | None = None
    round_ended: pb.TournamentEvent | None = None
    seated: dict[str, str] | None = None  # each seated player's table id


class TournamentFeed:
    """One tournament's updates at this front door, fanned out to its watchers."""

    def __init__(self, actor: Any, on_empty: Any,
                 final_status: Callable[[], Awaitable[TournamentStatus | None]]) -> None:
        """`final_status`: where the tournament stands once its actor is
        gone for good (its log's answer), or None while the actor is there."""
        self.actor = actor
        self.watchers: set[Watcher] = set()
        self._on_empty = on_empty
        self._final_status = final_status
        self._last: FannedUpdate | None = None
        self._task: asyncio.Task[None] | None = None

    def add(self, watcher: Watcher) -> None:
        self.watchers.add(watcher)
        if self._last is not None:
            self._deliver(watcher, self._last)
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._follow())

    def remove(self, watcher: Watcher) -> None:
        self.watchers.discard(watcher)
        if not self.watchers and self._task is not None:
            self._task.cancel()
            self._task = None
            self._on_empty(self)

    async def _follow(self) -> None:
        version, seen = -1, None
        while self.watchers:
            gone = False
            try:
                update = await self.actor.updates.remote(version, UPDATES_WAIT_S)
            except ray.exceptions.RayActorError:
                final = await self._final_status()
                if final is None:
                    await asyncio.sleep(FEED_INTERVAL_S)  # Ray is restarting the actor; its log brings it back
                    continue
                # It finished and let its process go: its log says how it ended.
                update, gone = Update(version + 1, final, None), True
            version = update.version
            self._last = fanned = FannedUpdate(update)
            for watcher in list(self.watchers):
                self._deliver(watcher, fanned)
            if gone or update.status.state == "finished":
                for watcher in list(self.watchers):
                    watcher.offer(pb.TournamentEvent())  # an empty event: the end
                return
            # A round started or its tables opened: players are told at once;
            # results alone are gathered for FEED_INTERVAL_S.
            current = update.round
            shape = (current.number, len(current.placed)) if current is not None else None
            if shape == seen:
                await asyncio.sleep(FEED_INTERVAL_S)
            seen = shape

    @staticmethod
    def _deliver(watcher: Watcher, fanned: FannedUpdate) -> None:
        """What this watcher has not been told: a round ended and another
        started (its table or bye), then the status. The messages are built
        once per update and shared by every watcher."""
        status, current = fanned.update.status, fanned.update.round
        if current is not None and current.number > watcher.round_sent:
            if watcher.round_sent:
                if fanned.round_ended is None:
                    fanned.round_ended = pb.TournamentEvent(round_ended=pb.RoundEnded(
                        round=current.number - 1, standings=standings_to_proto(status.standings.rows),
                        standings_total=status.standings.total))
                watcher.offer(fanned.round_ended)
            watcher.round_sent = current.number
            watcher.table_sent = ""
            if watcher.player in current.byes:
                watcher.offer(pb.TournamentEvent(round_started=pb.RoundStarted(round=current.number, bye=True)))
        if current is not None and watcher.player and not watcher.table_sent:
            if fanned.seated is None:
                fanned.seated = {player: table_id for table_id, players in current.tables.items() for player in players}
            table_id = fanned.seated.get(watcher.player)
            if table_id is not None and table_id in current.placed:
                placed = current.placed[table_id]
                seat = current.tables[table_id].index(watcher.player)
                assignment = lobby_pb2.TableAssignment(
                    table_id=table_id, endpoint=placed.endpoint, seat=seat, seat_token=placed.seat_tokens[seat],
                    game=placed.game, display_names=placed.display_names, ticket="",
                    deal_commitment=placed.deal_commitment)
                watcher.offer(pb.TournamentEvent(round_started=pb.RoundStarted(round=current.number,
                                                                               table=assignment)))
                watcher.table_sent = table_id
        if fanned.status is None:
            fanned.status = pb.TournamentEvent(status=status_to_proto(status, standings=status.state == "finished"))
        watcher.offer(fanned.status)
