"""Tournaments whose actor is gone (finished, or expired unstarted), folded
from their logs in the store and answered with the actor's own answers
(actors/tournament/kept.py). A front door keeps the latest folds: at most
LOGGED_KEPT, and no more players over all but the latest: the fold of a
large tournament is both big and slow to make."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from typing import Any

from tablehost.actors.store.event_log import EventLog
from tablehost.actors.tournament.answers import ResultsPage, TournamentStatus
from tablehost.actors.tournament.kept import DEFAULT_PAGE_SIZE, KeptTournament, StandingsPages

LOGGED_KEPT = 64
LOGGED_PLAYERS_KEPT = 50_000


class LoggedTournament:
    """A tournament whose actor is gone, answered from its log."""

    def __init__(self, kept: KeptTournament) -> None:
        self.kept = kept
        self.pages = StandingsPages()

    def status(self, version: int | None = None, offset: int = 0, size: int = DEFAULT_PAGE_SIZE) -> TournamentStatus:
        return self.kept.status(self.pages.page(self.kept.core, version, offset, size, time.monotonic()))

    def results(self, offset: int = 0, size: int = DEFAULT_PAGE_SIZE) -> ResultsPage:
        return self.kept.results(offset, size)

    def why_unchangeable(self) -> str:
        if self.kept.core.finished:
            return f"the tournament has finished: {self.kept.core.finish_reason}"
        return "the tournament is no longer run by this host (its actor is gone)"


class LoggedTournaments:
    def __init__(self, event_log: EventLog | None) -> None:
        """`event_log`: the store's tournaments' logs (None: a host without
        a store, which has no tournaments)."""
        self._logs = event_log
        self._logged: OrderedDict[str, LoggedTournament] = OrderedDict()
        self._loading: dict[str, asyncio.Future[LoggedTournament | None]] = {}

    async def get(self, tournament_id: str) -> LoggedTournament | None:
        """The tournament folded from its log (None: no log), kept for the
        next call; callers asking at once share one fold. Raises StoreError
        when the log cannot be read."""
        logged = self._logged.get(tournament_id)
        if logged is not None:
            self._logged.move_to_end(tournament_id)
            return logged
        loading = self._loading.get(tournament_id)
        if loading is None:
            loading = self._loading[tournament_id] = asyncio.ensure_future(self._fold(tournament_id))
            loading.add_done_callback(lambda _: self._loading.pop(tournament_id, None))
        logged = await asyncio.shield(loading)
        if logged is not None and tournament_id not in self._logged:
            self._logged[tournament_id] = logged
            while len(self._logged) > 1 and (len(self._logged) > LOGGED_KEPT or sum(
                    len(kept.kept.core.players()) for kept in self._logged.values()) > LOGGED_PLAYERS_KEPT):
                self._logged.popitem(last=False)
        return logged

    async def _fold(self, tournament_id: str) -> LoggedTournament | None:
        """Off the event loop: a large tournament's log takes seconds to fold."""
        events = await asyncio.to_thread(self.read, tournament_id)
        if not events:
            return None
        logged = LoggedTournament(await asyncio.to_thread(KeptTournament.replay, events))
        await asyncio.to_thread(logged.pages.first, logged.kept.core)  # its standings, computed before it is shared
        return logged

    def read(self, tournament_id: str) -> list[dict[str, Any]]:
        """The tournament's log as stored (empty: none, or no store)."""
        return self._logs.read(tournament_id) if self._logs is not None else []
