"""What a person types in `tablehost play` becomes an action the game's
request allows, or a clear message; nothing that is not listed is ever
sent. Numbers work for every game; Big Two's presenter adds card codes and
`pass`."""

from typing import Any

import pytest

from tablehost.clients.presentation import GenericPresenter
from tablehost.clients.terminal import InputRejected, listed_actions, resolve_input
from tablehost.games.bigtwo.presentation import BigTwoPresenter


def asked(*actions: dict[str, Any], default: dict[str, Any] | None = None, **view: Any) -> dict[str, Any]:
    return {**view, "request": {"legal_actions": list(actions), "deadline_ms": None, "default": default}}


FOLLOWING = asked({"type": "play", "cards": ["9S"]}, {"type": "play", "cards": ["2S"]}, {"type": "pass"},
                  hand=["4C", "4D", "9S", "2S"])
LEADING = asked({"type": "play", "cards": ["4C"]}, {"type": "play", "cards": ["4D"]},
                {"type": "play", "cards": ["4C", "4D"]}, hand=["4C", "4D"])
BIGTWO = BigTwoPresenter()
GENERIC = GenericPresenter()


@pytest.mark.parametrize("presenter", [BIGTWO, GENERIC])
def test_a_number_picks_that_action_from_the_list_in_any_game(presenter: Any) -> None:
    assert resolve_input("2", FOLLOWING, presenter) == {"type": "play", "cards": ["2S"]}


def test_card_codes_in_any_order_and_case_pick_the_play() -> None:
    assert resolve_input("4d 4c", LEADING, BIGTWO) == {"type": "play", "cards": ["4C", "4D"]}


def test_pass_is_accepted_when_listed() -> None:
    assert resolve_input("pass", FOLLOWING, BIGTWO) == {"type": "pass"}


@pytest.mark.parametrize(
    ("typed", "view", "message"),
    [
        ("pass", LEADING, "cannot pass"),
        ("7", FOLLOWING, "no action 7"),
        ("3H", FOLLOWING, "do not hold 3H"),
        ("4C", FOLLOWING, "not a legal play"),
        ("9S 9S", FOLLOWING, "duplicate card"),
        ("garbage", FOLLOWING, "bad card 'garbage'"),
        ("", FOLLOWING, "type an action's number, its cards"),
    ],
)
def test_anything_else_is_refused_with_a_reason(typed: str, view: dict, message: str) -> None:
    with pytest.raises(InputRejected, match=message):
        resolve_input(typed, view, BIGTWO)


def test_a_generic_game_takes_only_numbers_and_says_so() -> None:
    with pytest.raises(InputRejected, match="type the number of an action"):
        resolve_input("pass", FOLLOWING, GENERIC)


def test_a_request_listing_only_a_default_offers_the_default_as_action_one() -> None:
    discard = {"type": "discard", "cards": ["3C", "4D"]}
    view = asked(default=discard)
    assert listed_actions(view) == [discard]
    assert resolve_input("1", view, GENERIC) == discard


def test_a_move_the_presenter_reads_but_the_request_does_not_list_is_never_sent() -> None:
    class Lenient(GenericPresenter):
        def parse_move(self, text: str, view: dict) -> dict:
            return {"type": "pick", "n": int(text.removeprefix("n"))}

    view = asked({"type": "pick", "n": 1}, {"type": "pick", "n": 2})
    assert resolve_input("n2", view, Lenient()) == {"type": "pick", "n": 2}
    with pytest.raises(InputRejected, match="pick n=3 is not one of the actions"):
        resolve_input("n3", view, Lenient())
