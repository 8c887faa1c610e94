"""What each player has done so far: points, games, byes, whom they met and
where they sat. Pairing and standings read it; the tournament adds to it
as rounds start (seats taken, byes scored) and results come in (points).
Kept incrementally so that pairing a round does not rescan the history."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from tablehost.actors.tournament.records import GameRecord, Table


@dataclass
class PlayerLedger:
    points: float = 0.0
    games: int = 0
    wins: int = 0
    byes: int = 0
    bye_points: float = 0.0
    met: Counter[str] = field(default_factory=Counter)  # opponents, by how often they met
    seats: Counter[int] = field(default_factory=Counter)  # seat positions taken, by how often
    last_seat: int | None = None
    # Per game played: (the other players, own points, own score minus the others' mean score).
    results: list[tuple[tuple[str, ...], float, float]] = field(default_factory=list)

    @property
    def seat_balance(self) -> int:
        """Games at seat 0 minus games at seat 1 (2-seat formats' colour)."""
        return self.seats[0] - self.seats[1]


class Ledger:
    def __init__(self) -> None:
        self._players: dict[str, PlayerLedger] = {}

    def __getitem__(self, player: str) -> PlayerLedger:
        entry = self._players.get(player)
        if entry is None:
            entry = self._players[player] = PlayerLedger()
        return entry

    def seat(self, table: Table) -> None:
        """A round started with this table: its players met, each at their seat."""
        for position, player in enumerate(table.players):
            entry = self[player]
            entry.seats[position] += 1
            entry.last_seat = position
            entry.met.update(other for other in table.players if other != player)

    def bye(self, player: str, points: float) -> None:
        entry = self[player]
        entry.byes += 1
        entry.bye_points += points
        entry.points += points

    def result(self, record: GameRecord) -> None:
        seats = len(record.players)
        total_score = sum(record.scores)
        for seat, player in enumerate(record.players):
            entry = self[player]
            entry.games += 1
            entry.points += record.points[seat]
            entry.wins += record.winner == player
            others = tuple(p for p in record.players if p != player)
            others_mean = (total_score - record.scores[seat]) / (seats - 1)
            entry.results.append((others, record.points[seat], record.scores[seat] - others_mean))

    def met(self, a: str, b: str) -> int:
        """How many times a and b sat at one table."""
        entry = self._players.get(a)
        return entry.met[b] if entry is not None else 0
