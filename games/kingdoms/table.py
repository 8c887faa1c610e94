"""Where things are in a Kingdoms state, and the reads every rule uses.

Layout, beside the engine's own keys (the state stays plain data):

- zones: `deck` (its order is never shown), `discard`, `processing` (cards
  being used or judged, shown to all), and per player `p0`:
  `player:p0:hand`, `player:p0:equip` (at most one card per slot) and
  `player:p0:judge` (delayed tricks, in the order they were placed, never
  two of one name);
- `players[seat]["data"]`: identity, general (None until shown), offered
  generals, health, max_health, alive, face_up, rest (turns a resting
  player still waits, counted down at each of their turns; 0 when not
  resting: a player neither alive nor resting is dead), slashes (used this
  turn), lucky_left (lucky cards left), skip (phases to skip the next time
  they are entered);
- `variables`: the options, the frame stack (machine.py) and the result.

Seats and the seed's numbering: a seat is the engine's 0-based index in
`players`, fixed by the host. The seed numbers seats from 1 with the lord
at seat 1, so the seed's seat number of `seat` is
`(seat - lord) % players + 1`: play goes round in increasing seat order
from the lord, and a round ends when the next actor's number is not greater
than their previous player's (上家, previous_actor)."""

from __future__ import annotations

from typing import Any

from tablehost.games.engine.draw import create_draw_card_action
from tablehost.games.engine.engine import Context
from tablehost.games.engine.state import State, move_card, seat_player_id, seat_zone_id
from tablehost.games.kingdoms import cards

DECK = "deck"
DISCARD = "discard"
PROCESSING = "processing"

# A turn's phases, in order; a player outside their turn is "out of turn".
START_PHASE, JUDGE_PHASE, DRAW_PHASE = "start", "judge", "draw"
PLAY_PHASE, DISCARD_PHASE, FINISH_PHASE = "play", "discard", "finish"
PHASES = (START_PHASE, JUDGE_PHASE, DRAW_PHASE, PLAY_PHASE, DISCARD_PHASE, FINISH_PHASE)
OUT_OF_TURN = "out_of_turn"

LORD, LOYALIST, REBEL, RENEGADE = "lord", "loyalist", "rebel", "renegade"

VAR_RESULT = "kingdoms.result"
GAME_OVER = "GAME_OVER"
TURNED_OVER = "TURNED_OVER"
SKILL_USED = "SKILL_USED"

Record = dict[str, Any]


def seats(state: State) -> int:
    return len(state["players"])


def player(state: State, seat: int) -> Record:
    return state["players"][seat]["data"]


def hand_zone(state: State, seat: int) -> str:
    return seat_zone_id(state, seat, "hand")


def equip_zone(state: State, seat: int) -> str:
    return seat_zone_id(state, seat, "equip")


def judge_zone(state: State, seat: int) -> str:
    return seat_zone_id(state, seat, "judge")


def cards_in(state: State, zone_id: str) -> list[str]:
    return state["zones"][zone_id]["cards"]


def hand(state: State, seat: int) -> list[str]:
    return cards_in(state, hand_zone(state, seat))


def equipment(state: State, seat: int) -> list[str]:
    return cards_in(state, equip_zone(state, seat))


def judgements(state: State, seat: int) -> list[str]:
    return cards_in(state, judge_zone(state, seat))


def all_cards_of(state: State, seat: int) -> list[str]:
    """Hand, equipment and judgement zone: what Dismantle or Snatch may take."""
    return hand(state, seat) + equipment(state, seat) + judgements(state, seat)


def zone_of(state: State, card_id: str) -> str:
    return next(zone_id for zone_id, zone in state["zones"].items() if card_id in zone["cards"])


def move(state: State, card_id: str, to_zone_id: str) -> None:
    move_card(state, card_id, zone_of(state, card_id), to_zone_id)


def discard(state: State, card_id: str) -> None:
    move(state, card_id, DISCARD)


def holding(state: State, seat: int, name: str) -> list[str]:
    return [card_id for card_id in hand(state, seat) if cards.card(card_id).name == name]


def equipped(state: State, seat: int, slot: str) -> str | None:
    return next((c for c in equipment(state, seat) if cards.spec_of(c).slot == slot), None)


def current_seat(state: State) -> int:
    return state["position"]["current"]


def alive(state: State, seat: int) -> bool:
    return player(state, seat)["alive"]


def resting(state: State, seat: int) -> bool:
    """Out of play for a while (Nirvana): not alive, but not dead either;
    `rest` counts the player's turns until they return."""
    return not alive(state, seat) and player(state, seat)["rest"] > 0


def dead(state: State, seat: int) -> bool:
    """Out of the game for good: their identity is shown."""
    return not alive(state, seat) and player(state, seat)["rest"] == 0


def may_answer(state: State, seat: int) -> bool:
    """Whether `seat` could answer a request for a card, by what everyone
    sees: a living player with a card in hand (hand sizes are public). Who
    is asked is decided by this alone, never by the cards a hand holds, so
    being asked tells the table nothing hidden."""
    return alive(state, seat) and bool(hand(state, seat))


