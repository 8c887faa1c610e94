"""A tournament as its event log keeps it, and what it answers from that: its
status with a page of the standings, and a page of its results (answers.py).

The actor runs a tournament from this fold (actor.py); a front door answers
for a tournament whose actor has gone (finished, expired) from the same fold
of the same log, so a caller gets the same answers either way.

The log's events are typed records (log_events.py): the created event
(made by the front door), the core's events with each registration's join
data, the start, and an administrator's pause and resume.

Standings are paged. A page token names the standings it was cut from (the
core's version) and where the next page begins; the standings a token names
are kept a while (STANDINGS_KEPT_FOR_S), so a reader paging while results
come in sees every player exactly once, in one consistent order. Results
are only ever appended, so their token is just where the next page begins.

No Ray, no I/O and no clock: the caller hands in the time."""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tablehost.actors.tournament.answers import ResultsPage, StandingsPage, TournamentStatus
from tablehost.actors.tournament.log_events import (CoreEvent, CreatedEvent, LogEvent, PausedEvent, ResumedEvent,
                                                    StartEvent, event_from_plain)
from tablehost.actors.tournament.records import Standing
from tablehost.actors.tournament.tournament import Tournament

# A round whose tables do not all finish within this long is not waited
# for forever: its unfinished tables are settled as forfeits by every seat
# (unless the created event says otherwise).
DEFAULT_ROUND_LIMIT_S = 3600.0
# Standings or results a page holds unless the reader asks for another size,
# and at most (the first page of the standings is what watchers are sent).
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
# Earlier standings kept for readers still paging through them, and how long
# each is kept after its last page was asked for.
STANDINGS_KEPT = 8
STANDINGS_KEPT_FOR_S = 300.0
# Page tokens are opaque to clients; these are their shapes.
_STANDINGS_TOKEN = re.compile(r"s([0-9]{1,12})\.([0-9]{1,9})")
_RESULTS_TOKEN = re.compile(r"r([0-9]{1,9})")


class PageExpired(Exception):
    """The standings a page token was cut from are no longer kept."""


def standings_token(version: int, offset: int) -> str:
    return f"s{version}.{offset}"


def parse_standings_token(token: str) -> tuple[int, int]:
    """(version, offset) of a token a standings page gave; ValueError for anything else."""
    matched = _STANDINGS_TOKEN.fullmatch(token)
    if matched is None:
        raise ValueError("not a page token of the standings (pass the next_page_token a reply gave)")
    return int(matched.group(1)), int(matched.group(2))


def results_token(offset: int) -> str:
    return f"r{offset}"


def parse_results_token(token: str) -> int:
    matched = _RESULTS_TOKEN.fullmatch(token)
    if matched is None:
        raise ValueError("not a page token of the results (pass the next_page_token a reply gave)")
    return int(matched.group(1))


class StandingsPages:
    """The standings cut into pages. The current standings are computed once
    per version of the tournament; those a page token names are kept (at
    most STANDINGS_KEPT, each for STANDINGS_KEPT_FOR_S after its last use)."""

    def __init__(self, kept: int = STANDINGS_KEPT, kept_for_s: float = STANDINGS_KEPT_FOR_S) -> None:
        self._kept = kept
        self._kept_for_s = kept_for_s
        self._current: tuple[int, tuple[Standing, ...]] | None = None
        self._pinned: OrderedDict[int, tuple[tuple[Standing, ...], float]] = OrderedDict()

    def page(self, core: Tournament, version: int | None, offset: int, size: int, now: float) -> StandingsPage:
        """`size` standings from `offset` of the standings of `version`
        (None: the current ones). Raises PageExpired when they are gone."""
        self._forget_unused(now)
        if version is None or version == core.version:
            version, rows = core.version, self._current_rows(core)
        elif version in self._pinned:
            rows = self._pinned[version][0]
        else:
            raise PageExpired("the standings changed since the first page and that page's standings are no longer "
                              "kept; page again from the start (no page token)")
        end = offset + size
        if end >= len(rows):
            return StandingsPage(rows[offset:end], len(rows), "")
        self._pin(version, rows, now)
        return StandingsPage(rows[offset:end], len(rows), standings_token(version, end))

    def first(self, core: Tournament, size: int = DEFAULT_PAGE_SIZE) -> StandingsPage:
        """The first page of the current standings, with no token (what
        watchers are sent; they page on with GetTournament from the start)."""
        rows = self._current_rows(core)
        return StandingsPage(rows[:size], len(rows), "")

    def _current_rows(self, core: Tournament) -> tuple[Standing, ...]:
        if self._current is None or self._current[0] != core.version:
            self._current = (core.version, tuple(core.standings()))
        return self._current[1]

    def _pin(self, version: int, rows: tuple[Standing, ...], now: float) -> None:
        self._pinned[version] = (rows, now)
        self._pinned.move_to_end(version)
        while len(self._pinned) > self._kept:
            self._pinned.popitem(last=False)

    def _forget_unused(self, now: float) -> None:
        for version, (_, used) in list(self._pinned.items()):
            if now - used > self._kept_for_s:
                del self._pinned[version]


