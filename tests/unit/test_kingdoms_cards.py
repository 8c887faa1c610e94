"""Kingdoms' basic cards and equipment one by one, played through `Match`
in the lord's play phase of a 5-player table: Slash (range, once a turn),
Dodge, Peach and dying, weapons and horses, death's rewards and
penalties, and who wins. Tricks are test_kingdoms_tricks.py's."""

from __future__ import annotations

import pytest
from kingdoms_scenarios import (
    PASS,
    all_card_ids,
    asked,
    end_turn,
    everyone_passes,
    expire,
    health,
    lord,
    names,
    place,
    respond,
    rewrite,
    scene,
    seat_after,
    set_health,
    stack_deck,
    started,
    use,
)

from tablehost.games.engine.errors import RuleError
from tablehost.games.kingdoms import cards, legal, table
from tablehost.games.kingdoms.cards import CARDS


def table_of_five(seed: int = 21):
    match = started(seed, 5)
    return match, lord(match)


def targets_of(match, seat: int, card: str) -> list[list[int]]:
    return [a["targets"] for a in match.request_for(seat).legal_actions if a.get("card") == card]


def test_the_deck_holds_every_card_once() -> None:
    match, _ = table_of_five()
    assert sorted(all_card_ids(match.state)) == sorted(CARDS)
    assert len(CARDS) == 86


def test_distance_is_the_shorter_way_round_the_living_players() -> None:
    match, me = table_of_five()
    assert [table.distance(match.state, me, seat_after(match, me, k)) for k in range(1, 5)] == [1, 2, 2, 1]
    rewrite(match, lambda state: table.player(state, seat_after(match, me, 1)).update(alive=False))
    assert table.distance(match.state, me, seat_after(match, me, 2)) == 1


def test_a_slash_reaches_only_players_within_attack_range_and_is_used_once_a_turn() -> None:
    match, me = table_of_five()
    slash, second = scene(match, {me: ["Slash", "Slash"]})[me]
    assert targets_of(match, me, slash) == [[seat_after(match, me, 1)], [seat_after(match, me, 4)]]
    near = seat_after(match, me, 1)
    use(match, me, slash, [near])
    assert health(match, near) == table.player(match.state, near)["max_health"] - 1
    assert targets_of(match, me, second) == []


def test_a_crossbow_allows_any_number_of_slashes() -> None:
    match, me = table_of_five()
    place(match, me, cards.CROSSBOW, table.equip_zone)
    first, second = scene(match, {me: ["Slash", "Slash"]})[me]
    use(match, me, first, [seat_after(match, me)])
    assert targets_of(match, me, second) != []


def test_the_serpent_spear_reaches_three_and_equipping_replaces_the_old_weapon() -> None:
    match, me = table_of_five()
    crossbow = place(match, me, cards.CROSSBOW, table.equip_zone)
    spear, slash = scene(match, {me: [cards.SERPENT_SPEAR, "Slash"]})[me]
    use(match, me, spear)
    assert table.equipment(match.state, me) == [spear] and crossbow in table.cards_in(match.state, table.DISCARD)
    assert table.attack_range(match.state, me) == 3
    assert len(targets_of(match, me, slash)) == 4


def test_horses_change_distance_both_ways() -> None:
    match, me = table_of_five()
    far = seat_after(match, me, 2)
    place(match, me, cards.RED_HARE, table.equip_zone)
    assert table.distance(match.state, me, far) == 1
    place(match, far, cards.SHADOW_RUNNER, table.equip_zone)
    assert table.distance(match.state, me, far) == 2
    assert table.distance(match.state, seat_after(match, me, 1), far) == 2


def test_a_slashed_player_holding_a_dodge_is_asked_and_a_dodge_avoids_the_damage() -> None:
    match, me = table_of_five()
    target = seat_after(match, me)
    hands = scene(match, {me: ["Slash"], target: ["Dodge"]})
    use(match, me, hands[me][0], [target])
    assert asked(match) == ("dodge", [target])
    assert match.request_for(target).legal_actions == [{"type": "respond", "card": hands[target][0]}, PASS]
    respond(match, target, hands[target][0])
    assert health(match, target) == table.player(match.state, target)["max_health"]
    assert asked(match) == ("play", [me])


def test_an_unanswered_dodge_request_times_out_to_no_dodge() -> None:
    match, me = table_of_five()
    target = seat_after(match, me)
    hands = scene(match, {me: ["Slash"], target: ["Dodge"]})
    use(match, me, hands[me][0], [target])
    expire(match)
    assert health(match, target) == table.player(match.state, target)["max_health"] - 1
    assert table.hand(match.state, target) == hands[target]


def test_a_peach_heals_one_and_only_when_hurt() -> None:
    match, me = table_of_five()
    (peach,) = scene(match, {me: ["Peach"]})[me]
    assert targets_of(match, me, peach) == []
    set_health(match, me, 2)
    use(match, me, peach)
    assert health(match, me) == 3


