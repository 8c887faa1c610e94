"""Swiss pairing for 2-seat games, as a minimum-cost perfect matching.

Why not the FIDE Dutch system: the Python implementations found do not fit.
caissify-pairings (checked against bbpPairings, Apache-2.0) took about 9 s
to pair round 2 of 100 players here and did not pair round 2 of 1,000 within
minutes; py4swiss needs pydantic and the chess TRF text format as its input;
swissdutch is an unfinished alpha from 2014; bbpPairings itself is a C++
program. The Dutch rules also carry chess-only criteria (absolute colour
limits, float histories) that a card game's seat order does not need.

What is kept of a Swiss system, as costs of pairing two players:
- score difference, squared (two half-point floats cost less than one of a
  whole point), far above everything else;
- seat balance: two players who both sat first more often (or, when even,
  both sat first last time) cost more, and the one who sat first more sits
  second;
- within a score group the top half meets the bottom half (1 v g/2+1, as the
  Dutch system does), so the leaders do not meet in round 1.
A rematch is no edge at all. With an odd field the lowest-ranked player who
has not had a bye sits out (nobody gets a second bye); which one is decided
with the pairing, so a bye never leaves the rest unpairable when another
choice would not. When no perfect matching without rematches exists, the
round is unpairable and `pair_round` returns None.

Speed: networkx's blossom algorithm took 20 s for 1,000 players even on a
sparse graph, so a large field is matched in windows: WINDOW players at a
time, down the standings; the pairs of each window's top COMMIT players are
kept, the rest carried into the next window. When the last window has no
perfect matching, it is widened upwards (undoing kept pairs) until one
exists or the whole field was tried, so the window never makes a pairable
round unpairable. Fields up to EXACT_LIMIT are matched whole."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import networkx as nx

WINDOW = 16
COMMIT = 8
EXACT_LIMIT = 20

SCORE_WEIGHT = 1_000_000  # per (half point) squared of score difference
SEAT_WEIGHT = 1_000  # per unit of seat imbalance both players would worsen
FOLD_WEIGHT = 10  # per position away from the top-half-v-bottom-half partner
BYE = -1  # the bye's node in the matching graph


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player as pairing sees them."""

    player: str
    points: float
    seat_balance: int  # games at seat 0 minus games at seat 1
    last_seat: int | None
    had_bye: bool
    met: frozenset[str]


@dataclass(frozen=True, slots=True)
class Pairing:
    tables: tuple[tuple[str, str], ...]  # (seat 0, seat 1), the best-ranked table first
    bye: str | None


def pair_round(ranked: Sequence[Entrant], round_number: int) -> Pairing | None:
    """The round's tables for `ranked` (best first), or None when no pairing
    without a rematch (and without a second bye) exists."""
    if len(ranked) < 2:
        return None
    costs = _Costs(ranked, half_cap=len(ranked) if len(ranked) <= EXACT_LIMIT else COMMIT)
    found = _exact(costs) if len(ranked) <= EXACT_LIMIT else _windowed(costs)
    if found is None:
        return None
    pairs, bye = found
    tables = tuple(_seat(ranked, i, j, round_number) for i, j in sorted(pairs))
    return Pairing(tables, ranked[bye].player if bye is not None else None)


