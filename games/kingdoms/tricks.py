"""Tricks and judgements, as frames (machine.py).

Nullification: before a trick (or a delayed trick being judged) affects a
target, every living player with a card in hand is asked at once, each
with the same deadline, whether or not they hold a Nullification (so the
question reveals nothing: hand sizes are public); the first to give one
closes the question, and when everyone has passed (or their timers have)
nobody did. A Nullification given is itself open to Nullification (a
nested question to everyone); if that one stands, the first fails and the
question for the trick is asked again. So the trick is stopped exactly
when the last Nullification played stands.

A judgement turns up the deck's top card, shown to all in the processing
zone; ASK_FOR_RETRIAL lets a skill replace it, FINISH_JUDGE sees the final
card, which then goes to the discard pile unless a skill took it.

The judge phase resolves the delayed tricks in the judgement zone last in,
first out: Indulgence skips the play phase unless the judgement is a heart;
Lightning deals 3 damage on a spade 2-9, else moves on (as it does when
nullified) to the next living player who has no Lightning, as Sanguosha
moves it: no judgement area holds two delayed tricks of one name, and
when no one else can take it, it stays where it was.

Dismantle and Snatch ask their user which card to take: a specific card of
the target's equipment or judgement zone, or "hand" (a random hand card,
unseen). Duel asks each side for a Slash in turn, the target first;
Barbarian Invasion asks every other player for a Slash. A player is asked
for a Slash whenever they have a card in hand, whether or not it is one."""

from __future__ import annotations

from tablehost.games.engine.engine import Context
from tablehost.games.engine.draw import create_draw_card_action
from tablehost.games.engine.state import State
from tablehost.games.kingdoms import cards, damage, machine, options, table
from tablehost.games.kingdoms import timings as kt
from tablehost.games.kingdoms.machine import Frame
from tablehost.games.kingdoms.turns import skip_phase

ASK_NULLIFY = "nullify"
ASK_SLASH = "slash"
ASK_PICK = "pick"
FROM_HAND = "hand"  # a pick of a random hand card

NULLIFIED = "NULLIFIED"
JUDGED = "JUDGED"
TAKEN = "TAKEN"
LIGHTNING_MOVED = "LIGHTNING_MOVED"


def _answered_with_card(frame: Frame) -> str | None:
    """The card the asked player gave, or None when they passed."""
    answer = frame.pop("answer")
    return answer["card"] if answer["type"] == "respond" else None


# -- Nullification -----------------------------------------------------------------


def _nullify_ask(ctx: Context, frame: Frame) -> str | None:
    state = ctx.state
    asked = [seat for seat in table.living_from(state, table.current_seat(state)) if table.may_answer(state, seat)]
    if not asked:
        frame["result"] = False
        return None
    machine.ask(ctx, frame, ASK_NULLIFY, asked, options.response_timeout(state),
                card=frame["card"], target=frame["target"], first_answer_closes=True)
    return "answered"


def _nullify_answered(ctx: Context, frame: Frame) -> str | None:
    answer = frame.pop("answer")
    if answer["type"] != "respond":
        frame["result"] = False
        return None
    table.discard(ctx.state, answer["card"])
    ctx.emit(NULLIFIED, {"seat": answer["seat"], "card": frame["card"], "with": answer["card"]})
    machine.push(ctx, "nullify", into="countered", card=answer["card"], target=None)
    return "countered"


def _nullify_countered(ctx: Context, frame: Frame) -> str | None:
    if frame.pop("countered"):
        return machine.START
    frame["result"] = True
    return None


# -- judgements --------------------------------------------------------------------


