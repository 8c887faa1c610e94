"""Play Big Two in a terminal against three bots, through a real host.

The person's client is an ordinary SDK client: it opens a private table in
the lobby, seats three bots at it by its code (in this process, each with its
own connection), takes the fourth seat and plays from the view the host
sends. Moves are chosen from the view's `legal_actions`, by number, by card
codes (`3C 3D`, `10h`, `3♣`) or `pass`; input that names no legal action is
explained and asked again, never sent.

Input is read line by line, so a pipe works as well as a keyboard (tests feed
it a script). When the input ends, a greedy bot plays the person's seat to
the end of the game so the scores still come out.
"""

from __future__ import annotations

import asyncio
import re
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any, TextIO

from rich.columns import Columns
from rich.console import Console
from rich.table import Table
from rich.text import Text

from tablehost.clients.bots import GreedyBot, PlayStats, make_bot, play_seat
from tablehost.clients.codec import View
from tablehost.clients.sdk import Assignment, GameResult, LobbyClient, SessionDisconnected, TableSession, ViewUpdate

Action = dict[str, Any]

RANKS = "3456789TJQKA2"
SUITS = "CDHS"
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
_SYMBOL_SUITS = {symbol: suit for suit, symbol in SUIT_SYMBOLS.items()}
_SUIT_STYLES = {"C": "bold", "D": "bold red", "H": "bold red", "S": "bold"}
_SEPARATORS = re.compile(r"[\s,]+")
_HELP = "type an action's number, its cards (like 3C 3D), or pass; ? shows the list again"


class InputRejected(ValueError):
    """What the person typed names no legal action; the message says why."""


# -- cards for people ----------------------------------------------------------


def card_strength(card: str) -> int:
    """Big Two order, for showing a hand: rank first (3 low, 2 high), then suit."""
    return RANKS.index(card[0]) * 4 + SUITS.index(card[1])


def card_text(card: str) -> Text:
    rank = "10" if card[0] == "T" else card[0]
    return Text(rank + SUIT_SYMBOLS[card[1]], style=_SUIT_STYLES[card[1]])


def cards_text(cards: Sequence[str]) -> Text:
    return Text(" ").join(card_text(card) for card in sorted(cards, key=card_strength))


def parse_card(token: str) -> str:
    """One card typed by a person: rank then suit, any case, 10 for T and suit
    symbols for suit letters (so what the screen shows can be typed back)."""
    text = token.strip().upper()
    rank, suit = text[:-1], text[-1:]
    rank = "T" if rank == "10" else rank
    suit = _SYMBOL_SUITS.get(suit, suit)
    if len(rank) != 1 or rank not in RANKS or suit not in SUITS:
        raise InputRejected(f"{token!r} is not a card: a rank (3-9, 10, J, Q, K, A, 2) then a suit (C, D, H, S)")
    return rank + suit


def resolve_input(text: str, view: View) -> Action:
    """The legal action the person means by `text`: a number from the shown
    list, `pass`, or card codes naming one play. Raises InputRejected with a
    message for the person otherwise."""
    legal: list[Action] = view.get("legal_actions") or []
    typed = text.strip()
    if not typed:
        raise InputRejected(_HELP)
    if typed.isdigit():
        number = int(typed)
        if not 1 <= number <= len(legal):
            raise InputRejected(f"there is no action {number}; choose 1 to {len(legal)}")
        return legal[number - 1]
    if typed.lower() == "pass":
        for action in legal:
            if action.get("type") == "pass":
                return action
        raise InputRejected("you cannot pass now: you lead this trick")
    cards = [parse_card(token) for token in _SEPARATORS.split(typed) if token]
    if len(set(cards)) != len(cards):
        raise InputRejected("a card appears twice in your play")
    wanted = sorted(cards, key=card_strength)
    for action in legal:
        if sorted(action.get("cards", ()), key=card_strength) == wanted:
            return action
    missing = [card for card in cards if card not in view.get("hand", ())]
    if missing:
        raise InputRejected(f"you do not hold {' '.join(missing)}")
    raise InputRejected(f"{' '.join(wanted)} is not a legal play now")


# -- rendering -----------------------------------------------------------------


def _names(view: View, assignment: Assignment) -> list[str]:
    players = view.get("players", [])
    names = list(assignment.display_names)
    return [names[seat] if seat < len(names) and names[seat] else str(player) for seat, player in enumerate(players)]


