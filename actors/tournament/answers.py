"""What a tournament answers its front doors, as typed records (they cross
a Ray call): where it stands with a page of its standings, a page of its
results, a registration, and an update for its watchers. The actor and a
front door answering from a finished tournament's log (kept.py) build the
same records, so the front door reads one type whichever answered."""

from __future__ import annotations

from dataclasses import dataclass

from tablehost.actors.tournament.records import GameRecord, Standing
from tablehost.actors.tournament_tables import PlacedTable


@dataclass(frozen=True, slots=True)
class StandingsPage:
    rows: tuple[Standing, ...]
    total: int  # standings over every page
    next_page_token: str  # "" on the last page


@dataclass(frozen=True, slots=True)
class TournamentStatus:
    """Where a tournament stands, with one page of its standings."""

    tournament_id: str
    name: str
    game: str
    format: str  # one of records.FORMATS
    state: str  # "registering", "running", "paused" or "finished"
    round: int  # the round started last; before round 1, 0
    rounds: int  # as the spec planned them (0: the format's natural count)
    players: int  # every registered player, withdrawn ones too
    tables_pending: int  # of the current round, without a result
    tiebreak_names: tuple[str, ...]
    standings: StandingsPage
    finish_reason: str  # "" until it finished
    games_played: int
    start_by_ms: int  # when it expires unless started (epoch ms); 0: started, or never
    organiser: str  # the organiser's name


@dataclass(frozen=True, slots=True)
class ResultsPage:
    """Results in the order recorded; every round's byes with the last page."""

    results: tuple[GameRecord, ...]
    byes: tuple[tuple[int, str], ...]  # (round, player)
    total: int  # results over every page
    next_page_token: str  # "" on the last page


@dataclass(frozen=True, slots=True)
class Registered:
    player: str


@dataclass(frozen=True, slots=True)
class CurrentRound:
    """The round started last, as its watchers are told of it: who sits
    where, who has a bye, and where each table opened so far runs (with
    every seat's token: a front door hands each player only its own)."""

    number: int
    byes: tuple[str, ...]
    tables: dict[str, tuple[str, ...]]  # players by seat, by table id
    placed: dict[str, PlacedTable]  # by table id


@dataclass(frozen=True, slots=True)
class Update:
    """What an `updates` call answers once the tournament changed: its
    version (the next call waits for a later one), its status with the
    standings watchers are sent, and its current round (None before round 1)."""

    version: int
    status: TournamentStatus
    round: CurrentRound | None
