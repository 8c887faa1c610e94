"""Duel's rules played through `Match`: setup and the mulligan, the coin,
the turn's refresh (draw, fatigue, capacity, overdraw), combat keywords,
deaths, secrets, the end of the game, deck checks, the timer, what each
seat sees. Each card's own text is tested in test_duel_cards.py."""

from __future__ import annotations

import pytest
from duel_scenarios import (
    END_TURN,
    KEEP,
    all_card_ids,
    attack,
    hand_names,
    hero,
    minion,
    new_match,
    on_board,
    play,
    rewrite,
    scene,
    started,
)

from tablehost.games.duel import board
from tablehost.games.duel.decks import DECKS, checked_deck
from tablehost.games.duel.game import RULES
from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.match import replay
from tablehost.games.engine.rules import InvalidJoin
from tablehost.games.engine.views import canonical_bytes

# -- setup and the mulligan ----------------------------------------------------------


def test_the_first_player_comes_from_the_seed_and_both_seats_occur() -> None:
    firsts = {new_match(seed).state["variables"]["duel.first"] for seed in range(12)}
    assert firsts == {0, 1}
    assert new_match(5).state == new_match(5).state


def test_the_first_player_draws_three_the_second_four_and_both_are_asked_at_once() -> None:
    match = new_match(3)
    first = match.state["variables"]["duel.first"]
    assert len(board.hand(match.state, first)) == 3
    assert len(board.hand(match.state, 1 - first)) == 4
    assert [request.seat for request in match.requests] == [0, 1]
    assert len(match.request_for(first).legal_actions) == 2**3
    assert match.request_for(1 - first).default == KEEP
    assert hero(match, 0)["health"] == 25 and hero(match, 0)["armor"] == 0 and hero(match, 0)["capacity"] == 0


def test_returned_cards_are_replaced_from_the_deck_and_shuffled_back() -> None:
    match = new_match(3)
    seat = 0
    hand_before = list(board.hand(match.state, seat))
    returned = hand_before[:2]
    match.act(seat, {"type": "mulligan", "cards": returned}, 1)
    hand_after = board.hand(match.state, seat)
    assert len(hand_after) == len(hand_before)
    assert not set(returned) & set(hand_after), "a returned card does not come straight back"
    assert set(returned) <= set(board.deck(match.state, seat))
    assert len(board.deck(match.state, seat)) == 30 - len(hand_before)


def test_turns_begin_only_when_both_have_chosen_and_the_second_player_gets_the_coin() -> None:
    match = new_match(3)
    first = match.state["variables"]["duel.first"]
    match.act(first, KEEP, 1)
    assert RULES.to_act(match.state) is None and [r.seat for r in match.requests] == [1 - first]
    with pytest.raises(RuleError) as refusal:
        match.act(first, KEEP, 1)
    assert refusal.value.reason is Reason.NOT_YOUR_TURN
    match.act(1 - first, KEEP, 1)
    assert RULES.to_act(match.state) == first
    assert "Lucky Coin" in hand_names(match, 1 - first) and "Lucky Coin" not in hand_names(match, first)
    assert len(board.hand(match.state, first)) == 4, "3 cards and the first turn's draw"
    assert hero(match, first)["mana"] == 1 and hero(match, first)["capacity"] == 1


def test_a_mulligan_left_to_its_deadline_keeps_the_hand() -> None:
    match = new_match(3, {"turn_timeout_ms": 500})
    hands = [list(board.hand(match.state, seat)) for seat in (0, 1)]
    for _ in range(2):
        match.act_automatically(match.next_expired(500), 500)
    first = match.state["variables"]["duel.first"]
    assert board.hand(match.state, 1 - first)[:4] == hands[1 - first]
    assert all(command.automatic and command.action == KEEP for command in match.commands)


