"""The Big Two table played through `Match`: deal, leading, beating, passing, scoring, the timer, views.

Scenarios are arranged by building a real match and then rewriting its hands and the
table in `match.state`; the cards left out go to the discard pile so that all 52 stay
accounted for. Which combination beats which is combos.py's business and has its own
tests; here we check that the table asks it and acts on the answer.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tablehost.games.bigtwo.cards import FULL_DECK, card_order, parse_cards
from tablehost.games.bigtwo.combos import classify
from tablehost.games.bigtwo.game import (
    GAME_OVER,
    PASSED,
    PLAYED,
    RULES,
    TRICK_CLEARED,
    VAR_FIRST_PLAY,
    VAR_LAST_PLAY,
    VAR_PASSED,
    score_hands,
)
from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Match, seat_id
from tablehost.games.engine.state import player_hand_zone_id
from tablehost.games.engine.views import canonical_bytes

PLAYERS = ["p0", "p1", "p2", "p3"]


def new_match(seed: int = 1, options: dict[str, Any] | None = None, started_ms: int = 0) -> Match:
    return Match(RULES, TableSeed.numbered(seed), list(PLAYERS), options or {}, started_ms, keep_events=True)


def hand(match: Match, seat: int) -> list[str]:
    return match.state["zones"][player_hand_zone_id(seat_id(seat))]["cards"]


def arranged(
    hands: dict[int, str | None],
    to_act: int,
    last_play: tuple[int, str] | None = None,
    first_play: bool = False,
    passed: tuple[int, ...] = (),
) -> Match:
    """A match whose hands and table are exactly as given; `last_play` is (seat, cards).
    A hand given as None gets two cards that no other hand and no play on the table
    uses: a filler for a seat that plays no part in the scenario."""
    match = new_match()
    state = match.state
    given = {seat: parse_cards(cards) for seat, cards in hands.items() if cards is not None}
    on_table = parse_cards(last_play[1]) if last_play else []
    used = [card for cards in given.values() for card in cards] + on_table
    assert len(set(used)) == len(used), "a card may be in one place only"
    spare = iter(card for card in FULL_DECK if card not in used)
    held: set[str] = set()
    for seat in range(4):
        cards = given[seat] if seat in given else [next(spare), next(spare)]
        held.update(cards)
        state["zones"][player_hand_zone_id(seat_id(seat))]["cards"] = cards
    state["zones"]["deck"]["cards"] = []
    state["zones"]["discard"]["cards"] = [card for card in FULL_DECK if card not in held]
    state["position"]["current"] = to_act
    variables = state["variables"]
    variables[VAR_FIRST_PLAY] = first_play
    variables[VAR_PASSED] = list(passed)
    if last_play is None:
        variables[VAR_LAST_PLAY] = None
    else:
        combination = classify(on_table)
        assert combination is not None
        variables[VAR_LAST_PLAY] = {
            "seat": last_play[0],
            "kind": combination.kind.value,
            "cards": list(combination.cards),
        }
    return match


def play(*cards: str) -> dict[str, Any]:
    return {"type": "play", "cards": list(cards)}


PASS = {"type": "pass"}


def fork(match: Match) -> Match:
    """A copy to try an action on: `act` replaces the state and appends to the logs,
    so sharing the (never mutated) state is safe once the logs are copied."""
    clone = copy.copy(match)
    clone.commands = list(match.commands)
    clone.events = list(match.events)
    return clone


def refused(match: Match, seat: int, action: Any, reason: Reason) -> RuleError:
    before_hash, before = match.state_hash(), copy.deepcopy(match.state)
    with pytest.raises(RuleError) as refusal:
        match.act(seat, action, 1)
    assert refusal.value.reason is reason, refusal.value.message
    assert match.state_hash() == before_hash
    assert match.state == before
    return refusal.value


def four_hands(**given: str) -> dict[int, str | None]:
    """Hands by seat (`s1="3C 3D"`); the seats not named get filler hands."""
    hands: dict[int, str | None] = {seat: None for seat in range(4)}
    hands.update({int(seat[1:]): cards for seat, cards in given.items()})
    return hands


# --- seats, deal, card codes ------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2, 2**63 + 5])
def test_four_seats_are_dealt_thirteen_cards_each_and_all_52_are_conserved(seed: int) -> None:
    match = new_match(seed)
    hands = [hand(match, seat) for seat in range(4)]
    assert [len(cards) for cards in hands] == [13] * 4
    assert sorted(card for cards in hands for card in cards) == sorted(FULL_DECK)
    assert match.state["zones"]["deck"]["cards"] == []
    assert match.state["zones"]["discard"]["cards"] == []


@pytest.mark.parametrize("players", [PLAYERS[:3], PLAYERS + ["p4"]])
def test_a_table_seats_exactly_four_players(players: list[str]) -> None:
    with pytest.raises(ValueError, match="4-4"):
        Match(RULES, TableSeed.numbered(1), players, {}, 0)


def test_the_deal_depends_on_the_seed_alone() -> None:
    assert new_match(5).state == new_match(5).state
    assert hand(new_match(5), 0) != hand(new_match(6), 0)


def test_a_seat_sees_its_hand_as_card_codes_from_weakest_to_strongest() -> None:
    match = arranged(four_hands(s0="2S 3C TD AH 3D"), to_act=0)
    assert match.view(0)["hand"] == ["3C", "3D", "TD", "AH", "2S"]
    assert match.view(0)["hand"] == sorted(match.view(0)["hand"], key=card_order)


# --- who leads, the first play, passing, clearing the trick ---------------------


@pytest.mark.parametrize("seed", range(8))
def test_the_holder_of_the_three_of_clubs_acts_first(seed: int) -> None:
    match = new_match(seed)
    holder = next(seat for seat in range(4) if "3C" in hand(match, seat))
    assert RULES.to_act(match.state) == holder
    assert match.view(None)["to_act"] == holder
    assert match.view(None)["first_play"] is True


def test_the_first_play_must_contain_the_three_of_clubs() -> None:
    match = arranged(four_hands(s2="3C 3D 4C 9H"), to_act=2, first_play=True)
    error = refused(match, 2, play("3D"), Reason.ILLEGAL_MOVE)
    assert "3C" in error.message
    refused(match, 2, play("9H"), Reason.ILLEGAL_MOVE)
    match.act(2, play("3C", "3D"), 1)
    assert match.view(None)["last_play"] == {"seat": 2, "kind": "pair", "cards": ["3C", "3D"]}
    assert match.view(None)["first_play"] is False


def test_every_legal_first_play_contains_the_three_of_clubs_and_passing_is_not_offered() -> None:
    match = new_match(3)
    actions = match.view(RULES.to_act(match.state))["request"]["legal_actions"]
    assert actions
    assert all(action["type"] == "play" and "3C" in action["cards"] for action in actions)
    refused(match, RULES.to_act(match.state), PASS, Reason.ILLEGAL_MOVE)


def test_the_leader_may_not_pass() -> None:
    match = arranged(four_hands(s1="7C 8C"), to_act=1)
    error = refused(match, 1, PASS, Reason.ILLEGAL_MOVE)
    assert "lead" in error.message
    assert PASS not in match.view(1)["request"]["legal_actions"]


def test_a_player_who_is_not_leading_may_pass() -> None:
    match = arranged(four_hands(), to_act=1, last_play=(0, "9C"))
    assert match.view(1)["request"]["legal_actions"][-1] == PASS
    events = match.act(1, PASS, 1)
    assert [event.type for event in events] == [PASSED]
    assert events[0].payload == {"seat": 1}
    assert RULES.to_act(match.state) == 2
    assert match.view(None)["passed"] == [1]
    assert match.view(None)["last_play"]["seat"] == 0


def test_when_the_other_three_pass_the_trick_clears_and_the_last_player_leads_anything() -> None:
    match = arranged(four_hands(s0="3D 2S 6C 6D"), to_act=0)
    match.act(0, play("2S"), 1)
    match.act(1, PASS, 2)
    match.act(2, PASS, 3)
    events = match.act(3, PASS, 4)
    assert [event.type for event in events] == [PASSED, TRICK_CLEARED]
    assert events[-1].payload == {"leader": 0}
    view = match.view(0)
    assert (view["to_act"], view["last_play"], view["passed"]) == (0, None, [])
    assert PASS not in view["request"]["legal_actions"]
    match.act(0, play("3D"), 5)  # far lower than the 2S it led before
    assert match.view(None)["last_play"] == {"seat": 0, "kind": "single", "cards": ["3D"]}


def test_the_trick_goes_to_whoever_played_last_even_after_several_plays() -> None:
    match = arranged(four_hands(s0="3D 6C", s1="5C 7C"), to_act=0)
    match.act(0, play("3D"), 1)
    match.act(1, play("5C"), 2)
    match.act(2, PASS, 3)
    match.act(3, PASS, 4)
    assert match.view(None)["last_play"]["seat"] == 1, "the trick is not over while seat 0 may answer"
    events = match.act(0, PASS, 5)
    assert [event.type for event in events] == [PASSED, TRICK_CLEARED]
    assert RULES.to_act(match.state) == 1
    assert match.view(None)["last_play"] is None


def test_passed_lists_only_the_seats_that_passed_on_the_play_to_beat() -> None:
    match = arranged(four_hands(s0="3D 6C", s1="5C 7C", s2="8C 9C"), to_act=0)
    match.act(0, play("3D"), 1)
    match.act(1, PASS, 2)
    match.act(2, play("8C"), 3)
    assert match.view(None)["passed"] == []
    match.act(3, PASS, 4)
    match.act(0, PASS, 5)
    assert match.view(None)["passed"] == [3, 0]


# --- at the table: a play must beat the last play ---------------------------------


@pytest.mark.parametrize(
    ("cards", "why"),
    [
        (("8C",), "a lower single"),
        (("9C",), "the same rank in a lower suit"),
        (("JC", "JD"), "a pair on a single"),
        (("TC", "JD", "QH", "KS", "AC"), "a straight on a single"),
    ],
)
def test_a_play_that_does_not_beat_the_last_play_is_refused(cards: tuple[str, ...], why: str) -> None:
    match = arranged(
        four_hands(s1="8C 9C JC JD TC QH KS AC"), to_act=1, last_play=(0, "9D")
    )
    error = refused(match, 1, play(*cards), Reason.ILLEGAL_MOVE)
    assert "does not beat" in error.message, why


def test_a_higher_single_beats_the_last_play() -> None:
    match = arranged(four_hands(s1="9H 3S"), to_act=1, last_play=(0, "9D"))
    events = match.act(1, play("9H"), 1)
    assert events[0].type == PLAYED
    assert events[0].payload == {"seat": 1, "kind": "single", "cards": ["9H"]}
    assert match.view(None)["last_play"]["seat"] == 1


def test_a_four_of_a_kind_may_be_laid_on_a_single_two() -> None:
    match = arranged(four_hands(s1="7C 7D 7H 7S 3S 4D", s0="5C 6C", s3="4S 5S"), to_act=1, last_play=(0, "2S"))
    assert {"type": "play", "cards": ["3S", "7C", "7D", "7H", "7S"]} in match.view(1)["request"]["legal_actions"]
    match.act(1, play("7C", "7D", "7H", "7S", "3S"), 1)
    assert match.view(None)["last_play"]["kind"] == "four_of_a_kind"


def test_a_straight_flush_may_be_laid_on_a_four_of_a_kind() -> None:
    match = arranged(
        four_hands(s2="3H 4H 5H 6H 7H 9S"), to_act=2, last_play=(1, "AC AD AH AS 8S")
    )
    match.act(2, play("3H", "4H", "5H", "6H", "7H"), 1)
    assert match.view(None)["last_play"]["kind"] == "straight_flush"


@pytest.mark.parametrize(
    ("cards", "fragment"),
    [
        (("3C", "3D", "3H"), "no combination"),
        (("KS",), "not in your hand"),
        (("3C", "3C"), "twice"),
        ((), "no combination"),
        (("ZZ",), "not in your hand"),
    ],
)
def test_cards_that_are_no_play_of_this_hand_are_refused(cards: tuple[str, ...], fragment: str) -> None:
    match = arranged(four_hands(s0="3C 3D 3H 8S", s3="KS 4S"), to_act=0)
    error = refused(match, 0, play(*cards), Reason.ILLEGAL_MOVE)
    assert fragment in error.message


def test_a_play_leaves_the_hand_for_the_discard_pile() -> None:
    match = arranged(four_hands(s0="3D 6C 6D"), to_act=0)
    match.act(0, play("6D", "6C"), 1)
    assert hand(match, 0) == ["3D"]
    assert match.state["zones"]["discard"]["cards"][-2:] == ["6C", "6D"]
    assert match.view(None)["hand_counts"] == [1, 2, 2, 2]


# --- the end and the score -------------------------------------------------------


def test_score_hands_doubles_at_ten_and_triples_at_thirteen() -> None:
    assert score_hands([0, 1, 10, 13]) == [60, -1, -20, -39]


@pytest.mark.parametrize(
    "cards_left",
    [[0, 1, 10, 13], [9, 0, 12, 1], [13, 13, 13, 0], [1, 1, 0, 1], [0, 9, 10, 11]],
)
def test_scores_sum_to_zero_and_the_winner_collects_everything(cards_left: list[int]) -> None:
    scores = score_hands(cards_left)
    assert sum(scores) == 0
    winner = cards_left.index(0)
    assert scores[winner] == -sum(score for seat, score in enumerate(scores) if seat != winner)


def test_nine_cards_are_paid_singly() -> None:
    assert score_hands([0, 9, 1, 1]) == [11, -9, -1, -1]


def test_the_game_ends_when_a_hand_is_empty() -> None:
    match = arranged(
        {0: "2S", 1: "3D", 2: "4C 4D 5C 5D 6C 6D 7C 7D 8C 8D", 3: "9C 9D 9H 9S TC TD TH TS JC JD JH JS QC"},
        to_act=0,
    )
    events = match.act(0, play("2S"), 1_000)
    assert [event.type for event in events] == [PLAYED, GAME_OVER]
    result = {"winner": 0, "cards_left": [0, 1, 10, 13], "scores": [60, -1, -20, -39]}
    assert events[-1].payload == result
    assert match.result == result
    assert RULES.to_act(match.state) is None
    assert match.deadline_ms is None
    for seat in (None, 0, 1, 2, 3):
        view = match.view(seat)
        assert view["result"] == result
        assert view["to_act"] is None
        assert view["deadline_ms"] is None
        assert "request" not in view


def test_a_command_after_the_game_is_over_is_refused_as_game_over() -> None:
    match = arranged(four_hands(s0="2S"), to_act=0)
    match.act(0, play("2S"), 1)
    for seat in range(4):
        refused(match, seat, PASS, Reason.GAME_OVER)
    refused(match, 1, play("4D"), Reason.GAME_OVER)
    # Nobody is asked any more, so no deadline can pass and no timer acts.
    assert match.requests == [] and match.next_expired(10**12) is None


# --- the turn timer -----------------------------------------------------------------


def test_the_default_turn_timer_is_twenty_seconds() -> None:
    match = new_match(started_ms=1_000)
    assert RULES.default_turn_timeout_ms == 20_000
    assert match.deadline_ms == 21_000
    assert match.view(None)["deadline_ms"] == 21_000


def test_the_turn_timeout_option_sets_the_deadline_from_each_move() -> None:
    match = new_match(options={"turn_timeout_ms": 5_000}, started_ms=1_000)
    assert match.deadline_ms == 6_000
    seat = RULES.to_act(match.state)
    match.act(seat, play("3C"), 2_500)
    assert match.deadline_ms == 7_500
    assert match.view(RULES.to_act(match.state))["deadline_ms"] == 7_500


@pytest.mark.parametrize("timeout", [0, -1, "20000", 2.5, True, None])
def test_an_invalid_turn_timeout_is_refused(timeout: object) -> None:
    with pytest.raises(ValueError, match="turn_timeout_ms"):
        new_match(options={"turn_timeout_ms": timeout})


def test_on_timeout_the_first_play_is_the_three_of_clubs_alone() -> None:
    match = new_match(4)
    seat = RULES.to_act(match.state)
    assert RULES.automatic_action(match.state) == play("3C")
    events = match.act_automatically(match.next_expired(20_000), 20_000)
    assert events[0].payload == {"seat": seat, "kind": "single", "cards": ["3C"]}
    assert match.commands[-1].automatic is True
    assert match.commands[-1].seat == seat


def test_on_timeout_a_leader_plays_the_lowest_single() -> None:
    match = arranged(four_hands(s1="2S 4H 4S 3S 9C"), to_act=1)
    assert RULES.automatic_action(match.state) == play("3S")
    match.act_automatically(match.requests[0], 1)
    assert match.view(None)["last_play"] == {"seat": 1, "kind": "single", "cards": ["3S"]}


def test_on_timeout_a_follower_passes() -> None:
    match = arranged(four_hands(s1="2S 6C"), to_act=1, last_play=(0, "3S"))
    assert RULES.automatic_action(match.state) == PASS
    match.act_automatically(match.requests[0], 1)
    assert match.view(None)["passed"] == [1]
    assert RULES.to_act(match.state) == 2


# --- the envelope: seat, shape, kind ----------------------------------------------------------


def test_a_seat_that_is_not_to_act_is_refused_as_not_your_turn() -> None:
    match = new_match(1)
    for seat in range(4):
        if seat != RULES.to_act(match.state):
            refused(match, seat, play(*hand(match, seat)[:1]), Reason.NOT_YOUR_TURN)


def test_a_seat_that_is_not_at_the_table_is_refused() -> None:
    match = new_match(1)
    refused(match, 4, PASS, Reason.MALFORMED)
    refused(match, -1, PASS, Reason.MALFORMED)


@pytest.mark.parametrize(
    "action",
    [
        {"type": "play"},
        {"type": "play", "cards": "3C"},
        {"type": "play", "cards": [3]},
        {"type": "play", "cards": None},
        {"type": "play", "cards": [["3C"]]},
        {"type": "pass", "cards": []},
        {"type": "play", "cards": ["9D"], "note": "a stray field"},
        {"type": 1},
        {},
        "play 3C",
        None,
        ["play", "3C"],
    ],
)
def test_a_malformed_command_is_refused_as_malformed(action: Any) -> None:
    match = arranged(four_hands(s1="3C 9D"), to_act=1, last_play=(0, "8S"))
    refused(match, 1, action, Reason.MALFORMED)


@pytest.mark.parametrize("kind", ["fold", "DRAW_CARD", "PLAY", ""])
def test_an_action_the_game_does_not_offer_is_refused_as_unknown(kind: str) -> None:
    match = new_match(1)
    refused(match, RULES.to_act(match.state), {"type": kind, "cards": ["3C"]}, Reason.UNKNOWN_ACTION)


def test_refused_commands_are_not_logged() -> None:
    match = new_match(1)
    with pytest.raises(RuleError):
        match.act(RULES.to_act(match.state), PASS, 1)
    assert match.commands == []


# --- views: hidden hands, requests ------------------------------------------------------------------------


def test_a_seat_view_has_the_documented_keys() -> None:
    match = new_match(2)
    seat = RULES.to_act(match.state)
    assert set(match.view(seat)) == {
        "game", "seat", "players", "to_act", "deadline_ms", "hand_counts",
        "last_play", "passed", "first_play", "result", "hand", "request", "fairness",
    }
    request = match.view(seat)["request"]
    assert set(request) == {"legal_actions", "deadline_ms", "default"}
    assert request["deadline_ms"] == match.view(seat)["deadline_ms"]
    assert request["default"] == RULES.automatic_action(match.state)
    other = (seat + 1) % 4
    assert set(match.view(other)) == set(match.view(seat)) - {"request"}
    assert match.view(other)["seat"] == other


def test_a_spectator_sees_the_public_view_only() -> None:
    match = new_match(2)
    view = match.view(None)
    assert view["seat"] == -1
    assert "hand" not in view and "request" not in view
    assert view["hand_counts"] == [13, 13, 13, 13]
    assert view["players"] == PLAYERS
    encoded = canonical_bytes(view)
    assert not any(b"\xa2" + card.encode() in encoded for card in FULL_DECK)


@pytest.mark.parametrize("seed", range(4))
def test_a_view_never_holds_another_seats_hand_or_the_deck(seed: int) -> None:
    match = new_match(seed)
    for _ in range(6):
        for seat in range(4):
            encoded = canonical_bytes(match.view(seat))
            for other in range(4):
                if other != seat:
                    assert not any(b"\xa2" + card.encode() in encoded for card in hand(match, other))
            assert b"deck" not in encoded and b"zones" not in encoded
        match.act(RULES.to_act(match.state), RULES.legal_actions(match.state, RULES.to_act(match.state))[0], 1)


def test_only_the_seat_to_act_is_offered_legal_actions() -> None:
    match = new_match(5)
    for seat in range(4):
        view = match.view(seat)
        assert ("request" in view) == (seat == RULES.to_act(match.state))
        assert RULES.legal_actions(match.state, seat) == view.get("request", {}).get("legal_actions", [])


@pytest.mark.parametrize(
    ("hands", "to_act", "last_play"),
    [
        (four_hands(s1="3D 4D 5D 6D 7D 7S 7H 7C 2C"), 1, None),
        (four_hands(s1="3D 4D 5D 6D 7D 7S 7H 7C 2C"), 1, (0, "6S")),
        (four_hands(s2="TC JC QC KC AC AD AH AS"), 2, (1, "9C 9D 9H 5S 5H")),
    ],
)
def test_every_legal_action_listed_is_accepted(
    hands: dict[int, str | None], to_act: int, last_play: tuple[int, str] | None
) -> None:
    match = arranged(hands, to_act, last_play)
    actions = match.view(to_act)["request"]["legal_actions"]
    assert len(actions) > 1
    assert len({canonical_bytes(action) for action in actions}) == len(actions), "each action once"
    for action in actions:
        trial = fork(match)
        trial.act(to_act, action, 1)
        assert trial.commands[-1].action == action
    assert match.commands == []
