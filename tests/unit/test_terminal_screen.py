"""What a person sees in `tablehost play`, by a fixed clock: a table
waiting for its deal says so, the deal opens the game (who leads, then the
board unless the person is asked at once), and the prompt gives the seconds
left, never the host's epoch milliseconds. Views come from real matches."""

from __future__ import annotations

import io
import re
from typing import Any

from rich.console import Console

from tablehost.clients.presentation import presenter_for
from tablehost.clients.terminal import Screen
from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Match
from tests.testgames.trio import RULES as TRIO

NAMES = ["ann", "bo", "cy", "you"]
DEALT_AT = 2_000
TURN_MS = 20_000  # Big Two's turn timer


def screen_at(rules: Any, now_ms: int) -> tuple[Screen, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=200, highlight=False, color_system=None)
    return Screen(presenter_for(rules.presenter()), console, NAMES, lambda: now_ms), out


def waiting_bigtwo() -> Match:
    return Match(BIGTWO, TableSeed.numbered(3), NAMES, {}, 0, deal_deadline_ms=5_000)


def test_a_table_waiting_for_its_deal_says_so_with_the_seconds_left() -> None:
    screen, out = screen_at(BIGTWO, now_ms=1_000)
    screen.board(waiting_bigtwo().view(3))
    assert out.getvalue() == "dealing... the cards are dealt once every player has connected (4 s left)\n"


def test_a_game_without_a_presenter_shows_its_deal_the_same_way() -> None:
    match = Match(TRIO, TableSeed.numbered(5), NAMES[:3], {}, 0, [{"league": "a"}] * 3, deal_deadline_ms=5_000)
    screen, out = screen_at(TRIO, now_ms=1_000)
    screen.board(match.view(0))
    assert out.getvalue().startswith("dealing... ")


def test_the_deal_opens_the_game_with_who_leads_and_the_board() -> None:
    match = waiting_bigtwo()
    before = {seat: match.view(seat) for seat in range(4)}
    match.deal([b""] * 4, DEALT_AT)
    holder = BIGTWO.to_act(match.state)
    watcher = (holder + 1) % 4
    screen, out = screen_at(BIGTWO, now_ms=DEALT_AT + 5_000)
    screen.change(before[watcher], match.view(watcher), False, None)
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["the cards are dealt", f"seat {holder} holds 3♣ and leads"]
    assert f"to act, {TURN_MS // 1000 - 5} s left" in lines[2 + holder]
    assert any(line.startswith("your hand: ") for line in lines)


def test_the_seat_asked_at_once_gets_the_board_with_its_prompt_not_twice() -> None:
    match = waiting_bigtwo()
    match.deal([b""] * 4, DEALT_AT)
    holder = BIGTWO.to_act(match.state)
    before = Match(BIGTWO, TableSeed.numbered(3), NAMES, {}, 0, deal_deadline_ms=5_000).view(holder)
    screen, out = screen_at(BIGTWO, now_ms=DEALT_AT)
    screen.change(before, match.view(holder), False, None)
    assert out.getvalue().splitlines() == ["the cards are dealt", f"seat {holder} holds 3♣ and leads"]


def test_the_prompt_gives_the_seconds_left_never_the_epoch() -> None:
    match = waiting_bigtwo()
    match.deal([b""] * 4, DEALT_AT)
    holder = BIGTWO.to_act(match.state)
    screen, out = screen_at(BIGTWO, now_ms=DEALT_AT + 7_500)
    view = match.view(holder)
    screen.board(view)
    screen.prompt(view)
    shown = out.getvalue()
    assert shown.endswith("your move [13 s left] (a number, or ? for the list): ")
    assert not re.search(r"\d{5,}", shown)
