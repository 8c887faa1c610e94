"""The tournament actor: one per tournament, a thin facade over its parts,
each plain Python but the link to the lobby:

- running.py: the tournament as the fold of its durable event log (the
  tables' store, actors/store/event_log.py), every change appended before
  it takes effect, and the version front doors wait on.
- rounds.py: the rounds played, from pairing through the lobby's placement
  to the tables' results (table_outcomes.py says what each result records).
- lobby_link.py: the calls to the lobby over Ray.

Ray restarts the actor when its process dies; the new incarnation replays
the log and carries on with the round in progress.

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

from tablehost.actors.log_format import configure_logging
from tablehost.actors.store.event_log import open_event_log
from tablehost.actors.tournament.answers import Registered, ResultsPage, TournamentStatus, Update
from tablehost.actors.tournament.log_events import CoreEvent, CreatedEvent, PausedEvent, ResumedEvent, StartEvent
from tablehost.actors.tournament.kept import DEFAULT_PAGE_SIZE
from tablehost.actors.tournament.lobby_link import LobbyLink
from tablehost.actors.tournament.rounds import RoundRunner
from tablehost.actors.tournament.running import RunningTournament
from tablehost.actors.tournament.tournament import Tournament, TournamentError
from tablehost.games.registry import GameCatalog

log = logging.getLogger("tablehost.tournament")

ACTOR_PREFIX = "tablehost-tournament-"
# How long a finished tournament keeps its process: the front doors' open
# `updates` calls take the final status to their watchers meanwhile.
RELEASE_AFTER_S = 5.0
# The finish reason of a tournament not started in time.
EXPIRED = "expired"


def tournament_actor_name(tournament_id: str) -> str:
    return f"{ACTOR_PREFIX}{tournament_id}"


@ray.remote(num_cpus=0, max_restarts=-1)
class TournamentActor:
    def __init__(self, created: CreatedEvent, store_url: str, game_modules: tuple[str, ...] = (),
                 game_path: tuple[str, ...] = (), log_format: str = "text") -> None:
        """`created` is the tournament's first event (log_events.py; made by the
        front door with its defaults)."""
        configure_logging(log_format)
        spec = created.spec
        self.tournament_id = spec.tournament_id
        self.catalog = GameCatalog.load(game_modules, game_path)
        self.rules = self.catalog.rules(spec.game)
        self.running = RunningTournament(created, open_event_log(store_url))
        self.kept = self.running.kept
        self.lobby = LobbyLink(self.tournament_id)
        self.rounds = RoundRunner(self.running, self.rules, self.lobby)
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

    async def register(self, player: str, join: dict[str, Any]) -> Registered:
        """Raises TournamentError (its message is the reason) and changes nothing
        when the player may not join; the game checks the join data first."""
        if len(self.core.players()) >= self.kept.max_players:
            raise TournamentError(f"the tournament is full ({self.kept.max_players} players)")
        checked = self.rules.accepted_join(join)
        event = self.core.register(player)
        self.kept.joins[player] = checked
        await self.running.persist(CoreEvent(event, checked))
        self.running.announce()
        return Registered(player)

    async def withdraw(self, player: str) -> None:
        await self.running.persist(CoreEvent(self.core.withdraw(player)))
        self.running.announce()

    async def start(self) -> TournamentStatus:
        if self.core.finished:
            raise TournamentError(f"the tournament has finished: {self.core.finish_reason}")
        if self.kept.started:
            raise TournamentError("the tournament has started already")
        if len(self.core.players()) < 2:
            raise TournamentError("a tournament needs at least 2 registered players to start")
        # Marked before the append is awaited, so the expiry cannot overtake it.
        self.kept.started = True
        await self.running.persist(StartEvent())
        if self._timer is not None:
            self._timer.cancel()
        self._runner = asyncio.get_running_loop().create_task(self._run())
        self.running.announce()
        return self.status()

    def status(self, version: int | None = None, offset: int = 0, size: int = DEFAULT_PAGE_SIZE) -> TournamentStatus:
        """Where it stands, with a page of the standings (RunningTournament.status)."""
        return self.running.status(version, offset, size)

    def state(self) -> str:
        """"registering", "running", "paused" or "finished" (what an organiser's cap counts)."""
        return self.kept.state

    async def updates(self, version: int, timeout_s: float) -> Update:
        """Once the tournament changed after `version` (or after `timeout_s`):
        its status and the current round's tables (RunningTournament.updates)."""
        return await self.running.updates(version, timeout_s)

    def results(self, offset: int = 0, size: int = DEFAULT_PAGE_SIZE) -> ResultsPage:
        """`size` results from `offset`, in the order recorded; every bye with
        the last page (what `export` writes)."""
        return self.kept.results(offset, size)

    def pid(self) -> int:
        """This incarnation's process (what a test SIGKILLs)."""
        return os.getpid()

    async def wait_finished(self, timeout_s: float) -> TournamentStatus:
        return await self.running.wait_finished(timeout_s)

    # -- what administrators do --------------------------------------------------------

    async def pause(self) -> str:
        """No round starts until resumed; the round being played plays on."""
        self._refuse_if_finished()
        if not self.kept.started:
            raise TournamentError("the tournament has not started; there is nothing to pause")
        if self.kept.paused:
            raise TournamentError("the tournament is paused already")
        self.kept.paused = True
        await self.running.persist(PausedEvent())
        self.running.announce()
        current = self.core.current_round
        return f"tournament {self.tournament_id} paused in round {current.number if current is not None else 0}"

    async def resume(self) -> str:
        self._refuse_if_finished()
        if not self.kept.paused:
            raise TournamentError("the tournament is not paused")
        self.kept.paused = False
        await self.running.persist(ResumedEvent())
        self.running.announce()
        return f"tournament {self.tournament_id} resumed"

    async def cancel(self, reason: str) -> str:
        """End it now: the tables of the round being played are closed (their
        players told why), the standings so far are its last."""
        self._refuse_if_finished()
        event = self.core.cancel(f"cancelled by an administrator: {reason}")
        self.running.standings_settled()
        await self.running.persist(CoreEvent(event))
        for task in (self._runner, self._timer):
            if task is not None:
                task.cancel()
        self.lobby.round_ended()
        open_tables = [table.table_id for table in self.running.open_tables()]
        for table_id in open_tables:
            await self.lobby.administer("close_table", table_id, f"the tournament was cancelled: {reason}")
        self.running.announce()
        log.warning("tournament %s cancelled by an administrator (%s); %d open tables closed", self.tournament_id,
                    reason, len(open_tables))
        self._timer = asyncio.get_running_loop().create_task(self._release())
        return f"tournament {self.tournament_id} cancelled; open tables closed: {len(open_tables)}"

    async def remove_player(self, player: str, reason: str) -> str:
        """Withdraw the player (not paired again; results so far stand) and
        take their seat at their table of the round being played, if any."""
        await self.running.persist(CoreEvent(self.core.withdraw(player)))
        self.running.announce()
        seats = [(table.table_id, table.players.index(player)) for table in self.running.open_tables()
                 if player in table.players]
        for table_id, seat in seats:
            await self.lobby.administer("remove_seat", table_id, seat, reason)
        at = f"; seat {seats[0][1]} of table {seats[0][0]} taken" if seats else ""
        return f"{player} withdrawn from tournament {self.tournament_id}{at}"

    def _refuse_if_finished(self) -> None:
        if self.core.finished:
            raise TournamentError(f"the tournament has finished: {self.core.finish_reason}")

    # -- its life ----------------------------------------------------------------------

    async def _run(self) -> None:
        await self.rounds.run()
        await self._release()

    async def _expire_unless_started(self) -> None:
        """End the tournament as expired once its start-by time passes
        without a start (the time is in the log: a restarted actor keeps it)."""
        while (left_s := self.kept.start_by_ms / 1000 - time.time()) > 0:
            await asyncio.sleep(left_s)
        if self.kept.started or self.core.finished:
            return
        event = self.core.end(EXPIRED)
        self.running.standings_settled()
        await self.running.persist(CoreEvent(event))
        self.running.announce()
        log.info("tournament %s of organiser %r expired: not started by %d ms, with %d players registered",
                 self.tournament_id, self.kept.organiser, self.kept.start_by_ms, len(self.core.players()))
        await self._release()

    async def _release(self) -> None:
        """A finished tournament ends its own process (no restart): its log
        answers for it from now on."""
        await asyncio.sleep(RELEASE_AFTER_S)
        log.info("tournament %s (%s) releases its process", self.tournament_id, self.core.finish_reason)
        ray.kill(ray.get_runtime_context().current_actor, no_restart=True)
