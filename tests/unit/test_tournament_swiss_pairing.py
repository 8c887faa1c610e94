"""Swiss pairing as a minimum-cost matching: score groups split top half
against bottom half, no rematch, the bye to the lowest-ranked player
without one, seats balanced, and an unpairable round said so."""

from __future__ import annotations

import pytest

from tablehost.actors.tournament import swiss
from tablehost.actors.tournament.swiss import Entrant, pair_round


def field(points: list[float], met: dict[int, set[int]] | None = None, byes: set[int] = frozenset(),
          balance: dict[int, int] | None = None) -> list[Entrant]:
    met = met or {}
    balance = balance or {}
    mirrored = {i: {j for j in range(len(points)) if j in met.get(i, set()) or i in met.get(j, set())}
                for i in range(len(points))}
    return [Entrant(f"p{i:03d}", value, balance.get(i, 0), None, i in byes,
                    frozenset(f"p{j:03d}" for j in mirrored[i])) for i, value in enumerate(points)]


def pairs(pairing: swiss.Pairing | None) -> set[frozenset[str]]:
    assert pairing is not None
    return {frozenset(table) for table in pairing.tables}


def test_a_score_group_pairs_its_top_half_against_its_bottom_half() -> None:
    pairing = pair_round(field([0.0] * 8), 1)
    assert pairs(pairing) == {frozenset(("p000", "p004")), frozenset(("p001", "p005")),
                              frozenset(("p002", "p006")), frozenset(("p003", "p007"))}


def test_players_of_equal_points_meet_before_anyone_floats() -> None:
    pairing = pair_round(field([2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0]), 3)
    assert frozenset(("p000", "p001")) in pairs(pairing) and frozenset(("p006", "p007")) in pairs(pairing)


def test_nobody_meets_the_same_opponent_twice() -> None:
    pairing = pair_round(field([1.0, 1.0, 0.0, 0.0], met={0: {1}, 2: {3}}), 2)
    assert not pairs(pairing) & {frozenset(("p000", "p001")), frozenset(("p002", "p003"))}


def test_the_bye_goes_to_the_lowest_ranked_player_without_one() -> None:
    first, third = pair_round(field([0.0] * 5), 1), pair_round(field([2.0, 1.0, 1.0, 0.0, 0.0], byes={4}), 3)
    assert first is not None and first.bye == "p004"
    assert third is not None and third.bye == "p003"


def test_the_bye_moves_up_when_the_lowest_choice_leaves_the_rest_unpairable() -> None:
    # p001 and p002 have met: with the bye at p004 the rest still pairs, so it stays there;
    # make p000 have met everyone but p004, and p004 must play p000.
    entrants = field([0.0] * 5, met={0: {1, 2, 3}})
    pairing = pair_round(entrants, 2)
    assert pairing is not None and pairing.bye != "p004" and frozenset(("p000", "p004")) in pairs(pairing)


def test_a_round_with_no_pairing_without_rematches_is_unpairable() -> None:
    assert pair_round(field([0.0] * 4, met={0: {1, 2, 3}}), 2) is None
    assert pair_round(field([0.0] * 3, byes={0, 1, 2}), 3) is None  # everyone had their bye
    assert pair_round(field([0.0]), 1) is None


def test_the_player_who_sat_first_more_often_sits_second() -> None:
    pairing = pair_round(field([1.0, 1.0], balance={0: 1, 1: -1}), 2)
    assert pairing is not None and pairing.tables == (("p001", "p000"),)


def test_two_players_who_both_sat_first_more_are_kept_apart_when_it_costs_no_points() -> None:
    # Top half against bottom half would be p000-p002 and p001-p003: both pairs want the same seat.
    balance = {0: 1, 1: -1, 2: 1, 3: -1}
    pairing = pair_round(field([0.0] * 4, balance=balance), 2)
    assert pairing is not None
    for first, second in pairing.tables:
        assert balance[int(first[1:])] == -1 and balance[int(second[1:])] == 1


@pytest.mark.parametrize("players", [101, 300])
def test_a_large_field_is_paired_in_windows_completely_and_without_rematches(players: int) -> None:
    points = [float(3 - i * 4 // players) for i in range(players)]
    met = {i: {i + 1} for i in range(0, players - 1, 2)}  # last round's pairs
    entrants = field(points, met)
    pairing = pair_round(entrants, 2)
    assert pairing is not None and len(pairing.tables) == players // 2
    assert (pairing.bye is not None) == bool(players % 2)
    seated = [player for table in pairing.tables for player in table] + ([pairing.bye] if pairing.bye else [])
    assert sorted(seated) == [e.player for e in entrants]
    assert not pairs(pairing) & {frozenset((f"p{i:03d}", f"p{i + 1:03d}")) for i in met}


def test_the_last_window_widens_when_the_bottom_players_have_all_met() -> None:
    players = 60
    bottom = range(players - 6, players)
    met = {i: set(bottom) - {i} for i in bottom}  # the bottom six have played each other
    pairing = pair_round(field([0.0] * players, met), 6)
    assert pairing is not None and len(pairing.tables) == players // 2
    for table in pairing.tables:
        assert not {int(p[1:]) for p in table} <= set(bottom)
