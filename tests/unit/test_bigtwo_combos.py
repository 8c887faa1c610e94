"""Big Two card codes and combinations: what a play is, and what beats what."""

from __future__ import annotations

import pytest

from tablehost.games.bigtwo.cards import (
    FULL_DECK,
    CardParseError,
    card_order,
    format_cards,
    parse_cards,
    rank_of,
    sort_cards,
    suit_of,
)
from tablehost.games.bigtwo.combos import Combination, Kind, beats, classify


def combo(text: str) -> Combination:
    play = classify(parse_cards(text))
    assert play is not None, f"{text} should be a combination"
    return play


# Cards


def test_deck_has_52_distinct_cards_from_3_of_clubs_up_to_2_of_spades() -> None:
    assert len(set(FULL_DECK)) == 52
    assert FULL_DECK[:5] == ("3C", "3D", "3H", "3S", "4C")
    assert FULL_DECK[-1] == "2S"
    assert [card_order(card) for card in FULL_DECK] == list(range(52))


def test_two_is_the_highest_rank_and_three_the_lowest() -> None:
    assert rank_of("3S") == 0
    assert rank_of("AC") == 11
    assert rank_of("2C") == 12


def test_suits_rise_from_clubs_to_spades() -> None:
    assert [suit_of(card) for card in ("7C", "7D", "7H", "7S")] == [0, 1, 2, 3]


def test_card_order_is_rank_first_then_suit() -> None:
    assert card_order("3S") < card_order("4C")
    assert card_order("KS") < card_order("AC") < card_order("2C")


def test_sort_cards_puts_a_hand_in_ascending_order() -> None:
    assert sort_cards(["2C", "3S", "TD", "3C"]) == ["3C", "3S", "TD", "2C"]


def test_parse_cards_accepts_commas_lower_case_and_ten() -> None:
    assert parse_cards(" 3c, 10s  kh,Ad ") == ["3C", "TS", "KH", "AD"]


def test_parse_cards_of_blank_text_is_no_cards() -> None:
    assert parse_cards("  ") == []


def test_parse_cards_reads_back_what_format_cards_prints() -> None:
    cards = ["3C", "TD", "QH", "2S"]
    assert format_cards(cards) == "3♣ 10♦ Q♥ 2♠"
    assert parse_cards(format_cards(cards)) == cards


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("3C 1S", "'1S'"),
        ("3C ZZ", "rank 'Z'"),
        ("3X", "suit 'X'"),
        ("3CC", "'3CC'"),
        ("10", "'10'"),
    ],
)
def test_parse_cards_names_the_bad_token(text: str, message: str) -> None:
    with pytest.raises(CardParseError, match=message):
        parse_cards(text)


def test_parse_cards_refuses_a_card_given_twice() -> None:
    with pytest.raises(CardParseError, match="duplicate card '3c'"):
        parse_cards("3C 4D 3c")


def test_card_parse_error_is_a_value_error() -> None:
    assert issubclass(CardParseError, ValueError)


# Classification


def test_a_single_card_is_a_single() -> None:
    assert combo("2S") == Combination(Kind.SINGLE, ("2S",), (51,))


def test_two_cards_of_a_rank_are_a_pair() -> None:
    assert combo("9S 9D").kind is Kind.PAIR


def test_classify_sorts_the_cards_ascending() -> None:
    assert combo("2C 6D 3S 5H 4C").cards == ("3S", "4C", "5H", "6D", "2C")


def test_two_cards_of_different_ranks_are_no_combination() -> None:
    assert classify(["9S", "TS"]) is None


def test_no_cards_are_no_combination() -> None:
    assert classify([]) is None


def test_three_cards_are_no_combination() -> None:
    assert classify(["9C", "9D", "9H"]) is None


def test_four_cards_are_no_combination() -> None:
    assert classify(["9C", "9D", "9H", "9S"]) is None


def test_six_cards_are_no_combination() -> None:
    assert classify(parse_cards("3C 4C 5C 6C 7C 8C")) is None


def test_a_card_twice_is_no_combination() -> None:
    assert classify(["9C", "9C"]) is None


def test_an_unknown_card_code_is_no_combination() -> None:
    assert classify(["1C"]) is None


