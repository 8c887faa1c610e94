"""Kingdoms' game flow before and between turns, timing by timing as seed
003 orders it: before the first round (identities, generals and their
offers, initial cards, lucky cards) and rounds (who bears their timings,
when they end). Turns and phases are test_kingdoms_turns.py's."""

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
    seat_after,
    started,
)

from tablehost.games.engine.plugin import Trigger
from tablehost.games.kingdoms import flow, table
from tablehost.games.kingdoms import timings as kt
from tablehost.games.kingdoms.generals import GENERALS

PHASE_TIMINGS = [kt.PHASE_CHANGING, kt.PHASE_START, kt.PHASE_PROCEEDING]


def first_turn_up_to_its_play_phase() -> list[str]:
    fired = [kt.PRE_TURN_START, kt.BEFORE_TURN_START, kt.TURN_START]
    for phase in table.PHASES[:3]:
        fired += PHASE_TIMINGS
        if phase == table.DRAW_PHASE:
            fired += [kt.DRAW_N_CARDS, kt.AFTER_DRAW_N_CARDS]
        fired.append(kt.PHASE_END)
    return fired + PHASE_TIMINGS


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
        kt.GAME_START, kt.ROUND_START, *first_turn_up_to_its_play_phase(),
    ]
    # The round's data now names its bearer (the current player, the lord).
    the_lord = lord(match)
    assert next(f for t, f in rules.log if t == kt.GAME_START) == {"round": 1, "seat": the_lord, "skipped": False}
    assert next(f for t, f in rules.log if t == kt.ROUND_START) == {"round": 1, "seat": the_lord, "skipped": False}


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


def offers(seed: int, seats: int) -> list[list[str]]:
    """Every seat's offer, the lord's choice made (by its timer)."""
    match = new_match(seed, seats)
    expire(match)
    return [list(table.player(match.state, seat)["offered"]) for seat in range(seats)]


def test_there_are_enough_generals_for_disjoint_offers_at_eight_seats() -> None:
    assert flow.generals_needed(8) == 3 + 7 * 2 == 17
    assert len(GENERALS) >= flow.generals_needed(8)


@pytest.mark.parametrize("seats", range(2, 9))
def test_no_two_players_are_ever_offered_the_same_general(seats: int) -> None:
    """Our rule, stricter than the seed's "主公选择武将并展示，然后所有其他玩家
    同时选择武将": offers are disjoint, the lord's three included, so no two
    players can choose the same general."""
    for seed in range(25):
        offered = offers(seed, seats)
        everyone = [name for offer in offered for name in offer]
        assert len(everyone) == len(set(everyone)) == flow.generals_needed(seats)
        assert all(name in GENERALS for name in everyone)


def test_offers_come_from_the_seed() -> None:
    assert offers(3, 8) == offers(3, 8)
    assert len({tuple(map(tuple, offers(seed, 5))) for seed in range(6)}) > 1


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


def test_after_draw_initial_cards_fires_for_every_player_even_one_whose_draw_was_stopped() -> None:
    """Seed: "从当前行动者开始，对每名角色: 以该角色为承担者，触发“分发初始手牌后”":
    every player, whatever DRAW_INITIAL_CARDS did to their draw."""

    def stop_p1(ctx, data: kt.DrawInitialData) -> bool:
        return data.player_id == "p1"

    rules = Harness([Trigger(kt.DRAW_INITIAL_CARDS, stop_p1)])
    match = new_match(5, 4, rules)
    choose_generals(match)
    after = [f for t, f in rules.log if t == kt.AFTER_DRAW_INITIAL_CARDS]
    first = lord(match)
    assert [f["player_id"] for f in after] == [f"p{(first + k) % 4}" for k in range(4)]
    assert {f["player_id"]: f["skipped"] for f in after} == {"p0": False, "p1": True, "p2": False, "p3": False}
    assert first != 1 and table.hand(match.state, 1) == [], "p1 drew nothing (and has had no turn yet)"


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


# -- rounds -------------------------------------------------------------------------


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


def test_round_end_and_after_round_end_are_borne_by_the_current_players_previous_player() -> None:
    """Seed: "将当前行动者设为下家 / 若当前行动者的座位不大于自己上家的座位:
    结束此循环 / 以当前行动者的上家为承担者，触发“轮次结束时”，“轮次结束后”": the round
    ends with the next round's first player current, and its previous
    player (the last seat) bears the round's end."""
    bearers: list[tuple[int, int]] = []

    def note_current(ctx, data: kt.RoundData) -> None:
        bearers.append((data.seat, table.current_seat(ctx.state)))

    rules = Harness([Trigger(kt.ROUND_END, note_current), Trigger(kt.AFTER_ROUND_END, note_current)])
    match = started(9, 4, rules)
    the_lord = lord(match)
    last = seat_after(match, the_lord, 3)
    for _ in range(4):
        finish_turn(match)
    assert bearers == [(last, the_lord), (last, the_lord)]
    ends = [f for t, f in rules.log if t in (kt.ROUND_END, kt.AFTER_ROUND_END)]
    assert ends == [{"round": 1, "seat": last, "skipped": False}] * 2


def test_the_previous_player_who_bears_the_round_end_is_the_last_one_still_taking_turns() -> None:
    """The seed's 上家 of the lord when the last seat is dead: the seat before it."""
    rules = Harness()
    match = started(9, 4, rules)
    the_lord = lord(match)
    dead, before_it = seat_after(match, the_lord, 3), seat_after(match, the_lord, 2)
    rewrite(match, lambda state: table.player(state, dead).update(alive=False))
    for _ in range(3):
        finish_turn(match)
    assert table.current_seat(match.state) == the_lord
    assert [f["seat"] for t, f in rules.log if t == kt.ROUND_END] == [before_it]


def test_a_turn_change_that_keeps_the_round_going_is_honoured() -> None:
    """Seed: TURN_CHANGING's data carries "skipRoundPlus  boolean @是否跳过轮数"."""

    def keep_the_round(ctx, data: kt.TurnChangingData) -> None:
        data.skip_round_plus = True

    rules = Harness([Trigger(kt.TURN_CHANGING, keep_the_round)])
    match = started(9, 3, rules)
    for _ in range(4):
        finish_turn(match)
    assert kt.ROUND_END not in rules.timings() and match.state["position"]["round"] == 1


def test_dead_players_take_no_turn() -> None:
    match = started(9, 4)
    the_lord = lord(match)
    rewrite(match, lambda state: table.player(state, seat_after(match, the_lord)).update(alive=False))
    finish_turn(match)
    assert table.current_seat(match.state) == seat_after(match, the_lord, 2)


def test_round_9999_ends_the_game_as_a_draw() -> None:
    match = started(13, 2)
    rewrite(match, lambda state: state["position"].update(round=9998))
    finish_turn(match)
    finish_turn(match)
    assert match.result is not None and match.result["draw"] and match.result["winner"] == -1
    assert match.result["scores"] == [0, 0] and "9999" in match.result["reason"]
    assert match.requests == []
