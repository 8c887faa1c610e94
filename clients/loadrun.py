"""Bot load runs against a running host: fill `tables` tables of any game
and size with bots through the public lobby, play one game at each, and
summarise throughput, commit latency, rejects, desyncs and errors.

Every bot is a complete client (its own LobbyClient and TableSession), so a
run exercises exactly what players do. The run is bounded by `timeout_s`: a
stuck table ends the run with errors instead of hanging it. With
`record_dir`, each bot saves the game as it received it there, for
`tablehost verify`. With `player_token`, each bot signs in as its own
player (a host with `--player-auth`), so the host's per-client quotas are
each bot's, not the address's. The summary gives how long each bot's
JoinQueue waited for its seat. `tablehost bots` is the command line for it.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablehost.clients.bots import BeforeMove, BotFactory, PlayStats, bot_factories, make_bot, play_seat
from tablehost.clients.sdk import LobbyClient, LobbyError, TableCancelled, TableSession

# Error messages kept for the summary; the count covers all of them.
_MAX_ERROR_MESSAGES = 20
# A bot whose table was cancelled before its deal (another seat never came)
# joins the queue again, this many times at most.
MAX_REJOINS = 3


@dataclass
class Summary:
    """The outcome of one load run. `ok` means every bot of the run played its
    game to the end, with no desync and no error. Bots queue in the public
    queue, so runs sharing a host may share tables: `games_completed` counts
    the distinct tables this run's bots finished, which can then exceed
    `tables_expected` (the tables' worth of bots this run started)."""

    game: str
    bot: str
    tables_expected: int
    bots_expected: int = 0
    bots_finished: int = 0
    games_completed: int = 0
    moves: int = 0
    rejects: int = 0
    desyncs: int = 0
    errors: int = 0
    gaps: int = 0
    reconnects: int = 0
    stream_rejections: int = 0
    rejoins: int = 0  # bots whose table was cancelled before its deal, and who queued again
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    elapsed_s: float = 0.0
    error_messages: list[str] = field(default_factory=list)
    # Every JoinQueue that got a seat (a bot queueing again after a cancelled
    # table has one per seat): how long it waited, and when the seat came,
    # in seconds from the run's start.
    join_waits_s: list[float] = field(default_factory=list)
    seated_at_s: list[float] = field(default_factory=list)
    # The first JoinQueue the lobby refused, as (status name, its reason):
    # when no bot got a seat, that is the run's one finding.
    refusal: tuple[str, str] | None = None

    @property
    def moves_per_s(self) -> float:
        return self.moves / self.elapsed_s if self.elapsed_s > 0 else 0.0

    def join_wait_ms(self, percentile: float) -> float:
        """A JoinQueue wait percentile (nearest rank) in milliseconds (0.0 before any)."""
        if not self.join_waits_s:
            return 0.0
        ordered = sorted(self.join_waits_s)
        return ordered[max(1, math.ceil(len(ordered) * percentile / 100)) - 1] * 1000

    @property
    def ok(self) -> bool:
        return self.bots_finished == self.bots_expected and self.desyncs == 0 and self.errors == 0

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "bot": self.bot,
            "ok": self.ok,
            "tables_expected": self.tables_expected,
            "bots_expected": self.bots_expected,
            "bots_finished": self.bots_finished,
            "games_completed": self.games_completed,
            "moves": self.moves,
            "moves_per_s": round(self.moves_per_s, 1),
            "rejects": self.rejects,
            "desyncs": self.desyncs,
            "errors": self.errors,
            "gaps": self.gaps,
            "reconnects": self.reconnects,
            "rejoins": self.rejoins,
            "stream_rejections": self.stream_rejections,
            "p50_ms": round(self.p50_ms, 3),
            "p99_ms": round(self.p99_ms, 3),
            "join_wait_p50_ms": round(self.join_wait_ms(50), 3),
            "join_wait_p99_ms": round(self.join_wait_ms(99), 3),
            "elapsed_s": round(self.elapsed_s, 3),
            "error_messages": list(self.error_messages),
        }


