"""Seeded Swiss tournaments played out with random results (wins, draws,
no-shows): what every round must hold, and standings that the kept events
reproduce.

While the rounds played stay below ceil(n/2), a pairing without a rematch
always exists (each player has met fewer than half the field, so by Dirac's
theorem the pairs not yet met hold a perfect matching), so every planned
round must be paired. Past that, a round may be unpairable, and the
tournament must then end cleanly: a finished event, no half-paired round."""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablehost.actors.tournament import GameRecord, Tournament, TournamentSpec
from tournament_play import play as play_out

# Fields up to 64, small ones drawn more often (they are where rematches bite).
fields = st.integers(1, 6).flatmap(lambda doubling: st.integers(2, 2 ** doubling))
seeds = st.integers(0, 2**32 - 1)


def random_result(table: Any, rng: random.Random) -> GameRecord:
    roll = rng.random()
    if roll < 0.1:  # a draw
        return GameRecord(table.table_id, table.round, table.players, (0.5, 0.5), (0, 0), (3.0, 3.0), (False, False))
    winner = rng.randrange(2)
    ranks = (0, 1) if winner == 0 else (1, 0)
    no_show = (False, False) if roll > 0.15 else tuple(rank == 1 for rank in ranks)
    points = tuple(1.0 - rank for rank in ranks)
    return GameRecord(table.table_id, table.round, table.players, points, ranks,
                      tuple(float(rng.randint(0, 30) * (1 - rank)) for rank in ranks), no_show)


def play(spec: TournamentSpec, players: int, seed: int) -> tuple[Tournament, list[dict[str, Any]]]:
    return play_out(spec, players, seed, random_result)


def check_rounds(tournament: Tournament, players: int) -> None:
    """Each round: everyone once, floor(n/2) tables, n % 2 byes; never a rematch or a second bye."""
    met: Counter[frozenset[str]] = Counter()
    byes: Counter[str] = Counter()
    for played in tournament.rounds:
        assert len(played.tables) == players // 2 and len(played.byes) == players % 2
        seated = [player for table in played.tables for player in table.players] + list(played.byes)
        assert sorted(seated) == sorted(tournament.players())
        met.update(frozenset(table.players) for table in played.tables)
        byes.update(played.byes)
    assert max(met.values(), default=1) == 1
    assert max(byes.values(), default=1) == 1


def check_replay(tournament: Tournament, events: list[dict[str, Any]]) -> None:
    replayed = Tournament.replay(tournament.spec, msgpack.unpackb(msgpack.packb(events)))
    assert replayed.standings() == tournament.standings()
    assert replayed.ratings() == tournament.ratings()
    assert replayed.rounds == tournament.rounds and replayed.finish_reason == tournament.finish_reason


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=fields, seed=seeds, data=st.data())
def test_swiss_pairs_every_planned_round_below_half_the_field_without_rematches(players: int, seed: int,
                                                                                 data: st.DataObject) -> None:
    rounds = data.draw(st.integers(1, max(1, math.ceil(players / 2) - 1)), label="rounds")
    spec = TournamentSpec("swiss-prop", "duel", "swiss", 2, rounds, seed)
    tournament, events = play(spec, players, seed)
    assert len(tournament.rounds) == rounds and tournament.rounds_played == rounds
    assert tournament.finish_reason == f"all {rounds} planned rounds were played"
    check_rounds(tournament, players)
    check_replay(tournament, events)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 14), seed=seeds)
def test_a_swiss_asked_for_more_rounds_than_pairable_ends_cleanly(players: int, seed: int) -> None:
    rounds = players + 1  # more than any pairing without rematches allows
    spec = TournamentSpec("swiss-prop", "duel", "swiss", 2, rounds, seed)
    tournament, events = play(spec, players, seed)
    assert events[-1] == {"type": "finished", "reason": tournament.finish_reason}
    assert "cannot be paired without a rematch or a second bye" in (tournament.finish_reason or "")
    assert len(tournament.rounds) >= math.ceil(players / 2) - 1  # the Dirac bound held
    assert tournament.round_complete() and tournament.rounds_played == len(tournament.rounds)
    check_rounds(tournament, players)
    check_replay(tournament, events)