def test_the_lucky_coin_gives_one_mana_this_turn_only() -> None:
    match = started(3)
    seat = RULES.to_act(match.state)
    match.act(seat, END_TURN, 2)
    second = 1 - seat
    coin = next(c for c in board.hand(match.state, second) if board.card_name(match.state, c) == "Lucky Coin")
    play(match, second, coin)
    assert hero(match, second)["mana"] == 2 and hero(match, second)["capacity"] == 1
    match.act(second, END_TURN, 3)
    match.act(seat, END_TURN, 4)
    assert hero(match, second)["mana"] == 2 and hero(match, second)["capacity"] == 2


# -- the turn's refresh --------------------------------------------------------------


def test_capacity_grows_by_one_a_turn_up_to_ten_and_mana_refills() -> None:
    match = started(2)
    capacities = []
    for _ in range(24):
        seat = RULES.to_act(match.state)
        capacities.append((seat, hero(match, seat)["capacity"], hero(match, seat)["mana"]))
        match.act(seat, END_TURN, 2)
        if match.result is not None:
            break
    first_player = [c for s, c, _ in capacities if s == capacities[0][0]]
    assert first_player[:12] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10]
    assert all(capacity == mana for _, capacity, mana in capacities)


def test_an_empty_deck_deals_fatigue_one_then_two_then_three() -> None:
    match = started(2)
    seat = RULES.to_act(match.state)
    rewrite(match, lambda state: state["zones"][board.deck_zone(state, 1 - seat)].update(cards=[]))
    healths = []
    for _ in range(3):
        match.act(seat, END_TURN, 2)
        healths.append(hero(match, 1 - seat)["health"])
        match.act(1 - seat, END_TURN, 2)
    assert healths == [24, 22, 19]
    assert hero(match, 1 - seat)["fatigue"] == 3


def test_a_card_drawn_into_a_full_hand_is_burned_and_shown_to_both() -> None:
    match = started(2)
    scene(match, to_act=1, hands=(["Lantern Moth"] * 10, []))
    top = board.deck(match.state, 0)[0]
    name = board.card_name(match.state, top)
    match.act(1, END_TURN, 3)
    assert len(board.hand(match.state, 0)) == 10
    assert top in board.cards_in(match.state, board.burned_zone(match.state, 0))
    for viewer in (0, 1, None):
        assert match.view(viewer)["heroes"][0]["burned"] == [name]


def test_minions_that_began_the_turn_may_attack_and_playable_cards_are_marked() -> None:
    match = started(2)
    made = scene(match, to_act=0, mana=2, hands=(["Fireball", "Frostbolt"], []), boards=(["Ogre Brute"], []))
    view = match.view(0)
    assert [card["playable"] for card in view["hand"]] == [False, True]
    assert view["ready"] == [made[0][2]]
    assert "ready" not in match.view(1) and "hand" not in match.view(None)
    match.act(0, END_TURN, 2)
    assert all(not card["playable"] for card in match.view(0)["hand"]), "turn end clears the marks"


# -- combat and keywords ---------------------------------------------------------------


def test_a_minion_summoned_this_turn_cannot_attack_unless_it_has_charge() -> None:
    match = started(2)
    made = scene(match, hands=(["Ogre Brute", "Raider"], []))
    play(match, 0, made[0][0])
    play(match, 0, made[0][1])
    legal = match.request_for(0).legal_actions
    attackers = {action["attacker"] for action in legal if action["type"] == "attack"}
    assert attackers == {made[0][1]}
    with pytest.raises(RuleError, match="summoned this turn"):
        attack(match, 0, made[0][0], "p1")


