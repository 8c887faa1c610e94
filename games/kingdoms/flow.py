"""The seed's game flow as nested frames (machine.py), each step firing the
seed's timings in the seed's order: the game (before the first round), its
rounds, their turns and the turns' phases; the draw and discard phases.

The game: GAME_PREPARED; identities dealt from the seeded PRNG (the lord's
public); the lord chooses a general and shows it, then every other player
chooses at once; generals shown, health set (+1 for the lord), skills
granted; the lord is the current player; the deck is shuffled;
BEFORE_GAME_START; from the current player each player gets DRAW_INITIAL_CARDS
(a handler may change the count) and draws, with no card-move timings;
every player may use lucky cards (all asked at once); AFTER_DRAW_INITIAL_CARDS
for each from the current player; then rounds until the game ends (round
9999 is a draw).

A round: GAME_START (first round only), ROUND_START, then turns from the
current player in seat order until the next actor's seed number is not
greater than the last one's, then ROUND_END and AFTER_ROUND_END.

A turn: the pre-checks (a resting player counts down and may come back; a
dead player fails; PRE_TURN_START may skip; a face-down general turns face
up and fails; BEFORE_TURN_START may skip); when they pass, TURN_START and
the six phases; then, pass or fail, the clean-up: phase "out of turn",
TURN_END, TURN_CHANGING (which names the next actor).

A phase: unless already marked skipped, PHASE_CHANGING (may skip it); a
skipped phase fires PHASE_SKIPPING and PHASE_SKIPPED; otherwise
PHASE_START (a handler returning True ends it early), PHASE_PROCEEDING,
the phase's own work, PHASE_END."""

from __future__ import annotations

from tablehost.games.engine.engine import Context
from tablehost.games.engine.skills import grant_skill
from tablehost.games.engine.state import move_card
from tablehost.games.kingdoms import machine, options, table
from tablehost.games.kingdoms import timings as kt
from tablehost.games.kingdoms.generals import GENERALS
from tablehost.games.kingdoms.machine import Frame
from tablehost.games.kingdoms.table import DISCARD_PHASE, DRAW_PHASE, JUDGE_PHASE, OUT_OF_TURN, PHASES, PLAY_PHASE

INITIAL_CARDS = 4
DRAW_PHASE_CARDS = 2
LAST_ROUND = 9999
LORD_CHOICES = 3
OTHER_CHOICES = 2
LORD_HEALTH_BONUS = 1

IDENTITIES = {
    2: (table.LORD, table.REBEL),
    3: (table.LORD, table.REBEL, table.RENEGADE),
    4: (table.LORD, table.LOYALIST, table.REBEL, table.RENEGADE),
    5: (table.LORD, table.LOYALIST, table.REBEL, table.REBEL, table.RENEGADE),
    6: (table.LORD, table.LOYALIST, table.REBEL, table.REBEL, table.REBEL, table.RENEGADE),
    7: (table.LORD, table.LOYALIST, table.LOYALIST, table.REBEL, table.REBEL, table.REBEL, table.RENEGADE),
    8: (table.LORD, table.LOYALIST, table.LOYALIST, *(table.REBEL,) * 4, table.RENEGADE),
}

# Ask kinds of this module (legal.py lists their actions).
CHOOSE_GENERAL = "general"
LUCKY_CARD = "lucky"
DISCARD_DOWN = "discard"

GENERAL_SHOWN = "GENERAL_SHOWN"
IDENTITIES_DEALT = "IDENTITIES_DEALT"


def _position(ctx: Context) -> dict:
    return ctx.state["position"]


# -- the game ----------------------------------------------------------------------


def _game_start(ctx: Context, frame: Frame) -> str:
    state = ctx.state
    ctx.fire(kt.GAME_PREPARED, kt.GameData())
    identities = list(IDENTITIES[table.seats(state)])
    ctx.random("identities").shuffle(identities)
    for seat, identity in enumerate(identities):
        table.player(state, seat)["identity"] = identity
    lord = table.lord(state)
    _position(ctx)["current"] = lord
    ctx.emit(IDENTITIES_DEALT, {"lord": lord})
    names = sorted(GENERALS)
    ctx.random("generals.lord_offer").shuffle(names)
    table.player(state, lord)["offered"] = names[:LORD_CHOICES]
    machine.ask(ctx, frame, CHOOSE_GENERAL, [lord], options.turn_timeout(state))
    return "others_choose"


