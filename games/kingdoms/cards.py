"""Kingdoms' cards: what each card is (data), and the deck they make.

Every game uses the same deck, so a card id (`c00` … `c85`) always names the
same card: its name, suit and number come from the id alone and the state
keeps only ids in zones. Suits and numbers matter for judgements (a heart
escapes Indulgence; a spade 2–9 brings Lightning down)."""

from __future__ import annotations

from dataclasses import dataclass

BASIC = "basic"
TRICK = "trick"
DELAYED = "delayed"
EQUIPMENT = "equipment"

WEAPON = "weapon"
MINUS_HORSE = "minus_horse"  # its owner reaches others one closer
PLUS_HORSE = "plus_horse"  # others reach its owner one farther
SLOTS = (WEAPON, MINUS_HORSE, PLUS_HORSE)

SPADE, HEART, CLUB, DIAMOND = "spade", "heart", "club", "diamond"
SUITS = (SPADE, HEART, CLUB, DIAMOND)
RED_SUITS = frozenset({HEART, DIAMOND})

SLASH = "Slash"
DODGE = "Dodge"
PEACH = "Peach"
NULLIFICATION = "Nullification"
DISMANTLE = "Dismantle"
SNATCH = "Snatch"
DUEL = "Duel"
BARBARIAN_INVASION = "Barbarian Invasion"
INDULGENCE = "Indulgence"
LIGHTNING = "Lightning"
CROSSBOW = "Crossbow"
SERPENT_SPEAR = "Serpent Spear"
RED_HARE = "Red Hare"
SHADOW_RUNNER = "Shadow Runner"

SNATCH_DISTANCE = 1
LIGHTNING_DAMAGE = 3


@dataclass(frozen=True, slots=True)
class CardSpec:
    name: str
    kind: str
    text: str
    slot: str | None = None  # equipment only
    weapon_range: int = 1  # weapons only


SPECS: dict[str, CardSpec] = {spec.name: spec for spec in (
    CardSpec(SLASH, BASIC, "Once a turn: 1 damage to a player in your attack range, unless they Dodge."),
    CardSpec(DODGE, BASIC, "Answer a Slash: it misses."),
    CardSpec(PEACH, BASIC, "Heal yourself 1 in your turn, or save a dying player."),
    CardSpec(NULLIFICATION, TRICK, "Answer a trick (or a Nullification): it has no effect on its target."),
    CardSpec(DISMANTLE, TRICK, "Discard one card of another player (hand, equipment or judgement zone)."),
    CardSpec(SNATCH, TRICK, "Take one card of a player at distance 1."),
    CardSpec(DUEL, TRICK, "You and another player take turns playing Slash, they first; who cannot takes 1 damage."),
    CardSpec(BARBARIAN_INVASION, TRICK, "Every other player plays a Slash or takes 1 damage."),
    CardSpec(INDULGENCE, DELAYED, "Judgement in the target's judge phase: unless a heart, they skip their play phase."),
    CardSpec(LIGHTNING, DELAYED, "Judgement in your judge phase: a spade 2-9 deals 3 damage; else it moves on."),
    CardSpec(CROSSBOW, EQUIPMENT, "Weapon, range 1: any number of Slashes a turn.", WEAPON, 1),
    CardSpec(SERPENT_SPEAR, EQUIPMENT, "Weapon, range 3.", WEAPON, 3),
    CardSpec(RED_HARE, EQUIPMENT, "Horse -1: you reach others one closer.", MINUS_HORSE),
    CardSpec(SHADOW_RUNNER, EQUIPMENT, "Horse +1: others reach you one farther.", PLUS_HORSE),
)}

DECK_COUNTS = (
    (SLASH, 30), (DODGE, 15), (PEACH, 8), (NULLIFICATION, 4), (DISMANTLE, 6), (SNATCH, 5), (DUEL, 3),
    (BARBARIAN_INVASION, 3), (INDULGENCE, 3), (LIGHTNING, 2), (CROSSBOW, 2), (SERPENT_SPEAR, 1),
    (RED_HARE, 2), (SHADOW_RUNNER, 2),
)


@dataclass(frozen=True, slots=True)
class Card:
    id: str
    name: str
    suit: str
    number: int  # 1 (ace) to 13 (king)

    @property
    def spec(self) -> CardSpec:
        return SPECS[self.name]

    @property
    def red(self) -> bool:
        return self.suit in RED_SUITS


def _deck() -> dict[str, Card]:
    """Suits cycle and numbers step by 5 (coprime with 13), so every name
    gets a spread of suits and numbers."""
    names = [name for name, count in DECK_COUNTS for _ in range(count)]
    return {
        f"c{index:02d}": Card(f"c{index:02d}", name, SUITS[index % 4], index * 5 % 13 + 1)
        for index, name in enumerate(names)
    }


CARDS: dict[str, Card] = _deck()
DECK_IDS: tuple[str, ...] = tuple(CARDS)


def card(card_id: str) -> Card:
    return CARDS[card_id]


def spec_of(card_id: str) -> CardSpec:
    return CARDS[card_id].spec


def lightning_strikes(judgement: Card) -> bool:
    return judgement.suit == SPADE and 2 <= judgement.number <= 9


def escapes_indulgence(judgement: Card) -> bool:
    return judgement.suit == HEART
