"""A turn and its phases as the seed runs them, as frames (machine.py);
the draw and discard phases' own work.

A turn: the pre-checks (a resting player counts down and may come back; a
dead player fails; PRE_TURN_START may fail them; a face-down general turns
face up and fails them; BEFORE_TURN_START may fail them). A turn whose
checks fail ends there: as in FreeKill, an event whose checks fail runs
none of its effects, so neither TURN_START and the phases nor the clean-up
(TURN_END, TURN_CHANGING) happen, and the turn passes to the next actor
(下家). A turn whose checks pass: TURN_START, the six phases, then the
clean-up: phase "out of turn", TURN_END, TURN_CHANGING (which names the
next actor). A turn cut short by its player's death or rest still runs its
clean-up.

A phase: unless already marked skipped, PHASE_CHANGING (may skip it); a
skipped phase fires PHASE_SKIPPING, whose handlers may cancel the skip
(set `skipped` back to False), and, if it is still skipped, PHASE_SKIPPED. The seed decides whether the phase
runs after both ("若阶段未被跳过，data.skipped不为true，则: 该角色执行阶段
事件"); we read that literally, so a PHASE_SKIPPED handler may cancel the
skip too (our reading: FreeKill's code ends the phase there). A phase that
runs: PHASE_START (a handler returning True ends it early),
PHASE_PROCEEDING, the phase's own work, PHASE_END."""

from __future__ import annotations

from typing import Any
from tablehost.games.engine.engine import Context
from tablehost.games.kingdoms import machine, options, table
from tablehost.games.kingdoms import timings as kt
from tablehost.games.kingdoms.machine import Frame
from tablehost.games.kingdoms.table import DISCARD_PHASE, DRAW_PHASE, JUDGE_PHASE, OUT_OF_TURN, PHASES, PLAY_PHASE
from tablehost.games.engine.state import State, seat_player_id

DRAW_PHASE_CARDS = 2

# Ask kinds of this module (legal.py lists their actions).
DISCARD_DOWN = "discard"

RETURNED = "RETURNED"
DISCARDED = "DISCARDED"
CHECKS_FAILED = "checks_failed"


def _position(ctx: Context) -> dict[str, Any]:
    return ctx.state["position"]


# -- a turn ------------------------------------------------------------------------


def _turn_start(ctx: Context, frame: Frame) -> str:
    seat = frame["seat"]
    position = _position(ctx)
    position["current"] = seat
    position["turn"] += 1
    record = table.player(ctx.state, seat)
    if record["rest"] > 0:
        record["rest"] -= 1
        if record["rest"] == 0:
            record.update(alive=True, health=record["max_health"])
            ctx.emit(RETURNED, {"seat": seat})
    return "pre_turn_start" if record["alive"] else CHECKS_FAILED


def _pre_turn_start(ctx: Context, frame: Frame) -> str:
    data = kt.TurnData(frame["seat"])
    if ctx.fire(kt.PRE_TURN_START, data) or data.skipped:
        return CHECKS_FAILED
    return "face_up"


def _face_up(ctx: Context, frame: Frame) -> str:
    if not table.player(ctx.state, frame["seat"])["face_up"]:
        table.turn_over(ctx, frame["seat"])
        return CHECKS_FAILED
    return "before_turn_start"


def _before_turn_start(ctx: Context, frame: Frame) -> str:
    data = kt.TurnData(frame["seat"])
    if ctx.fire(kt.BEFORE_TURN_START, data) or data.skipped:
        return CHECKS_FAILED
    return "turn_started"


def _checks_failed(ctx: Context, frame: Frame) -> None:
    """No effect of the turn runs, its clean-up neither; the round moves on
    to the next actor as if TURN_CHANGING had named it."""
    seat = frame["seat"]
    frame["result"] = {"from": seat, "to": table.next_actor(ctx.state, seat), "skip_round_plus": False}
    return None


def _turn_started(ctx: Context, frame: Frame) -> str:
    table.player(ctx.state, frame["seat"])["slashes"] = 0
    ctx.fire(kt.TURN_START, kt.TurnData(frame["seat"]))
    frame["phase"] = 0
    return "phase"


def _next_phase(ctx: Context, frame: Frame) -> str:
    if frame["phase"] >= len(PHASES):
        return OUT_OF_TURN
    machine.push(ctx, "phase", seat=frame["seat"], phase=PHASES[frame["phase"]])
    frame["phase"] += 1
    return "phase"


def _out_of_turn(ctx: Context, frame: Frame) -> str:
    """Also where a turn cut short (its player died) resumes: whatever it was
    resolving goes to the discard pile."""
    state = ctx.state
    _position(ctx)["phase"] = OUT_OF_TURN
    for card_id in list(table.cards_in(state, table.PROCESSING)):
        table.discard(state, card_id)
    return "turn_end"


def _turn_end(ctx: Context, frame: Frame) -> str:
    ctx.fire(kt.TURN_END, kt.TurnData(frame["seat"]))
    return "turn_changing"


