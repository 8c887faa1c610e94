"""Kingdoms' turns and phases, timing by timing as seed 003 orders them:
a whole turn, the turn's pre-checks (and what a failed one leaves out),
skipped phases and cancelled skips, the draw count, the discard phase, and
what the timer does when nobody answers."""

from __future__ import annotations

import pytest
from kingdoms_scenarios import END_PLAY, Harness, asked, expire, lord, rewrite, scene, seat_after, started

from tablehost.games.engine.errors import RuleError
from tablehost.games.engine.plugin import Trigger
from tablehost.games.kingdoms import table, turns
from tablehost.games.kingdoms import timings as kt
from tablehost.games.kingdoms.game import RULES

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


def fired_for(rules: Harness, seat: int) -> list[str]:
    return [t for t, f in rules.log if f.get("seat") == seat or f.get("from_seat") == seat]


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


# -- the pre-checks ---------------------------------------------------------------------
#
# Seed: "回合事件包含了前置判断、主效果和清理效果" and "（此为主效果，需通过前置判断
# 方可执行）"; as in FreeKill, an event whose checks fail runs none of its
# effects: neither the main effect nor the clean-up (TURN_END, TURN_CHANGING).


def test_pre_turn_start_returning_true_fails_the_checks_and_the_turn_runs_nothing_else() -> None:
    """Seed: "触发“回合准备时”（这个时机返回true会导致判断未通过，跳过本回合）"."""
    skipped: list[int] = []

    def skip_the_marked_seat(ctx, data: kt.TurnData) -> bool:
        return data.seat in skipped

    rules = Harness([Trigger(kt.PRE_TURN_START, skip_the_marked_seat)])
    match = started(10, 3, rules)
    following = seat_after(match, lord(match))
    skipped.append(following)
    rules.log.clear()
    finish_turn(match)
    assert fired_for(rules, following) == [kt.PRE_TURN_START], "no TURN_END, no TURN_CHANGING"
    assert table.current_seat(match.state) == seat_after(match, following)


def test_before_turn_start_returning_true_fails_the_checks_too() -> None:
    """Seed: "触发“回合开始前”（这个时机返回true会导致判断未通过，跳过本回合）"."""

    def skip_everyone_but_the_lord(ctx, data: kt.TurnData) -> bool:
        return data.seat != table.lord(ctx.state)

    rules = Harness([Trigger(kt.BEFORE_TURN_START, skip_everyone_but_the_lord)])
    match = started(10, 3, rules)
    the_lord = lord(match)
    rules.log.clear()
    finish_turn(match)
    assert fired_for(rules, seat_after(match, the_lord)) == [kt.PRE_TURN_START, kt.BEFORE_TURN_START]
    assert table.current_seat(match.state) == the_lord and asked(match) == ("play", [the_lord])
    assert rules.timings().count(kt.ROUND_END) == 1, "the round still ends after its last seat"


def test_a_face_down_general_turns_face_up_and_its_turn_is_skipped_with_no_clean_up() -> None:
    """Seed: "若该角色的武将牌背面向上，则将武将牌翻面至正面向上，然后判断未通过"."""
    rules = Harness()
    match = started(11, 3, rules)
    following = seat_after(match, lord(match))
    rewrite(match, lambda state: table.player(state, following).update(face_up=False))
    rules.log.clear()
    finish_turn(match)
    assert fired_for(rules, following) == [kt.PRE_TURN_START]
    assert table.player(match.state, following)["face_up"]
    assert table.current_seat(match.state) == seat_after(match, following)


