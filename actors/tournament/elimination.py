"""Single elimination, seeded by rating.

The bracket has a power-of-two number of slots in the standard seeding
order (1 v N, then 2 v N-1 placed in the other half, and so on), so the two
top seeds can meet only in the final and every round's favourites stay
apart. Slots past the field are empty: the top seeds face them and go
through with a bye. Each round the slots pair up in order; the winner of
each table (or the one player of a pair, a bye) fills the next round's
slot. A drawn table (equal points) goes to the higher game score, then to
the higher seed; a table where nobody showed sends no one through."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from tablehost.actors.tournament.records import GameRecord

Slots = list[str | None]  # the bracket's slots of one round, in bracket order


def rounds_needed(players: int) -> int:
    return math.ceil(math.log2(players)) if players > 1 else 0


def seeding_order(size: int) -> list[int]:
    """Seeds 1..size (a power of two) in bracket order: [1, 8, 4, 5, 2, 7, 3, 6] for 8."""
    order = [1]
    while len(order) < size:
        mirror = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, mirror - top)]
    return order


def first_round(seeded: Sequence[str]) -> Slots:
    """The bracket's slots for the field, best seed first."""
    size = 1 << max(0, len(seeded) - 1).bit_length()
    return [seeded[seed - 1] if seed <= len(seeded) else None for seed in seeding_order(size)]


def pair_slots(slots: Slots, seed_of: Mapping[str, int]) -> tuple[list[tuple[str, str]], list[str]]:
    """The round's tables (the higher seed sits first) and its byes."""
    tables: list[tuple[str, str]] = []
    byes: list[str] = []
    for index in range(0, len(slots), 2):
        present = [player for player in slots[index:index + 2] if player is not None]
        if len(present) == 2:
            first, second = sorted(present, key=lambda player: seed_of[player])
            tables.append((first, second))
        else:
            byes.extend(present)
    return tables, byes


def next_round(slots: Slots, results: Mapping[frozenset[str], GameRecord], seed_of: Mapping[str, int]) -> Slots:
    """The next round's slots: each pair's winner, or its one player."""
    advancing: Slots = []
    for index in range(0, len(slots), 2):
        present = [player for player in slots[index:index + 2] if player is not None]
        if len(present) == 2:
            advancing.append(table_winner(results[frozenset(present)], seed_of))
        else:
            advancing.append(present[0] if present else None)
    return advancing


def table_winner(record: GameRecord, seed_of: Mapping[str, int]) -> str | None:
    """Who goes through: the player who showed when the other did not, else
    the higher points, then the higher game score, then the higher seed."""
    showed = [seat for seat, gone in enumerate(record.forfeited) if not gone]
    if not showed:
        return None
    best = max(showed, key=lambda seat: (record.points[seat], record.scores[seat], -seed_of[record.players[seat]]))
    return record.players[best]
