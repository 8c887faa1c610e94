"""Non-interference: what a seat sees and is asked depends only on what that
seat may know, for every built-in game (Big Two, Duel, Kingdoms) and the
test game trio.

The property. From random reachable states (a random seed, table size and
number of random legal moves, made at varied times and now and then left
to the turn timer, so deadlines differ), for every viewer (each seat and a
spectator): draw again everything hidden from the viewer, consistently
with what it knows (hidden_information.py: the other hands, the order of
every deck, hidden identities and generals, Duel's secrets, trio's picks,
and the random key that decides every future draw). Then

1. the viewer's view is unchanged, byte for byte;
2. the viewer's own request (if it is asked) is unchanged;
3. every open request is for the same seat with the same deadline: the
   host's turn timer fires at the earliest deadline, which every seat
   observes, and which seats are asked must not betray a hidden card.

A game decides whom to ask while it applies a move, and an ask, once made,
is part of the state, so (3) on one state cannot see a prompt that exists
only because someone holds a fitting card. Hence, for every move:

4. the same move made in a state where only the cards the other seats
   hold were drawn again (the mover cannot tell the two apart) asks the
   same seats by the same deadlines: a prompt's existence is decided from
   public information.

The re-drawing is checked too: in most samples it really changes what the
viewer cannot see (the tests at the end), so the property cannot pass by
re-drawing nothing. Examples are derandomized and bounded, so every run
checks the same games."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hidden_information import identity_hidden, redraw_bigtwo, redraw_duel, redraw_kingdoms, redraw_trio
from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.duel import board as duel_board
from tablehost.games.duel.decks import DECKS
from tablehost.games.duel.game import RULES as DUEL
from tablehost.games.engine.engine import Engine
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Match, seat_id
from tablehost.games.engine.plugin import Action
from tablehost.games.engine.rules import GameRules
from tablehost.games.engine.state import State, player_hand_zone_id
from tablehost.games.engine.views import canonical_bytes
from tablehost.games.kingdoms import table as kingdoms_table
from tablehost.games.kingdoms.game import RULES as KINGDOMS
from tests.testgames.trio import RULES as TRIO

TIMEOUT_MS = 1_000
# How often a move is left to the turn timer instead of made by its seat.
TIMER_SHARE = 0.1


class Redraw(Protocol):
    def __call__(self, state: State, viewer: int | None, rng: random.Random, *, held_only: bool = False) -> State: ...


@dataclass(frozen=True)
class Game:
    rules: GameRules
    redraw: Redraw
    options: dict[str, Any]
    join: Callable[[random.Random, int], list[dict[str, Any]] | None] = lambda rng, seats: None


BIGTWO_GAME = Game(BIGTWO, redraw_bigtwo, {"turn_timeout_ms": TIMEOUT_MS})
DUEL_GAME = Game(DUEL, redraw_duel, {"turn_timeout_ms": TIMEOUT_MS},
                 lambda rng, seats: [{"deck": rng.choice(sorted(DECKS))} for _ in range(seats)])
KINGDOMS_GAME = Game(KINGDOMS, redraw_kingdoms, {"turn_timeout_ms": TIMEOUT_MS, "response_timeout_ms": TIMEOUT_MS // 2})
TRIO_GAME = Game(TRIO, redraw_trio, {"turn_timeout_ms": TIMEOUT_MS},
                 lambda rng, seats: [{"league": "a"} for _ in range(seats)])


@dataclass(frozen=True)
class Move:
    seat: int
    action: dict[str, Any]
    now_ms: int
    automatic: bool = False


# -- playing random games ---------------------------------------------------------------


def new_match(game: Game, seed: int, seats: int, bot: random.Random) -> Match:
    return Match(game.rules, TableSeed.numbered(seed), [f"player {seat}" for seat in range(seats)],
                 dict(game.options), 0, game.join(bot, seats))


def next_move(match: Match, bot: random.Random, now_ms: int) -> Move:
    """A random listed action of a random asked seat, made a random while
    after the last move; or the timer's, when its deadline comes first or
    now and then at random."""
    deadline = match.deadline_ms
    later = now_ms + bot.randrange(1, TIMEOUT_MS)
    if deadline is not None and (later >= deadline or bot.random() < TIMER_SHARE):
        expired = match.next_expired(deadline)
        if expired is not None and expired.default is not None:
            return Move(expired.seat, expired.default, deadline, automatic=True)
    request = bot.choice(match.requests)
    return Move(request.seat, bot.choice(request.legal_actions or [request.default]), min(later, deadline or later))


def reachable_states(
    game: Game, seed: int, seats: int, moves: int, bot_seed: int
) -> Iterator[tuple[State, Move | None, State | None]]:
    """Each state of a random game up to `moves` moves, with the move made
    from it and the state that move led to (None at the last state)."""
    bot = random.Random(bot_seed)
    match = new_match(game, seed, seats, bot)
    now_ms = 0
    for _ in range(moves):
        if match.result is not None:
            break
        move = next_move(match, bot, now_ms)
        before = match.state
        match.act(move.seat, move.action, move.now_ms, move.automatic)
        now_ms = move.now_ms
        yield before, move, match.state
    yield match.state, None, None


# -- what a viewer observes -------------------------------------------------------------


def view_bytes(rules: GameRules, state: State, viewer: int | None) -> bytes:
    return canonical_bytes(rules.views(state, [viewer])[viewer])


def own_request(rules: GameRules, state: State, viewer: int | None) -> bytes | None:
    """The request the viewer's view carries, as the host adds it (a spectator has none)."""
    request = next((r for r in rules.requests(state) if r.seat == viewer), None)
    return None if request is None else canonical_bytes(request.to_view())