def _turn_changing(ctx: Context, frame: Frame) -> None:
    seat = frame["seat"]
    data = kt.TurnChangingData(seat, table.next_actor(ctx.state, seat))
    ctx.fire(kt.TURN_CHANGING, data)
    frame["result"] = {"from": data.from_seat, "to": data.to_seat, "skip_round_plus": data.skip_round_plus}
    return None


# -- a phase -----------------------------------------------------------------------


def skip_phase(state: State, seat: int, phase: str) -> None:
    """Skip `seat`'s `phase` the next time it is entered (Indulgence)."""
    table.player(state, seat)["skip"].append(phase)


def _phase_data(frame: Frame) -> kt.PhaseData:
    return kt.PhaseData(frame["seat"], frame["phase"], frame.get("skipped", False))


def _fire_phase(ctx: Context, timing: str, frame: Frame) -> bool:
    """Fire a phase timing; its handlers may change whether the phase is
    skipped, which the frame keeps. True when a handler stopped it."""
    data = _phase_data(frame)
    stopped = ctx.fire(timing, data)
    frame["skipped"] = data.skipped
    return stopped


def _phase_changing(ctx: Context, frame: Frame) -> str:
    _position(ctx)["phase"] = frame["phase"]
    marks = table.player(ctx.state, frame["seat"])["skip"]
    if frame["phase"] in marks:
        marks.remove(frame["phase"])
        frame["skipped"] = True
    else:
        _fire_phase(ctx, kt.PHASE_CHANGING, frame)
    return "skipping" if frame["skipped"] else "phase_start"


def _phase_skipping(ctx: Context, frame: Frame) -> str:
    _fire_phase(ctx, kt.PHASE_SKIPPING, frame)
    return "skipped" if frame["skipped"] else "phase_start"


def _phase_skipped(ctx: Context, frame: Frame) -> str | None:
    _fire_phase(ctx, kt.PHASE_SKIPPED, frame)
    return None if frame["skipped"] else "phase_start"


def _phase_start(ctx: Context, frame: Frame) -> str:
    if ctx.fire(kt.PHASE_START, _phase_data(frame)):
        return "phase_end"
    return "proceeding"


def _phase_proceeding(ctx: Context, frame: Frame) -> str:
    ctx.fire(kt.PHASE_PROCEEDING, _phase_data(frame))
    return "phase_body"


def _phase_body(ctx: Context, frame: Frame) -> str:
    seat, phase = frame["seat"], frame["phase"]
    if phase == JUDGE_PHASE:
        machine.push(ctx, "judge_zone", seat=seat)
    elif phase == DRAW_PHASE:
        draw_phase(ctx, seat)
    elif phase == PLAY_PHASE:
        machine.push(ctx, "play", seat=seat)
    elif phase == DISCARD_PHASE:
        machine.push(ctx, "discard", seat=seat)
    return "phase_end"


def _phase_end(ctx: Context, frame: Frame) -> None:
    ctx.fire(kt.PHASE_END, _phase_data(frame))
    return None


def draw_phase(ctx: Context, seat: int) -> None:
    """DRAW_N_CARDS may change the count; AFTER_DRAW_N_CARDS sees what it became."""
    data = kt.DrawNCardsData(seat_player_id(ctx.state, seat), DRAW_PHASE_CARDS)
    if ctx.fire(kt.DRAW_N_CARDS, data) or data.skipped:
        return
    table.draw(ctx, seat, data.count)
    ctx.fire(kt.AFTER_DRAW_N_CARDS, data)


# -- the discard phase -------------------------------------------------------------


def excess_cards(state: State, seat: int) -> int:
    """How many cards above the hand limit (current health) `seat` holds."""
    return max(0, len(table.hand(state, seat)) - max(0, table.player(state, seat)["health"]))


def _ask_discard(ctx: Context, frame: Frame) -> str | None:
    seat = frame["seat"]
    excess = excess_cards(ctx.state, seat)
    if excess == 0 or not table.alive(ctx.state, seat):
        return None
    machine.ask(ctx, frame, DISCARD_DOWN, [seat], options.turn_timeout(ctx.state), count=excess)
    return "discarded"


def _discarded(ctx: Context, frame: Frame) -> None:
    for card_id in frame.pop("answer")["cards"]:
        table.discard(ctx.state, card_id)
    ctx.emit(DISCARDED, {"seat": frame["seat"]})
    return None


FRAMES: dict[str, machine.FrameSteps] = {
    "turn": {
        machine.START: _turn_start,
        "pre_turn_start": _pre_turn_start,
        "face_up": _face_up,
        "before_turn_start": _before_turn_start,
        CHECKS_FAILED: _checks_failed,
        "turn_started": _turn_started,
        "phase": _next_phase,
        OUT_OF_TURN: _out_of_turn,
        "turn_end": _turn_end,
        "turn_changing": _turn_changing,
    },
    "phase": {
        machine.START: _phase_changing,
        "skipping": _phase_skipping,
        "skipped": _phase_skipped,
        "phase_start": _phase_start,
        "proceeding": _phase_proceeding,
        "phase_body": _phase_body,
        "phase_end": _phase_end,
    },
    "discard": {machine.START: _ask_discard, "discarded": _discarded},
}
