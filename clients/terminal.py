"""Play any game in a terminal against bots, through a real host.

One job over 400 lines, what a person reads and types at one table (its
input, its screen and the loop between them), kept whole as the one module
that draws with rich (the client's [terminal] extra).

The person's client is an ordinary SDK client: it opens a private table in
the lobby, seats bots at it by its code (in this process, each with its own
connection), takes the last seat and plays from the views the host sends.
It knows no game: how a view looks and how moves are typed come from the
presenter its caller hands it (the game's own, or the generic one). When
the game asks the person's seat to act (the view carries a "request"), a
move is chosen by its number in the listed actions or typed in the game's
notation; input that names no legal action is explained and asked again,
never sent.

Input is read line by line, so a pipe works as well as a keyboard (tests feed
it a script). When the input ends, a bot plays the person's seat to the end
of the game so the scores still come out.

Deadlines are shown as the seconds left when the screen is drawn, by the
clock handed in (the wall clock unless a test fixes one); the host's epoch
milliseconds never reach the person. Until the cards are dealt the table
says so; the deal itself is shown as the game's opening and its board.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from tablehost.clients.bots import BotFactory, PlayStats, play_seat
from tablehost.clients.codec import View
from tablehost.clients.presentation import Presenter, compact, is_dealing, time_left
from tablehost.clients.sdk import Assignment, GameResult, LobbyClient, SessionDisconnected, TableSession, ViewUpdate

ActionMap = dict[str, Any]

YOU = "you"

Clock = Callable[[], int]
"""The time now in epoch milliseconds, as the host's deadlines are."""


def wall_clock_ms() -> int:
    """This machine's clock, which the host's deadlines are compared with."""
    return time.time_ns() // 1_000_000


class InputRejected(ValueError):
    """What the person typed names no legal action; the message says why."""


# -- what the person typed -------------------------------------------------------


def listed_actions(view: View) -> list[ActionMap]:
    """The actions shown numbered for the view's request: its legal actions,
    or only its default when the request describes a choice too large to
    list (the default is always a valid answer)."""
    request = view.get("request")
    if not isinstance(request, dict):
        return []
    if request.get("legal_actions"):
        return list(request["legal_actions"])
    return [request["default"]] if request.get("default") is not None else []


def resolve_input(text: str, view: View, presenter: Presenter) -> ActionMap:
    """The action the person means by `text`: a number from the listed
    actions, or a move in the game's notation (the presenter's) that the
    request allows. Raises InputRejected with a message for the person
    otherwise."""
    listed = listed_actions(view)
    typed = text.strip()
    if not typed:
        raise InputRejected(presenter.move_help)
    if typed.isdigit():
        number = int(typed)
        if not 1 <= number <= len(listed):
            raise InputRejected(f"there is no action {number}; choose 1 to {len(listed)}")
        return listed[number - 1]
    try:
        action = presenter.parse_move(typed, view)
    except ValueError as error:
        raise InputRejected(str(error)) from None
    if action is None:
        raise InputRejected(presenter.move_help)
    request = view.get("request")
    legal = request.get("legal_actions") if isinstance(request, dict) else None
    if legal and action not in legal:
        # A listed request is the whole truth: never send what it does not list.
        raise InputRejected(f"{presenter.action_label(action)} is not one of the actions you may take now")
    return action


# -- rendering -----------------------------------------------------------------


def _say(console: Console, line: str, style: str | None = None) -> None:
    """Print a presenter's or the game's text as it is: no markup, no emoji
    codes, no highlighting, so a view's brackets and colons show unchanged."""
    console.print(Text(line, style=style or ""), emoji=False, highlight=False)


def _names(assignment: Assignment) -> list[str]:
    """Display names by seat, the person's own seat shown as "you"."""
    names = list(assignment.display_names)
    if 0 <= assignment.seat < len(names):
        names[assignment.seat] = YOU
    return names


def show_request(view: View, presenter: Presenter, console: Console) -> None:
    """What the game asks: a described choice, then the numbered actions."""
    request = view.get("request") or {}
    if request.get("choice") is not None:
        _say(console, f"choice: {compact(request['choice'])}")
    actions = listed_actions(view)
    if actions and not request.get("legal_actions"):
        _say(console, "the default is the only action listed:")
    for number, action in enumerate(actions, start=1):
        _say(console, f"{number:>3}. {presenter.action_label(action)}")