def timers(rules: GameRules, state: State) -> list[tuple[int, int | None]]:
    """Every open request's seat and deadline: whom the table waits for, and
    when the host's timer fires (at the earliest), which every seat sees."""
    return sorted((request.seat, request.deadline_ms) for request in rules.requests(state))


def differing_fields(rules: GameRules, state: State, other: State, viewer: int | None) -> list[str]:
    mine, theirs = rules.views(state, [viewer])[viewer], rules.views(other, [viewer])[viewer]
    return sorted(key for key in mine.keys() | theirs.keys()
                  if canonical_bytes(mine.get(key)) != canonical_bytes(theirs.get(key)))


def assert_indistinguishable(rules: GameRules, state: State, redrawn: State, viewer: int | None, where: str) -> None:
    who = "the spectator" if viewer is None else f"seat {viewer}"
    assert view_bytes(rules, redrawn, viewer) == view_bytes(rules, state, viewer), (
        f"{where}: {who}'s view changed with what it cannot see: {differing_fields(rules, state, redrawn, viewer)}")
    assert own_request(rules, redrawn, viewer) == own_request(rules, state, viewer), (
        f"{where}: {who}'s request changed with what it cannot see")
    assert timers(rules, redrawn) == timers(rules, state), (
        f"{where}: who is asked, and by when, changed with what {who} cannot see: "
        f"{timers(rules, state)} became {timers(rules, redrawn)}")


_ENGINES: dict[str, Engine] = {}


def after(rules: GameRules, state: State, move: Move) -> State:
    engine = _ENGINES.setdefault(rules.name, rules.engine())
    payload = {key: value for key, value in move.action.items() if key != "type"}
    moved, _ = engine.dispatch(state, Action(move.action["type"], seat_id(move.seat), payload, move.seat), move.now_ms)
    return moved


# -- the property -----------------------------------------------------------------------


def check_noninterference(game: Game, seed: int, seats: int, moves: int, bot_seed: int) -> None:
    rules = game.rules
    rng = random.Random(f"redraw {bot_seed}")
    viewers: list[int | None] = [*range(seats), None]
    for step, (state, move, moved) in enumerate(reachable_states(game, seed, seats, moves, bot_seed)):
        where = f"{rules.name}, seed {seed}, {seats} seats, bot {bot_seed}, after {step} moves"
        for viewer in viewers:
            assert_indistinguishable(rules, state, game.redraw(state, viewer, rng), viewer, where)
        if move is None or moved is None:
            continue
        held_redrawn = game.redraw(state, move.seat, rng, held_only=True)
        assert_indistinguishable(rules, state, held_redrawn, move.seat, where)
        asked = timers(rules, after(rules, held_redrawn, move))
        assert asked == timers(rules, moved), (
            f"{where}: seat {move.seat}'s move {move.action} at {move.now_ms} asks {timers(rules, moved)}, "
            f"but {asked} when the other seats hold other cards: whom to ask was decided from hidden cards")


