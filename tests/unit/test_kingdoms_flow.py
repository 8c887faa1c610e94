"""Kingdoms' game flow, timing by timing as seed 003 orders it: before the
first round (identities, generals, initial cards, lucky cards), rounds,
turns and their pre-checks, phases and skipped phases, the draw count,
the discard phase, and what the timer does when nobody answers."""

from __future__ import annotations

from collections import Counter

import pytest
from kingdoms_scenarios import (
    END_PLAY,
    Harness,
    asked,
    choose_generals,
    expire,
    lord,
    new_match,
    rewrite,
    scene,
    seat_after,
    started,
)

from tablehost.games.engine.errors import RuleError
from tablehost.games.engine.plugin import Trigger
from tablehost.games.kingdoms import flow, table
from tablehost.games.kingdoms import timings as kt
from tablehost.games.kingdoms.game import RULES
from tablehost.games.kingdoms.generals import GENERALS

PHASE_TIMINGS = [kt.PHASE_CHANGING, kt.PHASE_START, kt.PHASE_PROCEEDING]


def normal_turn() -> list[str]:
    fired = [kt.PRE_TURN_START, kt.BEFORE_TURN_START, kt.TURN_START]
    for phase in table.PHASES:
        fired += PHASE_TIMINGS
        if phase == table.DRAW_PHASE:
            fired += [kt.DRAW_N_CARDS, kt.AFTER_DRAW_N_CARDS]
        fired.append(kt.PHASE_END)
    return fired + [kt.TURN_END, kt.TURN_CHANGING]


def finish_turn(match) -> None:
    """End the play phase; let the discard phase's timer discard."""
    match.act(table.current_seat(match.state), END_PLAY, 5)
    while asked(match) is not None and asked(match)[0] == "discard":
        expire(match)


# -- before the first round ----------------------------------------------------------


def test_the_game_opens_with_the_seeds_timings_in_order() -> None:
    rules = Harness()
    match = new_match(4, 4, rules)
    assert rules.timings() == [kt.GAME_PREPARED]
    choose_generals(match)
    assert rules.timings() == [
        kt.GAME_PREPARED, kt.BEFORE_GAME_START, *[kt.DRAW_INITIAL_CARDS] * 4, *[kt.AFTER_DRAW_INITIAL_CARDS] * 4,
        kt.GAME_START, kt.ROUND_START, *normal_turn()[:3 + 4 + 6 + 4], *PHASE_TIMINGS,
    ]
    assert next(fields for timing, fields in rules.log if timing == kt.GAME_START) == {"round": 1, "skipped": False}


@pytest.mark.parametrize("players", range(2, 9))
def test_identities_follow_the_standard_table_for_each_player_count(players: int) -> None:
    match = new_match(players, players)
    dealt = Counter(table.player(match.state, seat)["identity"] for seat in range(players))
    assert dealt == Counter(flow.IDENTITIES[players])
    assert dealt["lord"] == 1 and (players == 2 or dealt["renegade"] == 1)


def test_identities_and_the_lords_seat_come_from_the_seed() -> None:
    lords = {lord(new_match(seed, 5)) for seed in range(12)}
    assert len(lords) > 1
    assert new_match(7).state == new_match(7).state


def test_only_the_lords_identity_is_public_and_each_seat_knows_its_own() -> None:
    match = started(2, 5)
    the_lord = lord(match)
    spectator = match.view(None)
    assert [p["identity"] for p in spectator["players"]] == [
        "lord" if seat == the_lord else None for seat in range(5)
    ]
    for seat in range(5):
        assert match.view(seat)["identity"] == table.player(match.state, seat)["identity"]


