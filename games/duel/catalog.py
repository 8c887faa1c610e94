"""Every Duel card by name, the classes and their hero powers.

A card is looked up here by the name the state records, so adding a card
is adding it to its set's module; names are unique across sets."""

from __future__ import annotations

from collections.abc import Iterable

from tablehost.games.duel import hunter, mage, neutral, paladin
from tablehost.games.duel.cards import NEUTRAL, CardSpec

HERO_POWERS: dict[str, CardSpec] = {
    mage.MAGE: mage.FIREBLAST,
    paladin.PALADIN: paladin.REINFORCE,
    hunter.HUNTER: hunter.STEADY_SHOT,
}
CLASSES: tuple[str, ...] = tuple(sorted(HERO_POWERS))
# The classes whose heroes have secrets (the seed's paladin, hunter, mage).
SECRET_CLASSES: frozenset[str] = frozenset(CLASSES)


def _by_name(specs: Iterable[CardSpec]) -> dict[str, CardSpec]:
    catalog: dict[str, CardSpec] = {}
    for spec in specs:
        if spec.name in catalog:
            raise ValueError(f"two cards are named {spec.name!r}")
        catalog[spec.name] = spec
    return catalog


CATALOG: dict[str, CardSpec] = _by_name([
    *neutral.CARDS, *neutral.TOKENS,
    *mage.CARDS, *paladin.CARDS, *paladin.TOKENS, *hunter.CARDS, *hunter.TOKENS,
    *HERO_POWERS.values(),
])
COLLECTIBLE: tuple[CardSpec, ...] = tuple(spec for spec in CATALOG.values() if spec.collectible)
LUCKY_COIN = neutral.LUCKY_COIN


def spec_of(name: str) -> CardSpec:
    return CATALOG[name]


def playable_in(spec: CardSpec, hero_class: str) -> bool:
    """Whether a deck of `hero_class` may hold the card."""
    return spec.collectible and spec.card_class in (NEUTRAL, hero_class)
