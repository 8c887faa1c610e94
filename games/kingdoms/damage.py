"""Damage, dying and death, as frames (machine.py).

Damage lowers health; at 0 or below the player is dying: each living
player from the current one is asked for a Peach, one at a time (one who
gives one is asked again while the player is still dying), whether or not
they hold one: who is asked depends only on what the table sees (a player
with no card in hand cannot give one and is not asked; our choice, the
seed only says each player is asked in turn). Saved or not, DAMAGED then
fires for a target still alive. When nobody saved the player,
ASK_FOR_PEACHES_DONE fires (a skill may keep them from dying, as
Nirvana's rest does); otherwise they die:
their identity is revealed, their skills lost, their cards discarded; the
game may end (outcome.py); otherwise whoever caused the death draws 3 for
a rebel, and a lord who killed a loyalist discards every card. A current
player who dies ends their turn there."""

from __future__ import annotations

from tablehost.games.engine.engine import Context
from tablehost.games.engine.skills import held_skills, revoke_skill
from tablehost.games.kingdoms import machine, options, outcome, table
from tablehost.games.kingdoms import timings as kt
from tablehost.games.kingdoms.machine import Frame

ASK_PEACH = "peach"
REBEL_BOUNTY = 3

DAMAGE_DEALT = "DAMAGE_DEALT"
HEALED = "HEALED"
DIED = "DIED"


def deal(ctx: Context, source: int | None, target: int, amount: int, card: str | None) -> None:
    """Push a damage event after the running step."""
    machine.push(ctx, "damage", source=source, target=target, amount=amount, card=card)


def heal(ctx: Context, seat: int, amount: int = 1) -> None:
    record = table.player(ctx.state, seat)
    record["health"] = min(record["max_health"], record["health"] + amount)
    ctx.emit(HEALED, {"seat": seat, "health": record["health"]})


def _damage(ctx: Context, frame: Frame) -> str | None:
    target = frame["target"]
    if not table.alive(ctx.state, target):
        return None
    record = table.player(ctx.state, target)
    record["health"] -= frame["amount"]
    ctx.emit(DAMAGE_DEALT, {"source": frame["source"], "target": target, "amount": frame["amount"],
                            "health": record["health"]})
    if record["health"] <= 0:
        machine.push(ctx, "dying", seat=target, source=frame["source"])
    return "damaged"


def _damaged(ctx: Context, frame: Frame) -> None:
    if table.alive(ctx.state, frame["target"]):
        ctx.fire(kt.DAMAGED, kt.DamageData(frame["source"], frame["target"], frame["amount"], frame["card"]))
    return None


def _dying(ctx: Context, frame: Frame) -> str:
    frame["order"] = table.living_from(ctx.state, table.current_seat(ctx.state))
    frame["index"] = 0
    return "ask_peach"


def _ask_peach(ctx: Context, frame: Frame) -> str | None:
    state = ctx.state
    if table.player(state, frame["seat"])["health"] > 0:
        return None
    while frame["index"] < len(frame["order"]):
        asked = frame["order"][frame["index"]]
        if table.may_answer(state, asked):
            machine.ask(ctx, frame, ASK_PEACH, [asked], options.response_timeout(state), dying=frame["seat"])
            return "peach_answered"
        frame["index"] += 1
    if not ctx.fire(kt.ASK_FOR_PEACHES_DONE, kt.DyingData(frame["seat"], frame["source"])):
        machine.push(ctx, "death", seat=frame["seat"], source=frame["source"])
    return None


def _peach_answered(ctx: Context, frame: Frame) -> str:
    answer = frame.pop("answer")
    if answer["type"] == "respond":
        table.discard(ctx.state, answer["card"])
        heal(ctx, frame["seat"])
    else:
        frame["index"] += 1
    return "ask_peach"


def _death(ctx: Context, frame: Frame) -> None:
    state = ctx.state
    seat, killer = frame["seat"], frame["source"]
    record = table.player(state, seat)
    record["alive"] = False
    ctx.emit(DIED, {"seat": seat, "identity": record["identity"], "killer": killer})
    for skill in held_skills(state, seat):
        revoke_skill(ctx, seat, skill)
    for card_id in table.all_cards_of(state, seat):
        table.discard(state, card_id)
    if outcome.check(ctx):
        return None
    if killer is not None and table.alive(state, killer):
        if record["identity"] == table.REBEL:
            table.draw(ctx, killer, REBEL_BOUNTY)
        elif record["identity"] == table.LOYALIST and table.player(state, killer)["identity"] == table.LORD:
            for card_id in table.hand(state, killer) + table.equipment(state, killer):
                table.discard(state, card_id)
    if seat == table.current_seat(state):
        machine.unwind(ctx, "turn", table.OUT_OF_TURN)
    return None


FRAMES: dict[str, machine.FrameSteps] = {
    "damage": {machine.START: _damage, "damaged": _damaged},
    "dying": {machine.START: _dying, "ask_peach": _ask_peach, "peach_answered": _peach_answered},
    "death": {machine.START: _death},
}