def test_the_lord_chooses_first_and_shows_it_then_all_others_choose_at_once() -> None:
    match = new_match(3, 5)
    the_lord = lord(match)
    assert [r.seat for r in match.requests] == [the_lord]
    assert len(match.request_for(the_lord).legal_actions) == flow.LORD_CHOICES
    general = match.request_for(the_lord).legal_actions[1]["general"]
    match.act(the_lord, {"type": "choose_general", "general": general}, 1)
    others = [seat for seat in range(5) if seat != the_lord]
    assert [r.seat for r in match.requests] == others
    assert all(len(r.legal_actions) == flow.OTHER_CHOICES and r.deadline_ms == 1 + 30_000 for r in match.requests)
    assert match.view(None)["players"][the_lord]["general"] == general
    chosen = match.request_for(others[0]).legal_actions[0]["general"]
    match.act(others[0], {"type": "choose_general", "general": chosen}, 2)
    assert match.view(None)["players"][others[0]]["general"] is None, "hidden until everyone has chosen"
    assert match.view(others[0])["chosen_general"] == chosen
    for seat in others[1:]:
        expire(match)
    players = match.view(None)["players"]
    assert all(player["general"] for player in players)
    assert players[the_lord]["max_health"] == GENERALS[general].health + 1
    assert match.state["players"][the_lord]["skills"] == list(GENERALS[general].skills)


def test_every_player_gets_four_initial_cards_from_the_current_player() -> None:
    rules = Harness()
    match = new_match(5, 5, rules)
    choose_generals(match)
    dealt = [fields["player_id"] for timing, fields in rules.log if timing == kt.DRAW_INITIAL_CARDS]
    first = lord(match)
    assert dealt == [f"p{(first + k) % 5}" for k in range(5)]
    assert all(fields["count"] == 4 for timing, fields in rules.log if timing == kt.DRAW_INITIAL_CARDS)


def test_a_trigger_changes_the_initial_card_count() -> None:
    def six_for_p0(ctx, data: kt.DrawInitialData) -> None:
        if data.player_id == "p0":
            data.count = 6

    match = new_match(5, 4, Harness([Trigger(kt.DRAW_INITIAL_CARDS, six_for_p0)]))
    choose_generals(match)
    after = [f for t, f in match.rules.log if t == kt.AFTER_DRAW_INITIAL_CARDS]
    assert {f["player_id"]: f["count"] for f in after} == {"p0": 6, "p1": 4, "p2": 4, "p3": 4}


def test_lucky_cards_redraw_the_hand_all_players_are_asked_at_once_and_the_option_limits_them() -> None:
    match = new_match(6, 3, options={"lucky_cards": 2})
    choose_generals(match, keep_hands=False)
    assert asked(match) == ("lucky", [0, 1, 2])
    before = list(table.hand(match.state, 1))
    match.act(1, {"type": "lucky_card"}, 2)
    after = table.hand(match.state, 1)
    assert len(after) == 4 and after != before
    assert table.player(match.state, 1)["lucky_left"] == 1
    match.act(1, {"type": "lucky_card"}, 2)
    assert asked(match) == ("lucky", [0, 2]), "no lucky card left: seat 1 is done"
    match.act(0, {"type": "keep_hand"}, 3)
    expire(match)
    assert asked(match)[0] != "lucky"


def test_no_lucky_card_question_when_the_option_is_zero() -> None:
    rules = Harness()
    match = new_match(6, 3, rules, {"lucky_cards": 0})
    choose_generals(match)
    assert "lucky" not in str(match.view(0)["prompt"])
    assert rules.timings().count(kt.AFTER_DRAW_INITIAL_CARDS) == 3


def test_bad_options_are_refused() -> None:
    for options in ({"lucky_cards": 9}, {"turn_timeout_ms": 0}, {"response_timeout_ms": "fast"}):
        with pytest.raises(ValueError):
            new_match(1, 3, options=options)


# -- rounds and turns ---------------------------------------------------------------


def test_a_whole_turn_fires_the_seeds_timings_in_order() -> None:
    rules = Harness()
    match = started(8, 4, rules)
    finish_turn(match)
    finish_turn(match)
    fired = rules.timings()
    first_change = fired.index(kt.TURN_CHANGING)
    assert fired[first_change + 1:fired.index(kt.TURN_CHANGING, first_change + 1) + 1] == normal_turn()
    changing = [f for t, f in rules.log if t == kt.TURN_CHANGING][1]
    seat = seat_after(match, lord(match))
    assert changing == {"from_seat": seat, "to_seat": seat_after(match, seat), "skip_round_plus": False}
    phases = [f["phase"] for t, f in rules.log if t == kt.PHASE_START and f["seat"] == seat]
    assert phases == list(table.PHASES)


