"""What a Duel card is: data (cost, stats, keywords, text) plus small effect
functions, declared once per card in its set's module (neutral.py,
mage.py, paladin.py, hunter.py) and found by name in the catalog.

The state holds card names only, never these objects, so a checkpoint or a
replay finds every effect again by the card's name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tablehost.games.duel import board
from tablehost.games.engine.state import State

if TYPE_CHECKING:
    from tablehost.games.engine.engine import Context

NEUTRAL = "neutral"
MINION = "minion"
SPELL = "spell"
SECRET = "secret"
WEAPON = "weapon"
HERO_POWER = "hero power"

# What a targeted effect wants, for bots and people choosing a target.
AIM_ENEMY = "enemy"
AIM_FRIEND = "friend"


@dataclass(frozen=True, slots=True)
class Source:
    """Whose effect is resolving: the owner's seat and the card's id (a
    hero power's id is its owner's player id)."""

    seat: int
    card_id: str


PlayEffect = Callable[["Context", Source, str | None], None]
"""A battlecry, a spell or a hero power: (ctx, source, chosen target or None)."""

Deathrattle = Callable[["Context", Source, int], None]
"""(ctx, source, the board position the minion died at)."""

TriggerEffect = Callable[["Context", Source, Any], None]
"""(ctx, source, the timing's data): a card's "whenever ..." text."""


@dataclass(frozen=True, slots=True)
class Targeting:
    """Which characters an effect may be aimed at, from its owner's seat."""

    name: str
    accepts: Callable[[State, int, str], bool]


def _any_character(state: State, seat: int, character: str) -> bool:
    return True


def _any_minion(state: State, seat: int, character: str) -> bool:
    return board.is_minion(state, character)


def _friendly_minion(state: State, seat: int, character: str) -> bool:
    return board.is_minion(state, character) and board.owner(state, character) == seat


def _enemy_minion(state: State, seat: int, character: str) -> bool:
    return board.is_minion(state, character) and board.owner(state, character) != seat


def _enemy_character(state: State, seat: int, character: str) -> bool:
    return board.owner(state, character) != seat


ANY_CHARACTER = Targeting("any character", _any_character)
ANY_MINION = Targeting("any minion", _any_minion)
FRIENDLY_MINION = Targeting("a friendly minion", _friendly_minion)
ENEMY_MINION = Targeting("an enemy minion", _enemy_minion)
ENEMY_CHARACTER = Targeting("an enemy character", _enemy_character)


@dataclass(frozen=True, slots=True)
class PlayCondition:
    """What must hold, from its owner's seat, for a card or hero power to be
    used at all (fireplace's play requirements): one that would do nothing
    is neither listed nor accepted, rather than taking the mana for nothing.
    Which cards have one is our choice, following Hearthstone (the seed has
    no card text)."""

    needs: str
    holds: Callable[[State, int], bool]


def _room_on_your_board(state: State, seat: int) -> bool:
    return len(board.board(state, seat)) < board.BOARD_LIMIT


def _an_enemy_minion(state: State, seat: int) -> bool:
    return any(board.alive(state, m) for m in board.board(state, board.opponent(seat)))


ROOM_ON_YOUR_BOARD = PlayCondition(f"room on your board (at most {board.BOARD_LIMIT} minions)", _room_on_your_board)
AN_ENEMY_MINION = PlayCondition("an enemy minion on the board", _an_enemy_minion)
AN_ENEMY_MINION_AND_ROOM = PlayCondition(
    "an enemy minion on the board and room on your board",
    lambda state, seat: _an_enemy_minion(state, seat) and _room_on_your_board(state, seat))


@dataclass(frozen=True, slots=True)
class SecretTrigger:
    """A secret's hidden condition: at `timing`, during the opponent's
    turn, when `condition` holds, the secret is revealed and `effect` runs."""

    timing: str
    condition: Callable[[State, Source, Any], bool]
    effect: TriggerEffect


@dataclass(frozen=True, slots=True)
class CardSpec:
    """One card as printed. `health` is a minion's health or a weapon's
    durability. `on_play` is a minion's battlecry, a spell's or a hero
    power's effect (a secret has none: its effect waits in `secret`).
    `target` says what `on_play` may be aimed at: a spell or hero power
    with a target needs one, a battlecry takes one when there is one.
    `requires` is what must hold for it to be used at all."""

    name: str
    cost: int
    kind: str
    card_class: str
    text: str = ""
    attack: int = 0
    health: int = 0
    keywords: frozenset[str] = frozenset()
    tribe: str = ""
    legendary: bool = False
    collectible: bool = True
    target: Targeting | None = None
    aim: str = ""
    on_play: PlayEffect | None = None
    deathrattle: Deathrattle | None = None
    triggers: tuple[tuple[str, TriggerEffect], ...] = field(default=())
    secret: SecretTrigger | None = None
    requires: PlayCondition | None = None

    def __post_init__(self) -> None:
        unknown = self.keywords - set(board.KEYWORDS)
        if unknown:
            raise ValueError(f"{self.name}: unknown keywords {sorted(unknown)}")
        if self.kind == SECRET and self.secret is None:
            raise ValueError(f"{self.name}: a secret needs its trigger")
        if self.target is not None and self.on_play is None:
            raise ValueError(f"{self.name}: a target for no effect")


def is_spell(kind: str) -> bool:
    """A secret is a spell whose effect waits hidden: what reacts to casting
    a spell ("whenever you cast a spell") reacts to a secret too. Our
    choice, as in Hearthstone: the seed says only which classes have
    secrets."""
    return kind in (SPELL, SECRET)


def minion(
    name: str, cost: int, attack: int, health: int, card_class: str = NEUTRAL, text: str = "", *,
    keywords: tuple[str, ...] = (), **more: Any,
) -> CardSpec:
    """A minion card, read like its text: minion("Gate Warden", 1, 1, 2, keywords=("taunt",))."""
    return CardSpec(name, cost, MINION, card_class, text, attack, health, frozenset(keywords), **more)


def spell(name: str, cost: int, card_class: str, text: str, on_play: PlayEffect, **more: Any) -> CardSpec:
    return CardSpec(name, cost, SPELL, card_class, text, on_play=on_play, **more)


def secret(name: str, card_class: str, text: str, trigger: SecretTrigger) -> CardSpec:
    """Every secret costs 2. The cost is our choice: the seed names the
    classes that have secrets (paladin, hunter, mage) but gives no costs."""
    return CardSpec(name, 2, SECRET, card_class, text, secret=trigger)


def weapon(
    name: str, cost: int, attack: int, durability: int, card_class: str, text: str = "", **more: Any
) -> CardSpec:
    return CardSpec(name, cost, WEAPON, card_class, text, attack, durability, **more)


def hero_power(name: str, card_class: str, text: str, on_play: PlayEffect, **more: Any) -> CardSpec:
    """Every hero power costs 2 and is used at most once a turn (the seed
    readies it at each turn's start). The cost of 2 is our choice, as in
    Hearthstone: the seed gives no costs."""
    return CardSpec(name, 2, HERO_POWER, card_class, text, on_play=on_play, collectible=False, **more)