def _judge_flip(ctx: Context, frame: Frame) -> str | None:
    state = ctx.state
    if not table.cards_in(state, table.DECK) and not table.cards_in(state, table.DISCARD):
        table.end_in_a_draw(ctx, "no card is left to judge with")
        return None
    ctx.run(create_draw_card_action(None, 1, table.DECK, table.PROCESSING))
    frame["card"] = table.cards_in(state, table.PROCESSING)[-1]
    ctx.emit(JUDGED, {"seat": frame["seat"], "card": frame["card"], "reason": frame["reason"]})
    ctx.fire(kt.ASK_FOR_RETRIAL, kt.JudgeData(frame["seat"], frame["card"], frame["reason"]))
    return "finish"


def _judge_finish(ctx: Context, frame: Frame) -> None:
    ctx.fire(kt.FINISH_JUDGE, kt.JudgeData(frame["seat"], frame["card"], frame["reason"]))
    if frame["card"] in table.cards_in(ctx.state, table.PROCESSING):
        table.discard(ctx.state, frame["card"])
    frame["result"] = frame["card"]
    return None


# -- the judge phase ---------------------------------------------------------------


def _judge_zone_start(ctx: Context, frame: Frame) -> str:
    """The seed: "对判定区内所有牌按后进来先判定的顺序依次进行": the cards there
    when the phase's work begins, so a Lightning that stays is not judged
    twice in one phase."""
    frame["pending"] = list(table.judgements(ctx.state, frame["seat"]))
    return "next"


def _judge_zone_next(ctx: Context, frame: Frame) -> str | None:
    state, seat = ctx.state, frame["seat"]
    pending = frame["pending"]
    while pending and pending[-1] not in table.judgements(state, seat):
        pending.pop()  # taken away meanwhile (Dismantle, Snatch)
    if not pending or not table.alive(state, seat):
        return None
    frame["card"] = pending.pop()
    table.move(state, frame["card"], table.PROCESSING)
    machine.push(ctx, "nullify", into="nullified", card=frame["card"], target=seat)
    return "judge"


def _judge_zone_judge(ctx: Context, frame: Frame) -> str:
    if frame.pop("nullified"):
        _settle_delayed(ctx, frame, None)
        return "next"
    machine.push(ctx, "judge", into="judgement", seat=frame["seat"], reason=cards.card(frame["card"]).name)
    return "effect"


def _judge_zone_effect(ctx: Context, frame: Frame) -> str:
    _settle_delayed(ctx, frame, cards.card(frame.pop("judgement")))
    return "next"


def _settle_delayed(ctx: Context, frame: Frame, judgement: cards.Card | None) -> None:
    """The delayed trick's effect (judgement None: it was nullified) and
    where the card goes next."""
    state, seat, trick = ctx.state, frame["seat"], frame["card"]
    if cards.card(trick).name == cards.INDULGENCE:
        if judgement is not None and not cards.escapes_indulgence(judgement):
            skip_phase(state, seat, table.PLAY_PHASE)
        table.discard(state, trick)
        return
    if judgement is not None and cards.lightning_strikes(judgement):
        table.discard(state, trick)
        damage.deal(ctx, None, seat, cards.LIGHTNING_DAMAGE, trick)
        return
    following = _lightning_goes_to(state, seat)
    table.place_delayed(state, trick, following)
    if following != seat:
        ctx.emit(LIGHTNING_MOVED, {"from": seat, "to": following, "card": trick})


def _lightning_goes_to(state: State, seat: int) -> int:
    """The next living player after `seat` whose judgement area has no
    Lightning, or `seat` itself (whose Lightning is this one) if none has
    room."""
    count = table.seats(state)
    for candidate in ((seat + step) % count for step in range(1, count)):
        if table.alive(state, candidate) and table.may_hold_delayed(state, candidate, cards.LIGHTNING):
            return candidate
    return seat


# -- tricks with a target ----------------------------------------------------------


def _trick_start(ctx: Context, frame: Frame) -> str | None:
    if not table.alive(ctx.state, frame["target"]):
        return None
    machine.push(ctx, "nullify", into="nullified", card=frame["card"], target=frame["target"])
    return "effect"


