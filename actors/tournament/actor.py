"""The tournament actor: one per tournament. It pairs each round with the
pure core (tournament.py and the format modules), opens the round's tables
through the lobby's placement (not the public queue), waits for their
results, and advances.

Every change is an event appended to the tournament's durable log (the
tables' store, actors/store/event_log.py) before it takes effect, and the
state is the fold of those events. Ray restarts the actor when its process
dies; the new incarnation replays the log and carries on with the round in
progress: tables already open are found again (the lobby answers for a
table id it knows instead of opening it twice), results are keyed by table
id (a duplicate changes nothing), and a result that arrived while the actor
was down is still in the lobby's directory.

Front doors do not hold a call open per player: each keeps one `updates`
call open per tournament and fans what it gets out to its own watchers.

A tournament not started by the time its created event says ends itself as
"expired". A finished tournament (played out or expired) lets its process go
a few seconds later (RELEASE_AFTER_S), so a host holds a process only for the
tournaments still to be played: front doors answer for a finished one from
its log (kept.py). Ray does not restart an actor that ended itself this way."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from typing import Any

import ray

from tablehost.actors.journal import through_outage
from tablehost.actors.log_format import configure_logging
from tablehost.actors.store import StoreError
from tablehost.actors.store.event_log import EventLog, open_event_log
from tablehost.actors.tournament_tables import PlacedTable, PlacingRefused, TournamentTable
from tablehost.actors.table_results import TableState
from tablehost.actors.tournament.kept import DEFAULT_PAGE_SIZE, KeptTournament, StandingsPages
from tablehost.actors.tournament.tournament import GameRecord, Table, Tournament, TournamentError, TournamentSpec
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.registry import GameCatalog

log = logging.getLogger("tablehost.tournament")

ACTOR_PREFIX = "tablehost-tournament-"
# How long one wait on the lobby for results lasts before it is asked again.
RESULTS_WAIT_S = 30.0
# A table that could not be opened is tried again this many times, then its
# players all forfeit (their results count as losses).
MAX_OPEN_ATTEMPTS = 3
# A pairing slower than this is logged as a warning.
SLOW_PAIRING_S = 0.5
# How long a finished tournament keeps its process: the front doors' open
# `updates` calls take the final status to their watchers meanwhile.
RELEASE_AFTER_S = 5.0
# The finish reason of a tournament not started in time.
EXPIRED = "expired"


def tournament_actor_name(tournament_id: str) -> str:
    return f"{ACTOR_PREFIX}{tournament_id}"


@ray.remote(num_cpus=0, max_restarts=-1)
class TournamentActor:
    def __init__(self, created: dict[str, Any], store_url: str, game_modules: tuple[str, ...] = (),
                 game_path: tuple[str, ...] = (), log_format: str = "text") -> None:
        """`created` is the tournament's first event (kept.py says what it
        holds; made by the front door with its defaults); it is written only if
        the log is empty (a restarted actor is given the same one and finds
        its own log)."""
        configure_logging(log_format)
        spec = TournamentSpec.from_dict(created["spec"])
        self.tournament_id = spec.tournament_id
        self.catalog = GameCatalog.load(game_modules, game_path)
        self.rules = self.catalog.rules(spec.game)
        self.log: EventLog = open_event_log(store_url)
        events = self.log.read(self.tournament_id)
        if not events:
            self.log.append(self.tournament_id, 0, created)
            events = [created]
        self.kept = KeptTournament.replay(events)
        self.pages = StandingsPages()
        # The standings watchers are sent (RoundEnded, the final status): the
        # first page as the current round was paired, or as it finished.
        self._watched = self.pages.first(self.core)
        # Where each table of the current round runs, and its seat tokens.
        self.placed: dict[str, PlacedTable] = {}
        self.version = 0
        self._changed = asyncio.Event()
        self._appending = asyncio.Lock()
        self._lobby: Any = None
        loop = asyncio.get_running_loop()
        self._runner: asyncio.Task[None] | None = None
        self._timer: asyncio.Task[None] | None = None
        if self.core.finished:
            self._timer = loop.create_task(self._release())
        elif self.kept.started:
            self._runner = loop.create_task(self._run())
        elif self.kept.start_by_ms:
            self._timer = loop.create_task(self._expire_unless_started())
        log.info("tournament %s (%s, %s, organiser %r): %d events replayed, round %d, %s", self.tournament_id,
                 spec.game, spec.format, self.kept.organiser, self.kept.events, self.core.rounds_played,
                 self.kept.state)

    @property
    def core(self) -> Tournament:
        return self.kept.core

    # -- what front doors call -----------------------------------------------------

    async def register(self, player: str, join: dict[str, Any]) -> dict[str, Any]:
        """Raises TournamentError (its message is the reason) and changes nothing
        when the player may not join; the game checks the join data first."""
        if len(self.core.players()) >= self.kept.max_players:
            raise TournamentError(f"the tournament is full ({self.kept.max_players} players)")
        checked = self.rules.accepted_join(join)
        event = self.core.register(player)
        self.kept.joins[player] = checked
        await self._persist({"kind": "core", "event": event, "join": checked})
        self._bump()
        return {"player": player}

    async def withdraw(self, player: str) -> None:
        await self._persist({"kind": "core", "event": self.core.withdraw(player)})
        self._bump()

    async def start(self) -> dict[str, Any]:
        if self.core.finished:
            raise TournamentError(f"the tournament has finished: {self.core.finish_reason}")
        if self.kept.started:
            raise TournamentError("the tournament has started already")
        if len(self.core.players()) < 2:
            raise TournamentError("a tournament needs at least 2 registered players to start")
        # Marked before the append is awaited, so the expiry cannot overtake it.
        self.kept.started = True
        await self._persist({"kind": "start"})
        if self._timer is not None:
            self._timer.cancel()
        self._runner = asyncio.get_running_loop().create_task(self._run())
        self._bump()
        return self.status()

    def status(self, version: int | None = None, offset: int = 0, size: int = DEFAULT_PAGE_SIZE) -> dict[str, Any]:
        """Where it stands, with `size` standings from `offset` of the
        standings of `version` (a page token's; None: the current ones).
        Raises PageExpired when those standings are no longer kept."""
        return self.kept.status(self.pages.page(self.core, version, offset, size, time.monotonic()))

    def state(self) -> str:
        """"registering", "running", "paused" or "finished" (what an organiser's cap counts)."""
        return self.kept.state

    async def updates(self, version: int, timeout_s: float) -> dict[str, Any]:
        """Once the tournament changed after `version` (or after `timeout_s`):
        its status, and the current round's tables with each seat's token
        (front doors hand each player only its own)."""
        if version == self.version:
            try:
                await asyncio.wait_for(self._changed.wait(), timeout_s)
            except TimeoutError:
                pass
        current = self.core.current_round
        round_plain = None
        if current is not None:
            round_plain = {"number": current.number, "byes": list(current.byes),
                           "tables": {t.table_id: list(t.players) for t in current.tables},
                           "placed": dict(self.placed)}
        return {"version": self.version, "status": self.kept.status(self._watched), "round": round_plain}

    def results(self, offset: int = 0, size: int = DEFAULT_PAGE_SIZE) -> dict[str, Any]:
        """`size` results from `offset`, in the order recorded; every bye with
        the last page (what `export` writes)."""
        return self.kept.results(offset, size)

    def pid(self) -> int:
        """This incarnation's process (what a test SIGKILLs)."""
        return os.getpid()

    # -- what administrators do --------------------------------------------------------

    async def pause(self) -> str:
        """No round starts until resumed; the round being played plays on."""
        self._refuse_if_finished()
        if not self.kept.started:
            raise TournamentError("the tournament has not started; there is nothing to pause")
        if self.kept.paused:
            raise TournamentError("the tournament is paused already")
        self.kept.paused = True
        await self._persist({"kind": "paused"})
        self._bump()
        current = self.core.current_round
        return f"tournament {self.tournament_id} paused in round {current.number if current is not None else 0}"

    async def resume(self) -> str:
        self._refuse_if_finished()
        if not self.kept.paused:
            raise TournamentError("the tournament is not paused")
        self.kept.paused = False
        await self._persist({"kind": "resumed"})
        self._bump()
        return f"tournament {self.tournament_id} resumed"

    async def cancel(self, reason: str) -> str:
        """End it now: the tables of the round being played are closed (their
        players told why), the standings so far are its last."""
        self._refuse_if_finished()
        event = self.core.cancel(f"cancelled by an administrator: {reason}")
        self._watched = self.pages.first(self.core)
        await self._persist({"kind": "core", "event": event})
        for task in (self._runner, self._timer):
            if task is not None:
                task.cancel()
        self.lobby.tournament_round.remote(self.tournament_id, 0, 0.0)
        open_tables = [table.table_id for table in self._pending_tables() if table.table_id in self.placed]
        for table_id in open_tables:
            await self._ask_lobby("close_table", table_id, f"the tournament was cancelled: {reason}")
        self._bump()
        log.warning("tournament %s cancelled by an administrator (%s); %d open tables closed", self.tournament_id,
                    reason, len(open_tables))
        self._timer = asyncio.get_running_loop().create_task(self._release())
        return f"tournament {self.tournament_id} cancelled; open tables closed: {len(open_tables)}"

    async def remove_player(self, player: str, reason: str) -> str:
        """Withdraw the player (not paired again; results so far stand) and
        take their seat at their table of the round being played, if any."""
        await self._persist({"kind": "core", "event": self.core.withdraw(player)})
        self._bump()
        seats = [(table.table_id, table.players.index(player)) for table in self._pending_tables()
                 if player in table.players and table.table_id in self.placed]
        for table_id, seat in seats:
            await self._ask_lobby("remove_seat", table_id, seat, reason)
        at = f"; seat {seats[0][1]} of table {seats[0][0]} taken" if seats else ""
        return f"{player} withdrawn from tournament {self.tournament_id}{at}"

    def _refuse_if_finished(self) -> None:
        if self.core.finished:
            raise TournamentError(f"the tournament has finished: {self.core.finish_reason}")

    def _pending_tables(self) -> list[Table]:
        return self.core.pending_tables() if self.core.current_round is not None else []

    async def _ask_lobby(self, method: str, *args: Any) -> None:
        """An administrator's action on one of this tournament's tables; a
        table that closed meanwhile is no error."""
        try:
            await getattr(self.lobby, method).remote(*args)
        except ray.exceptions.RayError as error:
            log.warning("tournament %s: the lobby did not %s %s: %s", self.tournament_id, method, args[0], error)

    async def wait_finished(self, timeout_s: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while not self.core.finished and time.monotonic() < deadline:
            try:
                await asyncio.wait_for(self._changed.wait(), deadline - time.monotonic())
            except TimeoutError:
                break
        return self.status()

    # -- running the rounds ------------------------------------------------------------

    async def _run(self) -> None:
        try:
            while not self.core.finished:
                if self.core.current_round is None or self.core.round_complete():
                    if self.core.current_round is not None:
                        self.lobby.tournament_round.remote(self.tournament_id, 0, 0.0)
                    if self.kept.paused:
                        await self._changed.wait()  # resumed or cancelled
                        continue
                    ended = self.core.current_round
                    if ended is not None:
                        log.info("tournament %s: round %d ended", self.tournament_id, ended.number)
                    began = time.perf_counter()
                    event = self.core.start_round()
                    self._log_pairing(event, time.perf_counter() - began)
                    self.kept.note_round()
                    self._watched = self.pages.first(self.core)
                    await self._persist({"kind": "core", "event": event})
                    self.placed = {}
                    self._bump()
                    continue
                await self._play_round()
            log.info("tournament %s finished: %s", self.tournament_id, self.core.finish_reason)
        except Exception:
            log.exception("tournament %s stopped", self.tournament_id)
            raise
        await self._release()

    async def _expire_unless_started(self) -> None:
        """End the tournament as expired once its start-by time passes
        without a start (the time is in the log: a restarted actor keeps it)."""
        while (left_s := self.kept.start_by_ms / 1000 - time.time()) > 0:
            await asyncio.sleep(left_s)
        if self.kept.started or self.core.finished:
            return
        event = self.core.end(EXPIRED)
        self._watched = self.pages.first(self.core)
        await self._persist({"kind": "core", "event": event})
        self._bump()
        log.info("tournament %s of organiser %r expired: not started by %d ms, with %d players registered",
                 self.tournament_id, self.kept.organiser, self.kept.start_by_ms, len(self.core.players()))
        await self._release()

    async def _release(self) -> None:
        """A finished tournament ends its own process (no restart): its log
        answers for it from now on."""
        await asyncio.sleep(RELEASE_AFTER_S)
        log.info("tournament %s (%s) releases its process", self.tournament_id, self.core.finish_reason)
        ray.kill(ray.get_runtime_context().current_actor, no_restart=True)

    def _log_pairing(self, event: dict[str, Any], seconds: float) -> None:
        """Every pairing's time (what the tournament benchmark reads); one
        slower than SLOW_PAIRING_S is a warning, as large fields need watching."""
        if event["type"] == "finished":
            return
        current = self.core.current_round
        assert current is not None
        level = logging.WARNING if seconds > SLOW_PAIRING_S else logging.INFO
        log.log(level, "tournament %s: paired round %d (%d players) in %.1f ms%s", self.tournament_id,
                current.number, len(self.core.players()), seconds * 1000,
                " (slow)" if seconds > SLOW_PAIRING_S else "")

    async def _play_round(self) -> None:
        current = self.core.current_round
        assert current is not None
        log.info("tournament %s: round %d, %d tables, %d byes", self.tournament_id, current.number,
                 len(current.tables), len(current.byes))
        attempts: dict[str, int] = {}
        deadline = time.monotonic() + self.kept.round_limit_s
        self.lobby.tournament_round.remote(self.tournament_id, current.number, time.time() + self.kept.round_limit_s)
        while not self.core.round_complete():
            pending = self.core.pending_tables()
            to_open = [table for table in pending if table.table_id not in self.placed]
            if to_open:
                await self._open(to_open, attempts)
                continue
            if time.monotonic() >= deadline:
                for table in pending:
                    await self._record_forfeit(table, "the round's time ran out")
                return
            states = await self.lobby.table_results.remote([t.table_id for t in pending], RESULTS_WAIT_S)
            for table in pending:
                if states[table.table_id].state == "unknown":
                    # The lobby restarted and lost its record: open it again
                    # (the store's copy of a running table is resumed by then).
                    self.placed.pop(table.table_id, None)
                else:
                    await self._settle(table, states[table.table_id])

    async def _settle(self, table: Table, state: TableState) -> None:
        """Record what the lobby says of a table that is no longer running
        (nothing while it runs)."""
        if state.state == "finished":
            assert state.result is not None  # a finished table has its result
            await self._record_result(table, state.result, list(state.no_show))
        elif state.state == "no_show":
            await self._record_no_shows(table, list(state.no_show))
        elif state.state == "adjudicated":
            await self._record_places(table, list(state.places))
        elif state.state == "ended":
            await self._record_forfeit(table, f"the table ended without a result ({state.outcome})")

    async def _open(self, tables: list[Table], attempts: dict[str, int]) -> None:
        requests = [self._table_request(table) for table in tables]
        answers = await self.lobby.place_tables.remote(requests)
        for table, answer in zip(tables, answers):
            if isinstance(answer, TableState):  # settled before this incarnation asked
                await self._settle(table, answer)
            elif isinstance(answer, PlacingRefused):
                attempts[table.table_id] = attempts.get(table.table_id, 0) + 1
                log.warning("tournament %s: table %s not opened: %s", self.tournament_id, table.table_id,
                            answer.error)
                if attempts[table.table_id] >= MAX_OPEN_ATTEMPTS:
                    await self._record_forfeit(table, f"the table could not be opened: {answer.error}")
            else:
                self.placed[table.table_id] = answer
        self._bump()

    def _table_request(self, table: Table) -> TournamentTable:
        return TournamentTable(table.table_id, self.core.spec.game, self._table_seed(table),
                               tuple((player, self.kept.joins.get(player, {})) for player in table.players),
                               self.kept.options, no_show_after_s=self.kept.no_show_after_s)

    def _table_seed(self, table: Table) -> TableSeed:
        """From the tournament's secret deal key and the table id, so a table
        opened again after a restart is the same table, and a seed revealed
        after one game tells nothing of another's."""
        return TableSeed.derived(bytes.fromhex(self.core.spec.deal_key), table.table_id)

    async def _record_result(self, table: Table, result: dict[str, Any], no_show: list[int]) -> None:
        """The game's placings, except that a seat which never showed up
        (the timers played it) forfeits: no points, last place."""
        seats = len(table.players)
        placings = self.rules.placings(result)
        absent = set(no_show)
        record = GameRecord(table_id=table.table_id, round=table.round, players=table.players,
                            points=tuple(0.0 if s in absent else p.points for s, p in enumerate(placings)),
                            ranks=tuple(seats - 1 if s in absent else p.place for s, p in enumerate(placings)),
                            scores=tuple(p.score for p in placings),
                            forfeited=tuple(s in absent for s in range(seats)))
        await self._record(record)

    async def _record_no_shows(self, table: Table, no_show: list[int]) -> None:
        """A table its no-shows ended before a game was played: they forfeit
        (no points, last place); the players who came share first place, each
        beating every no-show, as a finished game would have scored it."""
        seats = len(table.players)
        absent = set(no_show)
        present = seats - len(absent)
        log.info("tournament %s: table %s ended by no-shows at seats %s", self.tournament_id, table.table_id,
                 sorted(absent))
        record = GameRecord(table_id=table.table_id, round=table.round, players=table.players,
                            points=tuple(0.0 if s in absent else len(absent) + (present - 1) / 2 for s in range(seats)),
                            ranks=tuple(seats - 1 if s in absent else 0 for s in range(seats)),
                            scores=(0.0,) * seats, forfeited=tuple(s in absent for s in range(seats)))
        await self._record(record)

    async def _record_places(self, table: Table, places: list[int]) -> None:
        """The places an administrator decided (0 = first): points are the
        seats placed below plus half those tied, as a game's placings count."""
        log.info("tournament %s: table %s adjudicated: places %s", self.tournament_id, table.table_id, places)
        points = tuple(sum(1 for other in places if other > place) + (places.count(place) - 1) / 2
                       for place in places)
        seats = len(table.players)
        record = GameRecord(table_id=table.table_id, round=table.round, players=table.players, points=points,
                            ranks=tuple(places), scores=(0.0,) * seats, forfeited=(False,) * seats)
        await self._record(record)

    async def _record_forfeit(self, table: Table, why: str) -> None:
        log.warning("tournament %s: table %s forfeited by every seat: %s", self.tournament_id, table.table_id, why)
        seats = len(table.players)
        record = GameRecord(table_id=table.table_id, round=table.round, players=table.players,
                            points=(0.0,) * seats, ranks=(seats - 1,) * seats, scores=(0.0,) * seats,
                            forfeited=(True,) * seats)
        await self._record(record)

    async def _record(self, record: GameRecord) -> None:
        if self.core.finished:
            return  # cancelled while this table's result was on its way
        event = self.core.record(record)
        if event is None:
            return  # this table's result is in already
        await self._persist({"kind": "core", "event": event})
        self._bump()

    # -- plumbing -----------------------------------------------------------------------

    async def _persist(self, event: dict[str, Any]) -> None:
        """Append before anyone hears of the change (one append at a time, in
        the order the changes were made). A store that stays unreachable
        past its outage allowance ends this process: Ray starts the actor
        again, which replays only what was kept, so nothing unkept is acted on."""
        async with self._appending:
            try:
                await through_outage(self.log.append, self.tournament_id, self.kept.events, event)
            except StoreError:
                log.exception("tournament %s: event %d not kept; restarting from the log", self.tournament_id,
                              self.kept.events)
                os._exit(1)
            self.kept.events += 1

    def _bump(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    @property
    def lobby(self) -> Any:
        if self._lobby is None:
            # Imported once a round opens tables: a tournament still taking
            # registrations does without the lobby's modules (6 MiB).
            from tablehost.actors.lobby import LOBBY_NAME, NAMESPACE

            self._lobby = ray.get_actor(LOBBY_NAME, namespace=NAMESPACE)
        return self._lobby
