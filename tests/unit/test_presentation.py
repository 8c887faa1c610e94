"""How the tools show a game: the generic presenter shows any game from its
views alone (keys and values, actions as compact text, "seat N acted" with
what changed); Big Two's presenter, beside the game, shows cards as glyphs,
reads card codes and narrates each play as the demo always has; Duel's
names cards and targets from the viewer's side. Every presenter shows a
deadline as the seconds left by the clock handed in (fixed here), never as
the host's epoch milliseconds, and a table waiting for its deal as such.
Views come from real matches, as the host would send them."""

from __future__ import annotations

import re
from typing import Any

import pytest
from duel_scenarios import DECKS, scene, started

from tablehost.clients.presentation import (
    GenericPresenter,
    Presenter,
    compact,
    presenter_for,
    seconds_left,
    time_left,
)
from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.bigtwo.presentation import BigTwoPresenter
from tablehost.games.duel.game import RULES as DUEL
from tablehost.games.duel.presentation import DuelPresenter
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Match
from tablehost.games.kingdoms.game import RULES as KINGDOMS
from tests.testgames.trio import RULES as TRIO

NAMES = ["ann", "bo", "cy", "di"]
GENERIC = GenericPresenter()
CARDS = BigTwoPresenter()


def bigtwo(seed: int = 3) -> Match:
    return Match(BIGTWO, TableSeed.numbered(seed), NAMES, {}, 0)


def trio() -> Match:
    return Match(TRIO, TableSeed.numbered(5), NAMES[:3], {}, 0, [{"league": "a"}, {"league": "a", "mark": "♦"}, {"league": "a"}])


def act(match: Match, seat: int, action: dict[str, Any], now: int = 1) -> tuple[dict, dict]:
    """The spectator's view before and after one action."""
    before = match.view(None)
    match.act(seat, action, now)
    return before, match.view(None)


# -- the generic presenter -------------------------------------------------------------


def test_the_generic_board_is_every_key_of_the_view_but_the_request_in_compact_form() -> None:
    match = trio()
    lines = GENERIC.table_lines(match.view(1), NAMES[:3])
    assert lines[0] == "seats: seat 0 (ann), seat 1 (bo), seat 2 (cy)"
    assert "scores: [0, 0, 0]" in lines and 'marks: ["", "♦", ""]' in lines and "my_pick: null" in lines
    assert not any(line.startswith("request") for line in lines), "the request is shown as the numbered actions"
    assert not any(line.startswith("fairness") for line in lines), "the deal's record is for verifying, not playing"
    assert len(lines) == 1 + len(match.view(1)) - 2


def test_generic_labels_are_the_type_then_each_field_as_compact_json() -> None:
    assert GENERIC.action_label({"type": "pick", "n": 2}) == "pick n=2"
    assert GENERIC.action_label({"type": "pass"}) == "pass"
    assert GENERIC.action_label({"type": "play", "cards": ["3C", "3D"]}) == 'play cards=["3C", "3D"]'
    assert GENERIC.action_label({"n": 1}) == '{"n": 1}'


def test_the_generic_presenter_reads_no_notation_of_its_own() -> None:
    assert GENERIC.parse_move("pick 2", trio().view(0)) is None


def test_generic_narration_tells_what_changed_and_who_acted_when_known() -> None:
    match = trio()
    before, after = act(match, 1, {"type": "pick", "n": 3})
    assert GENERIC.narrate(before, after, NAMES[:3], False) == (
        "the table changed: picked [false, false, false] → [false, true, false]"
    )
    assert GENERIC.narrate(before, after, NAMES[:3], True, actor=1) == (
        "seat 1 (bo) acted: picked [false, false, false] → [false, true, false] [timer]"
    )


def test_generic_narration_finds_the_actor_in_a_view_that_names_the_seat_to_act() -> None:
    match = bigtwo()
    seat = BIGTWO.to_act(match.state)
    before, after = act(match, seat, match.view(seat)["request"]["legal_actions"][0])
    line = GENERIC.narrate(before, after, NAMES, False)
    assert line is not None and line.startswith(f"seat {seat} ({NAMES[seat]}) acted: ")
    assert "hand_counts [13, 13, 13, 13] → " in line and "deadline_ms" not in line