def test_a_dying_player_is_asked_for_peaches_by_each_player_in_turn_from_the_current_one_and_can_be_saved() -> None:
    """Seed 003's game flow leaves dying to the cards; the rule is "each
    player in turn" from the current one. Every living player with a card in
    hand is asked, whether or not it is a Peach (who is asked must not tell
    the table who holds one); an empty hand cannot give one (our choice)."""
    match, me = table_of_five()
    target, bystander, helper = seat_after(match, me), seat_after(match, me, 2), seat_after(match, me, 3)
    hands = scene(match, {me: ["Slash", "Peach"], target: ["Peach"], bystander: ["Dodge"], helper: ["Peach"]})
    set_health(match, target, 1)
    use(match, me, hands[me][0], [target])
    assert asked(match) == ("dodge", [target]), "asked for a Dodge though holding none"
    expire(match)
    assert asked(match) == ("peach", [me])
    assert match.view(None)["prompt"]["dying"] == target and match.view(None)["prompt"]["seats"] == [me]
    match.act(me, PASS, 3)
    assert asked(match) == ("peach", [target])
    expire(match)
    assert asked(match) == ("peach", [bystander])
    assert match.request_for(bystander).legal_actions == [PASS]
    match.act(bystander, PASS, 4)
    assert asked(match) == ("peach", [helper]), "the empty-handed seat after the bystander is not asked"
    respond(match, helper, hands[helper][0])
    assert health(match, target) == 1 and table.alive(match.state, target)
    assert asked(match) == ("play", [me])


def test_nobody_saving_a_dying_rebel_kills_them_reveals_them_and_the_killer_draws_three() -> None:
    match, me = table_of_five(22)
    rebel = next(s for s in range(5) if table.player(match.state, s)["identity"] == "rebel"
                 and table.distance(match.state, me, s) == 1)
    (slash,) = scene(match, {me: ["Slash"]})[me]
    set_health(match, rebel, 1)
    place(match, rebel, cards.RED_HARE, table.equip_zone)
    use(match, me, slash, [rebel])
    assert not table.alive(match.state, rebel)
    assert match.view(None)["players"][rebel]["identity"] == "rebel"
    assert table.all_cards_of(match.state, rebel) == [] and match.state["players"][rebel]["skills"] == []
    assert len(table.hand(match.state, me)) == 3


def test_the_lord_killing_a_loyalist_discards_every_card() -> None:
    match, me = table_of_five(23)
    loyalist = next(s for s in range(5) if table.player(match.state, s)["identity"] == "loyalist")
    duel, *_ = scene(match, {me: ["Duel", "Dodge", "Dodge"]})[me]
    place(match, me, cards.SERPENT_SPEAR, table.equip_zone)
    set_health(match, loyalist, 1)
    use(match, me, duel, [loyalist])
    everyone_passes(match, "nullify")
    everyone_passes(match, "peach")
    assert not table.alive(match.state, loyalist)
    assert table.hand(match.state, me) == [] and table.equipment(match.state, me) == []


def test_the_lords_death_makes_the_rebels_win() -> None:
    match, me = table_of_five(24)
    rebel = next(s for s in range(5) if table.player(match.state, s)["identity"] == "rebel")
    rewrite(match, lambda state: state["position"].update(current=rebel))
    hands = scene(match, {me: ["Duel"], rebel: ["Slash"]})
    set_health(match, me, 1)
    use(match, me, hands[me][0], [rebel])
    everyone_passes(match, "nullify")
    respond(match, rebel, hands[rebel][0])
    result = match.result
    assert result["side"] == "rebel" and not result["draw"]
    rebels = [s for s in range(5) if table.player(match.state, s)["identity"] == "rebel"]
    assert result["winners"] == rebels and result["winner"] == rebels[0]
    assert result["scores"] == [1 if s in rebels else -1 for s in range(5)]
    assert match.requests == [] and match.view(None)["result"] == result


def test_the_renegade_alone_with_the_lord_wins_by_killing_the_lord() -> None:
    match = started(25, 3)
    the_lord = lord(match)
    renegade = next(s for s in range(3) if table.player(match.state, s)["identity"] == "renegade")
    rebel = next(s for s in range(3) if table.player(match.state, s)["identity"] == "rebel")
    rewrite(match, lambda state: table.player(state, rebel).update(alive=False))
    hands = scene(match, {the_lord: ["Duel"], renegade: ["Slash"]})
    set_health(match, the_lord, 1)
    use(match, the_lord, hands[the_lord][0], [renegade])
    everyone_passes(match, "nullify")
    respond(match, renegade, hands[renegade][0])
    assert match.result["side"] == "renegade" and match.result["winners"] == [renegade]


def test_the_lord_and_loyalists_win_when_every_rebel_and_the_renegade_are_dead() -> None:
    match = started(26, 2)
    the_lord = lord(match)
    rebel = 1 - the_lord
    hands = scene(match, {the_lord: ["Slash"]})
    set_health(match, rebel, 1)
    use(match, the_lord, hands[the_lord][0], [rebel])
    assert match.result["side"] == "lord" and match.result["winners"] == [the_lord]


def test_a_current_player_who_dies_ends_their_turn() -> None:
    match, me = table_of_five(27)
    other = seat_after(match, me)
    place(match, other, cards.LIGHTNING, table.judge_zone)
    stack_deck(match, ["spade 5"])
    scene(match)
    set_health(match, other, 3)
    end_turn(match)
    assert not table.alive(match.state, other) and match.result is None
    assert table.current_seat(match.state) == seat_after(match, other)
    assert table.cards_in(match.state, table.PROCESSING) == []


def test_the_play_phase_lists_every_usable_card_and_refuses_anything_else() -> None:
    match, me = table_of_five(28)
    scene(match, {me: ["Slash", "Peach", "Dismantle", "Snatch", "Duel", "Barbarian Invasion", "Indulgence",
                       "Lightning", "Crossbow", "Red Hare"], seat_after(match, me): ["Dodge"]})
    listed = legal.play_actions(match.state, me)
    assert {names(match.state, [a["card"]])[0] for a in listed} == {
        "Slash", "Dismantle", "Snatch", "Duel", "Barbarian Invasion", "Indulgence", "Lightning", "Crossbow",
        "Red Hare"}
    with pytest.raises(RuleError):
        match.act(me, {"type": "use", "card": "c00", "targets": [me]}, 3)