def test_five_unrelated_cards_are_no_combination() -> None:
    assert classify(parse_cards("3C 5D 7H 9S JC")) is None


def test_two_pairs_and_a_card_are_no_combination() -> None:
    assert classify(parse_cards("3C 3D 5H 5S JC")) is None


def test_three_of_a_kind_and_two_odd_cards_are_no_combination() -> None:
    assert classify(parse_cards("3C 3D 3H 5S JC")) is None


def test_34567_is_a_straight() -> None:
    assert combo("3C 4D 5H 6S 7C").kind is Kind.STRAIGHT


def test_tjqka_is_a_straight() -> None:
    assert combo("TC JD QH KS AC").kind is Kind.STRAIGHT


def test_a2345_is_a_straight() -> None:
    assert combo("AC 2D 3H 4S 5C").kind is Kind.STRAIGHT


def test_23456_is_a_straight() -> None:
    assert combo("2C 3D 4H 5S 6C").kind is Kind.STRAIGHT


@pytest.mark.parametrize("text", ["JC QD KH AS 2C", "QC KD AH 2S 3C", "KC AD 2H 3S 4C"])
def test_jqka2_qka23_and_ka234_are_not_straights(text: str) -> None:
    assert classify(parse_cards(text)) is None


def test_jqka2_is_not_a_straight() -> None:
    assert classify(parse_cards("JC QD KH AS 2C")) is None


def test_five_cards_of_one_suit_in_sequence_are_a_straight_flush() -> None:
    assert combo("TH JH QH KH AH") == Combination(
        Kind.STRAIGHT_FLUSH, ("TH", "JH", "QH", "KH", "AH"), (8, 2)
    )


def test_five_cards_of_one_suit_out_of_sequence_are_no_combination() -> None:
    # Flushes are not a kind of play in these rules.
    assert classify(parse_cards("3H 5H 7H 9H JH")) is None


def test_three_and_two_of_a_rank_are_a_full_house() -> None:
    assert combo("8C 8D 8H 4S 4C") == Combination(
        Kind.FULL_HOUSE, ("4C", "4S", "8C", "8D", "8H"), (5,)
    )


def test_four_of_a_rank_with_any_card_are_four_of_a_kind() -> None:
    assert combo("JC JD JH JS 3C") == Combination(
        Kind.FOUR_OF_A_KIND, ("3C", "JC", "JD", "JH", "JS"), (8,)
    )


# Comparison within a kind


def test_a_single_beats_a_lower_rank_whatever_the_suits() -> None:
    assert beats(["4C"], ["3S"])


def test_a_single_beats_the_same_rank_in_a_lower_suit() -> None:
    assert beats(["3S"], ["3H"])
    assert not beats(["3H"], ["3S"])


def test_a_single_two_beats_an_ace() -> None:
    assert beats(["2C"], ["AS"])


def test_a_pair_beats_a_lower_rank() -> None:
    assert beats(["5C", "5D"], ["4H", "4S"])


def test_pairs_of_one_rank_are_ordered_by_their_higher_suit() -> None:
    assert beats(["9C", "9S"], ["9D", "9H"])
    assert not beats(["9D", "9H"], ["9C", "9S"])


def test_full_houses_are_ordered_by_the_three() -> None:
    assert beats(parse_cards("4C 4D 4H 3C 3D"), parse_cards("3H 3S 3C 2C 2D"))
    assert not beats(parse_cards("3C 3D 3H 2C 2D"), parse_cards("4C 4D 4H 5C 5D"))


def test_fours_of_a_kind_are_ordered_by_the_four() -> None:
    assert beats(parse_cards("5C 5D 5H 5S 3C"), parse_cards("4C 4D 4H 4S 2S"))


def test_23456_is_the_highest_straight() -> None:
    assert beats(parse_cards("2C 3C 4C 5C 6D"), parse_cards("TS JS QS KS AH"))


def test_tjqka_beats_9tjqk() -> None:
    assert beats(parse_cards("TC JC QC KC AD"), parse_cards("9S TS JS QS KH"))


