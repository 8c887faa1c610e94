"""Standings: points, then tie-breaks, then the player id, from the ledger
alone, so standings rebuilt from the kept events are the live ones.

2-seat formats (Swiss, round robin, elimination):
- Buchholz: the sum of the opponents' points.
- Sonneborn-Berger: the sum, over games, of the opponent's points times the
  points scored against them (all of a beaten opponent's, half of a drawn one's).
- score difference: the game's own score minus the opponent's, summed.
- rating: the openskill ordinal.

Table rounds:
- opponents' points: at each table, the sum of the others' points.
- score difference: own score minus the mean of the others', summed.
- rating.

A bye has no real opponent. It counts as a game against a *virtual
opponent* with the player's own final points (the simplification FIDE's
2023 tie-break rules make for unplayed rounds): Buchholz adds the player's
points, Sonneborn-Berger adds them times the bye's points, and in table
rounds each empty seat of the table is such an opponent. Without it a
player given a bye would lose ground on tie-breaks for sitting out, which
the bye's rules never meant.

Places are shared only by players equal on points and every tie-break;
otherwise the player id orders them, so the order never depends on
insertion order or on hashing."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from tablehost.actors.tournament.ledger import Ledger
from tablehost.actors.tournament.records import Standing

TWO_SEAT_TIEBREAKS = ("buchholz", "sonneborn_berger", "score_difference", "rating")
TABLE_TIEBREAKS = ("opponents_points", "score_difference", "rating")
# Points and tie-breaks are sums of floats; rounded so that equal sums taken
# in another order still compare equal.
DIGITS = 9


def tiebreak_names(seats: int) -> tuple[str, ...]:
    return TWO_SEAT_TIEBREAKS if seats == 2 else TABLE_TIEBREAKS


def compute(players: Iterable[str], ledger: Ledger, ordinal: Callable[[str], float], withdrawn: set[str],
            seats: int, bye_points: float) -> list[Standing]:
    """Every player's standing, best first."""
    rows = []
    for player in players:
        entry = ledger[player]
        difference = sum(diff for _, _, diff in entry.results)
        own = entry.points
        if seats == 2:
            buchholz = sum(ledger[opponent].points for (opponent,), _, _ in entry.results) + own * entry.byes
            berger = (sum(ledger[opponent].points * points for (opponent,), points, _ in entry.results)
                      + own * bye_points * entry.byes)
            tiebreaks: tuple[float, ...] = (buchholz, berger, difference, ordinal(player))
        else:
            opponents = (sum(sum(ledger[o].points for o in others) for others, _, _ in entry.results)
                         + own * (seats - 1) * entry.byes)
            tiebreaks = (opponents, difference, ordinal(player))
        rows.append((player, round(own, DIGITS), tuple(round(value, DIGITS) for value in tiebreaks), entry))
    rows.sort(key=lambda row: (-row[1], tuple(-value for value in row[2]), row[0]))
    standings: list[Standing] = []
    for index, (player, points, tiebreaks, entry) in enumerate(rows):
        previous = standings[-1] if standings else None
        shared = previous is not None and (previous.points, previous.tiebreaks) == (points, tiebreaks)
        place = previous.place if shared and previous is not None else index + 1
        standings.append(Standing(place, player, points, tiebreaks, entry.games, entry.wins, entry.byes,
                                  tiebreaks[-1], player in withdrawn))
    return standings
