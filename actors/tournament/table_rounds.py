"""Table rounds for games of more than two seats (Big Two, Kingdoms): tables
of `seats` players seated by standings, few repeat meetings, balanced seat
positions.

Seat balance comes first: each player should take a position they have
sat in least (their counts per position then never differ by more than
one). The field, in standings order (ties in a seeded random order), is cut
into tables one after another, so a table holds players of similar score.
A seeded local search then swaps players between a table with a problem and
another table (a nearby one mostly, to keep scores together), keeping a
swap when it lowers, in this order,
1. seat balance: players of the table who cannot all take a least-sat position;
2. repeat meetings: each pair at a table counts the times they met before;
3. spread: how far apart the table's players are in the standings.
Should a table still be unable to seat its players in balance, the round is
dealt again from position classes instead: which position each player
takes is a flow problem (every position has as many places as there are
tables with that seat), solved by augmenting paths; one player of each
class makes a table, and the search swaps only players who may take each
other's positions. So balance fails only when no assignment exists at all
(players with different numbers of games after byes can make it so, which
`choose_byes` avoids where it can); then the fewest players sit elsewhere.
The search has a budget of swaps proportional to the field (no clock), so a
round is seated the same way wherever it is paired.

Seating one round at a time cannot avoid repeats in the last rounds a field
allows ((n - 1) / (seats - 1)): by then the pairs not yet met rarely split
into whole tables, which only a schedule planned from round 1 could ensure
(the social golfer problem), and planning would ignore the standings.

When the players do not fill whole tables: tables as equal as possible,
none smaller than `min_seats` when the game allows short tables (4 seats,
min 3: 13 players sit 4, 3, 3, 3), else full tables and the rest sit out
(the caller gives the byes)."""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from random import Random

SEAT_RADIX = 1 << 48  # a player out of seat balance outweighs any meetings...
MEET_RADIX = 1 << 32  # ...and one repeat meeting outweighs any spread
SWAPS_PER_PLAYER = 40
NEAR_TABLES = 2  # a swap's second table is mostly this close in the standings
FAR_SWAP_CHANCE = 0.25  # ...and otherwise any table, to get out of a crowded score group
SIDEWAYS_CHANCE = 0.2
BYE_ALTERNATIVES = 6  # players above the lowest-ranked a bye looks at first, for seat balance
MAX_BYE_TRIES = 200  # choices of byes tried for seat balance before giving up on it

MetCount = Callable[[str, str], int]
SeatCounts = Callable[[str], Sequence[int]]  # a player's games at each of the `seats` positions


