"""Kingdoms' tricks one by one, played through `Match` in the lord's play
phase of a 5-player table: Nullification and its chains, Dismantle,
Snatch, Duel, Barbarian Invasion, and the delayed tricks in the judge
phase (last in, first out; never two of one name in a judgement area)."""

from __future__ import annotations

import pytest
from kingdoms_scenarios import (
    PASS,
    asked,
    end_turn,
    everyone_passes,
    health,
    lord,
    place,
    respond,
    scene,
    seat_after,
    stack_deck,
    started,
    use,
)

from tablehost.games.engine.errors import RuleError
from tablehost.games.kingdoms import cards, table


def table_of_five(seed: int = 21):
    match = started(seed, 5)
    return match, lord(match)


def targets_of(match, seat: int, card: str) -> list[list[int]]:
    return [a["targets"] for a in match.request_for(seat).legal_actions if a.get("card") == card]


# -- Nullification -------------------------------------------------------------------


def test_every_player_who_could_nullify_is_asked_at_once_with_one_deadline() -> None:
    match, me = table_of_five()
    target, other = seat_after(match, me), seat_after(match, me, 3)
    hands = scene(match, {me: ["Dismantle", "Slash"], target: ["Dodge"], other: ["Nullification"]})
    use(match, me, hands[me][0], [target])
    assert asked(match) == ("nullify", [me, target, other]), "every living player with a card in hand"
    requests = {r.seat: r for r in match.requests}
    assert {r.deadline_ms for r in requests.values()} == {2 + 15_000}
    assert requests[target].legal_actions == [PASS] and requests[target].default == PASS
    assert requests[other].legal_actions == [{"type": "respond", "card": hands[other][0]}, PASS]


def test_the_first_nullification_given_closes_the_question() -> None:
    match, me = table_of_five()
    target, other = seat_after(match, me), seat_after(match, me, 3)
    hands = scene(match, {me: ["Dismantle", "Slash"], target: ["Dodge"], other: ["Nullification"]})
    use(match, me, hands[me][0], [target])
    respond(match, other, hands[other][0])
    assert asked(match) == ("nullify", [me, target]), "the Nullification itself may be nullified"
    everyone_passes(match)
    assert asked(match) == ("play", [me])
    assert table.hand(match.state, target) == hands[target], "the Dismantle was nullified"


def test_nullification_stops_a_trick_and_can_itself_be_nullified() -> None:
    match, me = table_of_five()
    target, friend = seat_after(match, me), seat_after(match, me, 2)
    hands = scene(match, {me: ["Dismantle", "Nullification"], target: ["Nullification", "Dodge"],
                          friend: ["Nullification"]})
    use(match, me, hands[me][0], [target])
    assert asked(match) == ("nullify", [me, target, friend])
    respond(match, target, hands[target][0])
    assert asked(match) == ("nullify", [me, target, friend]), "the Nullification itself may be nullified"
    respond(match, me, hands[me][1])
    assert asked(match) == ("nullify", [target, friend]), "and so may that one (the user's hand is empty now)"
    match.act(friend, PASS, 4)
    match.act(target, PASS, 4)
    # Nobody countered the second Nullification: the first fails, and the
    # Dismantle is open to Nullification again.
    assert asked(match) == ("nullify", [target, friend])
    respond(match, friend, hands[friend][0])
    assert asked(match) == ("nullify", [target])
    match.act(target, PASS, 5)
    assert asked(match) == ("play", [me])
    assert table.hand(match.state, target) == [hands[target][1]], "the Dismantle was nullified"


def test_when_every_asked_player_passes_the_trick_stands() -> None:
    match, me = table_of_five()
    target = seat_after(match, me, 2)
    hands = scene(match, {me: ["Dismantle", "Slash"], target: ["Nullification"]})
    use(match, me, hands[me][0], [target])
    match.act(target, PASS, 3)
    assert asked(match) == ("nullify", [me])
    match.act(me, PASS, 3)
    assert asked(match) == ("pick", [me])


# -- tricks with a target ------------------------------------------------------------


def test_dismantle_discards_the_card_its_user_picks() -> None:
    match, me = table_of_five()
    target = seat_after(match, me, 2)
    hands = scene(match, {me: ["Dismantle"], target: ["Dodge"]})
    horse = place(match, target, cards.SHADOW_RUNNER, table.equip_zone)
    use(match, me, hands[me][0], [target])
    everyone_passes(match)
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
    everyone_passes(match)
    match.act(me, {"type": "pick", "card": "hand"}, 3)
    assert table.hand(match.state, me) == hands[near] and table.hand(match.state, near) == []


def test_a_duel_asks_for_slashes_in_turn_from_the_target_and_who_cannot_takes_one_damage() -> None:
    match, me = table_of_five()
    target = seat_after(match, me, 2)
    hands = scene(match, {me: ["Duel", "Slash"], target: ["Slash"]})
    use(match, me, hands[me][0], [target])
    everyone_passes(match)
    assert asked(match) == ("slash", [target])
    respond(match, target, hands[target][0])
    assert asked(match) == ("slash", [me])
    match.act(me, PASS, 3)
    assert health(match, me) == table.player(match.state, me)["max_health"] - 1


