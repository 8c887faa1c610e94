"""What a seat may do, each check in two faces (as pokerkit's verify/can):
`*_refusal` answers why an action is refused (None: it is allowed), and
`legal_actions` lists every allowed action, built from the same checks, so
what the host lists is exactly what it accepts.

Action shapes (a character is a hero's player id or a minion's card id):
    {"type": "mulligan", "cards": [card ids to return]}
    {"type": "play", "card": card id}            plus "target" when it takes one
    {"type": "attack", "attacker": character, "target": character}
    {"type": "hero_power"}                        plus "target" when it takes one
    {"type": "end_turn"}
"""

from __future__ import annotations

from itertools import combinations

from tablehost.games.duel import board
from tablehost.games.duel.catalog import HERO_POWERS, spec_of
from tablehost.games.duel.cards import MINION, SECRET, CardSpec, Targeting
from tablehost.games.engine.state import State
from tablehost.games.engine.rules import ActionMap

MULLIGAN = "mulligan"
PLAY = "play"
ATTACK = "attack"
HERO_POWER = "hero_power"
END_TURN = "end_turn"

MAX_SECRETS = 5



def hero_power_of(state: State, seat: int) -> CardSpec:
    return HERO_POWERS[board.hero(state, seat)["class"]]


def valid_targets(state: State, seat: int, targeting: Targeting) -> list[str]:
    """Living characters `targeting` accepts, own side first (hero, then
    minions left to right); an enemy in stealth cannot be chosen."""
    found = []
    for side in (seat, board.opponent(seat)):
        for character in board.characters(state, side):
            if not board.alive(state, character) or not targeting.accepts(state, seat, character):
                continue
            if side != seat and board.is_minion(state, character) and board.minion(state, character)["stealth"]:
                continue
            found.append(character)
    return found


def _target_refusal(state: State, seat: int, spec: CardSpec, target: object) -> str | None:
    if spec.target is None:
        return None if target is None else f"{spec.name} takes no target"
    options = valid_targets(state, seat, spec.target)
    if target is None:
        if not options:
            # A battlecry with nobody to aim at simply does nothing.
            return None if spec.kind == MINION else f"{spec.name} has no valid target ({spec.target.name})"
        return f"{spec.name} needs a target: {spec.target.name}"
    if target not in options:
        return f"{target} is not a valid target for {spec.name} ({spec.target.name})"
    return None


def _condition_refusal(state: State, seat: int, spec: CardSpec) -> str | None:
    if spec.requires is None or spec.requires.holds(state, seat):
        return None
    return f"{spec.name} needs {spec.requires.needs}"


def play_refusal(state: State, seat: int, card_id: object, target: object = None) -> str | None:
    if card_id not in board.hand(state, seat):
        return f"{card_id} is not in your hand"
    spec = spec_of(board.card_name(state, str(card_id)))
    mana = board.hero(state, seat)["mana"]
    if spec.cost > mana:
        return f"{spec.name} costs {spec.cost} mana and you have {mana}"
    if spec.kind == MINION and len(board.board(state, seat)) >= board.BOARD_LIMIT:
        return f"your board is full ({board.BOARD_LIMIT} minions)"
    if spec.kind == SECRET:
        active = [board.card_name(state, secret) for secret in board.secrets(state, seat)]
        if spec.name in active:
            return f"{spec.name} is already one of your secrets"
        if len(active) >= MAX_SECRETS:
            return f"you have {MAX_SECRETS} secrets already"
    return _condition_refusal(state, seat, spec) or _target_refusal(state, seat, spec, target)


