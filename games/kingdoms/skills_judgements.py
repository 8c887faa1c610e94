"""Skills that judge, or change judgements (generals.py lists who holds
them). Each is a trigger handler on a timing; those that judge run the
judgement as a frame (machine.py), since a judgement may wait for a
retrial.

- goddess_luo (Zhen Ji): at the start of her start phase, judges; each
  black judgement card goes to her hand and she judges again.
- unyielding (Xiahou Dun): when damaged by someone, judges; unless a
  heart, the source takes 1 damage from him.
- demonic_talent (Sima Yi): before any judgement takes effect, may replace
  the judgement card with a card from his hand (the one skill that asks).
- envy_of_heaven (Guo Jia): takes his own judgement cards into his hand."""

from __future__ import annotations

from tablehost.games.engine.engine import Context
from tablehost.games.engine.plugin import Skill
from tablehost.games.kingdoms import cards, damage, machine, options, table
from tablehost.games.kingdoms import timings as kt
from tablehost.games.kingdoms.machine import Frame

ASK_RETRIAL = "retrial"

RETRIED = "RETRIED"


def _goddess_luo(ctx: Context, seat: int, data: kt.PhaseData) -> None:
    if data.seat == seat and data.phase == table.START_PHASE:
        table.announce_skill(ctx, seat, "goddess_luo")
        machine.push(ctx, "goddess_luo", seat=seat)


def _luo_judge(ctx: Context, frame: Frame) -> str:
    machine.push(ctx, "judge", into="judgement", seat=frame["seat"], reason="goddess_luo")
    return "check"


def _luo_check(ctx: Context, frame: Frame) -> str | None:
    judgement = cards.card(frame.pop("judgement"))
    if judgement.red or judgement.id not in table.cards_in(ctx.state, table.DISCARD):
        return None
    table.move(ctx.state, judgement.id, table.hand_zone(ctx.state, frame["seat"]))
    return machine.START


def _unyielding(ctx: Context, seat: int, data: kt.DamageData) -> None:
    if data.target == seat and data.source is not None and data.source != seat:
        table.announce_skill(ctx, seat, "unyielding")
        machine.push(ctx, "unyielding", seat=seat, source=data.source)


def _unyielding_judge(ctx: Context, frame: Frame) -> str:
    machine.push(ctx, "judge", into="judgement", seat=frame["seat"], reason="unyielding")
    return "check"


def _unyielding_check(ctx: Context, frame: Frame) -> None:
    if not cards.escapes_indulgence(cards.card(frame.pop("judgement"))) and table.alive(ctx.state, frame["source"]):
        damage.deal(ctx, frame["seat"], frame["source"], 1, None)
    return None


def _demonic_talent(ctx: Context, seat: int, data: kt.JudgeData) -> None:
    """Asked whenever the holder has a card in hand (a public count), so the
    question itself reveals nothing."""
    if table.may_answer(ctx.state, seat):
        machine.push(ctx, "retrial", into="card", seat=seat, judged=data.seat, card=data.card)


def _ask_retrial(ctx: Context, frame: Frame) -> str:
    machine.ask(ctx, frame, ASK_RETRIAL, [frame["seat"]], options.response_timeout(ctx.state),
                judged=frame["judged"], card=frame["card"])
    return "answered"


def _retrial_answered(ctx: Context, frame: Frame) -> None:
    answer = frame.pop("answer")
    if answer["type"] == "respond":
        table.move(ctx.state, answer["card"], table.PROCESSING)
        table.discard(ctx.state, frame["card"])
        ctx.emit(RETRIED, {"seat": frame["seat"], "old": frame["card"], "new": answer["card"]})
        frame["result"] = answer["card"]
    return None


def _envy_of_heaven(ctx: Context, seat: int, data: kt.JudgeData) -> None:
    if data.seat == seat and data.card in table.cards_in(ctx.state, table.PROCESSING):
        table.move(ctx.state, data.card, table.hand_zone(ctx.state, seat))
        table.announce_skill(ctx, seat, "envy_of_heaven")


SKILLS: tuple[Skill, ...] = (
    Skill("goddess_luo", ((kt.PHASE_START, _goddess_luo),)),
    Skill("unyielding", ((kt.DAMAGED, _unyielding),)),
    Skill("demonic_talent", ((kt.ASK_FOR_RETRIAL, _demonic_talent),)),
    Skill("envy_of_heaven", ((kt.FINISH_JUDGE, _envy_of_heaven),)),
)

FRAMES: dict[str, machine.FrameSteps] = {
    "goddess_luo": {machine.START: _luo_judge, "check": _luo_check},
    "unyielding": {machine.START: _unyielding_judge, "check": _unyielding_check},
    "retrial": {machine.START: _ask_retrial, "answered": _retrial_answered},
}
