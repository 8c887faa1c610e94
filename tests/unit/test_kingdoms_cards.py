"""Kingdoms' cards one by one, played through `Match` in the lord's play
phase of a 5-player table: Slash (range, once a turn), Dodge, Peach and
dying, Nullification chains, each trick, the delayed tricks in the judge
phase (last in, first out), weapons and horses, death's rewards and
penalties, and who wins."""

from __future__ import annotations

import pytest
from kingdoms_scenarios import (
    END_PLAY,
    PASS,
    all_card_ids,
    asked,
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


def test_a_dying_player_is_asked_for_peaches_from_the_current_player_on_and_can_be_saved() -> None:
    match, me = table_of_five()
    target, helper = seat_after(match, me), seat_after(match, me, 3)
    hands = scene(match, {me: ["Slash", "Peach"], helper: ["Peach"], target: ["Peach"]})
    set_health(match, target, 1)
    use(match, me, hands[me][0], [target])
    assert asked(match) == ("peach", [me])
    assert match.view(None)["prompt"]["dying"] == target and "seats" not in match.view(None)["prompt"]
    match.act(me, PASS, 3)
    assert asked(match) == ("peach", [target])
    expire(match)
    assert asked(match) == ("peach", [helper])
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
    assert not table.alive(match.state, loyalist)
    assert table.hand(match.state, me) == [] and table.equipment(match.state, me) == []


def test_nullification_stops_a_trick_and_can_itself_be_nullified() -> None:
    match, me = table_of_five()
    target, friend = seat_after(match, me), seat_after(match, me, 2)
    hands = scene(match, {me: ["Dismantle", "Nullification"], target: ["Nullification", "Dodge"],
                          friend: ["Nullification"]})
    use(match, me, hands[me][0], [target])
    assert asked(match) == ("nullify", [me]), "asked in seat order from the current player"
    match.act(me, PASS, 3)
    assert asked(match) == ("nullify", [target])
    respond(match, target, hands[target][0])
    assert asked(match) == ("nullify", [me]), "the Nullification itself may be nullified"
    respond(match, me, hands[me][1])
    assert asked(match) == ("nullify", [friend])
    match.act(friend, PASS, 4)
    # Nobody counters the second Nullification: the first fails, and the
    # asking for the Dismantle starts over (nobody has one left but the friend).
    assert asked(match) == ("nullify", [friend])
    respond(match, friend, hands[friend][0])
    assert asked(match) == ("play", [me])
    assert table.hand(match.state, target) == [hands[target][1]], "the Dismantle was nullified"


def test_dismantle_discards_the_card_its_user_picks() -> None:
    match, me = table_of_five()
    target = seat_after(match, me, 2)
    hands = scene(match, {me: ["Dismantle"], target: ["Dodge"]})
    horse = place(match, target, cards.SHADOW_RUNNER, table.equip_zone)
    use(match, me, hands[me][0], [target])
    assert asked(match) == ("pick", [me])
    assert [a["card"] for a in match.request_for(me).legal_actions] == ["hand", horse]
    match.act(me, {"type": "pick", "card": horse}, 3)
    assert table.equipment(match.state, target) == [] and horse in table.cards_in(match.state, table.DISCARD)


def test_snatch_reaches_distance_one_and_takes_a_random_hand_card() -> None:
    match, me = table_of_five()
    near, far = seat_after(match, me), seat_after(match, me, 2)
    hands = scene(match, {me: ["Snatch"], near: ["Dodge"], far: ["Dodge"]})
    assert targets_of(match, me, hands[me][0]) == [[near]]
    use(match, me, hands[me][0], [near])
    match.act(me, {"type": "pick", "card": "hand"}, 3)
    assert table.hand(match.state, me) == hands[near] and table.hand(match.state, near) == []


def test_a_duel_asks_for_slashes_in_turn_from_the_target_and_who_cannot_takes_one_damage() -> None:
    match, me = table_of_five()
    target = seat_after(match, me, 2)
    hands = scene(match, {me: ["Duel", "Slash"], target: ["Slash"]})
    use(match, me, hands[me][0], [target])
    assert asked(match) == ("slash", [target])
    respond(match, target, hands[target][0])
    assert asked(match) == ("slash", [me])
    match.act(me, PASS, 3)
    assert health(match, me) == table.player(match.state, me)["max_health"] - 1


def test_barbarian_invasion_asks_everyone_else_for_a_slash_in_seat_order() -> None:
    match, me = table_of_five()
    others = [seat_after(match, me, k) for k in range(1, 5)]
    hands = scene(match, {me: ["Barbarian Invasion"], others[1]: ["Slash"]})
    use(match, me, hands[me][0])
    assert asked(match) == ("slash", [others[1]])
    respond(match, others[1], hands[others[1]][0])
    hurt = [seat for seat in others if health(match, seat) < table.player(match.state, seat)["max_health"]]
    assert hurt == [others[0], others[2], others[3]]


def judge_phase_of_next(match, me: int) -> None:
    """End the lord's turn; the next player's judge phase runs."""
    match.act(me, END_PLAY, 5)
    while asked(match) is not None and asked(match)[0] == "discard":
        expire(match)


def test_indulgence_skips_the_play_phase_unless_the_judgement_is_a_heart() -> None:
    match, me = table_of_five()
    target = seat_after(match, me)
    (indulgence,) = scene(match, {me: ["Indulgence"]})[me]
    use(match, me, indulgence, [target])
    assert table.judgements(match.state, target) == [indulgence]
    stack_deck(match, ["club"])
    judge_phase_of_next(match, me)
    assert table.current_seat(match.state) != target, "the play phase was skipped"
    assert indulgence in table.cards_in(match.state, table.DISCARD)


def test_a_heart_escapes_indulgence() -> None:
    match, me = table_of_five()
    target = seat_after(match, me)
    (indulgence,) = scene(match, {me: ["Indulgence"]})[me]
    use(match, me, indulgence, [target])
    stack_deck(match, ["heart"])
    judge_phase_of_next(match, me)
    assert asked(match) == ("play", [target])


def test_lightning_strikes_for_three_on_a_spade_two_to_nine_else_moves_on() -> None:
    match, me = table_of_five()
    target = seat_after(match, me)
    first = place(match, target, cards.LIGHTNING, table.judge_zone)
    stack_deck(match, ["heart"])
    scene(match)
    judge_phase_of_next(match, me)
    assert table.judgements(match.state, seat_after(match, target)) == [first]
    match2, me2 = table_of_five()
    target2 = seat_after(match2, me2)
    place(match2, target2, cards.LIGHTNING, table.judge_zone)
    stack_deck(match2, ["spade 5"])
    scene(match2)
    judge_phase_of_next(match2, me2)
    assert health(match2, target2) == table.player(match2.state, target2)["max_health"] - 3


def test_the_judge_phase_resolves_delayed_tricks_last_in_first_out() -> None:
    match, me = table_of_five()
    target = seat_after(match, me)
    lightning = place(match, target, cards.LIGHTNING, table.judge_zone)
    indulgence = place(match, target, cards.INDULGENCE, table.judge_zone)
    judged = stack_deck(match, ["heart", "club"])
    scene(match)
    judge_phase_of_next(match, me)
    # Indulgence (placed last) met the heart and was escaped; Lightning met the club and moved on.
    assert table.judgements(match.state, seat_after(match, target)) == [lightning]
    assert asked(match) == ("play", [target])
    discard = table.cards_in(match.state, table.DISCARD)
    assert discard.index(judged[0]) < discard.index(judged[1]) and indulgence in discard


def test_a_nullified_delayed_trick_has_no_effect() -> None:
    match, me = table_of_five()
    target = seat_after(match, me)
    place(match, target, cards.INDULGENCE, table.judge_zone)
    hands = scene(match, {target: ["Nullification"]})
    match.act(me, END_PLAY, 5)
    while asked(match)[0] == "discard":
        expire(match)
    assert asked(match) == ("nullify", [target])
    respond(match, target, hands[target][0])
    assert asked(match) == ("play", [target])


def test_the_lords_death_makes_the_rebels_win() -> None:
    match, me = table_of_five(24)
    rebel = next(s for s in range(5) if table.player(match.state, s)["identity"] == "rebel")
    rewrite(match, lambda state: state["position"].update(current=rebel))
    hands = scene(match, {me: ["Duel"], rebel: ["Slash"]})
    set_health(match, me, 1)
    use(match, me, hands[me][0], [rebel])
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
    judge_phase_of_next(match, me)
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