def test_rounds_go_from_the_lord_in_seat_order_and_end_when_the_seat_number_does_not_grow() -> None:
    rules = Harness()
    match = started(9, 4, rules)
    the_lord = lord(match)
    order = [table.current_seat(match.state)]
    for _ in range(4):
        finish_turn(match)
        order.append(table.current_seat(match.state))
    assert order == [(the_lord + k) % 4 for k in range(5)]
    flow_marks = [t for t in rules.timings() if t in (kt.ROUND_START, kt.ROUND_END, kt.AFTER_ROUND_END, kt.TURN_START)]
    assert flow_marks == [kt.ROUND_START, *[kt.TURN_START] * 4, kt.ROUND_END, kt.AFTER_ROUND_END,
                          kt.ROUND_START, kt.TURN_START]
    assert match.state["position"]["round"] == 2
    assert [table.seat_number(match.state, (the_lord + k) % 4) for k in range(4)] == [1, 2, 3, 4]


def test_dead_players_take_no_turn() -> None:
    match = started(9, 4)
    the_lord = lord(match)
    rewrite(match, lambda state: table.player(state, seat_after(match, the_lord)).update(alive=False))
    finish_turn(match)
    assert table.current_seat(match.state) == seat_after(match, the_lord, 2)


def test_pre_turn_start_returning_true_skips_the_turn_but_not_its_clean_up() -> None:
    skipped: list[int] = []

    def skip_the_marked_seat(ctx, data: kt.TurnData) -> bool:
        return data.seat in skipped

    rules = Harness([Trigger(kt.PRE_TURN_START, skip_the_marked_seat)])
    match = started(10, 3, rules)
    following = seat_after(match, lord(match))
    skipped.append(following)
    rules.log.clear()
    finish_turn(match)
    mine = [t for t, f in rules.log if f.get("seat") == following or f.get("from_seat") == following]
    assert mine == [kt.PRE_TURN_START, kt.TURN_END, kt.TURN_CHANGING]
    assert table.current_seat(match.state) == seat_after(match, following)


def test_a_face_down_general_turns_face_up_and_its_turn_is_skipped() -> None:
    rules = Harness()
    match = started(11, 3, rules)
    following = seat_after(match, lord(match))
    rewrite(match, lambda state: table.player(state, following).update(face_up=False))
    rules.log.clear()
    finish_turn(match)
    mine = [t for t, f in rules.log if f.get("seat") == following or f.get("from_seat") == following]
    assert mine == [kt.PRE_TURN_START, kt.TURN_END, kt.TURN_CHANGING]
    assert table.player(match.state, following)["face_up"]
    assert table.current_seat(match.state) == seat_after(match, following)


def test_a_resting_player_counts_down_and_returns_when_the_rest_is_over() -> None:
    match = started(12, 3)
    following = seat_after(match, lord(match))
    rewrite(match, lambda state: table.player(state, following).update(alive=False, rest=1, health=0))
    finish_turn(match)
    record = table.player(match.state, following)
    assert record["alive"] and record["rest"] == 0 and record["health"] == record["max_health"]


def test_round_9999_ends_the_game_as_a_draw() -> None:
    match = started(13, 2)
    rewrite(match, lambda state: state["position"].update(round=9998))
    finish_turn(match)
    finish_turn(match)
    assert match.result is not None and match.result["draw"] and match.result["winner"] == -1
    assert match.result["scores"] == [0, 0] and "9999" in match.result["reason"]
    assert match.requests == []


# -- phases -------------------------------------------------------------------------