@contextmanager
def failures_recorded(record: Callable[[str], None], who: str, stage: Callable[[], str], ended: str) -> Iterator[None]:
    """Around one player's play in a run: its failure is a finding of the
    run, recorded as a message naming `who` and its `stage()`, not raised;
    and the run cancelling it at its deadline is recorded as "still <stage>
    when <ended>", the cancellation taken back, so that the player's cleanup
    (closing its session and lobby client) runs like any other player's."""
    try:
        yield
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        record(f"{who}: still {stage()} when {ended}")
    except Exception as error:  # every failure of a player is a finding of the run
        record(f"{who}: {type(error).__name__} while {stage()}: {error}")


def format_summary(summary: Summary) -> str:
    """The summary as a few lines for a person at a terminal."""
    verdict = "OK" if summary.ok else "FAILED"
    lines = [
        f"{summary.game} with {summary.bot} bots: {summary.bots_finished}/{summary.bots_expected} bots finished "
        f"their game at {summary.games_completed} tables in {summary.elapsed_s:.1f} s: {verdict}",
        f"moves {summary.moves} ({summary.moves_per_s:.0f}/s); commit round trip "
        f"p50 {summary.p50_ms:.2f} ms, p99 {summary.p99_ms:.2f} ms; JoinQueue wait "
        f"p50 {summary.join_wait_ms(50):.0f} ms, p99 {summary.join_wait_ms(99):.0f} ms",
        f"rejects {summary.rejects}, desyncs {summary.desyncs}, gaps {summary.gaps}, "
        f"reconnects {summary.reconnects}, rejoins {summary.rejoins}, stream rejections {summary.stream_rejections}, "
        f"errors {summary.errors}",
    ]
    lines += [f"  error: {message}" for message in summary.error_messages]
    if summary.errors > len(summary.error_messages):
        lines.append(f"  ... and {summary.errors - len(summary.error_messages)} more")
    return "\n".join(lines)


@dataclass
class _Run:
    """What the bots of one run share while it runs."""

    summary: Summary
    stats: PlayStats
    finished_tables: set[str] = field(default_factory=set)
    progress: Callable[[int, int], None] | None = None
    started: float = field(default_factory=time.perf_counter)

    def error(self, message: str) -> None:
        self.summary.errors += 1
        if len(self.summary.error_messages) < _MAX_ERROR_MESSAGES:
            self.summary.error_messages.append(message)

    def table_finished(self, table_id: str) -> None:
        self.summary.bots_finished += 1
        if table_id in self.finished_tables:
            return
        self.finished_tables.add(table_id)
        self.summary.games_completed = len(self.finished_tables)
        if self.progress is not None:
            self.progress(self.summary.games_completed, self.summary.tables_expected)


