"""Requests: a game asks several seats at once and any seat out of turn,
each request with its deadline and default; join data is checked, kept in
the header and replayed; a skill gained mid-game survives a replay. All on
the three-seat test game (tests/testgames/trio.py), in process."""

from __future__ import annotations

import dataclasses

import pytest

from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Match, replay, seat_id
from tablehost.games.engine.rules import InvalidJoin
from tablehost.games.engine.skills import held_skills
from tablehost.games.engine.views import canonical_bytes
from tests.testgames.trio import RULES as TRIO

JOIN = [{"league": "a"}, {"league": "a", "mark": "♦"}, {"league": "a"}]


def new_trio(started_ms: int = 0, timeout_ms: int = 1_000) -> Match:
    return Match(TRIO, TableSeed.numbered(5), ["ann", "ann", "bo"], {"turn_timeout_ms": timeout_ms}, started_ms, JOIN)


def pick(n: int) -> dict:
    return {"type": "pick", "n": n}


def test_every_seat_is_asked_to_pick_at_once_and_each_sees_only_its_own_request() -> None:
    match = new_trio()
    assert [r.seat for r in match.requests] == [0, 1, 2]
    views = match.views([0, 1, 2, None])
    assert all(views[seat]["request"]["legal_actions"] == [pick(1), pick(2), pick(3)] for seat in range(3))
    assert "request" not in views[None]
    match.act(1, pick(3), 10)
    assert [r.seat for r in match.requests] == [0, 2]
    assert "request" not in match.view(1) and match.view(1)["my_pick"] == 3
    assert match.view(0)["my_pick"] is None, "a seat never sees another's pick before they are shown"


def test_a_seat_that_is_not_asked_is_refused_as_not_your_turn_and_nothing_changes() -> None:
    match = new_trio()
    match.act(0, pick(1), 1)
    before = canonical_bytes(match.state)
    with pytest.raises(RuleError) as refusal:
        match.act(0, pick(2), 2)
    assert refusal.value.reason is Reason.NOT_YOUR_TURN
    assert "waits for seats [1, 2]" in refusal.value.message
    assert canonical_bytes(match.state) == before


def test_the_highest_unique_pick_makes_the_next_seat_answer_out_of_turn() -> None:
    match = new_trio()
    for seat, n in ((0, 3), (1, 1), (2, 2)):
        match.act(seat, pick(n), 1)
    assert [(r.seat, r.default) for r in match.requests] == [(1, {"type": "take"})]
    assert match.view(1)["request"]["legal_actions"] == [{"type": "dodge"}, {"type": "take"}]
    match.act(1, {"type": "take"}, 2)
    assert match.view(None)["scores"] == [1, -1, 0] and match.view(None)["round"] == 2


def test_expired_requests_are_taken_by_their_defaults_the_earliest_first() -> None:
    match = new_trio(started_ms=100, timeout_ms=1_000)
    assert match.next_expired(1_099) is None
    expired = match.next_expired(1_100)
    assert expired is not None and expired.seat == 0 and expired.default == pick(1)
    while (request := match.next_expired(1_100)) is not None:
        match.act_automatically(request, 1_100)
    assert [c.automatic for c in match.commands] == [True, True, True]
    assert match.view(None)["round"] == 2 and match.view(None)["scores"] == [0, 0, 0]  # all 1s: nobody attacks


def test_a_dodge_grants_a_skill_by_name_that_a_replay_restores_and_that_doubles_a_later_take() -> None:
    match = new_trio()
    script = [(0, pick(3)), (1, pick(1)), (2, pick(2)), (1, {"type": "dodge"}),   # round 1: seat 1 dodges
              (0, pick(3)), (1, pick(1)), (2, pick(2)), (1, {"type": "take"})]    # round 2: its take costs 2
    for step, (seat, action) in enumerate(script):
        match.act(seat, action, step)
    assert held_skills(match.state, 1) == ("wary",)
    assert match.view(None)["scores"] == [1, -2, 0]
    again = replay(TRIO, match.header(), match.commands)
    assert again.state_hash() == match.state_hash() and held_skills(again.state, 1) == ("wary",)


def test_a_refused_second_dodge_leaves_the_state_byte_identical() -> None:
    match = new_trio()
    for step, (seat, action) in enumerate([(0, pick(3)), (1, pick(1)), (2, pick(2)), (1, {"type": "dodge"}),
                                          (0, pick(3)), (1, pick(1)), (2, pick(2))]):
        match.act(seat, action, step)
    before = canonical_bytes(match.state)
    with pytest.raises(RuleError) as refusal:
        match.act(1, {"type": "dodge"}, 9)
    assert refusal.value.reason is Reason.ILLEGAL_MOVE
    assert canonical_bytes(match.state) == before


def test_join_data_is_checked_kept_with_the_seat_and_in_the_header() -> None:
    match = new_trio()
    assert [player["id"] for player in match.state["players"]] == [seat_id(0), seat_id(1), seat_id(2)]
    assert [player["name"] for player in match.state["players"]] == ["ann", "ann", "bo"]
    assert match.header().join == ({"league": "a", "mark": ""}, {"league": "a", "mark": "♦"},
                                   {"league": "a", "mark": ""})
    assert match.view(2)["marks"] == ["", "♦", ""]
    with pytest.raises(InvalidJoin, match="unknown league"):
        Match(TRIO, TableSeed.numbered(5), ["a", "b", "c"], {}, 0, [{"league": "z"}] * 3)


def test_a_replay_needs_the_join_data_of_the_header() -> None:
    match = new_trio()
    match.act(1, pick(2), 1)
    header = match.header()
    assert replay(TRIO, header, match.commands).state_hash() == match.state_hash()
    with pytest.raises(InvalidJoin):
        replay(TRIO, dataclasses.replace(header, join=()), match.commands)
