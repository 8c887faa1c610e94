"""Big Two combinations: which card sets may be played and which play beats which.

This is the rule book of plays and what beats what, as pure functions over card codes; the game
engine asks it whether a play is legal, and `legal` uses its tables to enumerate plays.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tablehost.games.bigtwo.cards import card_order

_ACE, _TWO = 11, 12


class Kind(enum.Enum):
    """The six kinds of play; nothing else may be played (no 3- or 4-card plays)."""

    SINGLE = "single"
    PAIR = "pair"
    STRAIGHT = "straight"
    FULL_HOUSE = "full_house"
    FOUR_OF_A_KIND = "four_of_a_kind"
    STRAIGHT_FLUSH = "straight_flush"


@dataclass(frozen=True, slots=True)
class Combination:
    """A legal play: its kind, its cards from weakest to strongest, and its rank in its kind.

    `key` only compares plays of the same kind: the bigger key beats. Keeping it as a
    plain tuple lets callers sort plays without knowing the rules of each kind.
    """

    kind: Kind
    cards: tuple[str, ...]
    key: tuple[int, ...]


def _straight_rank_sequences() -> tuple[tuple[int, ...], ...]:
    # A2345 is the lowest straight, then 34567 up to TJQKA, and 23456 the
    # highest. The 2 and the ace only wrap around at the bottom, which is why JQKA2,
    # QKA23 and KA234 do not appear.
    middle = tuple(tuple(range(low, low + 5)) for low in range(0, _ACE - 3))
    return ((_ACE, _TWO, 0, 1, 2), *middle, (_TWO, 0, 1, 2, 3))


STRAIGHT_RANKS: tuple[tuple[int, ...], ...] = _straight_rank_sequences()
"""Rank indices of each straight, indexed by its strength: 0 is A2345, 9 is 23456."""

_STRAIGHT_INDEX: dict[frozenset[int], int] = {
    frozenset(ranks): index for index, ranks in enumerate(STRAIGHT_RANKS)
}


def straight_combination(cards: tuple[str, ...], sequence_index: int) -> Combination:
    """The straight or straight flush formed by `cards`, already sorted and known to be
    the straight `sequence_index`; shared with `legal` so both build identical plays."""
    orders = [card_order(card) for card in cards]
    suit = orders[0] & 3
    if all(order & 3 == suit for order in orders):
        return Combination(Kind.STRAIGHT_FLUSH, cards, (sequence_index, suit))
    # The highest-ranked card decides between equal straights, even in A2345 and 23456
    # where it is the 2 rather than the card at the top of the sequence.
    return Combination(Kind.STRAIGHT, cards, (sequence_index, max(orders)))


def classify(cards: Sequence[str]) -> Combination | None:
    """The combination `cards` form, or None when they may not be played together.

    None covers everything a client might send that is not a play: no cards, three or
    four cards, five unrelated cards, a card twice, or a string that is not a card.
    """
    try:
        ordered = tuple(sorted(cards, key=card_order))
    except KeyError:
        return None
    if len(set(ordered)) != len(ordered):
        return None
    if len(ordered) == 1:
        return Combination(Kind.SINGLE, ordered, (card_order(ordered[0]),))
    if len(ordered) == 2:
        return _classify_pair(ordered)
    if len(ordered) == 5:
        return _classify_five(ordered)
    return None


def _classify_pair(cards: tuple[str, ...]) -> Combination | None:
    low, high = card_order(cards[0]), card_order(cards[1])
    if low >> 2 != high >> 2:
        return None
    # Same rank, so the higher card's order is the rank then the higher suit.
    return Combination(Kind.PAIR, cards, (high,))


def _classify_five(cards: tuple[str, ...]) -> Combination | None:
    ranks = [card_order(card) >> 2 for card in cards]
    counts = Counter(ranks).most_common()
    if len(counts) == 5:
        sequence_index = _STRAIGHT_INDEX.get(frozenset(ranks))
        if sequence_index is None:
            return None
        return straight_combination(cards, sequence_index)
    (top_rank, top_count), (_, second_count) = counts[0], counts[1]
    if top_count == 4:
        return Combination(Kind.FOUR_OF_A_KIND, cards, (top_rank,))
    if top_count == 3 and second_count == 2:
        return Combination(Kind.FULL_HOUSE, cards, (top_rank,))
    return None


def beats(
    play: Combination | Sequence[str],
    previous: Combination | Sequence[str] | None,
) -> bool:
    """Whether `play` may be laid on `previous`; with no previous play, whether
    `play` is legal at all, since a leader may play any combination.

    Card sequences are accepted so callers holding raw input need not classify first.
    A `play` that is no combination never beats; a `previous` that is none is a caller
    bug and raises ValueError.
    """
    play_combo = _as_combination(play)
    if play_combo is None:
        return False
    if previous is None:
        return True
    previous_combo = _as_combination(previous)
    if previous_combo is None:
        raise ValueError(f"previous play {previous!r} is not a combination")
    return outranks(play_combo, previous_combo)


def _as_combination(play: Combination | Sequence[str]) -> Combination | None:
    return play if isinstance(play, Combination) else classify(play)


def outranks(play: Combination, previous: Combination) -> bool:
    """`beats` for two combinations already classified: what move generation
    asks of every candidate, so it skips the classifying."""
    if play.kind is previous.kind:
        return play.key > previous.key
    if play.kind is Kind.STRAIGHT_FLUSH:
        return True
    # A four of a kind is a bomb on everything but a straight flush.
    return play.kind is Kind.FOUR_OF_A_KIND and previous.kind is not Kind.STRAIGHT_FLUSH
