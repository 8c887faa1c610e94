"""Many bot players driven from one asyncio loop, as one agent of a load
test runs them.

Each player arrives when its plan says, queues at the front door, plays
its seat with the real SDK (every delta applied and its view hash checked;
the session counts desyncs) and a bot, thinking before its moves, leaving
mid-game and coming back, or reading its stream slowly as its profile
says, for the run's games per table. The driver counts what happened and
keeps a series of moves and commit round trips per second of the run;
`progress()` reads the counts while it runs, `run()` returns them all.

There is no Ray here: `tablehost loadtest` wraps one driver in each of its
Ray load agents (host/loadtest/agent.py), and a test or script can run one
on its own loop. The run is bounded: players still playing when its
duration ends are cancelled and each counts as an error.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tablehost.clients.bots import BotFactory, PlayStats, play_seat, round_trip_histogram, round_trip_us
from tablehost.clients.loadprofile import LoadProfile, PlayerPlan, ThinkTime
from tablehost.clients.loadrun import failures_recorded
from tablehost.clients.sdk import Assignment, LobbyClient, TableSession

# Error messages kept for the report; the count covers all of them.
MAX_ERROR_MESSAGES = 20

# The counters one driver keeps, as progress() and run() name them.
COUNTERS = (
    "players", "arrived", "waiting", "playing", "players_finished", "games_played", "moves", "rejects", "desyncs",
    "gaps", "reconnects", "stream_rejections", "hashes_checked", "leaves", "errors",
)
# Of those, what each table session counts itself.
_SESSION_COUNTERS = ("desyncs", "gaps", "reconnects", "stream_rejections", "hashes_checked")


@dataclass(frozen=True)
class DriverPlan:
    """What one driver plays: its share of the run's players, against
    `target`, each playing `games_per_table` games. `start_at` is the run's
    second 0 on the wall clock (time.time()), the same for every agent so
    their series line up; the run ends `duration_s` after it."""

    target: str
    profile: LoadProfile
    players: tuple[PlayerPlan, ...]
    games_per_table: int = 1
    start_at: float = 0.0
    duration_s: float = 300.0
    tls_root_cert: bytes | None = None


@dataclass
class _SecondStats(PlayStats):
    """PlayStats that also keep the round trips of the current second, so
    the driver can close each second into the run's series."""

    second_us: Any = field(default_factory=round_trip_histogram)

    def record_round_trip(self, seconds: float) -> None:
        super().record_round_trip(seconds)
        self.second_us.record_value(round_trip_us(seconds))


@dataclass
class _Player:
    """Where one player is, for its error message and its cleanup."""

    name: str
    stage: str = "waiting to arrive"
    lobby: LobbyClient | None = None
    session: TableSession | None = None


class _Habits:
    """A player's conduct each time its seat is asked, in one game: if it is
    one who leaves, it drops its stream once (when asked after `leave_after`
    requests), stays away `away_s` and reconnects; then it thinks."""

    def __init__(self, think: ThinkTime, rng: random.Random, leave: tuple[int, float] | None,
                 came_back: Callable[[], None]) -> None:
        self._think = think
        self._rng = rng
        self._leave = leave
        self._came_back = came_back
        self._asked = 0

    async def __call__(self, session: TableSession) -> None:
        if self._leave is not None and self._asked == self._leave[0]:
            away_s, self._leave = self._leave[1], None
            await session.drop()
            await asyncio.sleep(away_s)
            await session.reconnect()
            self._came_back()
        self._asked += 1
        delay = self._think.sample_s(self._rng)
        if delay > 0:
            await asyncio.sleep(delay)


