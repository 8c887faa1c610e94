"""Duel's trigger timings and the data their handlers see.

Cards with triggered text ("whenever this minion takes damage, ...",
secrets, weapons) listen to these timings, and to the engine's TURN_START
and TURN_END (the start and end of either player's turn). A handler may
edit the data where a field says so (an attack's target)."""

from __future__ import annotations

from dataclasses import dataclass

from tablehost.games.engine import timings as engine_timings

TURN_START = engine_timings.TURN_START
TURN_END = engine_timings.TURN_END
CARD_PLAYED = "duel.card_played"
MINION_SUMMONED = "duel.minion_summoned"
ATTACK_DECLARED = "duel.attack_declared"
DAMAGE_TAKEN = "duel.damage_taken"
HEALED = "duel.healed"
MINION_DIED = "duel.minion_died"
SECRET_REVEALED = "duel.secret_revealed"

# Every timing a card's text may listen to.
CARD_TIMINGS = (
    TURN_START,
    TURN_END,
    CARD_PLAYED,
    MINION_SUMMONED,
    ATTACK_DECLARED,
    DAMAGE_TAKEN,
    HEALED,
    MINION_DIED,
    SECRET_REVEALED,
)


@dataclass(slots=True)
class CardPlayed:
    """A card left `seat`'s hand and was paid for (before it resolves)."""

    seat: int
    card_id: str
    kind: str
    target: str | None


@dataclass(slots=True)
class MinionSummoned:
    """A minion entered `seat`'s board, from a hand or summoned by an effect."""

    seat: int
    minion_id: str


@dataclass(slots=True)
class AttackDeclared:
    """`attacker` attacks `target`; a handler may redirect `target` (a
    secret summoning a defender), and the attack is called off if either
    is gone when the handlers are done."""

    seat: int
    attacker: str
    target: str


@dataclass(slots=True)
class DamageTaken:
    """`target` lost `amount` health (armor and divine shields already
    counted) to `source` (a character or a card id; None: fatigue)."""

    target: str
    amount: int
    source: str | None


@dataclass(slots=True)
class Healed:
    target: str
    amount: int
    source: str | None


@dataclass(slots=True)
class MinionDied:
    """A minion left `seat`'s board from `position` in the death step."""

    seat: int
    minion_id: str
    name: str
    tribe: str
    position: int


@dataclass(slots=True)
class SecretRevealed:
    seat: int
    card_id: str
    name: str
