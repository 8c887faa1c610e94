"""What a tournament is made of, as plain values: its spec, a round's tables,
a table's result and a player's standing. The spec and a result convert to
and from plain data (str, int, float, bool, list, None), because the actor
keeps them in its event log and msgpack gives lists back for tuples."""

from __future__ import annotations

import math
import secrets
from dataclasses import asdict, dataclass, field
from typing import Any

FORMATS = ("swiss", "round_robin", "elimination", "table_rounds")
TWO_SEAT_FORMATS = ("swiss", "round_robin", "elimination")
# The seats of a table round: the host's games seat 3 (Kingdoms, short Big Two) to 8.
TABLE_ROUND_SEATS = range(3, 9)
MAX_PLAYER_ID = 64


class TournamentError(ValueError):
    """A command the tournament refuses as it stands (already registered,
    registration closed, a round still being played...). Nothing changed;
    `reason` says why in words the player or organiser can act on."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class TournamentSpec:
    """What the organiser chose; fixed for the tournament's life."""

    tournament_id: str
    game: str
    format: str  # one of FORMATS
    seats: int  # players per table: 2 for the 2-seat formats, 3 to 8 for table rounds
    rounds: int  # planned rounds; 0: the format's natural count, fixed when round 1 starts
    seed: int  # every random choice derives from it and the round number
    min_seats: int = 0  # table rounds: the smallest table the game allows; 0: byes instead of short tables
    late_join_rounds: int = -1  # registration open while at most this many rounds started; -1: half the rounds
    bye_points: float | None = None  # None: a win at 2 seats, the middle of the table in table rounds
    # The secret its tables' seeds derive from (32 bytes as hex), never shown:
    # a table's seed is revealed when its game ends and must tell nothing of
    # another table's.
    deal_key: str = field(default_factory=lambda: secrets.token_hex(32), repr=False)

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise TournamentError(f"format must be one of {', '.join(FORMATS)}, not {self.format!r}")
        if self.format in TWO_SEAT_FORMATS and self.seats != 2:
            raise TournamentError(f"{self.format} pairs 2-seat tables, not {self.seats}-seat ones")
        if self.format == "table_rounds" and self.seats not in TABLE_ROUND_SEATS:
            raise TournamentError(f"table rounds seat 3 to 8 players a table, not {self.seats}")
        if self.min_seats and not 2 <= self.min_seats <= self.seats:
            raise TournamentError(f"min_seats is 0 or from 2 to the {self.seats} seats, not {self.min_seats}")
        if self.rounds < 0 or self.late_join_rounds < -1:
            raise TournamentError("rounds and late_join_rounds may not be negative (late_join_rounds -1: the default)")
        if self.bye_points is not None and not math.isfinite(self.bye_points):
            raise TournamentError(f"bye_points must be a finite number, not {self.bye_points}")

    @property
    def points_for_bye(self) -> float:
        """A bye at 2 seats is a win; in table rounds it scores the middle of
        the table (the players beaten plus half the ones tied, averaged), so
        sitting out neither gains nor loses ground on average."""
        if self.bye_points is not None:
            return self.bye_points
        return 1.0 if self.seats == 2 else (self.seats - 1) / 2

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, plain: dict[str, Any]) -> TournamentSpec:
        return cls(**plain)


@dataclass(frozen=True)
class GameRecord:
    """One table's result as the tournament counts it, by seat."""

    table_id: str
    round: int  # 1-based
    players: tuple[str, ...]  # by seat
    points: tuple[float, ...]  # tournament points (the actor computes them from the game)
    ranks: tuple[int, ...]  # finishing place, 0 = first; tied seats share one
    scores: tuple[float, ...]  # the game's own score, for the score-difference tie-break
    forfeited: tuple[bool, ...]  # seats that did not show: 0 points, ranked last

    def to_dict(self) -> dict[str, Any]:
        return {"table_id": self.table_id, "round": self.round, "players": list(self.players),
                "points": list(self.points), "ranks": list(self.ranks), "scores": list(self.scores),
                "forfeited": list(self.forfeited)}

    @classmethod
    def from_dict(cls, plain: dict[str, Any]) -> GameRecord:
        return cls(str(plain["table_id"]), int(plain["round"]), tuple(str(p) for p in plain["players"]),
                   tuple(float(p) for p in plain["points"]), tuple(int(r) for r in plain["ranks"]),
                   tuple(float(s) for s in plain["scores"]), tuple(bool(f) for f in plain["forfeited"]))

    @property
    def winner(self) -> str | None:
        """The one seat that placed first alone and showed, if any (a draw has none)."""
        firsts = [seat for seat, rank in enumerate(self.ranks) if rank == 0]
        if len(firsts) != 1 or self.forfeited[firsts[0]]:
            return None
        return self.players[firsts[0]]


@dataclass(frozen=True)
class Table:
    """One table of a round, before it is played."""

    table_id: str  # f"{tournament_id}.r{round}.t{index}", index from 0
    round: int
    players: tuple[str, ...]  # seat order, seat 0 first


@dataclass(frozen=True)
class Round:
    number: int
    tables: tuple[Table, ...]
    byes: tuple[str, ...]  # players who sit out and score the bye points


@dataclass(frozen=True)
class Standing:
    place: int  # 1-based, shared only when points and every tie-break are equal
    player: str
    points: float
    tiebreaks: tuple[float, ...]  # in the order of Tournament.tiebreak_names()
    games: int
    wins: int
    byes: int
    rating: float  # openskill ordinal, for display
    withdrawn: bool


def table_id(tournament_id: str, round_number: int, index: int) -> str:
    return f"{tournament_id}.r{round_number}.t{index}"


def tournament_of_table(table_id: str) -> str:
    """The tournament a table id of `table_id` belongs to; "" for any other table."""
    tournament_id, dot, rest = table_id.partition(".r")
    return tournament_id if dot and tournament_id.startswith("t-") and ".t" in rest else ""