def render_result(result: GameResult, names: Sequence[str]) -> Table:
    """Final scores by seat; any list in the game's result with one entry
    per seat (Big Two's cards left) gets a column of its own."""
    seats = len(result.scores)
    per_seat = {
        key: value for key, value in sorted(result.result.items())
        if key != "scores" and isinstance(value, list) and len(value) == seats
    }
    table = Table(title="final scores", title_justify="left")
    table.add_column("seat", justify="right")
    table.add_column("player")
    for key in per_seat:
        table.add_column(key.replace("_", " "), justify="right")
    table.add_column("score", justify="right")
    for seat, score in enumerate(result.scores):
        name = names[seat] if seat < len(names) and names[seat] else f"seat {seat}"
        if seat == result.winner:
            name += " (winner)"
        cells = [Text(str(per_seat[key][seat])) for key in per_seat]
        table.add_row(str(seat), Text(name), *cells, f"{score:+d}")
    return table


class Screen:
    """What the person sees of one table: the board, each change, the deal,
    the prompt. Deadlines are the seconds left by `clock` when the line is
    drawn (module docstring)."""

    def __init__(self, presenter: Presenter, console: Console, names: Sequence[str],
                 clock: Clock = wall_clock_ms) -> None:
        self.presenter = presenter
        self.console = console
        self.names = list(names)
        self.clock = clock

    def board(self, view: View) -> None:
        for line in self.presenter.table_lines(view, self.names, self.clock()):
            _say(self.console, line)

    def change(self, before: View, after: View, automatic: bool, actor: int | None) -> None:
        """One change: while dealing, nothing to tell; the deal itself as
        the game's opening; any other as the presenter's line for it."""
        if is_dealing(before):
            if not is_dealing(after):
                self.deal(after)
            return
        line = self.presenter.narrate(before, after, self.names, automatic, actor)
        if line:
            _say(self.console, line)

    def deal(self, view: View) -> None:
        """The game begins: who leads, and the board unless the person is
        asked at once (then the prompt shows it)."""
        _say(self.console, "the cards are dealt")
        opening = self.presenter.opening(view, self.names)
        if opening:
            _say(self.console, opening)
        if not listed_actions(view):
            self.board(view)

    def request(self, view: View) -> None:
        show_request(view, self.presenter, self.console)

    def prompt(self, view: View) -> None:
        request = view.get("request") or {}
        left = time_left(request.get("deadline_ms"), self.clock())
        clock = f" [{left}]" if left is not None else ""
        self.console.print(Text(f"your move{clock} (a number, or ? for the list): "), end="")


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


async def _bot_seat(
    target: str, code: str, factory: BotFactory, seed: int, name: str, join_data: Mapping[str, Any] | None,
    tls_root_cert: bytes | None,
    console: Console,
) -> None:
    """One opponent: a complete client of its own, like any remote player.
    A failure is shown rather than raised: the person's game goes on (the
    host's turn timer plays for a missing seat)."""
    try:
        async with LobbyClient(target, tls_root_cert=tls_root_cert) as lobby:
            assignment = await lobby.join_private_table(code, name, join_data=dict(join_data or {}))
            async with await TableSession.connect(assignment, lobby) as session:
                await play_seat(session, factory(seed), PlayStats())
    except Exception as error:  # shown to the person, who can still finish the game
        _say(console, f"{name} stopped: {type(error).__name__}: {error}", "yellow")


async def play_in_terminal(
    target: str,
    game: str,
    presenter: Presenter,
    *,
    opponents: Sequence[str],
    bots: Mapping[str, BotFactory],
    autopilot: str,
    display_name: str = YOU,
    variant: str = "",
    join_data: Mapping[str, Any] | None = None,
    input_stream: TextIO | None = None,
    seed: int = 0,
    console: Console | None = None,
    tls_root_cert: bytes | None = None,
    clock: Clock = wall_clock_ms,
) -> GameResult:
    """Play one game of `game` at a new private table of one seat per
    opponent plus the person's, and return its result (the final scores are
    printed too). `opponents` are bot names from `bots`; `autopilot` names
    the bot that takes over the person's seat when the input ends. Every
    player joins with `join_data`, if the game takes any. Input is read
    from `input_stream`, sys.stdin when None. With `tls_root_cert` (PEM),
    every client connects over TLS trusting it. `clock` tells the seconds
    left on a deadline."""
    unknown = sorted({*opponents, autopilot} - set(bots))
    if unknown:
        raise ValueError(f"unknown bot {unknown[0]!r}; choose from {', '.join(sorted(bots))}")
    console = console or Console(highlight=False)
    async with LobbyClient(target, tls_root_cert=tls_root_cert) as lobby:
        code = await lobby.create_private_table(game, variant, seats=len(opponents) + 1)
        _say(console, f"private table {code}: seating {', '.join(opponents) or 'no'} bots")
        seated = [
            asyncio.create_task(
                _bot_seat(target, code, bots[kind], seed + index, f"{kind}-bot-{index + 1}", join_data,
                          tls_root_cert, console)
            )
            for index, kind in enumerate(opponents)
        ]
        try:
            assignment = await lobby.join_private_table(code, display_name, join_data=dict(join_data or {}))
            async with await TableSession.connect(assignment, lobby) as session:
                person = _Person(session, presenter, console, bots[autopilot], clock)
                return await person.play(input_stream or sys.stdin)
        finally:
            for task in seated:
                task.cancel()
            if seated:
                await asyncio.wait(seated)


