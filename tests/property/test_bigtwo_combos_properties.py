"""Properties of Big Two combinations and legal plays, checked against brute force.

The brute force classifies every 1-, 2- and 5-card subset of a hand; `legal_plays`
must find exactly those plays, each once, which proves it both complete and free of
duplicates without trusting its structural shortcuts.
"""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from tablehost.games.bigtwo.cards import FULL_DECK, RANKS
from tablehost.games.bigtwo.combos import Combination, Kind, beats, classify
from tablehost.games.bigtwo.legal import legal_plays

BOUNDED = settings(max_examples=100, deadline=None)


@st.composite
def crowded_decks(draw: st.DrawFn) -> list[str]:
    """Cards of seven consecutive ranks (wrapping from 2 to 3), shuffled: hands dealt
    from them are full of fours of a kind, full houses and straight flushes, which
    hands from a whole deck rarely hold."""
    low = draw(st.integers(min_value=0, max_value=12))
    ranks = {RANKS[(low + step) % 13] for step in range(7)}
    return draw(st.permutations([card for card in FULL_DECK if card[0] in ranks]))


decks = st.one_of(st.permutations(FULL_DECK), crowded_decks())
hand_sizes = st.integers(min_value=0, max_value=13)


def brute_force_plays(hand: list[str]) -> list[Combination]:
    plays = []
    for size in (1, 2, 5):
        for cards in combinations(hand, size):
            play = classify(cards)
            if play is not None:
                plays.append(play)
    return plays


def some_play(data: st.DataObject, cards: list[str]) -> Combination:
    """A play drawn from `cards`, which are dealt so that one always exists.

    The kind is drawn first: drawn among all plays, the rare bombs would hardly ever
    come up against the thousands of straights a crowded hand holds.
    """
    by_kind: dict[Kind, list[Combination]] = {}
    for play in brute_force_plays(cards):
        by_kind.setdefault(play.kind, []).append(play)
    kind = data.draw(st.sampled_from(sorted(by_kind, key=list(Kind).index)))
    return data.draw(st.sampled_from(by_kind[kind]))


@BOUNDED
@given(deck=decks, size=hand_sizes)
def test_leading_plays_are_every_combination_in_the_hand_once(deck: list[str], size: int) -> None:
    hand = deck[:size]
    plays = legal_plays(hand, None)
    assert len({play.cards for play in plays}) == len(plays)
    assert set(plays) == set(brute_force_plays(hand))


@BOUNDED
@given(deck=decks, data=st.data())
def test_answering_plays_are_every_combination_that_beats_the_previous(
    deck: list[str], data: st.DataObject
) -> None:
    hand, table = deck[:13], deck[13:26]
    previous = some_play(data, table)
    expected = {play for play in brute_force_plays(hand) if beats(play, previous)}
    assert set(legal_plays(hand, previous)) == expected


@BOUNDED
@given(deck=decks)
def test_legal_plays_come_sorted_by_kind_then_key(deck: list[str]) -> None:
    plays = legal_plays(deck[:13], None)
    kind_order = {kind: index for index, kind in enumerate(Kind)}
    sort_keys = [(kind_order[play.kind], play.key) for play in plays]
    assert sort_keys == sorted(sort_keys)


@BOUNDED
@given(deck=decks, data=st.data())
def test_classify_ignores_the_order_of_the_cards(deck: list[str], data: st.DataObject) -> None:
    play = some_play(data, deck[:13])
    shuffled = data.draw(st.permutations(play.cards))
    assert classify(shuffled) == play
    assert list(play.cards) == sorted(play.cards, key=FULL_DECK.index)


@BOUNDED
@given(deck=decks, data=st.data())
def test_beats_is_irreflexive_and_asymmetric(deck: list[str], data: st.DataObject) -> None:
    first = some_play(data, deck[:13])
    second = some_play(data, deck[13:26])
    assert not beats(first, first)
    assert not (beats(first, second) and beats(second, first))


@BOUNDED
@given(deck=decks, data=st.data())
def test_of_two_disjoint_plays_of_a_kind_exactly_one_beats_the_other(
    deck: list[str], data: st.DataObject
) -> None:
    # Plays in one game never share a card, and among such plays of one kind the keys
    # form a strict total order: there is never a tie on the table.
    first = some_play(data, deck[:13])
    for second in brute_force_plays(deck[13:26]):
        if second.kind is first.kind:
            assert first.key != second.key
            assert beats(first, second) != beats(second, first)
            assert beats(first, second) == (first.key > second.key)