def test_taunt_must_be_attacked_first_and_stealth_cannot_be_attacked() -> None:
    match = started(2)
    made = scene(match, boards=(["Ogre Brute"], ["Gate Warden", "Alley Cutpurse"]))
    brute, warden, cutpurse = made[0][0], made[1][0], made[1][1]
    targets = {a["target"] for a in match.request_for(0).legal_actions if a["type"] == "attack"}
    assert targets == {warden}
    with pytest.raises(RuleError, match="taunt"):
        attack(match, 0, brute, "p1")
    attack(match, 0, brute, warden)
    assert warden not in board.board(match.state, 1)
    match.act(0, END_TURN, 2)
    match.act(1, END_TURN, 2)
    targets = {a["target"] for a in match.request_for(0).legal_actions if a["type"] == "attack"}
    assert targets == {"p1"}, "a minion in stealth cannot be attacked"
    assert cutpurse in board.board(match.state, 1)


def test_divine_shield_absorbs_one_hit_whole() -> None:
    match = started(2)
    made = scene(match, boards=(["Ogre Brute", "Ogre Brute"], ["Shield Squire"]))
    squire = made[1][0]
    attack(match, 0, made[0][0], squire)
    assert minion(match, squire)["health"] == 1 and not minion(match, squire)["divine_shield"]
    attack(match, 0, made[0][1], squire)
    assert squire not in board.board(match.state, 1)


def test_a_frozen_character_misses_its_next_attack_and_then_thaws() -> None:
    match = started(2)
    made = scene(match, hands=(["Frostbolt"], []), boards=([], ["Ogre Brute"]))
    brute = made[1][0]
    play(match, 0, made[0][0], brute)
    assert minion(match, brute)["frozen_turn"] is not None
    match.act(0, END_TURN, 2)
    assert not any(a["type"] == "attack" and a["attacker"] == brute for a in match.request_for(1).legal_actions)
    match.act(1, END_TURN, 2)
    assert minion(match, brute)["frozen_turn"] is None
    match.act(0, END_TURN, 2)
    assert any(a["type"] == "attack" and a["attacker"] == brute for a in match.request_for(1).legal_actions)


def test_windfury_attacks_twice() -> None:
    match = started(2)
    made = scene(match, boards=(["Twinblade Sellsword"], []))
    attack(match, 0, made[0][0], "p1")
    attack(match, 0, made[0][0], "p1")
    assert hero(match, 1)["health"] == 21
    with pytest.raises(RuleError, match="twice"):
        attack(match, 0, made[0][0], "p1")


def test_simultaneous_deaths_resolve_active_side_first_left_to_right() -> None:
    match = started(2)
    made = scene(match, hands=(["Consecration"], []),
                 boards=(["Hoard Gremlin"], ["Scrap Golem", "Hoard Gremlin", "Scrap Golem"]))
    rewrite(match, lambda state: [board.minion(state, m).update(health=1) for m in made[1]])
    deck_before = len(board.deck(match.state, 1))
    # A paladin's spell in a mage's hand: the scene puts any card anywhere.
    play(match, 0, made[0][0])
    died = [event.payload["minion"] for event in match.events if event.type == "DIED"]
    assert died == made[1]
    assert on_board(match, 1) == ["Damaged Golem", "Damaged Golem"]
    assert len(board.deck(match.state, 1)) == deck_before - 1


def test_deaths_caused_by_a_deathrattle_are_resolved_in_the_same_step() -> None:
    match = started(2)
    made = scene(match, hands=(["Fireball"], []), boards=(["Lantern Moth"], ["Plague Abomination", "Shield Squire"]))
    play(match, 0, made[0][0], made[1][0])
    assert on_board(match, 0) == [] and on_board(match, 1) == ["Shield Squire"]
    assert hero(match, 0)["health"] == 23 and hero(match, 1)["health"] == 23


# -- secrets --------------------------------------------------------------------------


