"""What each asked seat may send, and what its timer sends for it.

The game waits on at most one frame at a time (machine.waiting); its ask
names the kind of question and the seats asked. Each kind lists its legal
actions and its default (taken when the deadline passes):

    kind      asked                       actions                                     default
    general   the lord, then all others   {"type": "choose_general", "general": name}  the first offered
    lucky     every player at once        {"type": "lucky_card"}, {"type": "keep_hand"} keep_hand
    play      the current player          {"type": "use", "card": id, "targets": [seats]},
                                          {"type": "end_play"}                         end_play
    discard   the current player          {"type": "discard", "cards": [ids]}          the last cards drawn
    dodge, peach, slash, retrial
              one player who could answer by what the table sees (alive,
              a card in hand), whether or not they hold a fitting card
                                          {"type": "respond", "card": id}, {"type": "pass"}  pass
    nullify   every such player at once (the first card given closes the question)
                                          as above                                     pass
    pick      a Dismantle's or Snatch's user
                                          {"type": "pick", "card": id or "hand"}       the first option

`targets` is empty for cards that choose none (Peach, Barbarian Invasion,
Lightning, equipment). A discard with more ways than DISCARD_LISTED_AT_MOST
is not listed: its request's `choice` says how many cards to discard.

Who is asked, and every deadline, come from the state everyone sees (our
rule; seed 003 does not say whom to ask), so a prompt tells the table
nothing hidden; only the asked seat's own legal actions (and the
discard's default) read its hand, which it sees anyway. A player without
a fitting card gets a request whose one legal action is to pass."""

from __future__ import annotations

from itertools import combinations
from math import comb

from tablehost.games.engine.rules import ActionMap, Request
from tablehost.games.engine.state import State
from tablehost.games.kingdoms import cards, machine, table, tricks
from tablehost.games.kingdoms.damage import ASK_PEACH
from tablehost.games.kingdoms.flow import CHOOSE_GENERAL, LUCKY_CARD
from tablehost.games.kingdoms.machine import Frame
from tablehost.games.kingdoms.play import ASK_DODGE, ASK_PLAY
from tablehost.games.kingdoms.skills_judgements import ASK_RETRIAL
from tablehost.games.kingdoms.turns import DISCARD_DOWN


DISCARD_LISTED_AT_MOST = 128
PASS: ActionMap = {"type": "pass"}
END_PLAY: ActionMap = {"type": "end_play"}
KEEP_HAND: ActionMap = {"type": "keep_hand"}
LUCKY: ActionMap = {"type": "lucky_card"}

# The card a response kind asks for (None: any hand card).
RESPONSE_CARDS: dict[str, str | None] = {
    ASK_DODGE: cards.DODGE,
    ASK_PEACH: cards.PEACH,
    tricks.ASK_NULLIFY: cards.NULLIFICATION,
    tricks.ASK_SLASH: cards.SLASH,
    ASK_RETRIAL: None,
}

PLAYER_ACTIONS = ("choose_general", "lucky_card", "keep_hand", "use", "end_play", "discard", "respond", "pass", "pick")


def requests(state: State) -> list[Request]:
    frame = machine.waiting(state)
    if frame is None:
        return []
    return [request(state, frame, seat) for seat in frame["ask"]["seats"]]


def request(state: State, frame: Frame, seat: int) -> Request:
    ask = frame["ask"]
    kind, deadline = ask["kind"], ask["deadline_ms"]
    if kind == CHOOSE_GENERAL:
        offered = [{"type": "choose_general", "general": name} for name in table.player(state, seat)["offered"]]
        return Request(seat, offered, deadline, offered[0])
    if kind == LUCKY_CARD:
        actions = ([LUCKY] if table.player(state, seat)["lucky_left"] > 0 else []) + [KEEP_HAND]
        return Request(seat, actions, deadline, KEEP_HAND)
    if kind == ASK_PLAY:
        return Request(seat, [*play_actions(state, seat), END_PLAY], deadline, END_PLAY)
    if kind == DISCARD_DOWN:
        return _discard_request(state, seat, ask["count"], deadline)
    if kind == tricks.ASK_PICK:
        picks = [{"type": "pick", "card": option} for option in tricks.pick_options(state, ask["target"])]
        return Request(seat, picks, deadline, picks[0])
    wanted = RESPONSE_CARDS[kind]
    fitting = [c for c in table.hand(state, seat) if wanted is None or cards.card(c).name == wanted]
    return Request(seat, [*({"type": "respond", "card": c} for c in fitting), PASS], deadline, PASS)


def _discard_request(state: State, seat: int, count: int, deadline: int) -> Request:
    hand = table.hand(state, seat)
    default = {"type": "discard", "cards": hand[-count:]}
    choice = {"discard": count, "from": "hand"}
    listed = []
    if comb(len(hand), count) <= DISCARD_LISTED_AT_MOST:
        listed = [{"type": "discard", "cards": list(chosen)} for chosen in combinations(hand, count)]
    return Request(seat, listed, deadline, default, choice)


def discard_refusal(state: State, seat: int, action: ActionMap, count: int) -> str | None:
    chosen = action.get("cards")
    if set(action) != {"type", "cards"} or not isinstance(chosen, list):
        return "a discard names its cards: {\"type\": \"discard\", \"cards\": [ids]}"
    if len(chosen) != count or len(set(chosen)) != count or not set(chosen) <= set(table.hand(state, seat)):
        return f"discard exactly {count} different cards of your hand"
    return None


def _others(state: State, seat: int) -> list[int]:
    return table.living_from(state, seat)[1:]


def card_targets(state: State, seat: int, card_id: str) -> list[list[int]] | None:
    """The target lists `seat` may use `card_id` with now (None: it cannot
    be used; [[]]: it is used without choosing a target)."""
    record = table.player(state, seat)
    name = cards.card(card_id).name
    spec = cards.spec_of(card_id)
    found: list[list[int]] = []
    if name == cards.SLASH:
        weapon = table.equipped(state, seat, cards.WEAPON)
        unlimited = weapon is not None and cards.card(weapon).name == cards.CROSSBOW
        if record["slashes"] < 1 or unlimited:
            reach = table.attack_range(state, seat)
            found = [[t] for t in _others(state, seat) if table.distance(state, seat, t) <= reach]
    elif name == cards.PEACH:
        found = [[]] if record["health"] < record["max_health"] else []
    elif name == cards.DISMANTLE:
        found = [[t] for t in _others(state, seat) if table.all_cards_of(state, t)]
    elif name == cards.SNATCH:
        found = [[t] for t in _others(state, seat)
                 if table.all_cards_of(state, t) and table.distance(state, seat, t) <= cards.SNATCH_DISTANCE]
    elif name == cards.DUEL:
        found = [[t] for t in _others(state, seat)]
    elif name == cards.BARBARIAN_INVASION:
        found = [[]]
    elif name == cards.INDULGENCE:
        found = [[t] for t in _others(state, seat) if table.may_hold_delayed(state, t, cards.INDULGENCE)]
    elif name == cards.LIGHTNING:
        found = [[]] if table.may_hold_delayed(state, seat, cards.LIGHTNING) else []
    elif spec.kind == cards.EQUIPMENT:
        found = [[]]
    return found or None


def play_actions(state: State, seat: int) -> list[ActionMap]:
    """Each usable card of the hand (hand order) with each of its target lists."""
    actions = []
    for card_id in table.hand(state, seat):
        for targets in card_targets(state, seat, card_id) or ():
            actions.append({"type": "use", "card": card_id, "targets": targets})
    return actions