def _others_choose(ctx: Context, frame: Frame) -> str:
    state = ctx.state
    lord = table.lord(state)
    table.player(state, lord)["shown"] = True
    ctx.emit(GENERAL_SHOWN, {"seat": lord, "general": table.player(state, lord)["general"]})
    others = [seat for seat in range(table.seats(state)) if seat != lord]
    # The pool is small, so offers to different players may overlap.
    pool = sorted(name for name in GENERALS if name != table.player(state, lord)["general"])
    for seat in others:
        ctx.random("generals.offer").shuffle(pool)
        table.player(state, seat)["offered"] = pool[:OTHER_CHOICES]
    machine.ask(ctx, frame, CHOOSE_GENERAL, others, options.turn_timeout(state))
    return "show_generals"


def _show_generals(ctx: Context, frame: Frame) -> str:
    state = ctx.state
    lord = table.lord(state)
    for seat in range(table.seats(state)):
        record = table.player(state, seat)
        general = GENERALS[record["general"]]
        if seat != lord:
            ctx.emit(GENERAL_SHOWN, {"seat": seat, "general": general.name})
        record["max_health"] = record["health"] = general.health + (LORD_HEALTH_BONUS if seat == lord else 0)
        record["offered"] = []
        record["shown"] = True
        for skill in general.skills:
            grant_skill(ctx, seat, skill)
    _position(ctx)["current"] = lord
    ctx.random("deck.shuffle").shuffle(table.cards_in(state, table.DECK))
    ctx.fire(kt.BEFORE_GAME_START, kt.GameData())
    return "initial_cards"


def _initial_cards(ctx: Context, frame: Frame) -> str:
    """No card-move timings fire for the opening hands."""
    state = ctx.state
    frame["dealt"] = []
    for seat in table.living_from(state, table.current_seat(state)):
        data = kt.DrawInitialData(table.player_id(state, seat), INITIAL_CARDS)
        if ctx.fire(kt.DRAW_INITIAL_CARDS, data) or data.skipped:
            continue
        table.draw(ctx, seat, data.count)
        frame["dealt"].append([data.player_id, data.count])
    lucky = options.lucky_cards(state)
    for seat in range(table.seats(state)):
        table.player(state, seat)["lucky_left"] = lucky
    if lucky:
        machine.ask(ctx, frame, LUCKY_CARD, range(table.seats(state)), options.turn_timeout(state))
    return "after_initial_cards"


def use_lucky_card(ctx: Context, seat: int) -> None:
    """Put the hand back, shuffle the deck and draw as many again."""
    state = ctx.state
    hand = table.hand(state, seat)
    count = len(hand)
    for card_id in list(hand):
        move_card(state, card_id, table.hand_zone(state, seat), table.DECK)
    ctx.random("lucky_card.shuffle").shuffle(table.cards_in(state, table.DECK))
    table.player(state, seat)["lucky_left"] -= 1
    table.draw(ctx, seat, count)


def _after_initial_cards(ctx: Context, frame: Frame) -> str:
    """Each player dealt, as DRAW_INITIAL_CARDS's handlers left the count."""
    for player_id, count in frame.pop("dealt"):
        ctx.fire(kt.AFTER_DRAW_INITIAL_CARDS, kt.DrawInitialData(player_id, count))
    return "round"


def _next_round(ctx: Context, frame: Frame) -> str | None:
    position = _position(ctx)
    position["round"] += 1
    if position["round"] >= LAST_ROUND:
        table.end_in_a_draw(ctx, f"round {LAST_ROUND} was reached")
        return None
    machine.push(ctx, "round")
    return "round"


# -- a round -----------------------------------------------------------------------


def _round_start(ctx: Context, frame: Frame) -> str:
    if _position(ctx)["round"] == 1:
        ctx.fire(kt.GAME_START, kt.RoundData(1))
    return "round_started"


def _round_started(ctx: Context, frame: Frame) -> str:
    ctx.fire(kt.ROUND_START, kt.RoundData(_position(ctx)["round"]))
    return "turn"


def _take_turn(ctx: Context, frame: Frame) -> str:
    machine.push(ctx, "turn", into="changing", seat=table.current_seat(ctx.state))
    return "next_actor"


