"""Card codes of Big Two: the deck, card order, and parsing and printing for people.

A card is a two-character string, rank then suit: ``"3C"``, ``"TS"``, ``"2S"``.
Strings keep cards trivially hashable, sortable by `card_order` and cheap to put on
the wire; everything that needs a number looks it up here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

RANKS = "3456789TJQKA2"
"""Ranks in ascending strength: 3 is the lowest, 2 the highest."""

SUITS = "CDHS"
"""Suits in ascending strength: clubs < diamonds < hearts < spades."""

FULL_DECK: tuple[str, ...] = tuple(rank + suit for rank in RANKS for suit in SUITS)
"""The 52 cards in ascending order, 3C first and 2S last."""

_ORDER: dict[str, int] = {card: index for index, card in enumerate(FULL_DECK)}
_SUIT_SYMBOLS = dict(zip(SUITS, "♣♦♥♠", strict=True))
_SYMBOL_SUITS = {symbol: suit for suit, symbol in _SUIT_SYMBOLS.items()}
_SEPARATORS = re.compile(r"[\s,]+")


class CardParseError(ValueError):
    """Raised when text typed by a person does not name a set of distinct cards."""


def card_order(card: str) -> int:
    """Strength of a card among all 52 (rank * 4 + suit), 0 for 3C up to 51 for 2S.

    A dict lookup rather than arithmetic on characters: move generation calls this
    in its inner loops.
    """
    return _ORDER[card]


def rank_of(card: str) -> int:
    """Rank index of a card, 0 for a 3 up to 12 for a 2."""
    return _ORDER[card] >> 2


def suit_of(card: str) -> int:
    """Suit index of a card, 0 for clubs up to 3 for spades."""
    return _ORDER[card] & 3


def sort_cards(cards: Iterable[str]) -> list[str]:
    """Cards from weakest to strongest, the order a hand is shown and a play is stored in."""
    return sorted(cards, key=_ORDER.__getitem__)


def parse_cards(text: str) -> list[str]:
    """Cards named in `text`, in the order given, for command lines and tests.

    Tokens are separated by whitespace or commas and read case-insensitively; "10"
    stands for "T" and suit symbols (as printed by `format_cards`) for suit letters,
    so what a terminal shows can be typed back.
    """
    cards: list[str] = []
    seen: set[str] = set()
    for token in _SEPARATORS.split(text.strip()):
        if not token:
            continue
        card = _parse_token(token)
        if card in seen:
            raise CardParseError(f"duplicate card {token!r}")
        seen.add(card)
        cards.append(card)
    return cards


def format_cards(cards: Iterable[str]) -> str:
    """Cards as a person reads them on a terminal: ``"3♣ 10♦ 2♠"``."""
    return " ".join(_format_card(card) for card in cards)


def _parse_token(token: str) -> str:
    text = token.upper()
    if text.startswith("10"):
        text = "T" + text[2:]
    if len(text) != 2:
        raise CardParseError(f"bad card {token!r}: expected a rank then a suit, like 3C or 10S")
    rank, suit = text[0], _SYMBOL_SUITS.get(text[1], text[1])
    if rank not in RANKS:
        raise CardParseError(f"bad card {token!r}: rank {rank!r} is not one of {RANKS} or 10")
    if suit not in SUITS:
        raise CardParseError(f"bad card {token!r}: suit {text[1]!r} is not one of {SUITS}")
    return rank + suit


def _format_card(card: str) -> str:
    rank = "10" if card[0] == "T" else card[0]
    return rank + _SUIT_SYMBOLS[card[1]]
