"""Each general's skill, one test each: skills are trigger handlers on the
seed's timings, held by name in the state."""

from __future__ import annotations

from kingdoms_scenarios import (
    END_PLAY,
    asked,
    expire,
    health,
    lord,
    place,
    respond,
    rewrite,
    scene,
    seat_after,
    stack_deck,
    started,
    use,
)

from tablehost.games.kingdoms import cards, table
from tablehost.games.kingdoms.generals import GENERALS, SKILLS


def with_skill(seed: int, skill: str, seat_offset: int = 0):
    """A 5-player match in the lord's play phase; the seat `seat_offset`
    after the lord holds `skill`, nobody else holds any."""
    match = started(seed, 5)
    holder = seat_after(match, lord(match), seat_offset)
    rewrite(match, lambda state: state["players"][holder]["skills"].append(skill))
    return match, lord(match), holder


def end_lords_turn(match, me: int) -> None:
    match.act(me, END_PLAY, 5)
    while asked(match) is not None and asked(match)[0] == "discard":
        expire(match)


def test_there_are_nine_generals_each_with_a_declared_skill() -> None:
    declared = {skill.name for skill in SKILLS}
    assert len(GENERALS) >= 8
    assert all(set(general.skills) <= declared for general in GENERALS.values())


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
