"""The play phase and using a card, as frames (machine.py).

The play phase asks its player, again and again, for a card to use (with
its targets) until they end it (or its timer does). Using a card: it
leaves the hand (equipment goes to its slot, replacing the old one; a
delayed trick to its target's judgement zone; anything else to the
processing zone while it resolves), CARD_USED fires, then its effect
applies to each target in turn, and the card goes to the discard pile.

Slash: the target is asked for a Dodge whenever they could give one by
what the table sees (alive, with a card in hand), whether or not they hold
one, so the question reveals nothing; without a Dodge (or when the timer
answers for them) they take 1 damage. Peach: heals its user 1."""

from __future__ import annotations

from tablehost.games.engine.engine import Context
from tablehost.games.engine.state import State
from tablehost.games.kingdoms import cards, damage, machine, options, table
from tablehost.games.kingdoms import timings as kt
from tablehost.games.kingdoms.machine import Frame

ASK_PLAY = "play"
ASK_DODGE = "dodge"

USED = "USED"
EQUIPPED = "EQUIPPED"
DODGED = "DODGED"


def _ask_play(ctx: Context, frame: Frame) -> str | None:
    if not table.alive(ctx.state, frame["seat"]):
        return None
    machine.ask(ctx, frame, ASK_PLAY, [frame["seat"]], options.turn_timeout(ctx.state))
    return "played"


def _played(ctx: Context, frame: Frame) -> str | None:
    answer = frame.pop("answer")
    if answer["type"] == "end_play":
        return None
    machine.push(ctx, "use", user=frame["seat"], card=answer["card"], targets=list(answer["targets"]))
    return machine.START


def effect_targets(state: State, user: int, card_id: str, chosen: list[int]) -> list[int]:
    """Whom a card affects: Barbarian Invasion every other living player in
    seat order from its user; Lightning and Peach their user; else the
    targets chosen."""
    name = cards.card(card_id).name
    if name == cards.BARBARIAN_INVASION:
        return table.living_from(state, user)[1:]
    if name in (cards.LIGHTNING, cards.PEACH) or cards.spec_of(card_id).kind == cards.EQUIPMENT:
        return [user]
    return chosen


def _use(ctx: Context, frame: Frame) -> str | None:
    state = ctx.state
    user, card_id = frame["user"], frame["card"]
    spec = cards.spec_of(card_id)
    targets = frame["targets"] = effect_targets(state, user, card_id, frame["targets"])
    ctx.emit(USED, {"seat": user, "card": card_id, "name": spec.name, "targets": targets})
    if spec.slot is not None:
        replaced = table.equipped(state, user, spec.slot)
        if replaced is not None:
            table.discard(state, replaced)
        table.move(state, card_id, table.equip_zone(state, user))
        ctx.emit(EQUIPPED, {"seat": user, "card": card_id})
    elif spec.kind == cards.DELAYED:
        table.place_delayed(state, card_id, targets[0])
    else:
        table.move(state, card_id, table.PROCESSING)
        if spec.name == cards.SLASH:
            table.player(state, user)["slashes"] += 1
    ctx.fire(kt.CARD_USED, kt.CardUseData(user, card_id, list(targets)))
    return "effect" if spec.kind in (cards.BASIC, cards.TRICK) else None


def _effect(ctx: Context, frame: Frame) -> str:
    user, card_id = frame["user"], frame["card"]
    name = cards.card(card_id).name
    for target in frame["targets"]:
        if name == cards.SLASH:
            machine.push(ctx, "slash", source=user, target=target, card=card_id)
        elif name == cards.PEACH:
            damage.heal(ctx, user)
        else:
            machine.push(ctx, "trick", user=user, target=target, card=card_id)
    return "finish"


def _finish(ctx: Context, frame: Frame) -> None:
    if frame["card"] in table.cards_in(ctx.state, table.PROCESSING):
        table.discard(ctx.state, frame["card"])
    return None


def _slash(ctx: Context, frame: Frame) -> str | None:
    state, target = ctx.state, frame["target"]
    if not table.alive(state, target):
        return None
    if table.may_answer(state, target):
        machine.ask(ctx, frame, ASK_DODGE, [target], options.response_timeout(state),
                    source=frame["source"], card=frame["card"])
        return "answered"
    return "hit"


def _slash_answered(ctx: Context, frame: Frame) -> str | None:
    answer = frame.pop("answer")
    if answer["type"] != "respond":
        return "hit"
    table.discard(ctx.state, answer["card"])
    ctx.emit(DODGED, {"seat": frame["target"], "card": frame["card"]})
    return None


def _slash_hit(ctx: Context, frame: Frame) -> None:
    damage.deal(ctx, frame["source"], frame["target"], 1, frame["card"])
    return None


FRAMES: dict[str, machine.FrameSteps] = {
    "play": {machine.START: _ask_play, "played": _played},
    "use": {machine.START: _use, "effect": _effect, "finish": _finish},
    "slash": {machine.START: _slash, "answered": _slash_answered, "hit": _slash_hit},
}