def test_generic_narration_of_nothing_visible_is_nothing_and_long_values_are_cut() -> None:
    view = {"round": 1}
    assert GENERIC.narrate(view, dict(view), [], False) is None
    assert GENERIC.narrate(view, dict(view), ["ann"], False, actor=0) == "seat 0 (ann) acted"
    line = GENERIC.narrate({"log": []}, {"log": list(range(100))}, [], False)
    assert line is not None and line.endswith("…") and len(line) < 120
    assert GENERIC.narrate({}, {"new": 1}, [], False) == "the table changed: new (none) → 1"


def test_compact_text_keeps_brackets_and_shows_bytes_as_hex() -> None:
    assert compact({"b": [None, True], "a": b"\x01\xff"}) == '{"a": "01ff", "b": [null, true]}'


def test_the_generic_board_shows_a_deadline_as_the_seconds_left() -> None:
    view = {"round": 2, "deadline_ms": 1_796_282_620_220, "fairness": {"commitment": "ab"}}
    lines = GENERIC.table_lines(view, [], now_ms=1_796_282_608_220)
    assert lines == ["round: 2", "deadline: 12 s left"]
    assert GENERIC.table_lines(view, []) == ["round: 2"], "no clock handed in: no deadline shown"


# -- choosing a presenter ------------------------------------------------------------------


def test_a_game_without_a_presenter_gets_the_generic_one() -> None:
    assert TRIO.presenter() is None
    assert isinstance(presenter_for(TRIO.presenter()), GenericPresenter)


def test_a_partial_presenter_is_completed_by_the_generic_one() -> None:
    class LabelsOnly:
        def action_label(self, action: dict[str, Any]) -> str:
            return "★"

    presenter: Presenter = presenter_for(LabelsOnly())
    assert presenter.action_label({"type": "pick", "n": 1}) == "★"
    assert presenter.table_lines({"round": 2}, []) == ["round: 2"]
    assert presenter.move_help == GENERIC.move_help


def test_big_two_hands_the_tools_its_own_presenter() -> None:
    presenter = presenter_for(BIGTWO.presenter())
    assert presenter.action_label({"type": "play", "cards": ["TD", "3C"]}) == "3♣ 10♦"


# -- Big Two's presenter ---------------------------------------------------------------


def test_big_two_labels_plays_as_glyphs_in_card_order_and_pass_as_pass() -> None:
    assert CARDS.action_label({"type": "play", "cards": ["2S", "TH", "3C"]}) == "3♣ 10♥ 2♠"
    assert CARDS.action_label({"type": "pass"}) == "pass"


def test_big_two_opens_with_the_holder_of_the_three_of_clubs() -> None:
    match = bigtwo()
    holder = BIGTWO.to_act(match.state)
    assert CARDS.opening(match.view(None), NAMES) == f"seat {holder} holds 3♣ and leads"


def test_the_big_two_board_shows_each_seat_the_lead_and_only_the_viewers_hand() -> None:
    match = bigtwo()
    holder = BIGTWO.to_act(match.state)
    own = CARDS.table_lines(match.view(holder), NAMES)
    assert own[holder].startswith(f"seat {holder}  {NAMES[holder]}") and own[holder].endswith("13 cards  to act")
    assert own[4] == f"seat {holder} leads: any play containing 3♣"
    assert own[5].startswith("your hand: 3♣ ")
    spectator = CARDS.table_lines(match.view(None), NAMES)
    assert len(spectator) == 5 and not any("your hand" in line for line in spectator)


def test_big_two_narrates_plays_passes_and_the_new_lead_as_the_demo_prints_them() -> None:
    match = bigtwo()
    seat = BIGTWO.to_act(match.state)
    before, after = act(match, seat, {"type": "play", "cards": ["3C"]}, 1)
    assert CARDS.narrate(before, after, NAMES, False) == f"seat {seat} ({NAMES[seat]}) plays 3♣ (single), 12 left"
    board = CARDS.table_lines(after, NAMES)
    assert f"to beat: single 3♣ (seat {seat})" in board and "played the play to beat" in board[seat]
    lines = []
    for now in range(2, 5):  # the three others pass: the trick clears
        passer = BIGTWO.to_act(match.state)
        before, after = act(match, passer, {"type": "pass"}, now)
        lines.append(CARDS.narrate(before, after, NAMES, now == 2))
    first_passer = (seat + 1) % 4
    assert lines[0] == f"seat {first_passer} ({NAMES[first_passer]}) passes [timer]"
    assert lines[2].endswith(f"passes; seat {seat} leads")