def attacker_refusal(state: State, seat: int, attacker: object) -> str | None:
    """Why `attacker` cannot attack now (None: it can)."""
    if not isinstance(attacker, str) or attacker not in board.characters(state, seat):
        return f"{attacker} is not one of your characters"
    record = board.character(state, attacker)
    if board.attack_of(state, attacker) <= 0:
        return f"{attacker} has no attack"
    if record["frozen_turn"] is not None:
        return f"{attacker} is frozen"
    if board.is_minion(state, attacker) and record["asleep"] and not record["charge"]:
        return f"{attacker} was summoned this turn and has no charge"
    allowed = 2 if board.is_minion(state, attacker) and record["windfury"] else 1
    if record["attacks"] >= allowed:
        return f"{attacker} has attacked {'twice' if allowed == 2 else 'already'} this turn"
    return None


def attack_targets(state: State, seat: int) -> list[str]:
    """Enemies an attack may be aimed at: taunt minions if any are in
    sight, else every enemy character; never one in stealth."""
    enemy = board.opponent(seat)
    visible = [c for c in board.characters(state, enemy) if board.alive(state, c)
               and not (board.is_minion(state, c) and board.minion(state, c)["stealth"])]
    taunts = [c for c in visible if board.is_minion(state, c) and board.minion(state, c)["taunt"]]
    return taunts or visible


def attack_refusal(state: State, seat: int, attacker: object, target: object) -> str | None:
    refusal = attacker_refusal(state, seat, attacker)
    if refusal is not None:
        return refusal
    allowed = attack_targets(state, seat)
    if target not in allowed:
        if board.is_character(state, target) and board.owner(state, str(target)) == seat:
            return "you may not attack your own characters"
        if any(board.minion(state, c)["taunt"] for c in allowed if board.is_minion(state, c)):
            return f"a minion with taunt stands in the way: attack one of {', '.join(allowed)}"
        return f"{target} cannot be attacked"
    return None


def hero_power_refusal(state: State, seat: int, target: object = None) -> str | None:
    spec = hero_power_of(state, seat)
    hero = board.hero(state, seat)
    if hero["hero_power_used"]:
        return f"you have used {spec.name} this turn"
    if spec.cost > hero["mana"]:
        return f"{spec.name} costs {spec.cost} mana and you have {hero['mana']}"
    return _condition_refusal(state, seat, spec) or _target_refusal(state, seat, spec, target)


def _with_targets(base: ActionMap, state: State, seat: int, spec: CardSpec) -> list[ActionMap]:
    options = valid_targets(state, seat, spec.target) if spec.target is not None else []
    if not options:
        return [base]
    return [{**base, "target": target} for target in options]


def legal_plays(state: State, seat: int) -> list[ActionMap]:
    actions = []
    for card_id in board.hand(state, seat):
        spec = spec_of(board.card_name(state, card_id))
        for action in _with_targets({"type": PLAY, "card": card_id}, state, seat, spec):
            if play_refusal(state, seat, card_id, action.get("target")) is None:
                actions.append(action)
    return actions


def legal_attacks(state: State, seat: int) -> list[ActionMap]:
    attackers = [c for c in board.characters(state, seat) if attacker_refusal(state, seat, c) is None]
    targets = attack_targets(state, seat)
    return [{"type": ATTACK, "attacker": a, "target": t} for a in attackers for t in targets]


def legal_hero_powers(state: State, seat: int) -> list[ActionMap]:
    spec = hero_power_of(state, seat)
    return [action for action in _with_targets({"type": HERO_POWER}, state, seat, spec)
            if hero_power_refusal(state, seat, action.get("target")) is None]


def legal_turn_actions(state: State, seat: int) -> list[ActionMap]:
    """Plays (hand order, then target order), attacks, the hero power, end turn."""
    return [*legal_plays(state, seat), *legal_attacks(state, seat), *legal_hero_powers(state, seat),
            {"type": END_TURN}]


def mulligan_choices(hand: list[str]) -> list[ActionMap]:
    """Every set of cards to return, from none (keep the hand) to all."""
    return [{"type": MULLIGAN, "cards": list(returned)}
            for size in range(len(hand) + 1) for returned in combinations(hand, size)]