def test_a_secret_is_hidden_until_its_trigger_reveals_it() -> None:
    match = started(2)
    made = scene(match, to_act=1, hands=([], ["Ice Barrier"]))
    play(match, 1, made[1][0])
    assert match.view(0)["heroes"][1]["secret_count"] == 1
    assert made[1][0].encode() not in canonical_bytes(match.view(0))
    assert match.view(1)["secrets"][0]["name"] == "Ice Barrier"
    match.act(1, END_TURN, 2)
    made = scene(match, to_act=0, boards=(["Ogre Brute"], []))
    attack(match, 0, made[0][0], "p1")
    assert hero(match, 1)["armor"] == 4 and hero(match, 1)["health"] == 25
    assert match.view(0)["heroes"][1]["secret_count"] == 0
    assert "Ice Barrier" in match.view(0)["heroes"][1]["graveyard"]


def test_a_secret_does_not_trigger_in_its_owners_own_turn_and_cannot_be_doubled() -> None:
    match = started(2)
    made = scene(match, hands=(["Eye for an Eye", "Eye for an Eye", "Hedge Archer"], []))
    play(match, 0, made[0][0])
    with pytest.raises(RuleError, match="already one of your secrets"):
        play(match, 0, made[0][1])
    play(match, 0, made[0][2], "p0")
    assert hero(match, 0)["health"] == 24 and hero(match, 1)["health"] == 25
    assert board.secrets(match.state, 0) == [made[0][0]]


# -- the end of the game -------------------------------------------------------------


def test_a_hero_at_zero_health_loses() -> None:
    match = started(2)
    made = scene(match, hands=(["Fireball"], []))
    rewrite(match, lambda state: board.hero(state, 1).update(health=6))
    play(match, 0, made[0][0], "p1")
    assert match.result["winner"] == 0 and match.result["scores"] == [1, -1]
    assert match.requests == [] and match.deadline_ms is None
    with pytest.raises(RuleError) as refusal:
        match.act(1, END_TURN, 3)
    assert refusal.value.reason is Reason.GAME_OVER


def test_both_heroes_falling_at_once_is_a_draw() -> None:
    match = started(2)
    made = scene(match, hands=(["Fireball"], []), boards=([], ["Plague Abomination"]))
    rewrite(match, lambda state: [board.hero(state, seat).update(health=2) for seat in (0, 1)])
    play(match, 0, made[0][0], made[1][0])
    assert match.result["winner"] == -1 and match.result["draw"] and match.result["scores"] == [0, 0]


# -- join data, options, timer ---------------------------------------------------------


def test_registered_decks_are_accepted_and_kept_with_their_cards() -> None:
    for name, deck in DECKS.items():
        kept = checked_deck({"deck": name})
        assert kept == {"deck": name, "class": deck["class"], "cards": deck["cards"]}
        assert checked_deck(kept) == kept, "checked join data passes its check again (a replay)"


@pytest.mark.parametrize(("join", "reason"), [
    ({}, "none of what this game takes: {deck: a string"),
    ({"deck": "warlock-zoo"}, "unknown deck 'warlock-zoo'"),
    ({"deck": "mage-basic", "hat": 1}, "keys \\['deck', 'hat'\\] is none of what this game takes"),
    ({"deck": ["mage-basic"]}, "deck is a string, not a list"),
    ({b"deck": "mage-basic"}, "keys are strings"),
    ({"class": "mage", "cards": ["Lantern Moth"] * 61}, "cards has at most 60 items, not 61"),
    ({"class": "druid", "cards": ["Lantern Moth"] * 30}, "unknown class 'druid'"),
    ({"class": "mage", "cards": ["Lantern Moth"] * 29}, "exactly 30 cards, this one 29"),
    ({"class": "mage", "cards": ["Lantern Moth"] * 28 + ["Frostbolt", "Frostbolt"]},
     "28 copies of Lantern Moth: a deck may hold a card at most 2 times"),
    ({"class": "mage", "cards": DECKS["mage-basic"]["cards"][:-2] + ["Ember Lord", "Ember Lord"]},
     "legendary card at most 1 time"),
    ({"class": "mage", "cards": DECKS["mage-basic"]["cards"][:-1] + ["Holy Light"]}, "may not hold Holy Light"),
    ({"class": "mage", "cards": DECKS["mage-basic"]["cards"][:-1] + ["Hound"]}, "no such card to put in a deck: Hound"),
    ({"class": "mage", "cards": "Fireball"}, "cards is a list of strings, not str"),
    ({"class": "mage", "cards": [1] * 30}, "each of cards is a string, not int"),
])
def test_a_bad_deck_is_refused_at_join_with_its_reason(join: dict, reason: str) -> None:
    with pytest.raises(InvalidJoin, match=reason):
        RULES.accepted_join(join)


