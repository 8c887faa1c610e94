"""Playing a tournament's rounds: pair the next round (the pure core), open
its tables through the lobby's placement (not the public queue), wait for
their results and record them, until the tournament finishes.

A restarted actor carries on with the round in progress: tables already
open are found again (the lobby answers for a table id it knows instead of
opening it twice), results are keyed by table id (a duplicate changes
nothing), and a result that arrived while the actor was down is still in
the lobby's directory."""

from __future__ import annotations

import logging
import time
from typing import Any

from tablehost.actors.table_results import TableState
from tablehost.actors.tournament import table_outcomes
from tablehost.actors.tournament.log_events import CoreEvent
from tablehost.actors.tournament.lobby_link import LobbyLink
from tablehost.actors.tournament.running import RunningTournament
from tablehost.actors.tournament.tournament import GameRecord, Table
from tablehost.actors.tournament_tables import PlacingRefused, TournamentTable
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.rules import GameRules

log = logging.getLogger("tablehost.tournament")

# How long one wait on the lobby for results lasts before it is asked again.
RESULTS_WAIT_S = 30.0
# A table that could not be opened is tried again this many times, then its
# players all forfeit (their results count as losses).
MAX_OPEN_ATTEMPTS = 3
# A pairing slower than this is logged as a warning.
SLOW_PAIRING_S = 0.5


class RoundRunner:
    def __init__(self, running: RunningTournament, rules: GameRules, lobby: LobbyLink) -> None:
        self.running = running
        self.rules = rules
        self.lobby = lobby
        self.tournament_id = running.tournament_id

    async def run(self) -> None:
        """Every round still to play, the one in progress first."""
        running, core = self.running, self.running.core
        try:
            while not core.finished:
                if core.current_round is None or core.round_complete():
                    if core.current_round is not None:
                        self.lobby.round_ended()
                    if running.kept.paused:
                        await running.next_change()  # resumed or cancelled
                        continue
                    ended = core.current_round
                    if ended is not None:
                        log.info("tournament %s: round %d ended", self.tournament_id, ended.number)
                    began = time.perf_counter()
                    event = core.start_round()
                    self._log_pairing(event, time.perf_counter() - began)
                    running.kept.note_round()
                    running.standings_settled()
                    await running.persist(CoreEvent(event))
                    running.placed = {}
                    running.announce()
                    continue
                await self._play_round()
            log.info("tournament %s finished: %s", self.tournament_id, core.finish_reason)
        except Exception:
            log.exception("tournament %s stopped", self.tournament_id)
            raise

    def _log_pairing(self, event: dict[str, Any], seconds: float) -> None:
        """Every pairing's time (what the tournament benchmark reads); one
        slower than SLOW_PAIRING_S is a warning, as large fields need watching."""
        if event["type"] == "finished":
            return
        core = self.running.core
        current = core.current_round
        assert current is not None
        level = logging.WARNING if seconds > SLOW_PAIRING_S else logging.INFO
        log.log(level, "tournament %s: paired round %d (%d players) in %.1f ms%s", self.tournament_id,
                current.number, len(core.players()), seconds * 1000,
                " (slow)" if seconds > SLOW_PAIRING_S else "")

    async def _play_round(self) -> None:
        running, core = self.running, self.running.core
        current = core.current_round
        assert current is not None
        log.info("tournament %s: round %d, %d tables, %d byes", self.tournament_id, current.number,
                 len(current.tables), len(current.byes))
        attempts: dict[str, int] = {}
        deadline = time.monotonic() + running.kept.round_limit_s
        self.lobby.round_started(current.number, time.time() + running.kept.round_limit_s)
        while not core.round_complete():
            pending = core.pending_tables()
            to_open = [table for table in pending if table.table_id not in running.placed]
            if to_open:
                await self._open(to_open, attempts)
                continue
            if time.monotonic() >= deadline:
                for table in pending:
                    await self._record_forfeit(table, "the round's time ran out")
                return
            states = await self.lobby.table_results([t.table_id for t in pending], RESULTS_WAIT_S)
            for table in pending:
                if states[table.table_id].state == "unknown":
                    # The lobby restarted and lost its record: open it again
                    # (the store's copy of a running table is resumed by then).
                    running.placed.pop(table.table_id, None)
                else:
                    await self._settle(table, states[table.table_id])

    async def _open(self, tables: list[Table], attempts: dict[str, int]) -> None:
        answers = await self.lobby.place_tables([self._table_request(table) for table in tables])
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
                self.running.placed[table.table_id] = answer
        self.running.announce()

    def _table_request(self, table: Table) -> TournamentTable:
        kept = self.running.kept
        return TournamentTable(table.table_id, kept.core.spec.game, self._table_seed(table),
                               tuple((player, kept.joins.get(player, {})) for player in table.players),
                               kept.options, no_show_after_s=kept.no_show_after_s)

    def _table_seed(self, table: Table) -> TableSeed:
        """From the tournament's secret deal key and the table id, so a table
        opened again after a restart is the same table, and a seed revealed
        after one game tells nothing of another's."""
        return TableSeed.derived(bytes.fromhex(self.running.core.spec.deal_key), table.table_id)

    # -- results ---------------------------------------------------------------------------

    async def _settle(self, table: Table, state: TableState) -> None:
        """Record what the lobby says of a table that is no longer running
        (nothing while it runs)."""
        if state.state == "finished":
            assert state.result is not None  # a finished table has its result
            await self._record(table_outcomes.played(table, self.rules.placings(state.result), state.no_show))
        elif state.state == "no_show":
            log.info("tournament %s: table %s ended by no-shows at seats %s", self.tournament_id, table.table_id,
                     sorted(set(state.no_show)))
            await self._record(table_outcomes.ended_by_no_shows(table, state.no_show))
        elif state.state == "adjudicated":
            log.info("tournament %s: table %s adjudicated: places %s", self.tournament_id, table.table_id,
                     list(state.places))
            await self._record(table_outcomes.adjudicated(table, state.places))
        elif state.state == "ended":
            await self._record_forfeit(table, f"the table ended without a result ({state.outcome})")

    async def _record_forfeit(self, table: Table, why: str) -> None:
        log.warning("tournament %s: table %s forfeited by every seat: %s", self.tournament_id, table.table_id, why)
        await self._record(table_outcomes.forfeited(table))

    async def _record(self, record: GameRecord) -> None:
        core = self.running.core
        if core.finished:
            return  # cancelled while this table's result was on its way
        event = core.record(record)
        if event is None:
            return  # this table's result is in already
        await self.running.persist(CoreEvent(event))
        self.running.announce()
