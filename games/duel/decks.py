"""Decks: the registry of named decks players choose at join, and the deck
rules every deck must keep (30 cards, at most 2 copies of a card and 1 of
a legendary, only neutral cards and the deck's own class's).

A player's join data names a registered deck (`{"deck": "mage-basic"}`)
or brings its own list (`{"class": "mage", "cards": [30 names]}`). The
checked join data always carries the class and the full list, so the match
header (and a replay) holds the very cards played even if the registry
changes later."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from tablehost.games.duel.catalog import CATALOG, CLASSES, playable_in
from tablehost.games.engine.rules import InvalidJoin

DECK_SIZE = 30
MAX_COPIES = 2
MAX_LEGENDARY_COPIES = 1


def _twice(*names: str) -> list[str]:
    return [name for name in names for _ in range(2)]


DECKS: dict[str, dict[str, Any]] = {
    "mage-basic": {"class": "mage", "cards": [
        *_twice("Mana Wyrm", "Arcane Volley", "Frostbolt", "Arcane Intellect", "Frost Nova", "Fireball",
                "Water Elemental", "Flamestrike", "Ice Barrier", "Vaporize",
                "Hedge Archer", "Penitent Acolyte", "Ogre Brute"),
        "Rime Wolf", "Twinblade Sellsword", "Ember Lord", "Doom Herald",
    ]},
    "paladin-basic": {"class": "paladin", "cards": [
        *_twice("Blessing of Might", "Hand of Protection", "Light's Justice", "Holy Light", "Argent Protector",
                "Consecration", "Blessing of Kings", "Truesilver Champion", "Guardian of Kings",
                "Noble Sacrifice", "Eye for an Eye", "Shield Squire", "Dawnwatcher", "Field Medic"),
        "Sunward Cleric", "Bulwark Sentinel",
    ]},
    "hunter-basic": {"class": "hunter", "cards": [
        *_twice("Arcane Shot", "Hunter's Mark", "Starving Buzzard", "Scavenging Hyena", "Kill Command",
                "Unleash the Hounds", "Eaglehorn Bow", "Houndmaster", "Multi-Shot", "Savannah Highmane",
                "Explosive Trap", "Snake Trap", "Marsh Crawler", "Rime Wolf"),
        "Raider", "Knife Tosser",
    ]},
    "neutral-midrange": {"class": "mage", "cards": [
        *_twice("Lantern Moth", "Gate Warden", "Alley Cutpurse", "Marsh Crawler", "Hoard Gremlin",
                "Tinker Apprentice", "Raider", "Scrap Golem", "Plague Abomination", "Boulder Giant",
                "Bulwark Sentinel", "Knife Tosser", "Field Medic", "Sunward Cleric"),
        "Fireball", "Ember Lord",
    ]},
}


def deck_problem(hero_class: str, cards: list[str]) -> str | None:
    """Why the deck may not be played, or None when it may."""
    if hero_class not in CLASSES:
        return f"unknown class {hero_class!r}; the classes are {', '.join(CLASSES)}"
    if len(cards) != DECK_SIZE:
        return f"a deck holds exactly {DECK_SIZE} cards, this one {len(cards)}"
    unknown = sorted({name for name in cards if name not in CATALOG or not CATALOG[name].collectible})
    if unknown:
        return f"no such card to put in a deck: {', '.join(unknown)}"
    foreign = sorted({name for name in cards if not playable_in(CATALOG[name], hero_class)})
    if foreign:
        return f"a {hero_class} deck may not hold {', '.join(foreign)} (another class's cards)"
    for name, copies in sorted(Counter(cards).items()):
        limit = MAX_LEGENDARY_COPIES if CATALOG[name].legendary else MAX_COPIES
        if copies > limit:
            kind = "a legendary card" if limit == MAX_LEGENDARY_COPIES else "a card"
            return f"{copies} copies of {name}: a deck may hold {kind} at most {limit} time{'s' * (limit > 1)}"
    return None


def checked_deck(join: Mapping[str, Any]) -> dict[str, Any]:
    """A player's join data as the game keeps it ({"deck", "class",
    "cards"}), or InvalidJoin with the reason. The data already has one of
    the game's join shapes (game.py): a deck's name, or a class and cards."""
    name = join.get("deck", "")
    if "cards" in join:
        hero_class, cards = join["class"], join["cards"]
    elif name in DECKS:
        hero_class, cards = DECKS[name]["class"], DECKS[name]["cards"]
    else:
        known = ", ".join(sorted(DECKS))
        raise InvalidJoin(f"unknown deck {name!r}; choose one of {known}, or bring class and cards")
    problem = deck_problem(hero_class, cards)
    if problem is not None:
        raise InvalidJoin(f"deck refused: {problem}")
    return {"deck": name, "class": hero_class, "cards": list(cards)}
