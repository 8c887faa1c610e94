"""Kingdoms' rule bot and presenter, as the tools use them: bots play whole
games choosing only listed actions; the rule bot eats a Peach when hurt,
slashes an enemy in reach, dodges, and nullifies what is aimed at itself;
the presenter shows the table and names actions by their cards."""

from __future__ import annotations

import pytest
from kingdoms_scenarios import PASS, asked, lord, scene, seat_after, set_health, started, use

from tablehost.clients.bots import bot_factories, make_bot
from tablehost.clients.presentation import presenter_for
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Match
from tablehost.games.kingdoms import table
from tablehost.games.kingdoms.bots import RuleBot
from tablehost.games.kingdoms.game import RULES

BOTS = bot_factories(RULES.bots())


@pytest.mark.parametrize("kinds", [("rules",) * 5, ("random", "rules", "random", "rules", "rules"), ("rules",) * 8])
def test_bots_play_a_game_to_its_end_choosing_only_listed_actions(kinds: tuple[str, ...]) -> None:
    """Every player who could answer is asked now, so most answers are
    passes; bots still finish a game of 8 in a few thousand moves."""
    bots = [make_bot(kind, BOTS, seed) for seed, kind in enumerate(kinds)]
    match = Match(RULES, TableSeed.numbered(7), [f"n{seat}" for seat in range(len(kinds))], {}, 0)
    for now in range(1, 5_000):
        if match.result is not None:
            break
        request = match.requests[0]
        view = match.view(request.seat)
        choice = bots[request.seat].choose(view)
        assert choice in view["request"]["legal_actions"] or choice == view["request"]["default"]
        match.act(request.seat, choice, now)
    assert match.result is not None


def test_rules_seats_and_tools() -> None:
    assert (RULES.min_seats, RULES.max_seats, RULES.table_seats()) == (2, 8, 5)
    assert RULES.example_join() == {} and RULES.check_join({}) == {}
    assert set(RULES.bots()) == {"rules"}


def test_the_rule_bot_eats_a_peach_when_hurt() -> None:
    match = started(51, 5)
    me = lord(match)
    peach, slash = scene(match, {me: ["Peach", "Slash"]})[me]
    set_health(match, me, 2)
    assert RuleBot().choose(match.view(me)) == {"type": "use", "card": peach, "targets": []}


def test_the_rule_bot_slashes_an_enemy_it_can_reach() -> None:
    match = started(52, 2)
    me = lord(match)
    (slash,) = scene(match, {me: ["Slash"]})[me]
    assert RuleBot().choose(match.view(me)) == {"type": "use", "card": slash, "targets": [1 - me]}


def test_the_rule_bot_dodges_a_slash_and_nullifies_what_is_aimed_at_itself() -> None:
    match = started(53, 5)
    me = lord(match)
    target = seat_after(match, me)
    hands = scene(match, {me: ["Slash", "Dismantle"], target: ["Dodge", "Nullification"]})
    use(match, me, hands[me][0], [target])
    assert RuleBot().choose(match.view(target)) == {"type": "respond", "card": hands[target][0]}
    match.act(target, PASS, 3)
    use(match, me, hands[me][1], [target])
    assert asked(match) == ("nullify", [target])
    assert RuleBot().choose(match.view(target)) == {"type": "respond", "card": hands[target][1]}


def test_the_presenter_shows_the_table_the_hand_and_the_timer_and_names_cards() -> None:
    match = started(54, 4)
    me = lord(match)
    (slash,) = scene(match, {me: ["Slash"]})[me]
    presenter = presenter_for(RULES.presenter())
    names = [f"n{seat}" for seat in range(4)]
    view = match.view(me)
    lines = presenter.table_lines(view, names)
    assert any("your hand: Slash" in line for line in lines)
    assert any("(lord)" in line for line in lines) and any("waiting for: play" in line for line in lines)
    assert presenter.action_label({"type": "use", "card": slash, "targets": [1]}).startswith("use Slash")
    assert presenter.parse_move("end", view) == {"type": "end_play"}
    assert presenter.opening(view, names) == f"seat {me} (n{me}) is the lord"
    before = match.view(None)
    use(match, me, slash, [seat_after(match, me)])
    assert "health" in (presenter.narrate(before, match.view(None), names, False) or "")
    assert table.hand(match.state, me) == []


def test_the_rule_bot_passes_when_it_has_nothing_to_answer_with() -> None:
    match = started(55, 5)
    me = lord(match)
    target, bystander = seat_after(match, me), seat_after(match, me, 2)
    hands = scene(match, {me: ["Dismantle", "Slash"], target: ["Peach"], bystander: ["Dodge"]})
    use(match, me, hands[me][1], [target])
    assert asked(match) == ("dodge", [target])
    assert RuleBot().choose(match.view(target)) == PASS
    match.act(target, PASS, 3)
    use(match, me, hands[me][0], [bystander])
    assert asked(match) == ("nullify", [target, bystander])
    assert RuleBot().choose(match.view(target)) == PASS and RuleBot().choose(match.view(bystander)) == PASS
