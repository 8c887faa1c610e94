"""What a person types in `tablehost play` becomes a legal action or a
clear message; nothing that is not listed is ever sent."""

import pytest

from tablehost.clients.terminal import InputRejected, resolve_input

FOLLOWING = {
    "hand": ["4C", "4D", "9S", "2S"],
    "legal_actions": [
        {"type": "play", "cards": ["9S"]},
        {"type": "play", "cards": ["2S"]},
        {"type": "pass"},
    ],
}
LEADING = {"hand": ["4C", "4D"], "legal_actions": [{"type": "play", "cards": ["4C"]}, {"type": "play", "cards": ["4D"]},
                                                  {"type": "play", "cards": ["4C", "4D"]}]}


def test_a_number_picks_that_action_from_the_list() -> None:
    assert resolve_input("2", FOLLOWING) == {"type": "play", "cards": ["2S"]}


def test_card_codes_in_any_order_and_case_pick_the_play() -> None:
    assert resolve_input("4d 4c", LEADING) == {"type": "play", "cards": ["4C", "4D"]}


def test_pass_is_accepted_when_listed() -> None:
    assert resolve_input("pass", FOLLOWING) == {"type": "pass"}


@pytest.mark.parametrize(
    ("typed", "view", "message"),
    [
        ("pass", LEADING, "cannot pass"),
        ("7", FOLLOWING, "no action 7"),
        ("3H", FOLLOWING, "do not hold 3H"),
        ("4C", FOLLOWING, "not a legal play"),
        ("9S 9S", FOLLOWING, "twice"),
    ],
)
def test_anything_else_is_refused_with_a_reason(typed: str, view: dict, message: str) -> None:
    with pytest.raises(InputRejected, match=message):
        resolve_input(typed, view)