def test_big_two_reads_card_codes_tens_and_suit_symbols() -> None:
    view = {"hand": ["3C", "TH"], "request": {"legal_actions": [
        {"type": "play", "cards": ["3C"]}, {"type": "play", "cards": ["TH"]}, {"type": "play", "cards": ["3C", "TH"]},
    ], "deadline_ms": None, "default": None}}
    assert CARDS.parse_move("10h", view) == {"type": "play", "cards": ["TH"]}
    assert CARDS.parse_move("10♥ 3♣", view) == {"type": "play", "cards": ["3C", "TH"]}
    assert CARDS.parse_move("  ", view) is None
    with pytest.raises(ValueError, match="cannot pass"):
        CARDS.parse_move("PASS", view)


# -- deadlines as the seconds left, by a fixed clock ------------------------------------------

EPOCH_MS = re.compile(r"\d{6,}")


def test_seconds_left_are_whole_seconds_rounded_up_and_never_negative() -> None:
    assert seconds_left(13_000, 1_000) == 12 and time_left(13_000, 1_000) == "12 s left"
    assert seconds_left(1_500, 1_000) == 1, "half a second left is not 0 s"
    assert seconds_left(500, 1_000) == 0
    assert seconds_left(None, 1_000) is None and seconds_left(13_000, None) is None and time_left(None, 1) is None


def test_big_two_shows_the_seat_to_act_with_its_seconds_left() -> None:
    match = bigtwo()
    holder = BIGTWO.to_act(match.state)
    lines = CARDS.table_lines(match.view(holder), NAMES, now_ms=8_000)  # the turn ends at 20 000
    assert lines[holder].endswith("13 cards  to act, 12 s left")
    assert not any(EPOCH_MS.search(line) for line in lines)


def test_kingdoms_shows_what_it_waits_for_from_whom_and_the_seconds_left() -> None:
    match = Match(KINGDOMS, TableSeed.numbered(3), NAMES, {}, 0)
    prompt = match.view(0)["prompt"]
    asked = prompt["seats"][0]
    presenter = KINGDOMS.presenter()
    lines = presenter.table_lines(match.view(asked), NAMES, now_ms=prompt["deadline_ms"] - 12_000)
    assert f"waiting for: general from seat {asked} (you), 12 s left" in lines
    other = (asked + 1) % 4
    assert f"waiting for: general from seat {asked}, 12 s left" in presenter.table_lines(
        match.view(other), NAMES, now_ms=prompt["deadline_ms"] - 12_000)


# -- Duel from the viewer's side ----------------------------------------------------------------


def test_duel_shows_whose_turn_it_is_with_the_seconds_left_never_the_epoch() -> None:
    match = started(2)  # seat 0 acts; its turn ends 90 s after 1 ms
    scene(match, hands=(["Frostbolt"], []))
    now = 1 + 90_000 - 45_000
    for viewer, timer in ((0, "timer: your turn, 45 s left"), (1, "timer: their turn, 45 s left"),
                          (None, "timer: seat 0's turn, 45 s left")):
        lines = DuelPresenter().table_lines(match.view(viewer), NAMES[:2], now_ms=now)
        assert lines[-1] == timer
        assert not any(EPOCH_MS.search(line) for line in lines)


def test_duel_shows_the_mulligans_seconds_left() -> None:
    match = Match(DUEL, TableSeed.numbered(1), NAMES[:2], {}, 0, [dict(deck) for deck in DECKS])
    assert DuelPresenter().table_lines(match.view(0), NAMES[:2], now_ms=60_000)[-1] == "timer: the mulligan, 30 s left"


