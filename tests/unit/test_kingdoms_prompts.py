"""Kingdoms' prompts are decided from public information: who is asked for
a Dodge, a Peach, a Nullification or a Slash, and by when, depends only on
what every seat sees (who is alive, who has a card in hand), never on
which cards a hand holds. So the same table with different hidden cards
shows every other seat and the spectator the same views, the same asked
seats and the same deadlines; only the asked seat's own legal actions
list the fitting cards it holds. Every such request defaults to a pass.
Seed 003 does not say whom to ask; this rule is ours."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from kingdoms_scenarios import PASS, asked, expire, lord, rewrite, scene, seat_after, set_health, started, use

from tablehost.games.kingdoms import cards, table

def table_with(hands: Callable[[int, int], dict[int, Sequence[str]]], seed: int = 61):
    """A 5-player table in the lord's play phase with the given hands (a
    function of the lord's seat and the seat after it)."""
    match = started(seed, 5)
    me = lord(match)
    return match, me, scene(match, hands(me, seat_after(match, me)))


def exchange_with_the_deck(match, seat: int, name: str, instead: str) -> None:
    """`seat`'s cards named `name` trade places with cards named `instead`
    from the bottom of the deck: the same table but for that hand (and
    where in the deck those cards lie, far below any card drawn here)."""

    def change(state) -> None:
        deck, hand = table.cards_in(state, table.DECK), table.hand(state, seat)
        for place, card_id in enumerate(hand):
            if cards.card(card_id).name == name:
                below = max(i for i, c in enumerate(deck) if cards.card(c).name == instead)
                hand[place], deck[below] = deck[below], card_id

    rewrite(match, change)


def others_see(match, hidden_seat: int) -> list:
    """What every seat but `hidden_seat`, and a spectator, sees; and every
    open request's seat and deadline."""
    viewers = [seat for seat in range(5) if seat != hidden_seat] + [None]
    return [match.view(viewer) for viewer in viewers] + [[(r.seat, r.deadline_ms) for r in match.requests]]


def use_on_the_next_seat(match, me: int, hands: dict[int, list[str]]) -> None:
    use(match, me, hands[me][0], [seat_after(match, me)])


def bring_the_next_seat_down(match, me: int, hands: dict[int, list[str]]) -> None:
    set_health(match, seat_after(match, me), 1)
    use(match, me, hands[me][0], [seat_after(match, me)])


# Each scenario: the lord's hand, the hand of the seat after the lord, and
# the cards that answer, which the second table trades for other cards.
SCENARIOS = {
    "a Slash asks its target for a Dodge": (use_on_the_next_seat, ["Slash"], ["Dodge", "Peach"], {"Dodge": "Slash"}),
    "a Duel asks for a Slash and a Nullification": (use_on_the_next_seat, ["Duel"], ["Slash", "Nullification"],
                                                    {"Slash": "Dodge", "Nullification": "Peach"}),
    "a dying player is asked for a Peach": (bring_the_next_seat_down, ["Slash", "Dodge"], ["Peach"],
                                            {"Peach": "Dodge"}),
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_other_seats_see_the_same_table_whatever_the_asked_seat_holds(name: str) -> None:
    act, mine, theirs, traded = SCENARIOS[name]
    seen = []
    for holding in (True, False):
        match, me, hands = table_with(lambda me, target: {me: mine, target: theirs})
        if not holding:
            for answer, instead in traded.items():
                exchange_with_the_deck(match, seat_after(match, me), answer, instead)
        act(match, me, hands)
        target = seat_after(match, me)
        steps = [others_see(match, target)]
        while asked(match)[0] != "play":
            expire(match)  # every request left to its timer: the default, a pass
            steps.append(others_see(match, target))
        seen.append(steps)
    assert seen[0] == seen[1]


def test_a_slashed_player_without_a_dodge_is_asked_and_may_only_pass() -> None:
    match, me, hands = table_with(lambda me, target: {me: ["Slash"], target: ["Peach"]})
    target = seat_after(match, me)
    use(match, me, hands[me][0], [target])
    assert asked(match) == ("dodge", [target])
    request = match.request_for(target)
    assert request.legal_actions == [PASS] and request.default == PASS and request.deadline_ms == 2 + 15_000
    assert match.view(None)["prompt"]["seats"] == [target]


def test_a_player_who_cannot_answer_by_what_everyone_sees_is_not_asked() -> None:
    """An empty hand (its size is public) holds no Dodge: no question, the
    Slash hits at once. Asking would only make the table wait."""
    match, me, hands = table_with(lambda me, target: {me: ["Slash"]})
    target = seat_after(match, me)
    use(match, me, hands[me][0], [target])
    assert asked(match) == ("play", [me])
    assert table.player(match.state, target)["health"] == table.player(match.state, target)["max_health"] - 1


def test_every_seat_sees_who_is_asked() -> None:
    match, me, hands = table_with(lambda me, target: {me: ["Dismantle", "Slash"], target: ["Dodge"]})
    use(match, me, hands[me][0], [seat_after(match, me)])
    prompts = [match.view(viewer)["prompt"] for viewer in (*range(5), None)]
    assert all(prompt == prompts[0] for prompt in prompts)
    assert prompts[0]["kind"] == "nullify" and prompts[0]["seats"] == [me, seat_after(match, me)]
