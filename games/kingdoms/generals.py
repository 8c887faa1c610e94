"""Generals and their skills. A skill is a set of trigger handlers on the
seed's timings (engine Skill), declared here once by name; a player holds
skill names in the state (granted when the generals are shown), so skills
survive checkpoints and replay. Handlers run for every holder; each checks
that the event concerns its holder. Skills are used whenever they apply,
except Demonic Talent, which asks its holder for a card.

- Zhou Yu, Handsome: draws one more card in the draw phase.
- Zhen Ji, Goddess Luo: at the start of her start phase, judges; each black
  judgement card goes to her hand and she judges again.
- Cao Cao, Villainous Hero: when damaged, takes the card that damaged him.
- Xiahou Dun, Unyielding: when damaged by someone, judges; unless a heart,
  the source takes 1 damage from him.
- Sima Yi, Demonic Talent: before any judgement takes effect, may replace
  the judgement card with a card from his hand.
- Guo Jia, Envy of Heaven: takes his own judgement cards into his hand.
- Lü Meng, Self-Restraint: skips his discard phase if he used no Slash
  this turn.
- Zhang Liao, Surprise Raid: skips his draw phase to take a random hand
  card from each of up to two other players (the nearest in seat order).
- Huang Yueying, Wisdom: draws a card whenever she uses a trick that is
  not delayed."""

from __future__ import annotations

from dataclasses import dataclass

from tablehost.games.engine.engine import Context
from tablehost.games.engine.plugin import Skill
from tablehost.games.kingdoms import cards, damage, machine, options, table
from tablehost.games.kingdoms import timings as kt
from tablehost.games.kingdoms.machine import Frame

ASK_RETRIAL = "retrial"
RAID_VICTIMS = 2

RETRIED = "RETRIED"
SKILL_USED = "SKILL_USED"


@dataclass(frozen=True, slots=True)
class General:
    name: str
    health: int
    skills: tuple[str, ...]
    text: str


def _used(ctx: Context, seat: int, skill: str) -> None:
    ctx.emit(SKILL_USED, {"seat": seat, "skill": skill})


def _handsome(ctx: Context, seat: int, data: kt.DrawNCardsData) -> None:
    if data.player_id == table.player_id(ctx.state, seat):
        data.count += 1
        _used(ctx, seat, "handsome")


def _goddess_luo(ctx: Context, seat: int, data: kt.PhaseData) -> None:
    if data.seat == seat and data.phase == table.START_PHASE:
        _used(ctx, seat, "goddess_luo")
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


def _villainous_hero(ctx: Context, seat: int, data: kt.DamageData) -> None:
    state = ctx.state
    if data.target != seat or data.card is None:
        return
    if data.card in table.cards_in(state, table.PROCESSING) or data.card in table.cards_in(state, table.DISCARD):
        table.move(state, data.card, table.hand_zone(state, seat))
        _used(ctx, seat, "villainous_hero")


def _unyielding(ctx: Context, seat: int, data: kt.DamageData) -> None:
    if data.target == seat and data.source is not None and data.source != seat:
        _used(ctx, seat, "unyielding")
        machine.push(ctx, "unyielding", seat=seat, source=data.source)


def _unyielding_judge(ctx: Context, frame: Frame) -> str:
    machine.push(ctx, "judge", into="judgement", seat=frame["seat"], reason="unyielding")
    return "check"


def _unyielding_check(ctx: Context, frame: Frame) -> None:
    if not cards.escapes_indulgence(cards.card(frame.pop("judgement"))) and table.alive(ctx.state, frame["source"]):
        damage.deal(ctx, frame["seat"], frame["source"], 1, None)
    return None


def _demonic_talent(ctx: Context, seat: int, data: kt.JudgeData) -> None:
    if table.alive(ctx.state, seat) and table.hand(ctx.state, seat):
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
        _used(ctx, seat, "envy_of_heaven")


def _self_restraint(ctx: Context, seat: int, data: kt.PhaseData) -> None:
    if data.seat == seat and data.phase == table.DISCARD_PHASE and table.player(ctx.state, seat)["slashes"] == 0:
        data.skipped = True
        _used(ctx, seat, "self_restraint")


def _surprise_raid(ctx: Context, seat: int, data: kt.PhaseData) -> None:
    state = ctx.state
    if data.seat != seat or data.phase != table.DRAW_PHASE:
        return
    victims = [other for other in table.living_from(state, seat)[1:] if table.hand(state, other)][:RAID_VICTIMS]
    if not victims:
        return
    data.skipped = True
    _used(ctx, seat, "surprise_raid")
    for victim in victims:
        held = table.hand(state, victim)
        table.move(state, held[ctx.random("raid.card").below(len(held))], table.hand_zone(state, seat))


def _wisdom(ctx: Context, seat: int, data: kt.CardUseData) -> None:
    if data.seat == seat and cards.spec_of(data.card).kind == cards.TRICK:
        _used(ctx, seat, "wisdom")
        table.draw(ctx, seat, 1)


SKILLS: tuple[Skill, ...] = (
    Skill("handsome", ((kt.DRAW_N_CARDS, _handsome),)),
    Skill("goddess_luo", ((kt.PHASE_START, _goddess_luo),)),
    Skill("villainous_hero", ((kt.DAMAGED, _villainous_hero),)),
    Skill("unyielding", ((kt.DAMAGED, _unyielding),)),
    Skill("demonic_talent", ((kt.ASK_FOR_RETRIAL, _demonic_talent),)),
    Skill("envy_of_heaven", ((kt.FINISH_JUDGE, _envy_of_heaven),)),
    Skill("self_restraint", ((kt.PHASE_CHANGING, _self_restraint),)),
    Skill("surprise_raid", ((kt.PHASE_CHANGING, _surprise_raid),)),
    Skill("wisdom", ((kt.CARD_USED, _wisdom),)),
)

GENERALS: dict[str, General] = {general.name: general for general in (
    General("Zhou Yu", 3, ("handsome",), "Handsome: draw one more card in your draw phase."),
    General("Zhen Ji", 3, ("goddess_luo",),
            "Goddess Luo: at the start of your start phase, judge; keep each black card and judge again."),
    General("Cao Cao", 4, ("villainous_hero",), "Villainous Hero: when damaged, take the card that damaged you."),
    General("Xiahou Dun", 4, ("unyielding",),
            "Unyielding: when someone damages you, judge; unless a heart, they take 1 damage."),
    General("Sima Yi", 3, ("demonic_talent",),
            "Demonic Talent: before a judgement takes effect, you may replace it with a card from your hand."),
    General("Guo Jia", 3, ("envy_of_heaven",), "Envy of Heaven: take your judgement cards into your hand."),
    General("Lü Meng", 4, ("self_restraint",),
            "Self-Restraint: if you used no Slash this turn, skip your discard phase."),
    General("Zhang Liao", 4, ("surprise_raid",),
            "Surprise Raid: skip your draw phase to take a random hand card from up to two other players."),
    General("Huang Yueying", 3, ("wisdom",), "Wisdom: draw a card whenever you use a non-delayed trick."),
)}

FRAMES: dict[str, machine.FrameSteps] = {
    "goddess_luo": {machine.START: _luo_judge, "check": _luo_check},
    "unyielding": {machine.START: _unyielding_judge, "check": _unyielding_check},
    "retrial": {machine.START: _ask_retrial, "answered": _retrial_answered},
}