def _trick_effect(ctx: Context, frame: Frame) -> str | None:
    state = ctx.state
    user, target = frame["user"], frame["target"]
    if frame.pop("nullified") or not table.alive(state, target):
        return None
    name = cards.card(frame["card"]).name
    if name in (cards.DISMANTLE, cards.SNATCH):
        if not table.all_cards_of(state, target) or not table.alive(state, user):
            return None
        machine.ask(ctx, frame, ASK_PICK, [user], options.response_timeout(state), target=target,
                    card=frame["card"])
        return "picked"
    if name == cards.DUEL:
        machine.push(ctx, "duel", user=user, target=target, card=frame["card"])
        return None
    return _ask_for_slash(ctx, frame, target)  # Barbarian Invasion


def pick_options(state: State, target: int) -> list[str]:
    """What a Dismantle or Snatch may take: "hand" (a random card) if the
    hand is not empty, then each equipment and judgement-zone card."""
    return ([FROM_HAND] if table.hand(state, target) else []) + table.equipment(state, target) \
        + table.judgements(state, target)


def _trick_picked(ctx: Context, frame: Frame) -> None:
    state = ctx.state
    picked = frame.pop("answer")["card"]
    target = frame["target"]
    if picked == FROM_HAND:
        held = table.hand(state, target)
        picked = held[ctx.random("trick.hand_card").below(len(held))]
    if cards.card(frame["card"]).name == cards.SNATCH:
        table.move(state, picked, table.hand_zone(state, frame["user"]))
        ctx.emit(TAKEN, {"seat": frame["user"], "from": target})
    else:
        table.discard(state, picked)
    return None


def _ask_for_slash(ctx: Context, frame: Frame, asked: int) -> str | None:
    """Ask `asked` for a Slash, or take the loss at once when they could not
    give one by what the table sees (no card in hand)."""
    if table.may_answer(ctx.state, asked):
        machine.ask(ctx, frame, ASK_SLASH, [asked], options.response_timeout(ctx.state), card=frame["card"])
        return "slash_answered"
    return "lose"


def _invasion_answered(ctx: Context, frame: Frame) -> str | None:
    given = _answered_with_card(frame)
    if given is None:
        return "lose"
    table.discard(ctx.state, given)
    return None


def _invasion_lose(ctx: Context, frame: Frame) -> None:
    damage.deal(ctx, frame["user"], frame["target"], 1, frame["card"])
    return None


# -- Duel --------------------------------------------------------------------------


def _duel_start(ctx: Context, frame: Frame) -> str | None:
    frame["turn_of"], frame["other"] = frame["target"], frame["user"]
    return "ask"


def _duel_ask(ctx: Context, frame: Frame) -> str | None:
    return _ask_for_slash(ctx, frame, frame["turn_of"])


def _duel_answered(ctx: Context, frame: Frame) -> str:
    given = _answered_with_card(frame)
    if given is None:
        return "lose"
    table.discard(ctx.state, given)
    frame["turn_of"], frame["other"] = frame["other"], frame["turn_of"]
    return "ask"


def _duel_lose(ctx: Context, frame: Frame) -> None:
    damage.deal(ctx, frame["other"], frame["turn_of"], 1, frame["card"])
    return None


FRAMES: dict[str, machine.FrameSteps] = {
    "nullify": {machine.START: _nullify_ask, "answered": _nullify_answered, "countered": _nullify_countered},
    "judge": {machine.START: _judge_flip, "finish": _judge_finish},
    "judge_zone": {machine.START: _judge_zone_start, "next": _judge_zone_next, "judge": _judge_zone_judge,
                   "effect": _judge_zone_effect},
    "trick": {machine.START: _trick_start, "effect": _trick_effect, "picked": _trick_picked,
              "slash_answered": _invasion_answered, "lose": _invasion_lose},
    "duel": {machine.START: _duel_start, "ask": _duel_ask, "slash_answered": _duel_answered, "lose": _duel_lose},
}