class _Person:
    """The person's side of one game: shows what happens, prompts when the
    game asks their seat, and sends what they chose."""

    def __init__(
        self, session: TableSession, presenter: Presenter, console: Console, autopilot: BotFactory, clock: Clock
    ) -> None:
        self.session = session
        self.presenter = presenter
        self.console = console
        self.autopilot_bot = autopilot
        self.names = _names(session.assignment)
        self.screen = Screen(presenter, console, self.names, clock)
        self.own_act_ids: set[str] = set()

    async def play(self, input_stream: TextIO) -> GameResult:
        """Lines are taken only when the game asks the person's seat:
        anything typed (or piped) earlier waits for it, like type-ahead."""
        session, console = self.session, self.console
        updates = session.subscribe()
        lines: asyncio.Queue[str | None] = asyncio.Queue()
        _start_line_reader(input_stream, lines)
        next_line: asyncio.Task[str | None] = asyncio.create_task(lines.get())
        autopilot: asyncio.Task[GameResult] | None = None
        prompted_at = -1
        helped = False
        echo = not input_stream.isatty()  # piped input: show it, so the transcript reads like a session
        opening = self.presenter.opening(session.view, self.names)
        if opening:
            _say(console, opening)
        if session.request is None:
            self.screen.board(session.view)
        try:
            while session.result is None:
                while not updates.empty():  # narrate what happened before prompting
                    self._show_update(updates.get_nowait())
                view = session.view
                asked = autopilot is None and bool(listed_actions(view))
                if asked and prompted_at != session.seq:
                    prompted_at = session.seq
                    self.screen.board(view)
                    self.screen.request(view)
                    if not helped:  # how to type a move, once
                        helped = True
                        _say(console, self.presenter.move_help)
                    self.screen.prompt(view)
                next_update = asyncio.create_task(updates.get())
                waiting_for: set[asyncio.Task[Any]] = {next_update}
                if autopilot is None and (asked or not next_line.done()):
                    waiting_for.add(next_line)  # a line typed ahead is held until the person is asked
                await asyncio.wait(waiting_for, return_when=asyncio.FIRST_COMPLETED)
                if next_update.done():
                    self._show_update(next_update.result())
                else:
                    next_update.cancel()  # a queue's get gives up nothing when cancelled
                if autopilot is not None or not next_line.done():
                    continue
                line = next_line.result()
                if line is None:
                    bot = self.autopilot_bot(0)
                    _say(console, f"input ended: a {bot.name} bot plays your seat from here")
                    autopilot = asyncio.create_task(play_seat(session, bot, PlayStats()))
                    continue
                if not asked:
                    continue  # typed ahead: keep it for when the person is asked
                next_line = asyncio.create_task(lines.get())
                if echo:
                    _say(console, line)
                await self._answer(line, view)
            result = await session.wait_game_over()
        finally:
            background = [task for task in (next_line, autopilot) if task is not None]
            for task in background:
                task.cancel()
            await asyncio.wait(background)
        while not updates.empty():  # the last moves, not yet shown
            self._show_update(updates.get_nowait())
        console.print(render_result(result, self.names))
        return result

    async def _answer(self, line: str, view: View) -> None:
        """Act on one line typed while asked: show the list again, explain
        why the line names no action, or send the action it names."""
        if line.strip() == "?":
            self.screen.request(view)
            self.screen.prompt(view)
            return
        try:
            action = resolve_input(line, view, self.presenter)
        except InputRejected as error:
            _say(self.console, str(error), "red")
            self.screen.prompt(view)
            return
        act_id = uuid.uuid4().hex
        self.own_act_ids.add(act_id)
        outcome = await self.session.commit(action, act_id=act_id)
        if not outcome.accepted:
            _say(self.console, f"the host refused that ({outcome.reason_name}): {outcome.message}", "red")
            self.screen.prompt(view)

    def _show_update(self, update: ViewUpdate) -> None:
        if update.kind == "disconnected":
            raise SessionDisconnected(f"lost the connection to table {self.session.table_id} and could not reconnect")
        if update.kind != "delta" or update.previous is None:
            return
        actor = self.session.seat if update.act_id in self.own_act_ids else None
        self.screen.change(update.previous, update.view, update.automatic, actor)