def may_hold_delayed(state: State, seat: int, name: str) -> bool:
    """A judgement area never holds two delayed tricks of one name, as in
    Sanguosha: a second Indulgence cannot be used on a player, and a
    Lightning passes over a player who has one."""
    return all(cards.card(card_id).name != name for card_id in judgements(state, seat))


def place_delayed(state: State, card_id: str, seat: int) -> None:
    """Put a delayed trick into `seat`'s judgement area; the rules never
    try to put a second of a name there (see may_hold_delayed)."""
    name = cards.card(card_id).name
    if not may_hold_delayed(state, seat, name):
        raise ValueError(f"seat {seat}'s judgement area already holds a {name}")
    move(state, card_id, judge_zone(state, seat))


def lord(state: State) -> int:
    return next(seat for seat in range(seats(state)) if player(state, seat)["identity"] == LORD)


def seat_number(state: State, seat: int) -> int:
    """The seed's 1-based seat number (the lord is 1); see the module docstring."""
    return (seat - lord(state)) % seats(state) + 1


def living_from(state: State, seat: int) -> list[int]:
    """Living seats in seat order, starting with `seat` (if it lives)."""
    count = seats(state)
    return [s for s in ((seat + k) % count for k in range(count)) if alive(state, s)]


def next_living(state: State, seat: int) -> int:
    """The next living seat after `seat` in seat order (`seat` itself when
    it is the only one alive)."""
    count = seats(state)
    for step in range(1, count + 1):
        candidate = (seat + step) % count
        if alive(state, candidate):
            return candidate
    return seat


def next_actor(state: State, seat: int) -> int:
    """Who takes the turn after `seat`: the next living or resting player
    (a resting player's turn counts down their rest)."""
    count = seats(state)
    for step in range(1, count + 1):
        candidate = (seat + step) % count
        if alive(state, candidate) or player(state, candidate)["rest"] > 0:
            return candidate
    return seat


def previous_actor(state: State, seat: int) -> int:
    """The seed's 上家 of `seat`: the nearest player before it in seat order
    who takes turns (living or resting), the one whose next actor `seat`
    is; `seat` itself when nobody else does."""
    count = seats(state)
    for step in range(1, count + 1):
        candidate = (seat - step) % count
        if alive(state, candidate) or player(state, candidate)["rest"] > 0:
            return candidate
    return seat


def distance(state: State, source: int, target: int) -> int:
    """The shorter way round the table counting living players only, one
    farther for the target's +1 horse and one closer for the source's -1
    horse, never below 1."""
    if source == target:
        return 0
    ring = living_from(state, source)
    steps = ring.index(target)
    base = min(steps, len(ring) - steps)
    if equipped(state, target, cards.PLUS_HORSE) is not None:
        base += 1
    if equipped(state, source, cards.MINUS_HORSE) is not None:
        base -= 1
    return max(1, base)


def attack_range(state: State, seat: int) -> int:
    weapon = equipped(state, seat, cards.WEAPON)
    return cards.spec_of(weapon).weapon_range if weapon is not None else 1


def result(state: State) -> dict[str, Any] | None:
    return state["variables"].get(VAR_RESULT)


def draw(ctx: Context, seat: int, count: int) -> None:
    """`seat` draws `count` cards, the discard pile reshuffled into the deck
    when it runs out. When even both together are too few the game cannot go
    on: it ends as a draw (outcome.py)."""
    if count <= 0 or result(ctx.state) is not None:
        return
    if len(cards_in(ctx.state, DECK)) + len(cards_in(ctx.state, DISCARD)) < count:
        end_in_a_draw(ctx, "the deck and the discard pile ran out")
        return
    ctx.run(create_draw_card_action(seat_player_id(ctx.state, seat), count, DECK, hand_zone(ctx.state, seat)))


def turn_over(ctx: Context, seat: int) -> None:
    """Turn `seat`'s general over (face down: their next turn is skipped, and
    turns it face up again)."""
    record = player(ctx.state, seat)
    record["face_up"] = not record["face_up"]
    ctx.emit(TURNED_OVER, {"seat": seat, "face_up": record["face_up"]})


def announce_skill(ctx: Context, seat: int, skill: str) -> None:
    """Tell the table that `seat`'s skill acted (skills are public)."""
    ctx.emit(SKILL_USED, {"seat": seat, "skill": skill})


def finish(ctx: Context, winners: list[int], side: str, reason: str) -> None:
    """End the game: `winners` score 1 and everyone else -1 (a draw: all 0).
    Every identity is revealed in the result."""
    count = seats(ctx.state)
    drawn = not winners
    outcome = {
        "winner": winners[0] if winners else -1,
        "winners": winners,
        "side": side,
        "draw": drawn,
        "reason": reason,
        "scores": [0 if drawn else (1 if seat in winners else -1) for seat in range(count)],
        "identities": [player(ctx.state, seat)["identity"] for seat in range(count)],
    }
    ctx.state["variables"][VAR_RESULT] = outcome
    ctx.emit(GAME_OVER, outcome)


def end_in_a_draw(ctx: Context, reason: str) -> None:
    finish(ctx, [], "draw", reason)