def test_hero_health_and_the_turn_timer_are_options() -> None:
    match = started(2, {"hero_health": 30, "turn_timeout_ms": 5_000})
    assert hero(match, 0)["health"] == hero(match, 0)["max_health"] == 30
    assert match.deadline_ms == 1 + 5_000
    assert started(2).deadline_ms == 1 + 90_000
    with pytest.raises(ValueError, match="hero_health"):
        new_match(1, {"hero_health": 0})


def test_when_the_timer_expires_the_turn_ends_automatically() -> None:
    match = started(2, {"turn_timeout_ms": 1_000})
    seat = RULES.to_act(match.state)
    request = match.next_expired(1_001)
    assert request is not None and request.default == END_TURN
    match.act_automatically(request, 1_001)
    assert RULES.to_act(match.state) == 1 - seat and match.commands[-1].automatic
    assert match.deadline_ms == 2_001


# -- views and replay -------------------------------------------------------------------


def test_views_show_counts_not_cards_of_the_other_hand_and_no_deck_order() -> None:
    match = started(4)
    first = RULES.to_act(match.state)
    second = 1 - first
    for viewer in (first, None):
        view = match.view(viewer)
        encoded = canonical_bytes(view)
        for card in board.hand(match.state, second) + board.deck(match.state, second):
            assert card.encode() not in encoded
        assert view["heroes"][second]["hand_count"] == 5 and view["heroes"][second]["has_coin"]
    assert len(match.view(second)["hand"]) == 5 and "hand" not in match.view(None)
    assert match.view(first)["heroes"][first]["deck_count"] == len(board.deck(match.state, first))


def test_every_card_is_in_exactly_one_zone_and_a_replay_reproduces_the_state() -> None:
    match = started(6)
    seat = RULES.to_act(match.state)
    for _ in range(6):
        match.act(seat, match.request_for(seat).legal_actions[0], 5)
        seat = RULES.to_act(match.state)
        if match.result is not None:
            break
    ids = all_card_ids(match.state)
    assert len(ids) == len(set(ids)) == len(match.state["variables"][board.VAR_CARDS])
    again = replay(RULES, match.header(), match.commands)
    assert again.state_hash() == match.state_hash()


def test_malformed_and_illegal_actions_are_refused_without_a_trace() -> None:
    match = started(2)
    made = scene(match, mana=1, hands=(["Fireball"], []))
    before = match.state_hash()
    for action, reason in [
        ({"type": "play"}, Reason.MALFORMED),
        ({"type": "play", "card": made[0][0], "extra": 1}, Reason.MALFORMED),
        ({"type": "play", "card": made[0][0], "target": "p1"}, Reason.ILLEGAL_MOVE),
        ({"type": "play", "card": "p1.00"}, Reason.ILLEGAL_MOVE),
        ({"type": "attack", "attacker": "p0", "target": "p1"}, Reason.ILLEGAL_MOVE),
        ({"type": "mulligan", "cards": []}, Reason.ILLEGAL_MOVE),
    ]:
        with pytest.raises(RuleError) as refusal:
            match.act(0, action, 2)
        assert refusal.value.reason is reason, action
        assert match.state_hash() == before
    with pytest.raises(RuleError) as refusal:
        match.act(1, END_TURN, 2)
    assert refusal.value.reason is Reason.NOT_YOUR_TURN