def test_duel_names_targets_from_the_viewers_side() -> None:
    match = started(2)
    made = scene(match, hands=(["Frostbolt"], []), boards=(["Ogre Brute"], ["Ogre Brute"]))
    frostbolt, mine, theirs = made[0][0], made[0][1], made[1][0]
    seat0 = DuelPresenter()
    seat0.table_lines(match.view(0), NAMES[:2])
    assert seat0.action_label({"type": "play", "card": frostbolt, "target": theirs}) == \
        "play Frostbolt -> their Ogre Brute"
    assert seat0.action_label({"type": "play", "card": frostbolt, "target": "p0"}) == "play Frostbolt -> your hero"
    assert seat0.action_label({"type": "attack", "attacker": mine, "target": "p1"}) == \
        "attack with your Ogre Brute -> their hero"
    assert seat0.action_label({"type": "hero_power", "target": theirs}) == "hero power Fireblast -> their Ogre Brute"
    seat1 = DuelPresenter()
    seat1.table_lines(match.view(1), NAMES[:2])
    assert seat1.action_label({"type": "attack", "attacker": theirs, "target": mine}) == \
        "attack with your Ogre Brute -> their Ogre Brute"
    watcher = DuelPresenter()
    watcher.table_lines(match.view(None), NAMES[:2])
    assert watcher.action_label({"type": "attack", "attacker": theirs, "target": "p0"}) == \
        "attack with seat 1's Ogre Brute -> seat 0's hero"


def test_no_listed_duel_action_shows_a_raw_id_or_a_hero_number() -> None:
    match = started(2)
    scene(match, hands=(["Frostbolt", "Arcane Shot"], []), boards=(["Ogre Brute"], ["Gate Warden", "Ogre Brute"]))
    presenter = DuelPresenter()
    view = match.view(0)
    presenter.table_lines(view, NAMES[:2])
    labels = [presenter.action_label(action) for action in view["request"]["legal_actions"]]
    assert len(labels) > 10
    assert not [label for label in labels if re.search(r"\bp[01]\b|p[01]\.|hero [01]", label)]


def test_duel_narrates_damage_from_the_viewers_side() -> None:
    match = started(2)
    made = scene(match, hands=(["Fireball"], []), boards=([], ["Ogre Brute"]))
    before = match.view(0)
    match.act(0, {"type": "play", "card": made[0][0], "target": "p1"}, 2)
    assert DuelPresenter().narrate(before, match.view(0), NAMES[:2], False) == "their hero 25 -> 19"


# -- a table waiting for its deal ------------------------------------------------------------------

WAITING = [
    pytest.param(BigTwoPresenter(), BIGTWO, NAMES, None, id="bigtwo"),
    pytest.param(DuelPresenter(), DUEL, NAMES[:2], [dict(deck) for deck in DECKS], id="duel"),
    pytest.param(KINGDOMS.presenter(), KINGDOMS, NAMES, None, id="kingdoms"),
    pytest.param(GenericPresenter(), TRIO, NAMES[:3], [{"league": "a"}] * 3, id="generic"),
]


@pytest.mark.parametrize(("presenter", "rules", "names", "join"), WAITING)
def test_before_the_deal_a_table_shows_it_is_dealing_and_the_deal_opens_the_game(
    presenter: Any, rules: Any, names: list[str], join: list[dict[str, Any]] | None
) -> None:
    match = Match(rules, TableSeed.numbered(4), names, {}, 0, join, deal_deadline_ms=5_000)
    waiting = match.view(0)
    assert waiting["stage"] == "dealing" and "hand" not in waiting and "request" not in waiting
    assert presenter.table_lines(waiting, names, now_ms=1_000) == [
        "dealing... the cards are dealt once every player has connected (4 s left)"]
    assert presenter.opening(waiting, names) is None
    match.deal([b""] * len(names), 2_000)
    dealt = match.view(0)
    assert presenter.narrate(waiting, waiting, names, False) is None
    told = presenter.narrate(waiting, dealt, names, False)
    if isinstance(presenter, GenericPresenter):
        assert told == "the cards are dealt"
    else:
        assert told == presenter.opening(dealt, names) and told