def _next_actor(ctx: Context, frame: Frame) -> str:
    state = ctx.state
    change = frame.pop("changing")
    previous, following = change["from"], change["to"]
    if not table.alive(state, following) and table.player(state, following)["rest"] == 0:
        following = table.next_actor(state, following)
    _position(ctx)["current"] = following
    if not change["skip_round_plus"] and table.seat_number(state, following) <= table.seat_number(state, previous):
        return "round_end"
    return "turn"


def _round_end(ctx: Context, frame: Frame) -> str:
    ctx.fire(kt.ROUND_END, kt.RoundData(_position(ctx)["round"]))
    return "after_round_end"


def _after_round_end(ctx: Context, frame: Frame) -> None:
    ctx.fire(kt.AFTER_ROUND_END, kt.RoundData(_position(ctx)["round"]))
    return None


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
            ctx.emit("RETURNED", {"seat": seat})
    return "pre_turn_start" if record["alive"] else OUT_OF_TURN


def _pre_turn_start(ctx: Context, frame: Frame) -> str:
    data = kt.TurnData(frame["seat"])
    if ctx.fire(kt.PRE_TURN_START, data) or data.skipped:
        return OUT_OF_TURN
    return "face_up"


def _face_up(ctx: Context, frame: Frame) -> str:
    record = table.player(ctx.state, frame["seat"])
    if not record["face_up"]:
        record["face_up"] = True
        ctx.emit("TURNED_FACE_UP", {"seat": frame["seat"]})
        return OUT_OF_TURN
    return "before_turn_start"


def _before_turn_start(ctx: Context, frame: Frame) -> str:
    data = kt.TurnData(frame["seat"])
    if ctx.fire(kt.BEFORE_TURN_START, data) or data.skipped:
        return OUT_OF_TURN
    return "turn_started"


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


def skip_phase(state: dict, seat: int, phase: str) -> None:
    """Skip `seat`'s `phase` the next time it is entered (Indulgence)."""
    table.player(state, seat)["skip"].append(phase)


def _phase_data(frame: Frame) -> kt.PhaseData:
    return kt.PhaseData(frame["seat"], frame["phase"], frame.get("skipped", False))


def _phase_changing(ctx: Context, frame: Frame) -> str:
    _position(ctx)["phase"] = frame["phase"]
    marks = table.player(ctx.state, frame["seat"])["skip"]
    if frame["phase"] in marks:
        marks.remove(frame["phase"])
        frame["skipped"] = True
    else:
        data = _phase_data(frame)
        ctx.fire(kt.PHASE_CHANGING, data)
        frame["skipped"] = data.skipped
    return "skipping" if frame["skipped"] else "phase_start"


def _phase_skipping(ctx: Context, frame: Frame) -> str:
    ctx.fire(kt.PHASE_SKIPPING, _phase_data(frame))
    return "skipped"


def _phase_skipped(ctx: Context, frame: Frame) -> None:
    ctx.fire(kt.PHASE_SKIPPED, _phase_data(frame))
    return None


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
    data = kt.DrawNCardsData(table.player_id(ctx.state, seat), DRAW_PHASE_CARDS)
    if ctx.fire(kt.DRAW_N_CARDS, data) or data.skipped:
        return
    table.draw(ctx, seat, data.count)
    ctx.fire(kt.AFTER_DRAW_N_CARDS, data)


# -- the discard phase -------------------------------------------------------------


def excess_cards(state: dict, seat: int) -> int:
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
    ctx.emit("DISCARDED", {"seat": frame["seat"]})
    return None


FRAMES: dict[str, machine.FrameSteps] = {
    "game": {
        machine.START: _game_start,
        "others_choose": _others_choose,
        "show_generals": _show_generals,
        "initial_cards": _initial_cards,
        "after_initial_cards": _after_initial_cards,
        "round": _next_round,
    },
    "round": {
        machine.START: _round_start,
        "round_started": _round_started,
        "turn": _take_turn,
        "next_actor": _next_actor,
        "round_end": _round_end,
        "after_round_end": _after_round_end,
    },
    "turn": {
        machine.START: _turn_start,
        "pre_turn_start": _pre_turn_start,
        "face_up": _face_up,
        "before_turn_start": _before_turn_start,
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