def test_a2345_is_the_lowest_straight() -> None:
    assert beats(parse_cards("3C 4C 5C 6C 7D"), parse_cards("AS 2S 3S 4S 5H"))


def test_equal_straights_compare_by_the_rank_of_the_highest_card() -> None:
    # Same sequence, so the highest card is the same rank: its suit decides.
    assert beats(parse_cards("3C 4C 5C 6C 7S"), parse_cards("3S 4S 5S 6S 7H"))
    assert not beats(parse_cards("3S 4S 5S 6S 7H"), parse_cards("3C 4C 5C 6C 7S"))


def test_equal_a2345_straights_compare_by_the_two() -> None:
    assert beats(parse_cards("AC 2S 3C 4C 5C"), parse_cards("AS 2H 3S 4S 5S"))


def test_straight_flushes_compare_by_straight_first() -> None:
    assert beats(parse_cards("4C 5C 6C 7C 8C"), parse_cards("3S 4S 5S 6S 7S"))


def test_equal_straight_flushes_compare_by_suit() -> None:
    assert beats(parse_cards("3S 4S 5S 6S 7S"), parse_cards("3H 4H 5H 6H 7H"))
    assert not beats(parse_cards("3D 4D 5D 6D 7D"), parse_cards("3H 4H 5H 6H 7H"))


def test_a_play_never_beats_itself() -> None:
    play = combo("9C 9D")
    assert not beats(play, play)


# Comparison across kinds


def test_any_combination_may_lead() -> None:
    assert beats(["3C"], None)
    assert beats(parse_cards("3C 3D 3H 4C 4D"), None)


def test_no_combination_never_beats_even_when_leading() -> None:
    assert not beats(["3C", "4C", "5C"], None)
    assert not beats(["3C", "4C"], ["3D"])


def test_a_previous_play_that_is_no_combination_is_an_error() -> None:
    with pytest.raises(ValueError, match="not a combination"):
        beats(["3C"], ["4C", "5C"])


def test_beats_accepts_combinations_and_card_lists_alike() -> None:
    assert beats(combo("4C"), combo("3C")) == beats(["4C"], ["3C"]) is True


def test_a_pair_does_not_beat_a_single() -> None:
    assert not beats(["2C", "2S"], ["3C"])


def test_a_straight_does_not_beat_a_full_house() -> None:
    assert not beats(parse_cards("TC JC QC KC AD"), parse_cards("3C 3D 3H 4C 4D"))


def test_a_full_house_does_not_beat_a_straight() -> None:
    assert not beats(parse_cards("AC AD AH 2C 2D"), parse_cards("3C 4D 5H 6S 7C"))


def test_four_of_a_kind_beats_a_single_two() -> None:
    assert beats(parse_cards("3C 3D 3H 3S 4C"), ["2S"])


def test_four_of_a_kind_beats_a_pair_of_twos() -> None:
    assert beats(parse_cards("3C 3D 3H 3S 4C"), ["2H", "2S"])


def test_four_of_a_kind_beats_the_highest_straight() -> None:
    assert beats(parse_cards("3C 3D 3H 3S 4C"), parse_cards("2C 3D 4H 5S 6C"))


def test_four_of_a_kind_beats_a_full_house() -> None:
    assert beats(parse_cards("3C 3D 3H 3S 4C"), parse_cards("2C 2D 2H AC AD"))


def test_straight_flush_beats_four_of_a_kind() -> None:
    assert beats(parse_cards("AH 2H 3H 4H 5H"), parse_cards("2C 2D 2H 2S 3C"))
    assert not beats(parse_cards("2C 2D 2H 2S 3C"), parse_cards("AH 2H 3H 4H 5H"))


def test_straight_flush_beats_a_single_a_pair_a_straight_and_a_full_house() -> None:
    bomb = parse_cards("AH 2H 3H 4H 5H")
    assert beats(bomb, ["2S"])
    assert beats(bomb, ["2C", "2S"])
    assert beats(bomb, parse_cards("2C 3D 4S 5S 6C"))
    assert beats(bomb, parse_cards("2C 2D 2S AC AD"))


def test_a_single_does_not_beat_four_of_a_kind() -> None:
    assert not beats(["2S"], parse_cards("3C 3D 3H 3S 4C"))