def _seconds_left(deadline_ms: int | None) -> int | None:
    if deadline_ms is None:
        return None
    return max(0, (deadline_ms - time.time_ns() // 1_000_000) // 1000)


def _action_text(action: Action) -> Text:
    if action.get("type") == "pass":
        return Text("pass")
    return cards_text(action.get("cards", []))


def render_table(view: View, assignment: Assignment) -> Table:
    """Every seat: name, cards left, and what it is doing on this trick."""
    names = _names(view, assignment)
    counts = view.get("hand_counts", [])
    last_play = view.get("last_play")
    table = Table(title=f"table {assignment.table_id}", title_justify="left")
    table.add_column("seat", justify="right")
    table.add_column("player")
    table.add_column("cards", justify="right")
    table.add_column("status")
    for seat, name in enumerate(names):
        status = Text()
        if seat == view.get("to_act"):
            left = _seconds_left(view.get("deadline_ms"))
            status.append("to act" + (f" ({left} s left)" if left is not None else ""), style="bold green")
        elif seat in view.get("passed", []):
            status.append("passed", style="dim")
        elif last_play is not None and last_play.get("seat") == seat:
            status.append("played the play to beat")
        player = Text(name + (" (you)" if seat == view.get("seat") and name != "you" else ""))
        table.add_row(str(seat), player, str(counts[seat]) if seat < len(counts) else "?", status)
    return table


def render_turn(view: View) -> list[Any]:
    """The play to beat, the person's hand, and the numbered legal actions."""
    last_play = view.get("last_play")
    if last_play is None:
        to_beat = Text("you lead: play anything" + (" containing 3♣" if view.get("first_play") else ""))
    else:
        to_beat = Text(f"to beat: {last_play.get('kind', 'play')} ").append_text(cards_text(last_play["cards"]))
    hand = Text("your hand: ").append_text(cards_text(view.get("hand", [])))
    choices = [
        Text(f"{number:>3}. ").append_text(_action_text(action))
        for number, action in enumerate(view.get("legal_actions", []), start=1)
    ]
    return [to_beat, hand, Columns(choices, padding=(0, 3))]


def narrate(update: ViewUpdate, assignment: Assignment) -> Text | None:
    """One line for a move someone made: who played what, who passed, a
    cleared trick. The actor is the seat that was to act before the delta."""
    if update.kind != "delta" or update.previous is None:
        return None
    before, after = update.previous, update.view
    actor = before.get("to_act")
    if actor is None:
        return None
    names = _names(after, assignment)
    you = actor == after.get("seat")
    line = Text("you " if you else f"{names[actor] if actor < len(names) else f'seat {actor}'} ")
    counts_before, counts_after = before.get("hand_counts", []), after.get("hand_counts", [])
    if actor < len(counts_after) and counts_after[actor] < counts_before[actor]:
        played = after.get("last_play") or {}
        line.append(f"{'play' if you else 'plays'} {played.get('kind', '')} ")
        line.append_text(cards_text(played.get("cards", [])))
    else:
        line.append("pass" if you else "passes")
    if update.automatic:
        line.append(" (turn timer)", style="yellow")
    if after.get("result") is None and before.get("last_play") is not None and after.get("last_play") is None:
        leader = after.get("to_act")
        if leader == after.get("seat"):
            line.append("; everyone passed, you lead")
        elif leader is not None and leader < len(names):
            line.append(f"; everyone passed, {names[leader]} leads")
    return line


def render_result(result: GameResult, assignment: Assignment, view: View) -> Table:
    names = _names(view, assignment)
    cards_left = result.result.get("cards_left", [])
    table = Table(title="final scores", title_justify="left")
    table.add_column("seat", justify="right")
    table.add_column("player")
    table.add_column("cards left", justify="right")
    table.add_column("score", justify="right")
    for seat, score in enumerate(result.scores):
        name = names[seat] if seat < len(names) else f"seat {seat}"
        if seat == result.winner:
            name += " (winner)"
        left = str(cards_left[seat]) if seat < len(cards_left) else ""
        table.add_row(str(seat), name, left, f"{score:+d}")
    return table


# -- input ---------------------------------------------------------------------


def _start_line_reader(stream: TextIO, lines: asyncio.Queue[str | None]) -> None:
    """Read lines on a daemon thread, so a person thinking never blocks the
    event loop (deltas keep arriving) and a pending read never keeps the
    program alive after the game. None marks the end of the input."""
    loop = asyncio.get_running_loop()

    def deliver(line: str | None) -> bool:
        try:
            loop.call_soon_threadsafe(lines.put_nowait, line)
        except RuntimeError:  # the loop has closed: the game is over
            return False
        return True

    def read() -> None:
        while True:
            line = stream.readline()
            if not line:
                deliver(None)
                return
            if not deliver(line.rstrip("\n")):
                return

    threading.Thread(target=read, name="terminal input", daemon=True).start()


# -- the game ------------------------------------------------------------------


async def _bot_seat(target: str, code: str, kind: str, seed: int, name: str, console: Console) -> None:
    """One opponent: a complete client of its own, like any remote player.
    A failure is shown rather than raised: the person's game goes on (the
    host's turn timer plays for a missing seat)."""
    try:
        async with LobbyClient(target) as lobby:
            assignment = await lobby.join_private_table(code, name)
            async with await TableSession.connect(assignment, lobby) as session:
                await play_seat(session, make_bot(kind, seed), PlayStats())
    except Exception as error:  # shown to the person, who can still finish the game
        console.print(Text(f"{name} stopped: {type(error).__name__}: {error}", style="yellow"))


async def play_in_terminal(
    target: str,
    game: str = "bigtwo",
    display_name: str = "you",
    input_stream: TextIO | None = None,
    *,
    opponents: Sequence[str] = ("greedy", "random", "greedy"),
    seed: int = 0,
    console: Console | None = None,
) -> GameResult:
    """Play one game at a new private table against three bots of the given
    kinds and return its result (the final scores are printed too). Input is
    read from `input_stream`, sys.stdin when None."""
    if len(opponents) != 3:
        raise ValueError(f"Big Two seats four: give three opponents, got {len(opponents)}")
    console = console or Console(highlight=False)
    async with LobbyClient(target) as lobby:
        code = await lobby.create_private_table(game)
        console.print(f"private table {code}: seating {', '.join(opponents)} bots")
        bots = [
            asyncio.create_task(_bot_seat(target, code, kind, seed + index, f"{kind}-bot-{index + 1}", console))
            for index, kind in enumerate(opponents)
        ]
        try:
            assignment = await lobby.join_private_table(code, display_name)
            async with await TableSession.connect(assignment, lobby) as session:
                return await _play(session, assignment, input_stream or sys.stdin, console)
        finally:
            for task in bots:
                task.cancel()
            await asyncio.wait(bots)


async def _play(session: TableSession, assignment: Assignment, input_stream: TextIO, console: Console) -> GameResult:
    """The person's side of the game. Lines are taken only on the person's
    turn: anything typed (or piped) earlier waits for it, like type-ahead."""
    updates = session.subscribe()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    _start_line_reader(input_stream, lines)
    next_line: asyncio.Task[str | None] = asyncio.create_task(lines.get())
    autopilot: asyncio.Task[GameResult] | None = None
    prompted_at = -1
    echo = not input_stream.isatty()  # piped input: show it, so the transcript reads like a session
    if session.view.get("to_act") != session.seat:
        console.print(render_table(session.view, assignment))
    try:
        while session.result is None:
            while not updates.empty():  # narrate what happened before prompting
                _show_update(updates.get_nowait(), assignment, console)
            view = session.view
            my_turn = autopilot is None and view.get("to_act") == session.seat and bool(view.get("legal_actions"))
            if my_turn and prompted_at != session.seq:
                prompted_at = session.seq
                console.print(render_table(view, assignment))
                for part in render_turn(view):
                    console.print(part)
                _prompt(console, view)
            next_update = asyncio.create_task(updates.get())
            waiting_for: set[asyncio.Task[Any]] = {next_update}
            if autopilot is None and (my_turn or not next_line.done()):
                waiting_for.add(next_line)  # a line typed ahead is held until the turn
            await asyncio.wait(waiting_for, return_when=asyncio.FIRST_COMPLETED)
            if next_update.done():
                _show_update(next_update.result(), assignment, console)
            else:
                next_update.cancel()  # a queue's get gives up nothing when cancelled
            if autopilot is not None or not next_line.done():
                continue
            line = next_line.result()
            if line is None:
                console.print("input ended: a greedy bot plays your seat from here")
                autopilot = asyncio.create_task(play_seat(session, GreedyBot(), PlayStats()))
                continue
            if not my_turn:
                continue  # typed ahead: keep it for the person's turn
            next_line = asyncio.create_task(lines.get())
            if echo:
                console.print(line)
            if line.strip() == "?":
                for part in render_turn(view):
                    console.print(part)
                _prompt(console, view)
                continue
            try:
                action = resolve_input(line, view)
            except InputRejected as error:
                console.print(Text(str(error), style="red"))
                _prompt(console, view)
                continue
            outcome = await session.commit(action)
            if not outcome.accepted:
                console.print(Text(f"the host refused that: {outcome.message}", style="red"))
                _prompt(console, view)
        result = await session.wait_game_over()
    finally:
        background = [task for task in (next_line, autopilot) if task is not None]
        for task in background:
            task.cancel()
        await asyncio.wait(background)
    while not updates.empty():  # the last moves, not yet shown
        _show_update(updates.get_nowait(), assignment, console)
    console.print(render_result(result, assignment, session.view))
    return result


def _show_update(update: ViewUpdate, assignment: Assignment, console: Console) -> None:
    if update.kind == "disconnected":
        raise SessionDisconnected(f"lost the connection to table {assignment.table_id} and could not reconnect")
    line = narrate(update, assignment)
    if line is not None:
        console.print(line)


def _prompt(console: Console, view: View) -> None:
    left = _seconds_left(view.get("deadline_ms"))
    clock = f" [{left} s left]" if left is not None else ""
    console.print(f"your move{clock} (number, cards, pass, ?): ", end="")