def bounded(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


seeds = st.integers(min_value=0, max_value=2**32 - 1)
bot_seeds = st.integers(min_value=0, max_value=2**32 - 1)


@given(seeds, st.integers(min_value=0, max_value=120), bot_seeds)
@bounded(40)
def test_a_bigtwo_seat_sees_and_is_asked_nothing_that_depends_on_what_it_cannot_see(
    seed: int, moves: int, bot_seed: int
) -> None:
    check_noninterference(BIGTWO_GAME, seed, 4, moves, bot_seed)


@given(seeds, st.integers(min_value=0, max_value=150), bot_seeds)
@bounded(40)
def test_a_duel_seat_sees_and_is_asked_nothing_that_depends_on_what_it_cannot_see(
    seed: int, moves: int, bot_seed: int
) -> None:
    check_noninterference(DUEL_GAME, seed, 2, moves, bot_seed)


@given(seeds, st.integers(min_value=2, max_value=8), st.integers(min_value=0, max_value=220), bot_seeds)
@bounded(60)
def test_a_kingdoms_seat_sees_and_is_asked_nothing_that_depends_on_what_it_cannot_see(
    seed: int, seats: int, moves: int, bot_seed: int
) -> None:
    check_noninterference(KINGDOMS_GAME, seed, seats, moves, bot_seed)


@given(seeds, st.integers(min_value=0, max_value=13), bot_seeds)
@bounded(40)
def test_a_trio_seat_sees_and_is_asked_nothing_that_depends_on_what_it_cannot_see(
    seed: int, moves: int, bot_seed: int
) -> None:
    check_noninterference(TRIO_GAME, seed, 3, moves, bot_seed)


# -- the re-drawing itself: it keeps what is seen and changes what is not ------------------


def sample_states(game: Game, seats: int, games: int = 4) -> list[State]:
    """Every state of a few whole random games."""
    return [state for number in range(games)
            for state, _, _ in reachable_states(game, number, seats, 10_000, number)]


def every_card(state: State) -> list[str]:
    return sorted(card for zone in state["zones"].values() for card in zone["cards"])


def zone_sizes(state: State) -> dict[str, int]:
    return {zone_id: len(zone["cards"]) for zone_id, zone in state["zones"].items()}


def hands_of_others(state: State, viewer: int | None) -> list[list[str]]:
    return [sorted(state["zones"][player_hand_zone_id(player["id"])]["cards"])
            for seat, player in enumerate(state["players"]) if seat != viewer]


def changed_share(pairs: list[tuple[State, State]], part: Callable[[State], Any]) -> float:
    """In how many of the pairs (state, re-drawn state) `part` differs."""
    assert pairs, "no sample where the re-draw could change this"
    return sum(part(state) != part(redrawn) for state, redrawn in pairs) / len(pairs)


ALL_GAMES = {"bigtwo": (BIGTWO_GAME, 4), "duel": (DUEL_GAME, 2), "kingdoms": (KINGDOMS_GAME, 5), "trio": (TRIO_GAME, 3)}


def test_a_redraw_keeps_every_card_every_zone_size_and_leaves_the_state_it_was_given_alone() -> None:
    rng = random.Random(1)
    for game, seats in ALL_GAMES.values():
        for state in sample_states(game, seats, games=2):
            before = canonical_bytes(state)
            for viewer in (*range(seats), None):
                for held_only in (False, True):
                    redrawn = game.redraw(state, viewer, rng, held_only=held_only)
                    assert every_card(redrawn) == every_card(state)
                    assert zone_sizes(redrawn) == zone_sizes(state)
            assert canonical_bytes(state) == before


def test_a_full_redraw_always_draws_a_new_random_key_and_a_held_only_one_keeps_it() -> None:
    rng = random.Random(2)
    for game, seats in ALL_GAMES.values():
        for state in sample_states(game, seats, games=1):
            key = state["rng"]["key"]
            assert game.redraw(state, 0, rng)["rng"]["key"] != key
            assert game.redraw(state, 0, rng, held_only=True)["rng"]["key"] == key


def test_a_bigtwo_redraw_deals_the_other_three_hands_again() -> None:
    rng = random.Random(3)
    for viewer in (0, 3, None):
        pairs = [(state, redraw_bigtwo(state, viewer, rng)) for state in sample_states(BIGTWO_GAME, 4)
                 if sum(1 for hand in hands_of_others(state, viewer) if hand) >= 2]
        assert changed_share(pairs, lambda state: hands_of_others(state, viewer)) > 0.95
        if viewer is not None:
            own_hand = player_hand_zone_id(seat_id(viewer))
            assert changed_share(pairs, lambda state: state["zones"][own_hand]["cards"]) == 0


def test_a_duel_redraw_changes_the_other_sides_hand_deck_and_secrets_and_the_viewers_deck_order() -> None:
    rng = random.Random(4)
    states = sample_states(DUEL_GAME, 2, games=8)
    for viewer in (0, 1):
        other = 1 - viewer
        pairs = [(state, redraw_duel(state, viewer, rng)) for state in states
                 if duel_board.hand(state, other) and duel_board.deck(state, other)]
        assert changed_share(pairs, lambda state: sorted(duel_board.hand(state, other))) > 0.9
        assert changed_share(pairs, lambda state: duel_board.deck(state, other)) > 0.9
        assert changed_share(pairs, lambda state: sorted(duel_board.hand(state, viewer))) == 0
        own_decks = [pair for pair in pairs if len(duel_board.deck(pair[0], viewer)) > 2]
        assert changed_share(own_decks, lambda state: duel_board.deck(state, viewer)) > 0.9
        with_secrets = [(state, redraw_duel(state, viewer, rng)) for state in states
                        if duel_board.secrets(state, other) and duel_board.deck(state, other)]
        assert changed_share(with_secrets, lambda state: sorted(duel_board.secrets(state, other))) > 0.5


def identities_seen_by(state: State, viewer: int | None) -> list[str | None]:
    return [None if seat != viewer and identity_hidden(state, seat) else kingdoms_table.player(state, seat)["identity"]
            for seat in range(len(state["players"]))]


def hidden_identities(state: State, viewer: int | None) -> list[str]:
    return [kingdoms_table.player(state, seat)["identity"] for seat in range(len(state["players"]))
            if seat != viewer and identity_hidden(state, seat)]


def hidden_offers(state: State, viewer: int | None) -> list[list[str]]:
    return [record["data"]["offered"] for seat, record in enumerate(state["players"])
            if seat != viewer and record["data"]["offered"] and not record["data"]["shown"]]


def offered_once(state: State) -> bool:
    offered = [name for seat in range(len(state["players"])) for name in kingdoms_table.player(state, seat)["offered"]]
    return len(offered) == len(set(offered))


def test_a_kingdoms_redraw_changes_the_other_hands_the_deck_hidden_identities_and_hidden_generals() -> None:
    rng = random.Random(5)
    states = sample_states(KINGDOMS_GAME, 5) + sample_states(KINGDOMS_GAME, 8, games=2)
    for viewer in (0, 2, None):
        pairs = [(state, redraw_kingdoms(state, viewer, rng)) for state in states]
        dealt = [(state, redrawn) for state, redrawn in pairs if kingdoms_table.cards_in(state, kingdoms_table.DECK)
                 and any(hands_of_others(state, viewer))]
        assert changed_share(dealt, lambda state: hands_of_others(state, viewer)) > 0.95
        assert changed_share(dealt, lambda state: kingdoms_table.cards_in(state, kingdoms_table.DECK)) > 0.95
        assert changed_share(pairs, lambda state: identities_seen_by(state, viewer)) == 0
        hidden = [(state, redrawn) for state, redrawn in pairs if len(set(hidden_identities(state, viewer))) > 1]
        assert changed_share(hidden, lambda state: hidden_identities(state, viewer)) > 0.5
        choosing = [(state, redrawn) for state, redrawn in pairs if hidden_offers(state, viewer)]
        assert changed_share(choosing, lambda state: hidden_offers(state, viewer)) > 0.9
        for state, redrawn in choosing:
            if offered_once(state):
                assert offered_once(redrawn), "the game offers no general twice, and neither may a re-draw"


def test_a_trio_redraw_changes_the_picks_not_yet_shown() -> None:
    rng = random.Random(6)
    states = sample_states(TRIO_GAME, 3, games=20)
    for viewer in (0, 1, None):
        def hidden_picks(state: State) -> list[int | None]:
            variables = state["variables"]
            return [pick for seat, pick in enumerate(variables["picks"])
                    if seat != viewer and variables["phase"] == "pick"]

        pairs = [(state, redraw_trio(state, viewer, rng)) for state in states
                 if any(pick is not None for pick in hidden_picks(state))]
        assert changed_share(pairs, hidden_picks) > 0.5


def test_a_held_only_redraw_changes_the_other_hands_and_keeps_what_a_move_may_reveal() -> None:
    rng = random.Random(7)
    states = sample_states(KINGDOMS_GAME, 5)
    for viewer in (0, 3):
        pairs = [(state, redraw_kingdoms(state, viewer, rng, held_only=True)) for state in states
                 if sum(1 for hand in hands_of_others(state, viewer) if hand) >= 2]
        assert changed_share(pairs, lambda state: hands_of_others(state, viewer)) > 0.9
        assert changed_share(pairs, lambda state: kingdoms_table.cards_in(state, kingdoms_table.DECK)) == 0
        assert changed_share(pairs, lambda state: [p["data"]["identity"] for p in state["players"]]) == 0
    duel_states = sample_states(DUEL_GAME, 2)
    pairs = [(state, redraw_duel(state, 0, rng, held_only=True)) for state in duel_states
             if duel_board.hand(state, 1) and duel_board.deck(state, 1)]
    assert changed_share(pairs, lambda state: sorted(duel_board.hand(state, 1))) > 0.9
    assert changed_share(pairs, lambda state: duel_board.secrets(state, 1)) == 0
