"""Big Two's greedy bot, beside the game: it chooses only what the host
lists, sheds the most cards (the earliest listed on a tie), passes only
when it must, and is what `BigTwo.bots()` offers the tools."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tablehost.games.bigtwo.bots import GreedyBot
from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Match

PASS = {"type": "pass"}


def play(*cards: str) -> dict[str, Any]:
    return {"type": "play", "cards": list(cards)}


def view_with(*actions: dict[str, Any]) -> dict[str, Any]:
    """A view in which the game asks seat 0 to choose among `actions`."""
    return {"seat": 0, "request": {"legal_actions": list(actions), "deadline_ms": None, "default": None}}


actions = st.lists(
    st.one_of(
        st.just(PASS),
        st.lists(st.sampled_from(["3C", "3D", "4H", "9S", "TC", "2S"]), min_size=1, max_size=5, unique=True).map(
            lambda cards: play(*cards)
        ),
    ),
    min_size=1,
    max_size=12,
)


@given(actions)
def test_the_greedy_bot_only_returns_a_listed_action(legal: list[dict[str, Any]]) -> None:
    assert GreedyBot().choose(view_with(*legal)) in legal


def test_the_greedy_bot_plays_the_most_cards() -> None:
    legal = [play("3C"), play("4C", "4D"), play("5C", "6D", "7H", "8S", "9C"), play("9D"), PASS]
    assert GreedyBot().choose(view_with(*legal)) == play("5C", "6D", "7H", "8S", "9C")


def test_the_greedy_bot_breaks_ties_by_the_earliest_listed() -> None:
    legal = [play("3C"), play("4C", "4D"), play("5C", "5D"), PASS]
    assert GreedyBot().choose(view_with(*legal)) == play("4C", "4D")


def test_the_greedy_bot_passes_only_when_nothing_else_is_legal() -> None:
    assert GreedyBot().choose(view_with(play("2S"), PASS)) == play("2S")
    assert GreedyBot().choose(view_with(PASS)) == PASS


def test_the_greedy_bot_is_deterministic_whatever_its_seed() -> None:
    legal = [play("3C"), play("4C", "4D"), play("5C", "5D"), PASS]
    assert {repr(GreedyBot(seed).choose(view_with(*legal))) for seed in range(20)} == {repr(play("4C", "4D"))}


def test_big_two_offers_the_greedy_bot_by_name_as_a_factory_taking_a_seed() -> None:
    bots = BIGTWO.bots()
    assert list(bots) == ["greedy"]
    bot = bots["greedy"](7)
    assert bot.name == "greedy" and isinstance(bot, GreedyBot)


def test_four_greedy_bots_finish_a_game_on_the_host_lists_alone() -> None:
    bots = [GreedyBot(seat) for seat in range(4)]
    match = Match(BIGTWO, TableSeed.numbered(7), ["a", "b", "c", "d"], {}, 0)
    for now in range(1, 1_000):
        if match.result is not None:
            break
        seat = BIGTWO.to_act(match.state)
        match.act(seat, bots[seat].choose(match.view(seat)), now)  # raises RuleError on an illegal move
    assert match.result is not None and 0 in match.result["cards_left"]