async def run_tables(
    target: str,
    game: str,
    tables: int,
    bot: str | BotFactory = "random",
    seed: int = 0,
    timeout_s: float = 120.0,
    *,
    seats_per_table: int,
    bots: Mapping[str, BotFactory] | None = None,
    variant: str = "",
    join_data: Mapping[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
    tls_root_cert: bytes | None = None,
    record_dir: Path | None = None,
    player_token: Callable[[str], str] | None = None,
    stats: PlayStats | None = None,
    before_move: BeforeMove | None = None,
) -> Summary:
    """Start `seats_per_table * tables` bots that all queue for tables of
    `seats_per_table` seats of `game` (and `variant`) at once, let every
    table play one game, and summarise.

    `bot` is a bot factory, or a name looked up in `bots` (the generic
    random bot when None; see clients.bots.bot_factories). Every bot joins
    with `join_data`, the game's options for a player if it takes any.
    Bot i plays with seed `seed + i`. `progress(done, expected)` is called
    each time a table finishes, for a progress bar. Bots still running at
    `timeout_s` are cancelled and each counts as an error. With
    `tls_root_cert` (PEM), every bot connects over TLS trusting it. With
    `record_dir`, every bot that finished its game saves what it received
    as TABLE-seatN.json (clients/game_record.py). With `player_token`, bot
    NAME-bot-i signs in with `player_token("NAME-bot-i")`. `stats` takes
    every move (pass one to several runs to add them up: the summary's
    moves, rejects, p50 and p99 are then of all of them). `before_move` is
    awaited before each move (a player's think time: clients.bots.play_seat)."""
    if tables < 1:
        raise ValueError(f"a load run needs at least one table, got {tables}")
    if seats_per_table < 1:
        raise ValueError(f"a table has at least one seat, got {seats_per_table}")
    name, factory = _bot_factory(bot, bots)
    players = seats_per_table * tables
    run = _Run(Summary(game, name, tables, bots_expected=players), PlayStats() if stats is None else stats,
               progress=progress)
    entry = _Entry(target, game, variant, seats_per_table, dict(join_data or {}), tls_root_cert, record_dir,
                   player_token, before_move)
    started = run.started
    tasks = [
        asyncio.create_task(_play_one_bot(run, entry, name, factory, seed + index, index))
        for index in range(players)
    ]
    _done, stuck = await asyncio.wait(tasks, timeout=timeout_s)
    for task in stuck:
        task.cancel()
    await asyncio.wait(tasks)
    summary = run.summary
    summary.elapsed_s = time.perf_counter() - started
    summary.moves, summary.rejects = run.stats.moves, run.stats.rejects
    summary.p50_ms, summary.p99_ms = run.stats.percentile_ms(50), run.stats.percentile_ms(99)
    return summary


@dataclass(frozen=True)
class _Entry:
    """How every bot of a run asks for its seat."""

    target: str
    game: str
    variant: str
    seats: int
    join_data: dict[str, Any]
    tls_root_cert: bytes | None = None
    record_dir: Path | None = None
    player_token: Callable[[str], str] | None = None
    before_move: BeforeMove | None = None


def _bot_factory(bot: str | BotFactory, bots: Mapping[str, BotFactory] | None) -> tuple[str, BotFactory]:
    """The bot's name for the summary and its factory. An unknown name fails
    here, once, not in every bot's task."""
    if isinstance(bot, str):
        factories = bot_factories() if bots is None else bots
        make_bot(bot, factories)
        return bot, factories[bot]
    return str(getattr(bot, "name", None) or getattr(bot, "__name__", "bot")), bot


async def _play_one_bot(run: _Run, entry: _Entry, name: str, factory: BotFactory, seed: int, index: int) -> None:
    player = f"{name}-bot-{index}"
    stage = "queueing"
    session: TableSession | None = None
    try:
        with failures_recorded(run.error, player, lambda: stage, "the run timed out"):
            token = entry.player_token(player) if entry.player_token is not None else ""
            async with LobbyClient(entry.target, tls_root_cert=entry.tls_root_cert, player_token=token) as lobby:
                for rejoin in range(MAX_REJOINS + 1):
                    asked = time.perf_counter()
                    try:
                        assignment = await lobby.join_queue(entry.game, player, variant=entry.variant,
                                                            join_data=entry.join_data, seats=entry.seats)
                    except LobbyError as refused:
                        if run.summary.refusal is None:
                            run.summary.refusal = (refused.code.name, refused.details)
                        raise
                    seated = time.perf_counter()
                    run.summary.join_waits_s.append(seated - asked)
                    run.summary.seated_at_s.append(seated - run.started)
                    stage = f"connecting to table {assignment.table_id}"
                    session = playing = await TableSession.connect(assignment, lobby,
                                                                   record=entry.record_dir is not None)
                    stage = f"playing seat {assignment.seat} at table {assignment.table_id}"
                    try:
                        await play_seat(playing, factory(seed), run.stats, before_move=entry.before_move)
                    except TableCancelled:
                        if rejoin == MAX_REJOINS:
                            raise
                        run.summary.rejoins += 1
                        await playing.close()
                        session, stage = None, "queueing again"
                        continue
                    break
                if entry.record_dir is not None:
                    stage = f"saving seat {assignment.seat} of table {assignment.table_id}"
                    saved = entry.record_dir / f"{assignment.table_id}-seat{assignment.seat}.json"
                    await asyncio.to_thread(saved.write_text, playing.received_game().to_json())
                run.table_finished(assignment.table_id)
    finally:
        if session is not None:
            await session.close()
            run.summary.desyncs += session.desyncs
            run.summary.gaps += session.gaps
            run.summary.reconnects += session.reconnects
            run.summary.stream_rejections += session.stream_rejections
