"""What an administrator does to running tables, for the lobby: list them,
close one, take a seat from its player, decide a table's result. The lobby
owns the records and the rooms; this finds the table's room and asks it.

A removed seat and an adjudicated result are kept in the table's record:
a table resumed in another room has its removed seats taken again, and a
tournament asking for the table's result gets the places decided."""

from __future__ import annotations

import asyncio
import builtins
from dataclasses import dataclass
from typing import Any, Callable

import ray

from tablehost.actors.matchmaking import LobbyRefused, Refusal
from tablehost.actors.placement import Placement
from tablehost.actors.table_directory import TableDirectory, TableRecord
from tablehost.actors.tournament.records import tournament_of_table

DEFAULT_LISTED = 100
MAX_LISTED = 1_000
# How long a room has to carry out an administrator's action.
ROOM_ACTION_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class TableSummary:
    table_id: str
    game: str
    variant: str
    room_id: str
    players: tuple[str, ...]
    started_ms: int
    resuming: bool
    tournament_id: str


@dataclass(frozen=True, slots=True)
class TableListing:
    tables: tuple[TableSummary, ...]
    total: int


def removal_details(reason: str) -> str:
    return f"an administrator removed this seat's player from the table: {reason}"


def closing_details(reason: str) -> str:
    return f"an administrator closed the table: {reason}"


class TableAdmin:
    def __init__(self, directory: TableDirectory, placement: Placement, results_changed: Callable[[], None]) -> None:
        self._directory = directory
        self._placement = placement
        self._results_changed = results_changed

    def list(self, game: str, limit: int) -> TableListing:
        limit = min(limit or DEFAULT_LISTED, MAX_LISTED)
        matching = [record for record in self._directory.running_records() if not game or record.game == game]
        matching.sort(key=lambda record: (record.started_ms, record.table_id))
        return TableListing(tuple(_summary(record) for record in matching[:limit]), len(matching))

    async def close(self, table_id: str, reason: str) -> str:
        record = self._running(table_id)
        await self._ask_room(record, "close_table", table_id, closing_details(reason))
        return f"table {table_id} closed; its players were told why"

    async def remove_seat(self, table_id: str, seat: int, reason: str) -> str:
        record = self._running(table_id)
        if not 0 <= seat < len(record.players):
            raise LobbyRefused(Refusal.INVALID_ARGUMENT,
                               f"table {table_id} has seats 0-{len(record.players) - 1}, not {seat}")
        record.removed[seat] = removal_details(reason)
        await self._ask_room(record, "remove_seat", table_id, seat, record.removed[seat])
        return f"seat {seat} of table {table_id} ({record.players[seat]}) removed; the timer plays its turns"

    async def adjudicate(self, table_id: str, places: builtins.list[int], reason: str) -> str:
        record = self._running(table_id)
        seats = len(record.players)
        if len(places) != seats or not all(0 <= place < seats for place in places):
            raise LobbyRefused(Refusal.INVALID_ARGUMENT,
                               f"table {table_id} needs {seats} places, one per seat, each 0 (first) to {seats - 1}; "
                               f"got {places}")
        if record.result is not None:
            raise LobbyRefused(Refusal.FAILED_PRECONDITION,
                               f"table {table_id}'s game is over with a result already; nothing to adjudicate")
        record.adjudicated = list(places)
        self._results_changed()
        await self._ask_room(record, "close_table", table_id,
                             f"an administrator decided the table's result (places {places}): {reason}")
        return f"table {table_id} adjudicated: places {places}"

    def resumed(self, table_id: str, room_handle: Any) -> None:
        """A table resumed in another room: take its removed seats again."""
        record = self._directory.get(table_id)
        for seat, details in (record.removed if record is not None else {}).items():
            room_handle.remove_seat.remote(table_id, seat, details)

    def _running(self, table_id: str) -> TableRecord:
        record = self._directory.running(table_id)
        if record is None:
            raise LobbyRefused(Refusal.NOT_FOUND, f"no table {table_id!r} is running")
        if record.resuming:
            raise LobbyRefused(Refusal.UNAVAILABLE,
                               f"table {table_id} is moving between rooms; try again in a few seconds")
        return record

    async def _ask_room(self, record: TableRecord, method: str, *args: Any) -> None:
        room = self._placement.rooms.get(record.room_id)
        if room is None or room.handle is None:
            raise LobbyRefused(Refusal.UNAVAILABLE, f"table {record.table_id}'s room is not reachable; try again")
        try:
            held = await asyncio.wait_for(getattr(room.handle, method).remote(*args), ROOM_ACTION_TIMEOUT_S)
        except (ray.exceptions.RayError, TimeoutError) as error:
            raise LobbyRefused(Refusal.UNAVAILABLE, f"table {record.table_id}'s room did not answer "
                                                    f"({type(error).__name__}); try again") from None
        if not held:
            raise LobbyRefused(Refusal.NOT_FOUND, f"table {record.table_id} closed meanwhile")


def _summary(record: TableRecord) -> TableSummary:
    return TableSummary(record.table_id, record.game, record.variant, record.room_id, tuple(record.players),
                        record.started_ms, record.resuming, tournament_of_table(record.table_id))
