"""The seed's game flow, from the game event down to the rounds, as nested
frames (machine.py), each step firing the seed's timings in the seed's
order; a round's turns and their phases are turns.py's.

The game: GAME_PREPARED; identities dealt from the seeded PRNG (the lord's
public); the lord chooses a general and shows it, then every other player
chooses at once; generals shown, health set (+1 for the lord), skills
granted; the lord is the current player; the deck is shuffled;
BEFORE_GAME_START; from the current player each player gets DRAW_INITIAL_CARDS
(a handler may change the count) and draws, with no card-move timings;
every player may use lucky cards (all asked at once); AFTER_DRAW_INITIAL_CARDS
for every player from the current player, whether or not they drew; then
rounds until the game ends (round 9999 is a draw).

Generals are offered so that no two players are ever offered the same one
(our choice, stricter than the seed, which only says who chooses when):
the lord is offered LORD_CHOICES of them, every other player OTHER_CHOICES
from those nobody was offered, so even a table of 8 needs 17 generals.

A round: GAME_START (first round only) and ROUND_START, borne by the
current player; then turns: the current player takes one, the next actor
(the turn's TURN_CHANGING may name another) becomes the current player,
and the round ends once the current player's seat number is not greater
than their previous player's (上家); ROUND_END and AFTER_ROUND_END are
borne by that previous player."""

from __future__ import annotations

from typing import Any
from tablehost.games.engine.engine import Context
from tablehost.games.engine.skills import grant_skill
from tablehost.games.engine.state import move_card, seat_player_id
from tablehost.games.kingdoms import machine, options, table
from tablehost.games.kingdoms import timings as kt
from tablehost.games.kingdoms.generals import GENERALS
from tablehost.games.kingdoms.machine import Frame

INITIAL_CARDS = 4
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

GENERAL_SHOWN = "GENERAL_SHOWN"
IDENTITIES_DEALT = "IDENTITIES_DEALT"


def generals_needed(seats: int) -> int:
    """How many generals disjoint offers need at a table of `seats`."""
    return LORD_CHOICES + OTHER_CHOICES * (seats - 1)


def _position(ctx: Context) -> dict[str, Any]:
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
    """Every other player is offered generals nobody else was offered,
    dealt in seat order from one shuffle of those the lord was not offered."""
    state = ctx.state
    lord = table.lord(state)
    table.player(state, lord)["shown"] = True
    ctx.emit(GENERAL_SHOWN, {"seat": lord, "general": table.player(state, lord)["general"]})
    others = [seat for seat in range(table.seats(state)) if seat != lord]
    pool = sorted(name for name in GENERALS if name not in table.player(state, lord)["offered"])
    ctx.random("generals.offer").shuffle(pool)
    for index, seat in enumerate(others):
        table.player(state, seat)["offered"] = pool[index * OTHER_CHOICES:(index + 1) * OTHER_CHOICES]
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
    """No card-move timings fire for the opening hands. A player whose
    DRAW_INITIAL_CARDS a handler stopped draws nothing; their data says so
    (`skipped`), as AFTER_DRAW_INITIAL_CARDS will show it."""
    state = ctx.state
    frame["dealt"] = []
    for seat in table.living_from(state, table.current_seat(state)):
        data = kt.DrawInitialData(seat_player_id(state, seat), INITIAL_CARDS)
        if ctx.fire(kt.DRAW_INITIAL_CARDS, data):
            data.skipped = True
        if not data.skipped:
            table.draw(ctx, seat, data.count)
        frame["dealt"].append([data.player_id, data.count, data.skipped])
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
    """The seed fires AFTER_DRAW_INITIAL_CARDS for every player ("从当前行动者
    开始，对每名角色"), each with the data DRAW_INITIAL_CARDS left."""
    for player_id, count, skipped in frame.pop("dealt"):
        ctx.fire(kt.AFTER_DRAW_INITIAL_CARDS, kt.DrawInitialData(player_id, count, skipped))
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


def _round_data(ctx: Context, seat: int) -> kt.RoundData:
    return kt.RoundData(_position(ctx)["round"], seat)


def _round_start(ctx: Context, frame: Frame) -> str:
    if _position(ctx)["round"] == 1:
        ctx.fire(kt.GAME_START, _round_data(ctx, table.current_seat(ctx.state)))
    return "round_started"


def _round_started(ctx: Context, frame: Frame) -> str:
    ctx.fire(kt.ROUND_START, _round_data(ctx, table.current_seat(ctx.state)))
    return "turn"


def _take_turn(ctx: Context, frame: Frame) -> str:
    machine.push(ctx, "turn", into="changing", seat=table.current_seat(ctx.state))
    return "next_actor"


def _next_actor(ctx: Context, frame: Frame) -> str:
    """The seed: "将当前行动者设为下家 / 若当前行动者的座位不大于自己上家的座位:
    结束此循环" (unless the turn change asked to stay in the round)."""
    state = ctx.state
    change = frame.pop("changing")
    following = change["to"]
    if table.dead(state, following):
        following = table.next_actor(state, following)
    _position(ctx)["current"] = following
    previous = table.previous_actor(state, following)
    if not change["skip_round_plus"] and table.seat_number(state, following) <= table.seat_number(state, previous):
        frame["bearer"] = previous
        return "round_end"
    return "turn"


def _round_end(ctx: Context, frame: Frame) -> str:
    """Borne by the current player's previous player: "以当前行动者的上家为承担者"."""
    ctx.fire(kt.ROUND_END, _round_data(ctx, frame["bearer"]))
    return "after_round_end"


def _after_round_end(ctx: Context, frame: Frame) -> None:
    ctx.fire(kt.AFTER_ROUND_END, _round_data(ctx, frame.pop("bearer")))
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
}