def test_a_phase_skipped_at_its_changing_fires_skipping_and_skipped_only() -> None:
    def skip_draw(ctx, data: kt.PhaseData) -> None:
        if data.phase == table.DRAW_PHASE:
            data.skipped = True

    rules = Harness([Trigger(kt.PHASE_CHANGING, skip_draw)])
    match = started(14, 3, rules)
    rules.log.clear()
    finish_turn(match)
    draw = [t for t, f in rules.log if f.get("phase") == table.DRAW_PHASE or t in (kt.DRAW_N_CARDS,)]
    assert draw == [kt.PHASE_CHANGING, kt.PHASE_SKIPPING, kt.PHASE_SKIPPED]


def test_a_phase_marked_skipped_beforehand_fires_no_changing() -> None:
    rules = Harness()
    match = started(14, 3, rules)
    following = seat_after(match, lord(match))
    rewrite(match, lambda state: flow.skip_phase(state, following, table.PLAY_PHASE))
    rules.log.clear()
    finish_turn(match)
    play = [t for t, f in rules.log if f.get("phase") == table.PLAY_PHASE and f.get("seat") == following]
    assert play == [kt.PHASE_SKIPPING, kt.PHASE_SKIPPED]
    assert asked(match)[0] in ("discard", "play") and table.current_seat(match.state) != following


def test_the_draw_phase_draws_two_and_a_trigger_changes_the_count() -> None:
    def three(ctx, data: kt.DrawNCardsData) -> None:
        data.count = 3

    match = started(15, 3, Harness([Trigger(kt.DRAW_N_CARDS, three)]))
    following = seat_after(match, lord(match))
    scene(match)
    finish_turn(match)
    assert len(table.hand(match.state, following)) == 3
    plain = started(15, 3)
    scene(plain)
    finish_turn(plain)
    assert len(table.hand(plain.state, seat_after(plain, lord(plain)))) == 2


def test_the_discard_phase_discards_down_to_health_and_the_timer_discards_the_last_cards() -> None:
    match = started(16, 3)
    the_lord = lord(match)
    held = scene(match, {the_lord: ["Slash", "Dodge", "Slash", "Dodge", "Slash", "Dodge", "Slash"]})[the_lord]
    match.act(the_lord, END_PLAY, 5)
    request = match.request_for(the_lord)
    excess = 7 - table.player(match.state, the_lord)["health"]
    assert asked(match) == ("discard", [the_lord]) and request.choice == {"discard": excess, "from": "hand"}
    assert request.default == {"type": "discard", "cards": held[-excess:]}
    with pytest.raises(RuleError):
        match.act(the_lord, {"type": "discard", "cards": held[:excess - 1]}, 6)
    expire(match)
    assert table.hand(match.state, the_lord) == held[:-excess]


def test_a_silent_play_phase_ends_at_its_deadline() -> None:
    match = started(17, 3)
    the_lord = lord(match)
    scene(match)
    request = match.request_for(the_lord)
    assert request.default == END_PLAY and request.deadline_ms == 1 + 30_000
    expire(match)
    assert table.current_seat(match.state) == seat_after(match, the_lord) and asked(match)[0] == "play"


def test_every_question_has_a_default_that_gives_no_answer() -> None:
    match = started(18, 5)
    the_lord = lord(match)
    target = seat_after(match, the_lord)
    hands = scene(match, {the_lord: ["Duel"], target: ["Dodge", "Nullification", "Slash", "Peach"]})
    match.act(the_lord, {"type": "use", "card": hands[the_lord][0], "targets": [target]}, 2)
    assert asked(match) == ("nullify", [target]) and match.request_for(target).default == {"type": "pass"}
    expire(match)
    assert asked(match) == ("slash", [target]) and match.request_for(target).default == {"type": "pass"}
    expire(match)
    assert len(table.hand(match.state, target)) == 4 and asked(match) == ("play", [the_lord])


def test_timeouts_are_options() -> None:
    match = started(17, 3, options={"turn_timeout_ms": 5_000, "response_timeout_ms": 700})
    assert match.requests[0].deadline_ms == 1 + 5_000
    assert RULES.default_turn_timeout_ms == 30_000
