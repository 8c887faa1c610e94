"""Each general's skill, one test each: skills are trigger handlers on the
seed's timings, held by name in the state. Cao Ren's Fortify and Pang
Tong's Nirvana are followed through the flow too: they are what makes a
player face down or resting in a real game."""

from __future__ import annotations

from kingdoms_scenarios import (
    END_PLAY,
    asked,
    end_turn,
    everyone_passes,
    expire,
    health,
    lord,
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

from tablehost.games.kingdoms import cards, table, turns
from tablehost.games.kingdoms import timings as kt
from tablehost.games.kingdoms.generals import GENERALS, SKILLS


def with_skill(seed: int, skill: str, seat_offset: int = 0, seats: int = 5):
    """A match (5 players unless said) in the lord's play phase; the seat
    `seat_offset` after the lord holds `skill`, nobody else holds any."""
    match = started(seed, seats)
    holder = seat_after(match, lord(match), seat_offset)
    rewrite(match, lambda state: state["players"][holder]["skills"].append(skill))
    return match, lord(match), holder


def end_lords_turn(match, me: int) -> None:
    match.act(me, END_PLAY, 5)
    while asked(match) is not None and asked(match)[0] == "discard":
        expire(match)


def test_there_are_seventeen_generals_each_with_skills_on_the_games_timings() -> None:
    declared = {skill.name: skill for skill in SKILLS}
    assert len(GENERALS) == 17
    assert all(general.skills and set(general.skills) <= set(declared) for general in GENERALS.values())
    held = [name for general in GENERALS.values() for name in general.skills]
    assert len(held) == len(set(held)) == len(declared), "each skill belongs to one general"
    assert all(timing in kt.ALL_TIMINGS for skill in SKILLS for timing, _ in skill.triggers)


def test_handsome_draws_one_more_card_in_the_draw_phase() -> None:
    match, me, holder = with_skill(31, "handsome", 1)
    scene(match)
    end_lords_turn(match, me)
    assert len(table.hand(match.state, holder)) == 3


def test_goddess_luo_keeps_black_judgements_and_judges_again_until_red() -> None:
    match, me, holder = with_skill(32, "goddess_luo", 1)
    scene(match)
    black = stack_deck(match, ["spade", "club", "heart"])
    end_lords_turn(match, me)
    hand = table.hand(match.state, holder)
    assert hand[:2] == black[:2] and len(hand) == 4
    assert black[2] in table.cards_in(match.state, table.DISCARD)


def test_villainous_hero_takes_the_card_that_damaged_him() -> None:
    match, me, holder = with_skill(33, "villainous_hero", 1)
    (slash,) = scene(match, {me: ["Slash"]})[me]
    use(match, me, slash, [holder])
    assert table.hand(match.state, holder) == [slash]


def test_unyielding_judges_and_hurts_the_source_unless_a_heart() -> None:
    match, me, holder = with_skill(34, "unyielding", 1)
    (slash,) = scene(match, {me: ["Slash"]})[me]
    stack_deck(match, ["spade"])
    before = health(match, me)
    use(match, me, slash, [holder])
    assert health(match, me) == before - 1
    match, me, holder = with_skill(34, "unyielding", 1)
    (slash,) = scene(match, {me: ["Slash"]})[me]
    stack_deck(match, ["heart"])
    use(match, me, slash, [holder])
    assert health(match, me) == before


def test_demonic_talent_replaces_a_judgement_with_a_card_from_hand() -> None:
    match, me, holder = with_skill(35, "demonic_talent", 3)
    target = seat_after(match, me)
    place(match, target, cards.INDULGENCE, table.judge_zone)
    stack_deck(match, ["club"])
    hands = scene(match)
    del hands
    heart = rewrite(match, lambda state: _give_suit(state, holder, cards.HEART))
    end_lords_turn(match, me)
    everyone_passes(match, "nullify")
    assert asked(match) == ("retrial", [holder])
    assert {"type": "respond", "card": heart} in match.request_for(holder).legal_actions
    respond(match, holder, heart)
    assert asked(match) == ("play", [target]), "the heart escapes Indulgence"


def _give_suit(state, seat: int, suit: str) -> str:
    card_id = next(c for c in table.cards_in(state, table.DECK)[5:] if cards.card(c).suit == suit)
    table.move(state, card_id, table.hand_zone(state, seat))
    return card_id


def test_envy_of_heaven_takes_its_own_judgement_card() -> None:
    match, me, holder = with_skill(36, "envy_of_heaven", 1)
    place(match, holder, cards.INDULGENCE, table.judge_zone)
    judged = stack_deck(match, ["club"])
    scene(match)
    end_lords_turn(match, me)
    assert judged[0] in table.hand(match.state, holder)


def test_self_restraint_skips_the_discard_phase_without_a_slash_used() -> None:
    match, me, _ = with_skill(37, "self_restraint", 0)
    scene(match, {me: ["Dodge"] * 7})
    match.act(me, END_PLAY, 5)
    assert table.current_seat(match.state) != me and len(table.hand(match.state, me)) == 7


def test_surprise_raid_skips_the_draw_to_take_a_card_from_two_others() -> None:
    match, me, holder = with_skill(38, "surprise_raid", 1)
    hands = scene(match, {me: ["Dodge"], seat_after(match, me, 3): ["Peach"], seat_after(match, me, 4): ["Slash"]})
    end_lords_turn(match, me)
    taken = set(table.hand(match.state, holder))
    assert taken == set(hands[seat_after(match, me, 3)] + hands[seat_after(match, me, 4)])


def test_wisdom_draws_a_card_for_each_non_delayed_trick_used() -> None:
    match, me, _ = with_skill(39, "wisdom", 0)
    duel, indulgence = scene(match, {me: ["Duel", "Indulgence"]})[me]
    use(match, me, indulgence, [seat_after(match, me)])
    assert len(table.hand(match.state, me)) == 1
    use(match, me, duel, [seat_after(match, me, 2)])
    assert len(table.hand(match.state, me)) == 1, "the Duel used, one card drawn"


def test_skills_are_granted_by_name_from_the_chosen_general() -> None:
    match = started(40, 3, keep_skills=True)
    assert all(player["skills"] == ["self_restraint"] for player in match.state["players"])


def _take_red_slash(state, seat: int) -> str:
    card_id = next(c for c in table.cards_in(state, table.DECK)
                   if cards.card(c).name == cards.SLASH and cards.card(c).red)
    table.move(state, card_id, table.hand_zone(state, seat))
    return card_id


def _placed(state, seat: int, name: str) -> str:
    card_id = next(c for c in table.cards_in(state, table.DECK) if cards.card(c).name == name)
    table.move(state, card_id, table.equip_zone(state, seat))
    return card_id


def test_fortify_draws_three_and_turns_a_wounded_holder_face_down_at_the_finish_phase() -> None:
    match, me, holder = with_skill(41, "fortify", 1, seats=3)
    scene(match)
    rewrite(match, lambda state: table.player(state, holder).update(health=3))
    end_turn(match)
    end_turn(match)
    assert len(table.hand(match.state, holder)) == 2 + 3
    assert not table.player(match.state, holder)["face_up"]
    assert not match.view(None)["players"][holder]["face_up"]


def test_fortify_needs_a_wound() -> None:
    match, me, holder = with_skill(41, "fortify", 1, seats=3)
    scene(match)
    end_turn(match)
    end_turn(match)
    assert len(table.hand(match.state, holder)) == 2 and table.player(match.state, holder)["face_up"]


def test_a_player_fortify_turned_face_down_skips_their_next_turn_and_turns_face_up() -> None:
    """Seed: "若该角色的武将牌背面向上，则将武将牌翻面至正面向上，然后判断未通过",
    reached through a general's skill, as Cao Ren's 据守 does."""
    match, me, holder = with_skill(42, "fortify", 1, seats=3)
    scene(match)
    rewrite(match, lambda state: table.player(state, holder).update(health=3))
    end_turn(match)  # the lord's
    end_turn(match)  # the holder's: Fortify turns them face down
    after = seat_after(match, holder)
    end_turn(match)  # the third seat's
    end_turn(match)  # the lord's; the holder's turn is skipped
    assert table.player(match.state, holder)["face_up"]
    assert table.current_seat(match.state) == after and asked(match) == ("play", [after])
    end_turn(match)
    end_turn(match)
    assert table.current_seat(match.state) == holder, "face up again, the holder plays the turn after"


def test_nirvana_rests_the_holder_instead_of_dying() -> None:
    match, me, holder = with_skill(43, "nirvana", 1)
    (slash,) = scene(match, {me: ["Slash"]})[me]
    set_health(match, holder, 1)
    horse = rewrite(match, lambda state: _placed(state, holder, cards.RED_HARE))
    use(match, me, slash, [holder])
    record = table.player(match.state, holder)
    assert not record["alive"] and record["rest"] == 2 and record["health"] == 0
    assert horse in table.cards_in(match.state, table.DISCARD)
    assert match.state["players"][holder]["skills"] == [], "Nirvana is spent"
    seen = match.view(None)["players"][holder]
    assert seen["identity"] is None and seen["rest"] == 2, "resting is not dying: the identity stays hidden"
    assert len(table.hand(match.state, me)) == 0, "nobody died, so nobody claims a reward"
    assert "DIED" not in [event.type for event in match.events]


def test_a_resting_player_counts_down_and_comes_back_with_full_health() -> None:
    """Seed: "若该角色处于休整状态，则将其休整轮数-1，若完成休整则复活该角色",
    reached through Pang Tong's Nirvana."""
    match, me, holder = with_skill(44, "nirvana", 1, seats=3)
    (slash,) = scene(match, {me: ["Slash"]})[me]
    rewrite(match, lambda state: table.player(state, holder).update(health=1))
    use(match, me, slash, [holder])
    end_turn(match)  # the lord's; the holder's turn counts their rest down and is skipped
    assert table.player(match.state, holder)["rest"] == 1 and not table.alive(match.state, holder)
    assert table.current_seat(match.state) == seat_after(match, holder)
    end_turn(match)
    end_turn(match)
    record = table.player(match.state, holder)
    assert record["alive"] and record["rest"] == 0 and record["health"] == record["max_health"]
    assert asked(match) == ("play", [holder])


def test_a_resting_player_still_counts_for_their_side() -> None:
    match = started(45, 2)
    me = lord(match)
    rebel = 1 - me
    rewrite(match, lambda state: state["players"][rebel]["skills"].append("nirvana"))
    (slash,) = scene(match, {me: ["Slash"]})[me]
    rewrite(match, lambda state: table.player(state, rebel).update(health=1))
    use(match, me, slash, [rebel])
    assert table.resting(match.state, rebel) and match.result is None


def test_close_moon_draws_a_card_at_the_finish_phase() -> None:
    match, me, holder = with_skill(46, "close_moon", 1)
    scene(match)
    end_turn(match)
    end_turn(match)
    assert len(table.hand(match.state, holder)) == 3


def test_continuous_victory_draws_when_the_last_hand_card_is_used() -> None:
    match, me, _ = with_skill(47, "continuous_victory", 0)
    spear, slash = scene(match, {me: [cards.SERPENT_SPEAR, "Slash"]})[me]
    use(match, me, spear)
    assert table.hand(match.state, me) == [slash], "a card is left: nothing drawn"
    use(match, me, slash, [seat_after(match, me, 2)])
    assert len(table.hand(match.state, me)) == 1


def test_integrity_draws_up_to_the_maximum_health_when_damaged() -> None:
    match, me, holder = with_skill(48, "integrity", 1)
    (slash,) = scene(match, {me: ["Slash"]})[me]
    use(match, me, slash, [holder])
    assert len(table.hand(match.state, holder)) == table.player(match.state, holder)["max_health"]


def test_exaltation_draws_for_a_duel_used_and_a_red_slash_aimed_at_its_holder() -> None:
    match, me, _ = with_skill(49, "exaltation", 0)
    (duel,) = scene(match, {me: ["Duel"]})[me]
    use(match, me, duel, [seat_after(match, me, 2)])
    assert len(table.hand(match.state, me)) == 1
    match, me, holder = with_skill(49, "exaltation", 1)
    scene(match)
    slash = rewrite(match, lambda state: _take_red_slash(state, me))
    use(match, me, slash, [holder])
    assert len(table.hand(match.state, holder)) == 1 and asked(match) == ("dodge", [holder])


def test_wild_bones_heals_its_holder_for_damage_dealt_at_distance_one() -> None:
    match, me, _ = with_skill(50, "wild_bones", 0)
    (slash,) = scene(match, {me: ["Slash"]})[me]
    wounded = table.player(match.state, me)["max_health"] - 1
    rewrite(match, lambda state: table.player(state, me).update(health=wounded))
    use(match, me, slash, [seat_after(match, me)])
    assert health(match, me) == wounded + 1


def test_adaptable_takes_a_play_phase_indulgence_would_skip_for_a_random_hand_card() -> None:
    match, me, holder = with_skill(51, "adaptable", 1)
    place(match, holder, cards.INDULGENCE, table.judge_zone)
    stack_deck(match, ["club"])
    scene(match, {holder: ["Dodge"]})
    end_turn(match)
    everyone_passes(match, "nullify")
    assert asked(match) == ("play", [holder]), "the skip was cancelled at PHASE_SKIPPING"
    assert len(table.hand(match.state, holder)) == 1 + 2 - 1, "a Dodge and the draw, one card discarded"
    assert {"seat": holder, "skill": "adaptable"} in [e.payload for e in match.events if e.type == "SKILL_USED"]


def test_adaptable_needs_a_card_in_hand() -> None:
    match, me, holder = with_skill(51, "adaptable", 1)
    place(match, holder, cards.INDULGENCE, table.judge_zone)
    stack_deck(match, ["club"])
    scene(match)
    rewrite(match, lambda state: turns.skip_phase(state, holder, table.DRAW_PHASE))
    end_turn(match)
    assert table.current_seat(match.state) != holder, "nothing to discard: the play phase is skipped"
