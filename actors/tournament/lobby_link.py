"""A tournament's calls to the lobby over Ray: opening its tables, waiting
for their results, saying which round is in play, and administrators'
actions on its tables. The lobby is looked up on first use: a tournament
still taking registrations does without the lobby's modules (6 MiB)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import ray

from tablehost.actors.table_results import TableState
from tablehost.actors.tournament_tables import Placing, TournamentTable

log = logging.getLogger("tablehost.tournament")


class LobbyLink:
    def __init__(self, tournament_id: str) -> None:
        self.tournament_id = tournament_id
        self._lobby: Any = None

    @property
    def lobby(self) -> Any:
        if self._lobby is None:
            from tablehost.actors.lobby import LOBBY_NAME, NAMESPACE

            self._lobby = ray.get_actor(LOBBY_NAME, namespace=NAMESPACE)
        return self._lobby

    def round_started(self, number: int, deadline_s: float) -> None:
        """Round `number` is in play until `deadline_s` (epoch seconds); not
        awaited, as the lobby only watches for overdue rounds."""
        self.lobby.tournament_round.remote(self.tournament_id, number, deadline_s)

    def round_ended(self) -> None:
        """No round of this tournament is in play."""
        self.lobby.tournament_round.remote(self.tournament_id, 0, 0.0)

    async def place_tables(self, tables: Sequence[TournamentTable]) -> list[Placing]:
        answers: list[Placing] = await self.lobby.place_tables.remote(list(tables))
        return answers

    async def table_results(self, table_ids: Sequence[str], timeout_s: float) -> dict[str, TableState]:
        states: dict[str, TableState] = await self.lobby.table_results.remote(list(table_ids), timeout_s)
        return states

    async def administer(self, method: str, *args: Any) -> None:
        """An administrator's action (close_table, remove_seat) on one of
        this tournament's tables; a table that closed meanwhile is no error."""
        try:
            await getattr(self.lobby, method).remote(*args)
        except ray.exceptions.RayError as error:
            log.warning("tournament %s: the lobby did not %s %s: %s", self.tournament_id, method, args[0], error)
