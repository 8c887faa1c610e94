"""How each format pairs the next round from what the tournament knows: the
bridge between the tournament's state and the format modules, which see
only plain arguments. A plan is the round's tables and byes plus what the
format keeps for its later rounds (the round robin's schedule, the
elimination's seeds and bracket), all of it written into the round's
event, so a replay reads the round instead of pairing it again.

A format that cannot pair the round says why in words; the tournament then
finishes with that reason."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any

from tablehost.actors.tournament import elimination, round_robin, swiss, table_rounds
from tablehost.actors.tournament.ledger import Ledger
from tablehost.actors.tournament.records import GameRecord, TournamentSpec


@dataclass(frozen=True)
class RoundContext:
    """What pairing a round reads from the tournament."""

    spec: TournamentSpec
    round_number: int
    ranked: list[str]  # the active players: points, then rating, then a seeded order of ties
    ledger: Ledger
    withdrawn: frozenset[str]
    ordinal: Callable[[str], float]
    rng: Random
    schedule: list[str] = field(default_factory=list)  # round robin: the field in Berger order
    seeds: list[str] = field(default_factory=list)  # elimination: the field, best seed first
    bracket: elimination.Slots = field(default_factory=list)  # elimination: the last round's slots
    last_results: list[GameRecord] = field(default_factory=list)  # the last round's results


@dataclass(frozen=True)
class Plan:
    tables: list[tuple[str, ...]]
    byes: list[str]
    keep: dict[str, Any] = field(default_factory=dict)  # added to the round's event


def natural_rounds(spec: TournamentSpec, players: int) -> int:
    """The rounds a tournament plans when its spec leaves them at 0 (fixed at round 1)."""
    if spec.format == "round_robin":
        schedule = round_robin.schedule_rounds(players)
        return min(spec.rounds, schedule) if spec.rounds else schedule
    if spec.rounds:
        return spec.rounds
    if spec.format == "elimination":
        return elimination.rounds_needed(players)
    if spec.format == "table_rounds":
        # As many as could leave every pair meeting at most once.
        return max(1, (players - 1) // (spec.seats - 1))
    return max(1, math.ceil(math.log2(max(2, players))))


def pair_next(context: RoundContext) -> Plan | str:
    """The next round, or why there is none."""
    form = context.spec.format
    if len(context.ranked) < 2 and not (form == "elimination" and context.round_number > 1):
        return f"fewer than 2 active players are left for round {context.round_number}"
    if form == "elimination":
        return _elimination(context)
    if form == "swiss":
        return _swiss(context)
    if form == "round_robin":
        return _round_robin(context)
    return _table_round(context)


def _swiss(context: RoundContext) -> Plan | str:
    entrants = []
    for player in context.ranked:
        entry = context.ledger[player]
        entrants.append(swiss.Entrant(player, entry.points, entry.seat_balance, entry.last_seat, entry.byes > 0,
                                      frozenset(entry.met)))
    pairing = swiss.pair_round(entrants, context.round_number)
    if pairing is None:
        return f"round {context.round_number} cannot be paired without a rematch or a second bye"
    return Plan(list(pairing.tables), [pairing.bye] if pairing.bye else [])


def _round_robin(context: RoundContext) -> Plan | str:
    keep: dict[str, Any] = {}
    schedule = context.schedule
    if context.round_number == 1:
        schedule = _by_rating(context.ranked, context.ordinal)
        keep["schedule"] = schedule
    scheduled, byes = round_robin.berger_round(schedule, context.round_number)
    tables: list[tuple[str, ...]] = []
    for table in scheduled:
        staying = [player for player in table if player not in context.withdrawn]
        if len(staying) == 2:
            tables.append(table)
        else:  # whoever's opponent withdrew sits this round out, with a bye
            byes.extend(staying)
    return Plan(tables, [player for player in byes if player not in context.withdrawn], keep)


def _elimination(context: RoundContext) -> Plan | str:
    keep: dict[str, Any] = {}
    if context.round_number == 1:
        seeds = _by_rating(context.ranked, context.ordinal)
        keep["seeds"] = seeds
        slots = elimination.first_round(seeds)
    else:
        seeds = context.seeds
        results = {frozenset(record.players): record for record in context.last_results}
        slots = elimination.next_round(context.bracket, results, _seed_of(seeds))
    slots = [None if player in context.withdrawn else player for player in slots]
    left = [player for player in slots if player is not None]
    if len(left) == 1:
        return f"{left[0]} won the tournament"
    if not left:
        return "no player is left in the bracket"
    keep["bracket"] = slots
    tables, byes = elimination.pair_slots(slots, _seed_of(seeds))
    return Plan(list(tables), byes, keep)


def _table_round(context: RoundContext) -> Plan | str:
    spec = context.spec
    sizes, sitting_out = table_rounds.table_sizes(len(context.ranked), spec.seats, spec.min_seats)
    if not sizes:
        smallest = spec.min_seats or spec.seats
        return (f"{len(context.ranked)} active players cannot fill a table of {smallest} "
                f"in round {context.round_number}")

    def seat_counts(player: str) -> list[int]:
        return [context.ledger[player].seats[k] for k in range(spec.seats)]

    byes = table_rounds.choose_byes(context.ranked, sizes, lambda player: context.ledger[player].byes, seat_counts,
                                    sitting_out)
    seated = [player for player in context.ranked if player not in byes]
    tables = table_rounds.seat_round(seated, sizes, context.ledger.met, seat_counts, context.rng)
    return Plan(list(tables), byes)


def _by_rating(players: Sequence[str], ordinal: Callable[[str], float]) -> list[str]:
    """Best rating first; equal ratings keep the order given (seeded)."""
    return sorted(players, key=lambda player: -ordinal(player))


def _seed_of(seeds: Sequence[str]) -> dict[str, int]:
    return {player: index + 1 for index, player in enumerate(seeds)}
