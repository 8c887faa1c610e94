"""docs/protocol.md states facts an SDK author builds on (the cards a Duel
deck may hold, the generals and questions of Kingdoms, the §4 example's
hash, Big Two's scoring, the bounds of an action): each is checked here
against the code, so the page cannot drift from the host."""

from __future__ import annotations

import re
from pathlib import Path

from tablehost.actors.client_input import MAX_ACTION_DEPTH, MAX_ACTION_NODES, MAX_ACTION_TEXT
from tablehost.clients.codec import view_hash
from tablehost.games.bigtwo.game import score_hands
from tablehost.games.duel.catalog import CATALOG, CLASSES
from tablehost.games.duel.decks import DECKS
from tablehost.games.kingdoms import legal
from tablehost.games.kingdoms.generals import GENERALS
from tablehost.games.registry import BUILT_IN

PAGE = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")


def table_row(first_cell: str) -> str:
    """The rest of the page's table row starting with `first_cell`."""
    match = re.search(rf"^\| {re.escape(first_cell)} \| (.*) \|$", PAGE, re.MULTILINE)
    assert match, f"no row {first_cell!r} in docs/protocol.md"
    return match.group(1)


def test_the_duel_deck_table_lists_every_card_a_deck_may_hold() -> None:
    for card_class, cell in (("neutral", "any (neutral)"), *((c, f"`{c}`") for c in CLASSES)):
        listed = table_row(cell).split(", ")
        expected = [name + (" (legendary)" if spec.legendary else "")
                    for name, spec in sorted(CATALOG.items()) if spec.collectible and spec.card_class == card_class]
        assert listed == expected, card_class
    for name in DECKS:
        assert f"`{name}`" in PAGE


def test_kingdoms_generals_and_questions_are_the_games() -> None:
    listed = re.search(r"The generals are (.*?); their", PAGE, re.DOTALL).group(1).replace("\n", " ")
    names = re.split(r", | and ", listed)
    assert names == sorted(GENERALS)
    for kind in ("general", "lucky", "play", "discard", "pick"):
        assert table_row(f"`{kind}`")
    assert table_row("`dodge`, `peach`, `slash`, `retrial`") and table_row("`nullify`")
    assert f"more than {legal.DISCARD_LISTED_AT_MOST} ways" in PAGE


def test_the_games_seats_and_variants_are_as_the_page_says() -> None:
    seats = {rules.name: (rules.min_seats, rules.max_seats) for rules in BUILT_IN}
    assert seats == {"bigtwo": (4, 4), "duel": (2, 2), "kingdoms": (2, 8)}
    assert next(rules for rules in BUILT_IN if rules.name == "kingdoms").default_seats == 5
    assert all(list(rules.variants) == [""] for rules in BUILT_IN)


def test_the_worked_examples_hold() -> None:
    assert view_hash({"b": 1, "a": [True, None]}) in PAGE
    assert score_hands([0, 3, 10, 13]) == [62, -3, -20, -39]
    assert "Cards left `[0, 3, 10, 13]` score\n`[62, -3, -20, -39]`" in PAGE


def test_the_action_bounds_are_the_hosts() -> None:
    assert (MAX_ACTION_DEPTH, MAX_ACTION_NODES, MAX_ACTION_TEXT) == (8, 1024, 1024)
    assert "at most 8 levels deep and 1,024 values in all" in PAGE and "at most 1,024 bytes" in PAGE
