"""A tournament as its actor holds it: the fold of its event log, the
standings watchers are sent, where the current round's tables run, and a
version that front doors' `updates` calls wait on.

Every change is appended to the log before anyone hears of it; a store
that stays unreachable past its outage allowance ends the process, and the
restarted actor replays only what was kept, so nothing unkept is acted on."""

from __future__ import annotations

import asyncio
import logging
import os
import time

from tablehost.actors.journal import through_outage
from tablehost.actors.store import StoreError
from tablehost.actors.store.event_log import EventLog
from tablehost.actors.tournament.answers import CurrentRound, TournamentStatus, Update
from tablehost.actors.tournament.log_events import CreatedEvent, LogEvent
from tablehost.actors.tournament.kept import DEFAULT_PAGE_SIZE, KeptTournament, StandingsPages
from tablehost.actors.tournament.tournament import Table, Tournament
from tablehost.actors.tournament_tables import PlacedTable

log = logging.getLogger("tablehost.tournament")


class RunningTournament:
    def __init__(self, created: CreatedEvent, event_log: EventLog) -> None:
        """`created` is the tournament's first event, written only if the
        log is empty (a restarted actor is given the same one and finds its
        own log)."""
        self.tournament_id = created.spec.tournament_id
        self.log = event_log
        events = event_log.read(self.tournament_id)
        if not events:
            events = [created.to_plain()]
            event_log.append(self.tournament_id, 0, events[0])
        self.kept = KeptTournament.replay(events)
        self.pages = StandingsPages()
        # The standings watchers are sent (RoundEnded, the final status): the
        # first page as the current round was paired, or as it finished.
        self._watched = self.pages.first(self.core)
        # Where each table of the current round runs, and its seat tokens.
        self.placed: dict[str, PlacedTable] = {}
        self.version = 0
        self._changed = asyncio.Event()
        self._appending = asyncio.Lock()

    @property
    def core(self) -> Tournament:
        return self.kept.core

    # -- changes -----------------------------------------------------------------------

    async def persist(self, event: LogEvent) -> None:
        """Append before anyone hears of the change (one append at a time, in
        the order the changes were made)."""
        async with self._appending:
            try:
                await through_outage(self.log.append, self.tournament_id, self.kept.events, event.to_plain())
            except StoreError:
                log.exception("tournament %s: event %d not kept; restarting from the log", self.tournament_id,
                              self.kept.events)
                os._exit(1)
            self.kept.events += 1

    def announce(self) -> None:
        """A new version: whoever waits for a change wakes."""
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    async def next_change(self) -> None:
        await self._changed.wait()

    def standings_settled(self) -> None:
        """A round was paired or the tournament finished: these standings
        are the ones watchers are sent from now on."""
        self._watched = self.pages.first(self.core)

    # -- answers -----------------------------------------------------------------------

    def open_tables(self) -> list[Table]:
        """The current round's tables that were opened and have no result yet."""
        if self.core.current_round is None:
            return []
        return [table for table in self.core.pending_tables() if table.table_id in self.placed]

    def status(self, version: int | None = None, offset: int = 0, size: int = DEFAULT_PAGE_SIZE) -> TournamentStatus:
        """Where it stands, with `size` standings from `offset` of the
        standings of `version` (a page token's; None: the current ones).
        Raises PageExpired when those standings are no longer kept."""
        return self.kept.status(self.pages.page(self.core, version, offset, size, time.monotonic()))

    async def updates(self, version: int, timeout_s: float) -> Update:
        """Once the tournament changed after `version` (or after `timeout_s`):
        its status, and the current round's tables with each seat's token
        (front doors hand each player only its own)."""
        if version == self.version:
            try:
                await asyncio.wait_for(self._changed.wait(), timeout_s)
            except TimeoutError:
                pass
        current = self.core.current_round
        round_now = None
        if current is not None:
            round_now = CurrentRound(current.number, current.byes, {t.table_id: t.players for t in current.tables},
                                     dict(self.placed))
        return Update(self.version, self.kept.status(self._watched), round_now)

    async def wait_finished(self, timeout_s: float) -> TournamentStatus:
        deadline = time.monotonic() + timeout_s
        while not self.core.finished and time.monotonic() < deadline:
            try:
                await asyncio.wait_for(self._changed.wait(), deadline - time.monotonic())
            except TimeoutError:
                break
        return self.status()
