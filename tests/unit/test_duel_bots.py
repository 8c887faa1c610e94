"""Duel's greedy bot and presenter, as the tools use them: the bots play
whole games choosing only listed actions; the greedy bot keeps a cheap
hand, goes face when lethal, trades favourably and spends its mana; the
presenter shows the board and names actions by their cards."""

from __future__ import annotations

import pytest
from duel_scenarios import hero, rewrite, scene, started

from tablehost.clients.bots import bot_factories, make_bot
from tablehost.clients.presentation import presenter_for
from tablehost.games.duel import board
from tablehost.games.duel.bots import GreedyBot
from tablehost.games.duel.game import RULES
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Match

BOTS = bot_factories(RULES.bots())


@pytest.mark.parametrize("kinds", [("greedy", "random"), ("random", "greedy"), ("greedy", "greedy")])
def test_bots_play_a_duel_to_its_end_choosing_only_listed_actions(kinds: tuple[str, str]) -> None:
    bots = [make_bot(kind, BOTS, seed) for seed, kind in enumerate(kinds)]
    match = Match(RULES, TableSeed.numbered(7), ["a", "b"], {}, 0, [{"deck": "paladin-basic"}, {"deck": "hunter-basic"}])
    for now in range(1, 5_000):
        if match.result is not None:
            break
        request = match.requests[0]
        view = match.view(request.seat)
        choice = bots[request.seat].choose(view)
        assert choice in view["request"]["legal_actions"]
        match.act(request.seat, choice, now)
    assert match.result is not None


def test_the_greedy_bot_returns_costly_cards_at_the_mulligan() -> None:
    match = Match(RULES, TableSeed.numbered(3), ["a", "b"], {}, 0, [{"deck": "mage-basic"}, {"deck": "mage-basic"}])
    view = match.view(0)
    chosen = GreedyBot().choose(view)
    costly = sorted(card["id"] for card in view["hand"] if card["cost"] > 3)
    assert chosen["type"] == "mulligan" and sorted(chosen["cards"]) == costly


def test_the_greedy_bot_goes_face_when_its_attacks_are_lethal() -> None:
    match = started(2)
    made = scene(match, boards=(["Ogre Brute", "Boulder Giant"], ["Lantern Moth"]))
    rewrite(match, lambda state: board.hero(state, 1).update(health=10))
    assert GreedyBot().choose(match.view(0)) == {"type": "attack", "attacker": made[0][0], "target": "p1"}


def test_the_greedy_bot_spends_the_most_mana_and_aims_harm_at_the_enemy() -> None:
    match = started(2)
    made = scene(match, mana=6, hands=(["Lantern Moth", "Fireball", "Frostbolt", "Ogre Brute"], []))
    chosen = GreedyBot().choose(match.view(0))
    assert chosen["card"] in (made[0][1], made[0][2]) and chosen.get("target") == "p1"


def test_the_greedy_bot_trades_when_it_kills_and_survives() -> None:
    match = started(2)
    made = scene(match, mana=0, boards=(["Ogre Brute"], ["Marsh Crawler", "Lantern Moth"]))
    assert GreedyBot().choose(match.view(0)) == {"type": "attack", "attacker": made[0][0], "target": made[1][0]}


def test_the_greedy_bot_is_what_the_duel_rules_offer_the_tools() -> None:
    assert sorted(BOTS) == ["greedy", "random"]
    assert isinstance(make_bot("greedy", BOTS, 1), GreedyBot)


def test_the_presenter_shows_heroes_boards_hand_with_marks_and_the_timer() -> None:
    presenter = presenter_for(RULES.presenter())
    match = started(2)
    made = scene(match, mana=2, hands=(["Frostbolt", "Fireball"], []), boards=([], ["Gate Warden"]))
    lines = presenter.table_lines(match.view(0), ["ann", "bo"], now_ms=1_001)
    text = "\n".join(lines)
    assert "seat 0 ann (mage): 25/25 health  mana 2/2" in text
    assert "board: Gate Warden 1/2 [taunt]" in text
    assert "your hand (* playable): *Frostbolt (2),  Fireball (4)" in text
    assert "timer: your turn, 89 s left" in text
    assert presenter.action_label({"type": "play", "card": made[0][0], "target": made[1][0]}) == \
        "play Frostbolt -> their Gate Warden"
    assert presenter.action_label({"type": "end_turn"}) == "end turn"
    assert presenter.parse_move("end", match.view(0)) == {"type": "end_turn"}
    assert presenter.parse_move("1", match.view(0)) is None
    spectator = "\n".join(presenter.table_lines(match.view(None), ["ann", "bo"]))
    assert "your hand" not in spectator


def test_the_presenter_narrates_damage_deaths_and_the_end() -> None:
    presenter = presenter_for(RULES.presenter())
    match = started(2)
    made = scene(match, hands=(["Fireball"], []), boards=([], ["Ogre Brute"]))
    before = match.view(None)
    match.act(0, {"type": "play", "card": made[0][0], "target": made[1][0]}, 2)
    presenter.table_lines(before, [])
    assert presenter.narrate(before, match.view(None), ["ann", "bo"], False) == "seat 1's Ogre Brute dies"
    rewrite(match, lambda state: board.hero(state, 1).update(health=1))
    made = scene(match, hands=(["Arcane Shot"], []))
    before = match.view(None)
    match.act(0, {"type": "play", "card": made[0][0], "target": "p1"}, 3)
    assert hero(match, 1)["health"] == -1
    assert presenter.narrate(before, match.view(None), ["ann", "bo"], False) == "seat 0 (ann) wins"