class _Costs:
    """Pairing costs between positions of the ranked list (see the module docstring)."""

    def __init__(self, ranked: Sequence[Entrant], half_cap: int) -> None:
        self.ranked = ranked
        self.n = len(ranked)
        self.fold: list[int] = []
        start = 0
        while start < self.n:
            end = start
            while end < self.n and ranked[end].points == ranked[start].points:
                end += 1
            self.fold.extend([min((end - start) // 2, half_cap)] * (end - start))
            start = end

    def allowed(self, i: int, j: int) -> bool:
        return self.ranked[j].player not in self.ranked[i].met

    def cost(self, i: int, j: int) -> int:
        a, b = self.ranked[i], self.ranked[j]
        gap = a.points - b.points
        cost = SCORE_WEIGHT * round(4 * gap * gap) + SEAT_WEIGHT * _seat_clash(a, b)
        if gap == 0:
            cost += FOLD_WEIGHT * abs(abs(j - i) - self.fold[min(i, j)])
        return cost


def _preference(entrant: Entrant) -> tuple[int, int]:
    """(direction, strength): +1 wants seat 1 (sat first more, or last), -1 wants seat 0."""
    if entrant.seat_balance:
        return (1 if entrant.seat_balance > 0 else -1), 2 * abs(entrant.seat_balance)
    if entrant.last_seat is None:
        return 0, 0
    return (1 if entrant.last_seat == 0 else -1), 1


def _seat_clash(a: Entrant, b: Entrant) -> int:
    (a_way, a_strength), (b_way, b_strength) = _preference(a), _preference(b)
    return min(a_strength, b_strength) if a_way and a_way == b_way else 0


def _seat(ranked: Sequence[Entrant], i: int, j: int, round_number: int) -> tuple[str, str]:
    """Who sits first: the one who sat first less often, then the one who sat
    second last time; on a full tie the higher-ranked in odd rounds."""
    a, b = ranked[i], ranked[j]
    a_wants_second, b_wants_second = _wants_second(a), _wants_second(b)
    if a_wants_second != b_wants_second:
        return (a.player, b.player) if a_wants_second < b_wants_second else (b.player, a.player)
    return (a.player, b.player) if round_number % 2 else (b.player, a.player)


def _wants_second(entrant: Entrant) -> int:
    direction, strength = _preference(entrant)
    return direction * strength


def _graph(costs: _Costs, players: Sequence[int]) -> nx.Graph:
    """Every pair of `players` that has not met, weighed by its cost."""
    # Imported when a Swiss round is first paired: a tournament still taking
    # registrations (most of those a host holds) does without networkx's 11 MiB.
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(players)
    for index, i in enumerate(players):
        for j in players[index + 1:]:
            if costs.allowed(i, j):
                graph.add_edge(i, j, weight=costs.cost(i, j))
    return graph


def _matching(costs: _Costs, players: Sequence[int], bye_candidates: Sequence[int] = ()) -> tuple[
        list[tuple[int, int]], int | None] | None:
    """A minimum-cost perfect matching of `players` (positions), with one of
    `bye_candidates` matched to the bye when given (the lowest-ranked first:
    its cost dominates every pairing cost). None when none is perfect."""
    graph = _graph(costs, players)
    if bye_candidates:
        heaviest = max((w for _, _, w in graph.edges(data="weight")), default=0)
        step = heaviest * (len(players) // 2 + 1) + 1
        for i in bye_candidates:
            graph.add_edge(BYE, i, weight=step * (costs.n - 1 - i))
    matched = _pairs(_min_weight_matching(graph))
    if 2 * len(matched) != graph.number_of_nodes():
        return None
    bye = next((j for i, j in matched if i == BYE), None)
    return [(i, j) for i, j in matched if i != BYE], bye


def _pairs(matching: set[tuple[int, int]]) -> list[tuple[int, int]]:
    return [(min(u, v), max(u, v)) for u, v in matching]


def _bye_candidates(costs: _Costs) -> list[int]:
    return [i for i in range(costs.n) if not costs.ranked[i].had_bye]


def _exact(costs: _Costs) -> tuple[list[tuple[int, int]], int | None] | None:
    players = list(range(costs.n))
    if costs.n % 2 == 0:
        return _matching(costs, players)
    candidates = _bye_candidates(costs)
    return _matching(costs, players, candidates) if candidates else None


def _windowed(costs: _Costs) -> tuple[list[tuple[int, int]], int | None] | None:
    players = list(range(costs.n))
    bye = None
    if costs.n % 2:
        candidates = _bye_candidates(costs)
        if not candidates:
            return None
        bye = candidates[-1]
        players.remove(bye)
    pairs = _pair_in_windows(costs, players)
    if pairs is not None:
        return pairs, bye
    # Not even the whole field pairs with that bye: let the bye move (slow, and rare).
    return _exact(costs) if bye is not None else None


def _pair_in_windows(costs: _Costs, order: list[int]) -> list[tuple[int, int]] | None:
    kept: list[tuple[int, int]] = []
    carried: list[int] = []
    taken = 0
    while True:
        fresh = max(WINDOW - len(carried), COMMIT)
        window = carried + order[taken:taken + fresh]
        taken += fresh
        if taken >= len(order):
            return _pair_tail(costs, kept, window)
        found = _matching_partial(costs, window)
        top = set(window[:COMMIT])
        settled = [pair for pair in found if pair[0] in top or pair[1] in top]
        kept.extend(settled)
        paired = {player for pair in settled for player in pair}
        carried = [player for player in window if player not in paired]


def _pair_tail(costs: _Costs, kept: list[tuple[int, int]], tail: list[int]) -> list[tuple[int, int]] | None:
    """The last window, widened upwards over kept pairs until it pairs."""
    undo = 0
    while True:
        players = sorted(tail + [player for pair in kept[len(kept) - undo:] for player in pair])
        found = _matching(costs, players)
        if found is not None:
            return kept[:len(kept) - undo] + found[0]
        if undo == len(kept):
            return None
        undo = min(len(kept), max(COMMIT, 2 * undo))


def _matching_partial(costs: _Costs, players: list[int]) -> list[tuple[int, int]]:
    """A minimum-cost maximum matching of a window (some may stay unpaired)."""
    return _pairs(_min_weight_matching(_graph(costs, players)))


def _min_weight_matching(graph: nx.Graph) -> Any:
    import networkx as nx

    return nx.min_weight_matching(graph)
