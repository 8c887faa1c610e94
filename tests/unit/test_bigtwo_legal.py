"""Enumerating a Big Two hand's legal plays: each play once, only what beats the last play."""

from __future__ import annotations

from tablehost.games.bigtwo.cards import parse_cards
from tablehost.games.bigtwo.combos import Combination, Kind, classify
from tablehost.games.bigtwo.legal import legal_plays


def combo(text: str) -> Combination:
    play = classify(parse_cards(text))
    assert play is not None, f"{text} should be a combination"
    return play


def card_sets(plays: list[Combination]) -> set[str]:
    return {" ".join(play.cards) for play in plays}


def test_an_empty_hand_has_no_plays() -> None:
    assert legal_plays([], None) == []


def test_a_leader_may_play_every_single_and_pair() -> None:
    plays = legal_plays(parse_cards("3C 3D 9S"), None)
    assert card_sets(plays) == {"3C", "3D", "9S", "3C 3D"}


def test_four_cards_of_a_rank_give_six_pairs() -> None:
    plays = legal_plays(parse_cards("7C 7D 7H 7S"), None)
    assert sum(play.kind is Kind.PAIR for play in plays) == 6


def test_a_leader_finds_the_tjqka_straight() -> None:
    plays = legal_plays(parse_cards("TC JD QH KS AC"), None)
    assert combo("TC JD QH KS AC") in plays


def test_the_jqka2_run_gives_no_straight() -> None:
    plays = legal_plays(parse_cards("JC QD KH AS 2C"), None)
    assert all(play.kind is Kind.SINGLE for play in plays)


def test_a_run_of_one_suit_is_offered_as_a_straight_flush_only() -> None:
    plays = legal_plays(parse_cards("AH 2H 3H 4H 5H"), None)
    five_card_plays = [play for play in plays if len(play.cards) == 5]
    assert five_card_plays == [combo("AH 2H 3H 4H 5H")]
    assert five_card_plays[0].kind is Kind.STRAIGHT_FLUSH


def test_every_choice_of_suits_along_a_run_is_a_straight() -> None:
    plays = legal_plays(parse_cards("3C 3D 4C 4D 5C 6C 7C"), None)
    assert card_sets(play for play in plays if len(play.cards) == 5) == {
        "3C 4C 5C 6C 7C",
        "3C 4D 5C 6C 7C",
        "3D 4C 5C 6C 7C",
        "3D 4D 5C 6C 7C",
    }


def test_full_houses_take_every_three_with_every_pair() -> None:
    plays = legal_plays(parse_cards("5C 5D 5H 5S 8C 8D"), None)
    full_houses = [play for play in plays if play.kind is Kind.FULL_HOUSE]
    # Four ways to take three fives with the one pair of eights; none the other way round.
    assert len(full_houses) == 4


def test_four_of_a_kind_is_offered_with_each_other_card() -> None:
    plays = legal_plays(parse_cards("9C 9D 9H 9S 3C 2S"), None)
    fours = [play for play in plays if play.kind is Kind.FOUR_OF_A_KIND]
    assert card_sets(fours) == {"3C 9C 9D 9H 9S", "9C 9D 9H 9S 2S"}


def test_plays_come_weakest_kind_first_and_by_strength_within_a_kind() -> None:
    plays = legal_plays(parse_cards("2S 7D 7C 6C 5C 4C 3C"), None)
    kinds = [play.kind for play in plays]
    assert kinds == [Kind.SINGLE] * 7 + [Kind.PAIR] + [Kind.STRAIGHT] * 2 + [Kind.STRAIGHT_FLUSH]
    singles = [play.cards[0] for play in plays if play.kind is Kind.SINGLE]
    assert singles == ["3C", "4C", "5C", "6C", "7C", "7D", "2S"]
    straights = [play for play in plays if play.kind is Kind.STRAIGHT]
    assert straights == [combo("3C 4C 5C 6C 7D"), combo("2S 3C 4C 5C 6C")]


def test_the_order_of_the_hand_does_not_change_the_plays() -> None:
    hand = parse_cards("3C 3D 3H 4C 4D 5S 6H 7C 8C 8D 8H 8S 2C")
    assert legal_plays(hand, None) == legal_plays(list(reversed(hand)), None)


def test_a_card_listed_twice_in_the_hand_counts_once() -> None:
    assert legal_plays(["3C", "3C"], None) == [combo("3C")]


def test_passing_previous_keeps_only_plays_of_that_kind_that_beat_it() -> None:
    plays = legal_plays(parse_cards("3C 3D 9C 9S KH 2S"), combo("9D 9H"))
    assert plays == [combo("9C 9S")]


def test_a_single_is_answered_by_higher_singles_only() -> None:
    plays = legal_plays(parse_cards("3C 3D 9C KH"), combo("9D"))
    assert card_sets(plays) == {"KH"}


def test_four_of_a_kind_is_offered_on_a_single() -> None:
    plays = legal_plays(parse_cards("4C 4D 4H 4S 5C"), combo("2S"))
    assert card_sets(plays) == {"4C 4D 4H 4S 5C"}


def test_a_straight_flush_is_offered_on_a_pair() -> None:
    plays = legal_plays(parse_cards("3D 4D 5D 6D 7D"), combo("2C 2S"))
    assert plays == [combo("3D 4D 5D 6D 7D")]


def test_only_higher_straight_flushes_answer_a_straight_flush() -> None:
    hand = parse_cards("3S 4S 5S 6S 7S 8S JC JD JH JS")
    plays = legal_plays(hand, combo("4H 5H 6H 7H 8H"))
    assert plays == [combo("4S 5S 6S 7S 8S")]


def test_a_straight_flush_and_higher_fours_answer_four_of_a_kind() -> None:
    hand = parse_cards("3S 4S 5S 6S 7S 5C 5D 5H 8C 8D 8H 8S")
    plays = legal_plays(hand, combo("6C 6D 6H 6S 2C"))
    assert {play.kind for play in plays} == {Kind.FOUR_OF_A_KIND, Kind.STRAIGHT_FLUSH}
    assert all(play.key[0] == 5 for play in plays if play.kind is Kind.FOUR_OF_A_KIND)


def test_a_full_house_is_not_offered_on_a_straight() -> None:
    plays = legal_plays(parse_cards("AC AD AH 2C 2D"), combo("3C 4D 5H 6S 7C"))
    assert plays == []


def test_the_straight_flushes_that_answer_a_single_are_the_leaders_own() -> None:
    # Answering a single, straight flushes are found without listing plain
    # straights: the same ones a leader finds among every straight, wrapping
    # A2345 and 23456 included, in the same order.
    hand = parse_cards("AH 2H 3H 4H 5H 6H 7D 3D 4D 5D 6D 9S")
    leading = [play for play in legal_plays(hand, None) if play.kind is Kind.STRAIGHT_FLUSH]
    answering = [play for play in legal_plays(hand, combo("2S")) if play.kind is Kind.STRAIGHT_FLUSH]
    assert answering == leading
    assert card_sets(answering) == {"3H 4H 5H AH 2H", "3H 4H 5H 6H 2H", "3D 4D 5D 6D 7D"}
