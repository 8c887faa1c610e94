"""One scenario per Duel card: it is played (or its text provoked) on a
scene set for it, and its own effect is asserted. A test checks that every
collectible card, hero power and the Lucky Coin has its scenario."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from duel_scenarios import END_TURN, attack, hand_names, hero, minion, on_board, play, rewrite, scene, started

from tablehost.games.duel import board
from tablehost.games.duel.catalog import CATALOG, COLLECTIBLE, HERO_POWERS, LUCKY_COIN
from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.match import Match

Scenario = Callable[[Match], None]
SCENARIOS: dict[str, Scenario] = {}


def card(name: str) -> Callable[[Scenario], Scenario]:
    def register(scenario: Scenario) -> Scenario:
        assert name in CATALOG, name
        SCENARIOS[name] = scenario
        return scenario

    return register


def plays_as_vanilla(name: str, attack_: int, health: int, keyword: str | None = None) -> None:
    def scenario(match: Match) -> None:
        made = scene(match, hands=([name], []))
        play(match, 0, made[0][0])
        record = minion(match, made[0][0])
        assert (record["attack"], record["health"]) == (attack_, health)
        assert hero(match, 0)["mana"] == 10 - CATALOG[name].cost
        if keyword is not None:
            assert record[keyword]

    card(name)(scenario)


plays_as_vanilla("Lantern Moth", 1, 2)
plays_as_vanilla("Marsh Crawler", 2, 3)
plays_as_vanilla("Ogre Brute", 4, 5)
plays_as_vanilla("Boulder Giant", 6, 7)
plays_as_vanilla("Gate Warden", 1, 2, "taunt")
plays_as_vanilla("Bulwark Sentinel", 3, 5, "taunt")
plays_as_vanilla("Shield Squire", 1, 1, "divine_shield")
plays_as_vanilla("Alley Cutpurse", 2, 1, "stealth")


@card("Raider")
def _(match: Match) -> None:
    made = scene(match, hands=(["Raider"], []))
    play(match, 0, made[0][0])
    attack(match, 0, made[0][0], "p1")
    assert hero(match, 1)["health"] == 22


@card("Twinblade Sellsword")
def _(match: Match) -> None:
    made = scene(match, hands=(["Twinblade Sellsword"], []))
    play(match, 0, made[0][0])
    assert minion(match, made[0][0])["windfury"]
    match.act(0, END_TURN, 2)
    match.act(1, END_TURN, 2)
    attack(match, 0, made[0][0], "p1")
    attack(match, 0, made[0][0], "p1")
    assert hero(match, 1)["health"] == 21


@card("Hedge Archer")
def _(match: Match) -> None:
    made = scene(match, hands=(["Hedge Archer"], []), boards=([], ["Lantern Moth"]))
    play(match, 0, made[0][0], made[1][0])
    assert minion(match, made[1][0])["health"] == 1


@card("Dawnwatcher")
def _(match: Match) -> None:
    made = scene(match, hands=(["Holy Light"], []), boards=(["Dawnwatcher"], []))
    rewrite(match, lambda state: board.hero(state, 0).update(health=20))
    play(match, 0, made[0][0], "p0")
    assert minion(match, made[0][1])["attack"] == 3


@card("Hoard Gremlin")
def _(match: Match) -> None:
    made = scene(match, hands=(["Fireball"], []), boards=([], ["Hoard Gremlin"]))
    cards = len(board.hand(match.state, 1))
    play(match, 0, made[0][0], made[1][0])
    assert len(board.hand(match.state, 1)) == cards + 1


@card("Doom Herald")
def _(match: Match) -> None:
    made = scene(match, hands=(["Doom Herald"], []), boards=(["Ogre Brute"], ["Ogre Brute"]))
    play(match, 0, made[0][0])
    match.act(0, END_TURN, 2)
    assert len(board.board(match.state, 0)) == 2, "only at the start of its owner's turn"
    match.act(1, END_TURN, 2)
    assert on_board(match, 0) == [] and on_board(match, 1) == []


@card("Knife Tosser")
def _(match: Match) -> None:
    made = scene(match, hands=(["Lantern Moth"], []), boards=(["Knife Tosser"], []))
    play(match, 0, made[0][0])
    assert hero(match, 1)["health"] == 24


@card("Tinker Apprentice")
def _(match: Match) -> None:
    made = scene(match, hands=(["Tinker Apprentice"], []))
    play(match, 0, made[0][0])
    assert len(board.hand(match.state, 0)) == 1


@card("Penitent Acolyte")
def _(match: Match) -> None:
    made = scene(match, hands=(["Hedge Archer"], []), boards=(["Penitent Acolyte"], []))
    play(match, 0, made[0][0], made[0][1])
    assert minion(match, made[0][1])["health"] == 2 and len(board.hand(match.state, 0)) == 1


@card("Scrap Golem")
def _(match: Match) -> None:
    made = scene(match, hands=(["Fireball"], []), boards=([], ["Lantern Moth", "Scrap Golem", "Lantern Moth"]))
    play(match, 0, made[0][0], made[1][1])
    assert on_board(match, 1) == ["Lantern Moth", "Damaged Golem", "Lantern Moth"]


@card("Field Medic")
def _(match: Match) -> None:
    made = scene(match, hands=(["Field Medic"], []))
    rewrite(match, lambda state: board.hero(state, 0).update(health=20))
    play(match, 0, made[0][0], "p0")
    assert hero(match, 0)["health"] == 23


@card("Sunward Cleric")
def _(match: Match) -> None:
    made = scene(match, hands=(["Sunward Cleric"], []), boards=(["Lantern Moth"], []))
    play(match, 0, made[0][0], made[0][1])
    assert (minion(match, made[0][1])["attack"], minion(match, made[0][1])["health"]) == (2, 3)


@card("Rime Wolf")
def _(match: Match) -> None:
    made = scene(match, boards=(["Rime Wolf"], ["Ogre Brute"]))
    attack(match, 0, made[0][0], made[1][0])
    assert minion(match, made[1][0])["frozen_turn"] is not None


@card("Plague Abomination")
def _(match: Match) -> None:
    made = scene(match, hands=(["Fireball"], []), boards=(["Lantern Moth"], ["Plague Abomination"]))
    assert minion(match, made[1][0])["taunt"]
    play(match, 0, made[0][0], made[1][0])
    assert on_board(match, 0) == [] and hero(match, 0)["health"] == 23 and hero(match, 1)["health"] == 23


@card("Ember Lord")
def _(match: Match) -> None:
    made = scene(match, hands=(["Ember Lord"], []))
    play(match, 0, made[0][0])
    match.act(0, END_TURN, 2)
    assert hero(match, 1)["health"] == 17


@card("Lucky Coin")
def _(match: Match) -> None:
    made = scene(match, mana=3, hands=(["Lucky Coin"], []))
    play(match, 0, made[0][0])
    assert hero(match, 0)["mana"] == 4


# -- mage ---------------------------------------------------------------------------


@card("Fireblast")
def _(match: Match) -> None:
    scene(match, hands=([], []))
    rewrite(match, lambda state: board.hero(state, 0).update(**{"class": "mage"}))
    match.act(0, {"type": "hero_power", "target": "p1"}, 2)
    assert hero(match, 1)["health"] == 24 and hero(match, 0)["mana"] == 8


@card("Mana Wyrm")
def _(match: Match) -> None:
    made = scene(match, hands=(["Arcane Intellect"], []), boards=(["Mana Wyrm"], []))
    play(match, 0, made[0][0])
    assert minion(match, made[0][1])["attack"] == 2


@card("Arcane Volley")
def _(match: Match) -> None:
    made = scene(match, hands=(["Arcane Volley"], []), boards=([], ["Boulder Giant"]))
    play(match, 0, made[0][0])
    lost = (25 - hero(match, 1)["health"]) + (7 - minion(match, made[1][0])["health"])
    assert lost == 3


@card("Frostbolt")
def _(match: Match) -> None:
    made = scene(match, hands=(["Frostbolt"], []))
    play(match, 0, made[0][0], "p1")
    assert hero(match, 1)["health"] == 22 and hero(match, 1)["frozen_turn"] is not None


@card("Arcane Intellect")
def _(match: Match) -> None:
    made = scene(match, hands=(["Arcane Intellect"], []))
    play(match, 0, made[0][0])
    assert len(board.hand(match.state, 0)) == 2


@card("Frost Nova")
def _(match: Match) -> None:
    made = scene(match, hands=(["Frost Nova"], []), boards=(["Lantern Moth"], ["Lantern Moth", "Ogre Brute"]))
    play(match, 0, made[0][0])
    assert all(minion(match, m)["frozen_turn"] is not None for m in made[1])
    assert minion(match, made[0][1])["frozen_turn"] is None


@card("Fireball")
def _(match: Match) -> None:
    made = scene(match, hands=(["Fireball"], []))
    play(match, 0, made[0][0], "p1")
    assert hero(match, 1)["health"] == 19


@card("Water Elemental")
def _(match: Match) -> None:
    made = scene(match, boards=(["Water Elemental"], ["Ogre Brute"]))
    attack(match, 0, made[0][0], made[1][0])
    assert minion(match, made[1][0])["frozen_turn"] is not None and minion(match, made[1][0])["health"] == 2


@card("Flamestrike")
def _(match: Match) -> None:
    made = scene(match, hands=(["Flamestrike"], []), boards=(["Lantern Moth"], ["Ogre Brute", "Boulder Giant"]))
    play(match, 0, made[0][0])
    assert on_board(match, 1) == ["Ogre Brute", "Boulder Giant"]
    assert [minion(match, m)["health"] for m in made[1]] == [1, 3] and hero(match, 1)["health"] == 25
    assert minion(match, made[0][1])["health"] == 2


@card("Ice Barrier")
def _(match: Match) -> None:
    made = scene(match, to_act=1, hands=(["Ice Barrier"], []), boards=([], ["Ogre Brute"]))
    rewrite(match, lambda state: board.secrets(state, 0).append(board.hand(state, 0).pop()))
    attack(match, 1, made[1][0], "p0")
    assert hero(match, 0)["armor"] == 4 and hero(match, 0)["health"] == 25


@card("Vaporize")
def _(match: Match) -> None:
    made = scene(match, to_act=1, hands=(["Vaporize"], []), boards=([], ["Ogre Brute"]))
    rewrite(match, lambda state: board.secrets(state, 0).append(board.hand(state, 0).pop()))
    attack(match, 1, made[1][0], "p0")
    assert on_board(match, 1) == [] and hero(match, 0)["health"] == 25


# -- paladin ---------------------------------------------------------------------------


@card("Reinforce")
def _(match: Match) -> None:
    scene(match)
    rewrite(match, lambda state: board.hero(state, 0).update(**{"class": "paladin"}))
    match.act(0, {"type": "hero_power"}, 2)
    assert on_board(match, 0) == ["Silver Hand Recruit"]


@card("Blessing of Might")
def _(match: Match) -> None:
    made = scene(match, hands=(["Blessing of Might"], []), boards=(["Lantern Moth"], []))
    play(match, 0, made[0][0], made[0][1])
    assert minion(match, made[0][1])["attack"] == 4


@card("Hand of Protection")
def _(match: Match) -> None:
    made = scene(match, hands=(["Hand of Protection"], []), boards=(["Lantern Moth"], []))
    play(match, 0, made[0][0], made[0][1])
    assert minion(match, made[0][1])["divine_shield"]


@card("Light's Justice")
def _(match: Match) -> None:
    made = scene(match, hands=(["Light's Justice"], []))
    play(match, 0, made[0][0])
    attack(match, 0, "p0", "p1")
    assert hero(match, 1)["health"] == 24 and board.weapon(match.state, 0)["durability"] == 3


@card("Holy Light")
def _(match: Match) -> None:
    made = scene(match, hands=(["Holy Light"], []))
    rewrite(match, lambda state: board.hero(state, 0).update(health=10))
    play(match, 0, made[0][0], "p0")
    assert hero(match, 0)["health"] == 16


@card("Argent Protector")
def _(match: Match) -> None:
    made = scene(match, hands=(["Argent Protector"], []), boards=(["Lantern Moth"], []))
    play(match, 0, made[0][0], made[0][1])
    assert minion(match, made[0][1])["divine_shield"]


@card("Consecration")
def _(match: Match) -> None:
    made = scene(match, hands=(["Consecration"], []), boards=(["Marsh Crawler"], ["Marsh Crawler"]))
    play(match, 0, made[0][0])
    assert hero(match, 1)["health"] == 23 and minion(match, made[1][0])["health"] == 1
    assert minion(match, made[0][1])["health"] == 3 and hero(match, 0)["health"] == 25


@card("Blessing of Kings")
def _(match: Match) -> None:
    made = scene(match, hands=(["Blessing of Kings"], []), boards=(["Lantern Moth"], []))
    play(match, 0, made[0][0], made[0][1])
    assert (minion(match, made[0][1])["attack"], minion(match, made[0][1])["health"]) == (5, 6)


@card("Truesilver Champion")
def _(match: Match) -> None:
    made = scene(match, hands=(["Truesilver Champion"], []))
    rewrite(match, lambda state: board.hero(state, 0).update(health=20))
    play(match, 0, made[0][0])
    attack(match, 0, "p0", "p1")
    assert hero(match, 0)["health"] == 22 and hero(match, 1)["health"] == 21


@card("Guardian of Kings")
def _(match: Match) -> None:
    made = scene(match, hands=(["Guardian of Kings"], []))
    rewrite(match, lambda state: board.hero(state, 0).update(health=10))
    play(match, 0, made[0][0])
    assert hero(match, 0)["health"] == 16


@card("Noble Sacrifice")
def _(match: Match) -> None:
    made = scene(match, to_act=1, hands=(["Noble Sacrifice"], []), boards=([], ["Ogre Brute"]))
    rewrite(match, lambda state: board.secrets(state, 0).append(board.hand(state, 0).pop()))
    attack(match, 1, made[1][0], "p0")
    assert hero(match, 0)["health"] == 25 and minion(match, made[1][0])["health"] == 3
    assert "Defender" in [board.card_name(match.state, c) for c in board.cards_in(match.state, "player:p0:graveyard")]


@card("Eye for an Eye")
def _(match: Match) -> None:
    made = scene(match, to_act=1, hands=(["Eye for an Eye"], []), boards=([], ["Ogre Brute"]))
    rewrite(match, lambda state: board.secrets(state, 0).append(board.hand(state, 0).pop()))
    attack(match, 1, made[1][0], "p0")
    assert hero(match, 0)["health"] == 21 and hero(match, 1)["health"] == 21


# -- hunter ----------------------------------------------------------------------------


@card("Steady Shot")
def _(match: Match) -> None:
    scene(match)
    rewrite(match, lambda state: board.hero(state, 0).update(**{"class": "hunter"}))
    match.act(0, {"type": "hero_power"}, 2)
    assert hero(match, 1)["health"] == 23


@card("Arcane Shot")
def _(match: Match) -> None:
    made = scene(match, hands=(["Arcane Shot"], []))
    play(match, 0, made[0][0], "p1")
    assert hero(match, 1)["health"] == 23


@card("Hunter's Mark")
def _(match: Match) -> None:
    made = scene(match, hands=(["Hunter's Mark"], []), boards=([], ["Boulder Giant"]))
    play(match, 0, made[0][0], made[1][0])
    assert minion(match, made[1][0])["health"] == minion(match, made[1][0])["max_health"] == 1


@card("Starving Buzzard")
def _(match: Match) -> None:
    made = scene(match, hands=(["Marsh Crawler", "Lantern Moth"], []), boards=(["Starving Buzzard"], []))
    play(match, 0, made[0][0])
    assert hand_names(match, 0)[0] == "Lantern Moth" and len(hand_names(match, 0)) == 2
    play(match, 0, made[0][1])
    assert len(hand_names(match, 0)) == 1, "a moth is no beast"


@card("Scavenging Hyena")
def _(match: Match) -> None:
    made = scene(match, hands=(["Fireball"], []), boards=(["Scavenging Hyena", "Marsh Crawler"], []))
    play(match, 0, made[0][0], made[0][2])
    assert (minion(match, made[0][1])["attack"], minion(match, made[0][1])["health"]) == (4, 3)


@card("Kill Command")
def _(match: Match) -> None:
    made = scene(match, hands=(["Kill Command", "Kill Command"], []))
    play(match, 0, made[0][0], "p1")
    assert hero(match, 1)["health"] == 22
    made = scene(match, hands=(["Kill Command"], []), boards=(["Marsh Crawler"], []))
    play(match, 0, made[0][0], "p1")
    assert hero(match, 1)["health"] == 17


@card("Unleash the Hounds")
def _(match: Match) -> None:
    made = scene(match, hands=(["Unleash the Hounds"], []), boards=([], ["Lantern Moth", "Lantern Moth"]))
    play(match, 0, made[0][0])
    assert on_board(match, 0) == ["Hound", "Hound"]
    hound = board.board(match.state, 0)[0]
    attack(match, 0, hound, made[1][0])  # charge: it attacks the turn it arrives
    assert minion(match, made[1][0])["health"] == 1


@card("Eaglehorn Bow")
def _(match: Match) -> None:
    made = scene(match, to_act=1, hands=(["Eaglehorn Bow", "Explosive Trap"], []), boards=([], ["Ogre Brute"]))

    def arm(state: board.State) -> None:
        bow, trap = board.hand(state, 0)
        board.secrets(state, 0).append(trap)
        board.hand(state, 0).remove(trap)
        board.hand(state, 0).remove(bow)
        board.cards_in(state, board.weapon_zone(state, 0)).append(bow)
        state["variables"][board.VAR_WEAPONS][bow] = {"attack": 3, "durability": 2}

    rewrite(match, arm)
    attack(match, 1, made[1][0], "p0")
    assert board.weapon(match.state, 0)["durability"] == 3


@card("Houndmaster")
def _(match: Match) -> None:
    made = scene(match, hands=(["Houndmaster"], []), boards=(["Marsh Crawler", "Lantern Moth"], []))
    targets = {a.get("target") for a in match.request_for(0).legal_actions if a.get("card") == made[0][0]}
    assert targets == {made[0][1]}, "only a friendly beast"
    play(match, 0, made[0][0], made[0][1])
    record = minion(match, made[0][1])
    assert (record["attack"], record["health"], record["taunt"]) == (4, 5, True)


@card("Multi-Shot")
def _(match: Match) -> None:
    made = scene(match, hands=(["Multi-Shot"], []), boards=([], ["Ogre Brute", "Ogre Brute", "Ogre Brute"]))
    play(match, 0, made[0][0])
    assert sorted(minion(match, m)["health"] for m in made[1]) == [2, 2, 5]


@card("Savannah Highmane")
def _(match: Match) -> None:
    made = scene(match, hands=(["Fireball"], []), boards=([], ["Savannah Highmane"]))
    play(match, 0, made[0][0], made[1][0])
    assert on_board(match, 1) == ["Hyena", "Hyena"]


@card("Explosive Trap")
def _(match: Match) -> None:
    made = scene(match, to_act=1, hands=(["Explosive Trap"], []), boards=([], ["Ogre Brute"]))
    rewrite(match, lambda state: board.secrets(state, 0).append(board.hand(state, 0).pop()))
    attack(match, 1, made[1][0], "p0")
    assert hero(match, 1)["health"] == 23 and minion(match, made[1][0])["health"] == 3
    assert hero(match, 0)["health"] == 21


@card("Snake Trap")
def _(match: Match) -> None:
    made = scene(match, to_act=1, hands=(["Snake Trap"], []), boards=(["Lantern Moth"], ["Ogre Brute"]))
    rewrite(match, lambda state: board.secrets(state, 0).append(board.hand(state, 0).pop()))
    attack(match, 1, made[1][0], made[0][1])
    assert on_board(match, 0) == ["Snake", "Snake", "Snake"]


# -- when a card or hero power may be used at all -----------------------------------------


def refused_without_a_trace(match: Match, action: dict[str, object], reason: str) -> None:
    """`action` is not offered, and sent anyway it is an illegal move that changes nothing."""
    assert action not in match.request_for(0).legal_actions
    before = match.state_hash()
    with pytest.raises(RuleError, match=reason) as refusal:
        match.act(0, action, 2)
    assert refusal.value.reason is Reason.ILLEGAL_MOVE
    assert match.state_hash() == before


def test_reinforce_is_neither_offered_nor_accepted_with_a_full_board() -> None:
    match = started(2)
    scene(match, boards=(["Lantern Moth"] * board.BOARD_LIMIT, []))
    rewrite(match, lambda state: board.hero(state, 0).update(**{"class": "paladin"}))
    refused_without_a_trace(match, {"type": "hero_power"}, "Reinforce needs room on your board")
    assert hero(match, 0)["mana"] == 10 and not hero(match, 0)["hero_power_used"]
    assert not match.view(0)["hero_power_ready"]


def test_reinforce_is_offered_again_once_a_minion_leaves_a_full_board() -> None:
    match = started(2)
    made = scene(match, hands=(["Fireball"], []), boards=(["Lantern Moth"] * board.BOARD_LIMIT, []))
    rewrite(match, lambda state: board.hero(state, 0).update(**{"class": "paladin"}))
    play(match, 0, made[0][0], made[0][1])
    assert {"type": "hero_power"} in match.request_for(0).legal_actions


def test_mana_wyrm_grows_when_a_secret_is_cast() -> None:
    match = started(2)
    made = scene(match, hands=(["Ice Barrier"], []), boards=(["Mana Wyrm"], []))
    play(match, 0, made[0][0])
    assert minion(match, made[0][1])["attack"] == 2


def test_mana_wyrm_grows_when_the_lucky_coin_is_cast() -> None:
    match = started(2)
    made = scene(match, hands=(["Lucky Coin"], []), boards=(["Mana Wyrm"], []))
    play(match, 0, made[0][0])
    assert minion(match, made[0][1])["attack"] == 2


def test_multi_shot_is_neither_offered_nor_accepted_without_an_enemy_minion() -> None:
    match = started(2)
    made = scene(match, hands=(["Multi-Shot"], []), boards=(["Ogre Brute"], []))
    refused_without_a_trace(match, {"type": "play", "card": made[0][0]}, "Multi-Shot needs an enemy minion")
    assert not match.view(0)["hand"][0]["playable"]


@pytest.mark.parametrize(("friends", "enemies"), [(["Ogre Brute"], []), (["Ogre Brute"] * 7, ["Ogre Brute"])])
def test_unleash_the_hounds_needs_an_enemy_minion_and_room_for_a_hound(friends: list[str], enemies: list[str]) -> None:
    match = started(2)
    made = scene(match, hands=(["Unleash the Hounds"], []), boards=(friends, enemies))
    refused_without_a_trace(match, {"type": "play", "card": made[0][0]},
                            "Unleash the Hounds needs an enemy minion on the board and room on your board")


def test_multi_shot_with_one_enemy_minion_hits_that_one_alone() -> None:
    match = started(2)
    made = scene(match, hands=(["Multi-Shot"], []), boards=(["Ogre Brute"], ["Ogre Brute"]))
    assert {"type": "play", "card": made[0][0]} in match.request_for(0).legal_actions
    play(match, 0, made[0][0])
    assert minion(match, made[1][0])["health"] == 2
    assert minion(match, made[0][1])["health"] == 5 and hero(match, 1)["health"] == 25


# -- every card has its scenario --------------------------------------------------------

CARDS_WITH_TEXT_TO_TEST = sorted({spec.name for spec in COLLECTIBLE} | {p.name for p in HERO_POWERS.values()}
                                 | {LUCKY_COIN.name})


def test_every_card_has_a_scenario_and_there_are_at_least_forty() -> None:
    assert sorted(SCENARIOS) == CARDS_WITH_TEXT_TO_TEST
    assert len(COLLECTIBLE) >= 40


@pytest.mark.parametrize("name", CARDS_WITH_TEXT_TO_TEST)
def test_card_does_what_its_text_says(name: str) -> None:
    SCENARIOS[name](started(2))