def test_barbarian_invasion_asks_everyone_else_for_a_slash_in_seat_order() -> None:
    """Each other player with a card in hand is asked, holding a Slash or
    not; one with an empty hand cannot answer and takes the damage."""
    match, me = table_of_five()
    others = [seat_after(match, me, k) for k in range(1, 5)]
    hands = scene(match, {me: ["Barbarian Invasion"], others[1]: ["Slash"], others[2]: ["Dodge"]})
    use(match, me, hands[me][0])
    answered = []
    while asked(match)[0] != "play":
        kind, seats = asked(match)
        if kind == "slash":
            answered.append(seats)
            slashes = table.holding(match.state, seats[0], cards.SLASH)
            match.act(seats[0], {"type": "respond", "card": slashes[0]} if slashes else PASS, 3)
        else:
            everyone_passes(match, kind)
    assert answered == [[others[1]], [others[2]]]
    hurt = [seat for seat in others if health(match, seat) < table.player(match.state, seat)["max_health"]]
    assert hurt == [others[0], others[2], others[3]]


# -- delayed tricks ------------------------------------------------------------------


def test_indulgence_skips_the_play_phase_unless_the_judgement_is_a_heart() -> None:
    match, me = table_of_five()
    target = seat_after(match, me)
    (indulgence,) = scene(match, {me: ["Indulgence"]})[me]
    use(match, me, indulgence, [target])
    assert table.judgements(match.state, target) == [indulgence]
    stack_deck(match, ["club"])
    end_turn(match)
    assert table.current_seat(match.state) != target, "the play phase was skipped"
    assert indulgence in table.cards_in(match.state, table.DISCARD)


def test_a_heart_escapes_indulgence() -> None:
    match, me = table_of_five()
    target = seat_after(match, me)
    (indulgence,) = scene(match, {me: ["Indulgence"]})[me]
    use(match, me, indulgence, [target])
    stack_deck(match, ["heart"])
    end_turn(match)
    assert asked(match) == ("play", [target])


def test_lightning_strikes_for_three_on_a_spade_two_to_nine_else_moves_on() -> None:
    match, me = table_of_five()
    target = seat_after(match, me)
    first = place(match, target, cards.LIGHTNING, table.judge_zone)
    stack_deck(match, ["heart"])
    scene(match)
    end_turn(match)
    assert table.judgements(match.state, seat_after(match, target)) == [first]
    match2, me2 = table_of_five()
    target2 = seat_after(match2, me2)
    place(match2, target2, cards.LIGHTNING, table.judge_zone)
    stack_deck(match2, ["spade 5"])
    scene(match2)
    end_turn(match2)
    assert health(match2, target2) == table.player(match2.state, target2)["max_health"] - 3


def test_a_moving_lightning_passes_over_a_player_who_already_has_one() -> None:
    """Seed: "执行此牌的后续效果（置入弃牌堆或者置入下家判定区，或者别的）"; which
    next player is ours, as Sanguosha moves it: the next living player
    without a Lightning, so no judgement area ever holds two."""
    match, me = table_of_five()
    target, holder, beyond = seat_after(match, me), seat_after(match, me, 2), seat_after(match, me, 3)
    moving = place(match, target, cards.LIGHTNING, table.judge_zone)
    waiting = place(match, holder, cards.LIGHTNING, table.judge_zone)
    stack_deck(match, ["heart"])
    scene(match)
    end_turn(match)
    assert table.judgements(match.state, holder) == [waiting]
    assert table.judgements(match.state, beyond) == [moving]


def test_a_lightning_nobody_else_can_take_stays_where_it_was_and_is_judged_once_a_phase() -> None:
    """Seed: "对判定区内所有牌按后进来先判定的顺序依次进行": the cards there when
    the judge phase begins, each judged once."""
    match = started(21, 2)
    me = lord(match)
    other = 1 - me
    place(match, me, cards.LIGHTNING, table.judge_zone)
    staying = place(match, other, cards.LIGHTNING, table.judge_zone)
    stack_deck(match, ["heart"])
    scene(match)
    seen = len(match.events)
    end_turn(match)
    assert table.judgements(match.state, other) == [staying]
    assert len(table.judgements(match.state, me)) == 1
    assert [event.type for event in match.events[seen:]].count("JUDGED") == 1


def test_a_second_delayed_trick_of_a_name_cannot_be_used_on_a_player() -> None:
    match, me = table_of_five()
    target = seat_after(match, me)
    place(match, me, cards.LIGHTNING, table.judge_zone)
    place(match, target, cards.INDULGENCE, table.judge_zone)
    lightning, indulgence = scene(match, {me: ["Lightning", "Indulgence"]})[me]
    assert targets_of(match, me, lightning) == []
    assert [target] not in targets_of(match, me, indulgence) and targets_of(match, me, indulgence) != []
    for card, targets in ((lightning, []), (indulgence, [target])):
        with pytest.raises(RuleError):
            use(match, me, card, targets)


def test_the_judge_phase_resolves_delayed_tricks_last_in_first_out() -> None:
    match, me = table_of_five()
    target = seat_after(match, me)
    lightning = place(match, target, cards.LIGHTNING, table.judge_zone)
    indulgence = place(match, target, cards.INDULGENCE, table.judge_zone)
    judged = stack_deck(match, ["heart", "club"])
    scene(match)
    end_turn(match)
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
    end_turn(match)
    assert asked(match) == ("nullify", [target])
    respond(match, target, hands[target][0])
    assert asked(match) == ("play", [target])
