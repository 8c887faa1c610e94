"""Every play a Big Two hand can make: for bots, turn timers and hints to players.

Plays are built from the shape of the hand (cards grouped by rank) instead of testing
all 1287 five-card subsets of a 13-card hand, which keeps a full enumeration well under
a millisecond.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import combinations, product

from tablehost.games.bigtwo.cards import FULL_DECK, RANKS, card_order
from tablehost.games.bigtwo.combos import STRAIGHT_RANKS, Combination, Kind, outranks, straight_combination

_KIND_ORDER = {kind: index for index, kind in enumerate(Kind)}
_BOMBS = (Kind.FOUR_OF_A_KIND, Kind.STRAIGHT_FLUSH)

# Each straight's ranks in card order, so a product over them yields sorted cards.
_STRAIGHTS_IN_CARD_ORDER = tuple(
    (index, tuple(sorted(ranks))) for index, ranks in enumerate(STRAIGHT_RANKS)
)

# The same with each straight's ranks as a bit mask, to test a suit's cards at once.
_STRAIGHT_MASKS = tuple(
    (index, ranks, sum(1 << rank for rank in ranks)) for index, ranks in _STRAIGHTS_IN_CARD_ORDER
)

_ByRank = list[list[str]]


def legal_plays(hand: Sequence[str], previous: Combination | None) -> list[Combination]:
    """Every distinct play from `hand` that may be laid on `previous`, weakest kind first
    and by strength within a kind; with no previous play, every play a leader may make.
    (The game's own rules of a play, such as the first play's 3C, are game.py's.)
    """
    by_rank = _group_by_rank(hand)
    generators = _GENERATORS_TO_BEAT[None if previous is None else previous.kind]
    plays = [play for generate in generators for play in generate(by_rank)]
    if previous is not None:
        plays = [play for play in plays if outranks(play, previous)]
    # Equal keys happen (pairs sharing their top card, full houses sharing their three);
    # the sort is stable and the hand was put in card order, so ties still come out in
    # an order that does not depend on how the hand was given.
    plays.sort(key=lambda play: (_KIND_ORDER[play.kind], play.key))
    return plays


def _group_by_rank(hand: Sequence[str]) -> _ByRank:
    by_rank: _ByRank = [[] for _ in RANKS]
    for card in sorted(set(hand), key=card_order):
        by_rank[card_order(card) >> 2].append(card)
    return by_rank


def _singles(by_rank: _ByRank) -> Iterator[Combination]:
    for cards in by_rank:
        for card in cards:
            yield Combination(Kind.SINGLE, (card,), (card_order(card),))


def _pairs(by_rank: _ByRank) -> Iterator[Combination]:
    for cards in by_rank:
        for pair in combinations(cards, 2):
            yield Combination(Kind.PAIR, pair, (card_order(pair[1]),))


def _straights_and_straight_flushes(by_rank: _ByRank) -> Iterator[Combination]:
    for sequence_index, ranks in _STRAIGHTS_IN_CARD_ORDER:
        groups = [by_rank[rank] for rank in ranks]
        if all(groups):
            for cards in product(*groups):
                yield straight_combination(cards, sequence_index)


def _straight_flushes(by_rank: _ByRank) -> Iterator[Combination]:
    """Only the straight flushes: a bomb laid on a play that no plain straight
    beats, found from each suit's ranks instead of through every straight."""
    ranks_by_suit = [0, 0, 0, 0]
    for cards in by_rank:
        for card in cards:
            order = card_order(card)
            ranks_by_suit[order & 3] |= 1 << (order >> 2)
    for sequence_index, ranks, mask in _STRAIGHT_MASKS:
        for suit, held in enumerate(ranks_by_suit):
            if held & mask == mask:
                flush = tuple(FULL_DECK[rank * 4 + suit] for rank in ranks)
                yield straight_combination(flush, sequence_index)


def _full_houses(by_rank: _ByRank) -> Iterator[Combination]:
    for three_rank, three_cards in enumerate(by_rank):
        if len(three_cards) < 3:
            continue
        for three in combinations(three_cards, 3):
            for pair_rank, pair_cards in enumerate(by_rank):
                if pair_rank == three_rank:
                    continue
                for pair in combinations(pair_cards, 2):
                    cards = three + pair if three_rank < pair_rank else pair + three
                    yield Combination(Kind.FULL_HOUSE, cards, (three_rank,))


def _fours_of_a_kind(by_rank: _ByRank) -> Iterator[Combination]:
    for four_rank, four_cards in enumerate(by_rank):
        if len(four_cards) < 4:
            continue
        four = tuple(four_cards)
        for kicker_rank, kicker_cards in enumerate(by_rank):
            if kicker_rank == four_rank:
                continue
            for kicker in kicker_cards:
                cards = four + (kicker,) if four_rank < kicker_rank else (kicker, *four)
                yield Combination(Kind.FOUR_OF_A_KIND, cards, (four_rank,))


# Each generator with the kinds it yields. Straights and straight flushes share one,
# since a single product over the ranks of a straight yields both.
_GENERATORS: tuple[tuple[frozenset[Kind], Callable[[_ByRank], Iterator[Combination]]], ...] = (
    (frozenset({Kind.SINGLE}), _singles),
    (frozenset({Kind.PAIR}), _pairs),
    (frozenset({Kind.STRAIGHT, Kind.STRAIGHT_FLUSH}), _straights_and_straight_flushes),
    (frozenset({Kind.FULL_HOUSE}), _full_houses),
    (frozenset({Kind.FOUR_OF_A_KIND}), _fours_of_a_kind),
)


def _generators_for(wanted: frozenset[Kind]) -> tuple[Callable[[_ByRank], Iterator[Combination]], ...]:
    """The generators of the kinds `wanted`, each kind yielded once: straight
    flushes on their own when no plain straight is wanted."""
    generators = [generate for kinds, generate in _GENERATORS if not kinds.isdisjoint(wanted)]
    if Kind.STRAIGHT not in wanted and _straights_and_straight_flushes in generators:
        generators[generators.index(_straights_and_straight_flushes)] = _straight_flushes
    return tuple(generators)


# What may be laid on each kind of play (None: leading, anything), computed once:
# the play's own kind and the bombs.
_GENERATORS_TO_BEAT: dict[Kind | None, tuple[Callable[[_ByRank], Iterator[Combination]], ...]] = {
    None: _generators_for(frozenset(Kind)),
    **{kind: _generators_for(frozenset((kind, *_BOMBS))) for kind in Kind},
}