@dataclass
class KeptTournament:
    """The fold of a tournament's log: the created event's settings, the
    core (tournament.py), each player's join data, whether it was started,
    and every round's byes."""

    created: CreatedEvent
    core: Tournament
    joins: dict[str, dict[str, Any]] = field(default_factory=dict)
    started: bool = False
    paused: bool = False  # by an administrator: no round starts until resumed
    byes: list[tuple[int, str]] = field(default_factory=list)  # (round, player), every round's
    events: int = 1  # in the log, the created event included
    _byes_round: int = 0

    @classmethod
    def replay(cls, events: Sequence[dict[str, Any]]) -> KeptTournament:
        """The fold of the log's events as it keeps them; ValueError for a
        log that does not begin with its created event or holds an event of
        a kind no tournament writes."""
        created = event_from_plain(events[0])
        if not isinstance(created, CreatedEvent):
            raise ValueError(f"a tournament's log begins with its created event, not {created.KIND!r}")
        kept = cls(created, Tournament(created.spec))
        for event in events[1:]:
            kept.apply(event_from_plain(event))
        return kept

    def apply(self, event: LogEvent) -> None:
        """One event of the log after the created one (what a replay does;
        the actor applies its changes as it makes them, then appends them)."""
        match event:
            case CoreEvent():
                self.core.apply(event.event)
                if event.join is not None:
                    self.joins[event.event["player"]] = event.join
                self.note_round()
            case StartEvent():
                self.started = True
            case PausedEvent():
                self.paused = True
            case ResumedEvent():
                self.paused = False
            case CreatedEvent():
                raise ValueError("a tournament's log holds one created event, its first")
        self.events += 1

    def note_round(self) -> None:
        """Keep the byes of a round that just started."""
        current = self.core.current_round
        if current is not None and current.number > self._byes_round:
            self.byes.extend((current.number, player) for player in current.byes)
            self._byes_round = current.number

    # -- the created event's settings ---------------------------------------------------

    @property
    def tournament_id(self) -> str:
        return self.core.spec.tournament_id

    @property
    def name(self) -> str:
        return self.created.name

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.created.options)

    @property
    def max_players(self) -> int:
        return self.created.max_players

    @property
    def no_show_after_s(self) -> float:
        return float(self.created.no_show_after_s)

    @property
    def round_limit_s(self) -> float:
        limit_s = self.created.round_limit_s
        return DEFAULT_ROUND_LIMIT_S if limit_s is None else float(limit_s)

    @property
    def start_by_ms(self) -> int:
        """When it expires unless started (epoch ms); 0: never."""
        return self.created.start_by_ms or 0

    @property
    def organiser(self) -> str:
        return self.created.organiser.name if self.created.organiser is not None else ""

    # -- answers --------------------------------------------------------------------------

    @property
    def state(self) -> str:
        if self.core.finished:
            return "finished"
        if self.started:
            return "paused" if self.paused else "running"
        return "registering"

    def status(self, page: StandingsPage) -> TournamentStatus:
        """Where it stands, with one page of the standings."""
        spec, core = self.core.spec, self.core
        current = core.current_round
        return TournamentStatus(
            tournament_id=self.tournament_id, name=self.name, game=spec.game, format=spec.format, state=self.state,
            round=current.number if current is not None else core.rounds_played, rounds=spec.rounds,
            players=len(core.players()), tables_pending=len(core.pending_tables()) if current is not None else 0,
            tiebreak_names=core.tiebreak_names(), standings=page, finish_reason=core.finish_reason or "",
            games_played=len(core.history()), start_by_ms=0 if self.started else self.start_by_ms,
            organiser=self.organiser)

    def results(self, offset: int, size: int) -> ResultsPage:
        """`size` results from `offset`, in the order recorded; the byes come
        with the last page."""
        history = self.core.history()
        end = offset + size
        last = end >= len(history)
        return ResultsPage(tuple(history[offset:end]), tuple(self.byes) if last else (), len(history),
                           "" if last else results_token(end))