def test_a_resting_player_counts_down_and_returns_when_the_rest_is_over() -> None:
    """Seed: "若该角色处于休整状态，则将其休整轮数-1，若完成休整则复活该角色"."""
    rules = Harness()
    match = started(12, 3, rules)
    following = seat_after(match, lord(match))
    rewrite(match, lambda state: table.player(state, following).update(alive=False, rest=2, health=0))
    finish_turn(match)
    record = table.player(match.state, following)
    assert not record["alive"] and record["rest"] == 1, "still resting: the turn's checks failed"
    assert kt.PRE_TURN_START not in fired_for(rules, following)
    finish_turn(match)
    finish_turn(match)
    record = table.player(match.state, following)
    assert record["alive"] and record["rest"] == 0 and record["health"] == record["max_health"]
    assert table.current_seat(match.state) == following and asked(match) == ("play", [following])


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
    """Seed: "若阶段未被跳过，则: ... 触发“阶段切换时”"."""
    rules = Harness()
    match = started(14, 3, rules)
    following = seat_after(match, lord(match))
    rewrite(match, lambda state: turns.skip_phase(state, following, table.PLAY_PHASE))
    rules.log.clear()
    finish_turn(match)
    play = [t for t, f in rules.log if f.get("phase") == table.PLAY_PHASE and f.get("seat") == following]
    assert play == [kt.PHASE_SKIPPING, kt.PHASE_SKIPPED]
    assert asked(match)[0] in ("discard", "play") and table.current_seat(match.state) != following


def undo_skips_at(timing: str) -> Harness:
    def cancel(ctx, data: kt.PhaseData) -> None:
        if data.phase == table.DRAW_PHASE:
            data.skipped = False

    def skip_draw(ctx, data: kt.PhaseData) -> None:
        if data.phase == table.DRAW_PHASE:
            data.skipped = True

    return Harness([Trigger(kt.PHASE_CHANGING, skip_draw), Trigger(timing, cancel)])


def test_a_handler_at_phase_skipping_cancels_the_skip_and_the_phase_runs() -> None:
    """Seed: "若阶段被跳过... 触发“阶段跳过时” / 若触发“阶段跳过时”后，... 触发
    “阶段跳过后” / 若阶段未被跳过，data.skipped不为true，则: 该角色执行阶段事件":
    a skip undone at PHASE_SKIPPING fires no PHASE_SKIPPED, and the phase runs."""
    rules = undo_skips_at(kt.PHASE_SKIPPING)
    match = started(14, 3, rules)
    following = seat_after(match, lord(match))
    scene(match)
    rules.log.clear()
    finish_turn(match)
    draw = [t for t, f in rules.log if f.get("phase") == table.DRAW_PHASE and f.get("seat") == following]
    assert draw == [kt.PHASE_CHANGING, kt.PHASE_SKIPPING, kt.PHASE_START, kt.PHASE_PROCEEDING, kt.PHASE_END]
    assert len(table.hand(match.state, following)) == 2


def test_a_phase_marked_skipped_beforehand_can_be_taken_after_all() -> None:
    """An Indulgence's mark is a skip like any other: PHASE_SKIPPING may cancel it."""
    rules = undo_skips_at(kt.PHASE_SKIPPING)
    match = started(14, 3, rules)
    following = seat_after(match, lord(match))
    rewrite(match, lambda state: turns.skip_phase(state, following, table.DRAW_PHASE))
    scene(match)
    finish_turn(match)
    assert len(table.hand(match.state, following)) == 2


def test_the_seed_reads_the_skip_again_after_phase_skipped() -> None:
    """Seed: the phase runs "若阶段未被跳过，data.skipped不为true", read after
    PHASE_SKIPPED (our reading: a handler there may still take the phase)."""
    rules = undo_skips_at(kt.PHASE_SKIPPED)
    match = started(14, 3, rules)
    following = seat_after(match, lord(match))
    scene(match)
    rules.log.clear()
    finish_turn(match)
    draw = [t for t, f in rules.log if f.get("phase") == table.DRAW_PHASE and f.get("seat") == following]
    assert draw == [kt.PHASE_CHANGING, kt.PHASE_SKIPPING, kt.PHASE_SKIPPED, kt.PHASE_START, kt.PHASE_PROCEEDING,
                    kt.PHASE_END]


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