def table_sizes(players: int, seats: int, min_seats: int) -> tuple[list[int], int]:
    """The round's table sizes, largest first, and how many players sit out."""
    if 0 < min_seats < seats:
        count = math.ceil(players / seats)
        if count and count * min_seats <= players:
            base, extra = divmod(players, count)
            return [base + 1] * extra + [base] * (count - extra), 0
    return [seats] * (players // seats), players % seats


def penalty(table: Sequence[str], met: Mapping[frozenset[str], int]) -> int:
    """A table's repeat penalty: each pair counts the times it met before."""
    return sum(met.get(frozenset(pair), 0) for pair in itertools.combinations(table, 2))


def seat_round(ranked: Sequence[str], sizes: Sequence[int], met: MetCount, sat: SeatCounts,
               rng: Random) -> list[tuple[str, ...]]:
    """The round's tables for `ranked` (best first, as many players as the
    sizes add up to), each in seat order."""
    least = {player: _least_sat(sat(player)) for player in ranked}
    swaps = SWAPS_PER_PLAYER * len(ranked)
    starts = list(itertools.accumulate(sizes, initial=0))
    tables = [list(ranked[start:start + size]) for start, size in zip(starts, sizes)]
    search = _Search(ranked, met, least, positioned=False)
    search.improve(tables, swaps, rng)
    if not any(search.seat_excess(table) for table in tables):
        return [search.seat_order(table, rng) for table in tables]
    capacity = [sum(1 for size in sizes if size > position) for position in range(max(sizes))]
    position, allowed, _ = _assign_positions(ranked, least, capacity, rng)
    classes: list[list[str]] = [[] for _ in capacity]
    for player in ranked:
        classes[position[player]].append(player)
    dealt = [iter(members) for members in classes]
    tables = [[next(dealt[k]) for k in range(size)] for size in sizes]  # largest first, as `capacity` counts
    _Search(ranked, met, allowed, positioned=True).improve(tables, swaps, rng)
    return [tuple(table) for table in tables]


def choose_byes(ranked: Sequence[str], sizes: Sequence[int], byes_had: Callable[[str], int], sat: SeatCounts,
                sitting_out: int) -> list[str]:
    """Who sits out: the lowest-ranked of those with the fewest byes, unless
    seating the rest would then break someone's seat balance; then the
    lowest-ranked choice that keeps it (looking further up the standings,
    a bounded number of tries), else the lowest-ranked after all."""
    if not sitting_out:
        return []
    bottom_up = sorted(reversed(ranked), key=byes_had)
    default = bottom_up[:sitting_out]
    capacity = [sum(1 for size in sizes if size > position) for position in range(max(sizes, default=0))]
    least = {player: _least_sat(sat(player)) for player in ranked}
    # Those with fewer byes than the last one chosen sit out anyway; the
    # others are chosen among everyone with that many byes, lowest first.
    fixed = [player for player in default if byes_had(player) < byes_had(default[-1])]
    candidates = [player for player in bottom_up if byes_had(player) == byes_had(default[-1])]
    tried: set[tuple[str, ...]] = set()
    reach = sitting_out + BYE_ALTERNATIVES
    while True:
        for chosen in itertools.combinations(candidates[:reach], sitting_out - len(fixed)):
            if chosen in tried:
                continue
            tried.add(chosen)
            byes = fixed + list(chosen)
            rest = [player for player in ranked if player not in byes]
            if _assign_positions(rest, least, capacity, Random(0))[2] == 0:
                return byes
            if len(tried) >= MAX_BYE_TRIES:
                return default
        if reach >= len(candidates):
            return default
        reach *= 2


def _least_sat(counts: Sequence[int]) -> int:
    """The positions sat in least, as a bit mask."""
    fewest = min(counts)
    return sum(1 << position for position, count in enumerate(counts) if count == fewest)


def _assign_positions(ranked: Sequence[str], least: Mapping[str, int], capacity: Sequence[int],
                      rng: Random) -> tuple[dict[str, int], dict[str, int], int]:
    """Each player's position, filling every position's places: a least-sat
    one for everyone when any assignment allows it. Also the positions each
    player may move to afterwards (any, for the few who could not be kept
    balanced), and how many those are."""
    every = (1 << len(capacity)) - 1
    allowed = {player: least[player] & every for player in ranked}
    holders: list[list[str]] = [[] for _ in capacity]
    position: dict[str, int] = {}
    unplaced = []
    # The most constrained first: they have the fewest positions to go to.
    for player in sorted(ranked, key=lambda p: bin(allowed[p]).count("1")):
        options = [k for k in range(len(capacity)) if allowed[player] >> k & 1]
        rng.shuffle(options)
        if not _place(player, options, holders, capacity, allowed, position):
            unplaced.append(player)
    for player in unplaced:
        free = next(k for k in range(len(capacity)) if len(holders[k]) < capacity[k])
        holders[free].append(player)
        position[player] = free
        allowed[player] = every
    return position, allowed, len(unplaced)


def _place(player: str, options: Sequence[int], holders: list[list[str]], capacity: Sequence[int],
           allowed: Mapping[str, int], position: dict[str, int]) -> bool:
    """Puts the player at one of `options`, moving holders on along an
    augmenting path (breadth first over positions) when those are full."""
    came_from: dict[int, tuple[int, str] | None] = {k: None for k in options}
    queue = deque(options)
    while queue:
        here = queue.popleft()
        if len(holders[here]) < capacity[here]:
            while (step := came_from[here]) is not None:
                previous, mover = step
                holders[previous].remove(mover)
                holders[here].append(mover)
                position[mover] = here
                here = previous
            holders[here].append(player)
            position[player] = here
            return True
        for there in range(len(capacity)):
            if there in came_from:
                continue
            movable = next((holder for holder in holders[here] if allowed[holder] >> there & 1), None)
            if movable is not None:
                came_from[there] = (here, movable)
                queue.append(there)
    return False


class _Search:
    """Swaps between tables that lower the seat excess, repeat meetings,
    then spread. Positioned tables are in seat order and a swap must leave
    both players at positions they may take."""

    def __init__(self, ranked: Sequence[str], met: MetCount, allowed: Mapping[str, int], positioned: bool) -> None:
        self.met = met
        self.allowed = allowed
        self.positioned = positioned
        self.rank = {player: index for index, player in enumerate(ranked)}

    def cost(self, table: Sequence[str]) -> int:
        meetings = sum(self.met(a, b) for a, b in itertools.combinations(table, 2))
        ranks = [self.rank[player] for player in table]
        excess = 0 if self.positioned else self.seat_excess(table)
        return SEAT_RADIX * excess + MEET_RADIX * meetings + max(ranks) - min(ranks)

    def seat_excess(self, table: Sequence[str]) -> int:
        """Players of the table who cannot all take a least-sat position."""
        return len(table) - len(_match_positions([self.allowed[player] for player in table]))

    def seat_order(self, table: Sequence[str], rng: Random) -> tuple[str, ...]:
        """The table in seat order, everyone at a position they may take
        (which of several: seeded)."""
        players = list(table)
        rng.shuffle(players)
        holder = _match_positions([self.allowed[player] for player in players])
        return tuple(players[holder[1 << position]] for position in range(len(players)))

    def improve(self, tables: list[list[str]], swaps: int, rng: Random) -> None:
        costs = [self.cost(table) for table in tables]
        troubled = {index for index, cost in enumerate(costs) if cost >= MEET_RADIX}
        total = best_total = sum(costs)
        best = [list(table) for table in tables]
        for _ in range(swaps):
            if not troubled or len(tables) < 2:
                break
            first = rng.choice(sorted(troubled))
            second = self._partner(first, len(tables), rng)
            a, b = tables[first], tables[second]
            i = rng.randrange(len(a))
            options = [j for j in range(len(b)) if self._may_swap(a, i, b, j)]
            if not options:
                continue
            j = rng.choice(options)
            a[i], b[j] = b[j], a[i]
            new_first, new_second = self.cost(a), self.cost(b)
            before, after = costs[first] + costs[second], new_first + new_second
            # Strictly better, or as good on seats and meetings (a sideways
            # step that lets the search leave a local minimum) now and then.
            sideways = after // MEET_RADIX == before // MEET_RADIX and rng.random() < SIDEWAYS_CHANCE
            if not (after < before or sideways):
                a[i], b[j] = b[j], a[i]
                continue
            costs[first], costs[second] = new_first, new_second
            total += after - before
            for index in (first, second):
                if costs[index] >= MEET_RADIX:
                    troubled.add(index)
                else:
                    troubled.discard(index)
            if total < best_total:
                best_total, best = total, [list(table) for table in tables]
        tables[:] = best

    def _may_swap(self, a: Sequence[str], i: int, b: Sequence[str], j: int) -> bool:
        if not self.positioned:
            return True
        return bool(self.allowed[a[i]] >> j & 1 and self.allowed[b[j]] >> i & 1)

    @staticmethod
    def _partner(first: int, tables: int, rng: Random) -> int:
        if rng.random() < FAR_SWAP_CHANCE:
            second = rng.randrange(tables - 1)
        else:
            low, high = max(0, first - NEAR_TABLES), min(tables - 1, first + NEAR_TABLES)
            second = rng.randrange(low, high)
        return second if second < first else second + 1


def _match_positions(masks: Sequence[int]) -> dict[int, int]:
    """A maximum matching of players (by index) to positions (bits of their
    masks, within the table), by augmenting paths; tables are at most 8."""
    usable = (1 << len(masks)) - 1
    holder: dict[int, int] = {}

    def place(player: int, tried: int) -> tuple[bool, int]:
        options = masks[player] & usable & ~tried
        while options:
            bit = options & -options
            options ^= bit
            tried |= bit
            if bit not in holder:
                holder[bit] = player
                return True, tried
            moved, tried = place(holder[bit], tried)
            if moved:
                holder[bit] = player
                return True, tried
        return False, tried

    for player in range(len(masks)):
        place(player, 0)
    return holder