class LoadDriver:
    """Plays a DriverPlan's players with the bots `bots` (one factory per
    game of the profile, in its order)."""

    def __init__(self, plan: DriverPlan, bots: Sequence[BotFactory]) -> None:
        if len(bots) != len(plan.profile.games):
            raise ValueError(f"one bot per game of the profile: {len(plan.profile.games)} games, {len(bots)} bots")
        self.plan = plan
        self._bots = list(bots)
        self._stats = _SecondStats()
        self._counts = dict.fromkeys(COUNTERS, 0)
        self._counts["players"] = len(plan.players)
        self._open: set[TableSession] = set()
        self._errors: list[str] = []
        # Tables this driver's players finished: [table_id, second, endpoint, game], first finish only.
        self._tables: list[list[Any]] = []
        self._table_ids: set[str] = set()
        self._series: list[dict[str, Any]] = []
        self._second = 0
        self._moves_before_second = 0
        self._t0 = 0.0
        self._started = time.monotonic()

    # -- reading it --------------------------------------------------------------------

    def progress(self, tables_since: int = 0) -> dict[str, Any]:
        """The counts so far (open sessions' own counters included), every
        round trip as an encoded histogram, and the tables finished since
        the first `tables_since` (so a poller receives each table once)."""
        counts = dict(self._counts)
        for session in self._open:
            for name in _SESSION_COUNTERS:
                counts[name] += getattr(session, name)
        counts["moves"], counts["rejects"] = self._stats.moves, self._stats.rejects
        return {
            **counts,
            "elapsed_s": round(time.monotonic() - self._started, 3),
            "histogram": self._stats.round_trips_us.encode().decode(),
            "tables_seen": len(self._tables),
            "tables": self._tables[tables_since:],
        }

    # -- running it --------------------------------------------------------------------

    async def run(self) -> dict[str, Any]:
        """Play every player until done or the duration ends; then the final
        progress with the per-second series and the error messages."""
        loop = asyncio.get_running_loop()
        self._t0 = loop.time() + (self.plan.start_at - time.time())
        ticker = asyncio.create_task(self._tick(), name="load driver seconds")
        players = [asyncio.create_task(self._play(player), name=f"load player {player.index}")
                   for player in self.plan.players]
        try:
            if players:
                _done, stuck = await asyncio.wait(players, timeout=max(0.0, self._deadline() - loop.time()))
                for task in stuck:
                    task.cancel()
                await asyncio.wait(players)
        finally:
            ticker.cancel()
            await asyncio.wait([ticker])
        self._close_second()
        return {**self.progress(), "series": self._series, "error_messages": list(self._errors)}

    def _deadline(self) -> float:
        return self._t0 + self.plan.duration_s

    def _now_second(self) -> int:
        return max(0, int(asyncio.get_running_loop().time() - self._t0))

    async def _tick(self) -> None:
        """Close each second of the run into the series as it passes."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(max(0.0, self._t0 + self._second + 1 - loop.time()))
            self._close_second()

    def _close_second(self) -> None:
        """The current second's moves and round trips, appended to the series."""
        histogram = self._stats.second_us
        self._series.append({
            "second": self._second,
            "moves": self._stats.moves - self._moves_before_second,
            "histogram": histogram.encode().decode() if histogram.get_total_count() else "",
        })
        histogram.reset()
        self._moves_before_second = self._stats.moves
        self._second += 1

    async def _play(self, plan: PlayerPlan) -> None:
        player = _Player(f"load-{plan.index}")
        try:
            with failures_recorded(self._error, player.name, lambda: player.stage,
                                   f"the run's {self.plan.duration_s:g} s ended"):
                await self._play_games(plan, player)
                self._counts["players_finished"] += 1
        finally:
            if player.session is not None:
                await self._leave_table(player)
            if player.lobby is not None:
                await player.lobby.close()
            if player.stage == "waiting in the queue":
                self._counts["waiting"] -= 1

    async def _play_games(self, plan: PlayerPlan, player: _Player) -> None:
        loop = asyncio.get_running_loop()
        await asyncio.sleep(max(0.0, self._t0 + plan.arrive_s - loop.time()))
        self._counts["arrived"] += 1
        game = self.plan.profile.games[plan.game]
        join_data = dict(game.join_data or {})
        rng = random.Random(plan.seed)
        player.lobby = LobbyClient(self.plan.target, tls_root_cert=self.plan.tls_root_cert)
        for played in range(self.plan.games_per_table):
            player.stage = "waiting in the queue"
            self._counts["waiting"] += 1
            assignment = await player.lobby.join_queue(game.name, player.name, variant=game.variant,
                                                       join_data=join_data, seats=game.seats)
            self._counts["waiting"] -= 1
            player.stage = f"connecting to table {assignment.table_id}"
            player.session = await TableSession.connect(assignment, player.lobby, read_delay_s=plan.read_delay_s)
            self._open.add(player.session)
            self._counts["playing"] += 1
            player.stage = f"playing seat {assignment.seat} at table {assignment.table_id}"
            leave = self.plan.profile.reconnects.draw(rng) if plan.leaves else None
            habits = _Habits(self.plan.profile.think, rng, leave, self._came_back)
            await play_seat(player.session, self._bots[plan.game](plan.seed + played), self._stats,
                            before_move=habits)
            await self._leave_table(player)
            self._counts["games_played"] += 1
            self._table_finished(assignment, game.name)

    async def _leave_table(self, player: _Player) -> None:
        """Close the player's session and keep its counters."""
        session, player.session = player.session, None
        if session is None:
            return
        await session.close()
        self._open.discard(session)
        self._counts["playing"] -= 1
        for name in _SESSION_COUNTERS:
            self._counts[name] += getattr(session, name)

    def _came_back(self) -> None:
        self._counts["leaves"] += 1

    def _table_finished(self, assignment: Assignment, game: str) -> None:
        if assignment.table_id not in self._table_ids:
            self._table_ids.add(assignment.table_id)
            self._tables.append([assignment.table_id, self._now_second(), assignment.endpoint, game])

    def _error(self, message: str) -> None:
        self._counts["errors"] += 1
        if len(self._errors) < MAX_ERROR_MESSAGES:
            self._errors.append(message)
