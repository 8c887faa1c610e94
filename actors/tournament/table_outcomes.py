"""The result a tournament records for a table, from how the table ended:
its game played out, its no-shows ended it, an administrator placed its
seats, or it ended without a result (every seat forfeits)."""

from __future__ import annotations

from collections.abc import Sequence

from tablehost.actors.tournament.records import GameRecord, Table
from tablehost.games.engine.rules import Placing


def played(table: Table, placings: Sequence[Placing], no_show: Sequence[int]) -> GameRecord:
    """The game's placings, except that a seat which never showed up (the
    timers played it) forfeits: no points, last place."""
    seats = len(table.players)
    absent = set(no_show)
    return GameRecord(table_id=table.table_id, round=table.round, players=table.players,
                      points=tuple(0.0 if s in absent else p.points for s, p in enumerate(placings)),
                      ranks=tuple(seats - 1 if s in absent else p.place for s, p in enumerate(placings)),
                      scores=tuple(p.score for p in placings),
                      forfeited=tuple(s in absent for s in range(seats)))


def ended_by_no_shows(table: Table, no_show: Sequence[int]) -> GameRecord:
    """No game was played: the no-shows forfeit (no points, last place); the
    players who came share first place, each beating every no-show, as a
    finished game would have scored it."""
    seats = len(table.players)
    absent = set(no_show)
    present = seats - len(absent)
    return GameRecord(table_id=table.table_id, round=table.round, players=table.players,
                      points=tuple(0.0 if s in absent else len(absent) + (present - 1) / 2 for s in range(seats)),
                      ranks=tuple(seats - 1 if s in absent else 0 for s in range(seats)),
                      scores=(0.0,) * seats, forfeited=tuple(s in absent for s in range(seats)))


def adjudicated(table: Table, places: Sequence[int]) -> GameRecord:
    """The places an administrator decided (0 = first): points are the
    seats placed below plus half those tied, as a game's placings count."""
    places = list(places)
    points = tuple(sum(1 for other in places if other > place) + (places.count(place) - 1) / 2 for place in places)
    seats = len(table.players)
    return GameRecord(table_id=table.table_id, round=table.round, players=table.players, points=points,
                      ranks=tuple(places), scores=(0.0,) * seats, forfeited=(False,) * seats)


def forfeited(table: Table) -> GameRecord:
    """Every seat forfeits: no points, last place."""
    seats = len(table.players)
    return GameRecord(table_id=table.table_id, round=table.round, players=table.players,
                      points=(0.0,) * seats, ranks=(seats - 1,) * seats, scores=(0.0,) * seats,
                      forfeited=(True,) * seats)
