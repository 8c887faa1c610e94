"""What a tournament and the lobby trade about the tables the tournament
seats itself (LobbyActor.place_tables), as typed records, and the tables a
restarted lobby finds between rooms in the store."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tablehost.actors.config import LobbyConfig
from tablehost.actors.store import StoreError, open_store
from tablehost.actors.table_directory import TableDirectory, TableRecord
from tablehost.actors.table_results import TableState, table_state
from tablehost.games.engine.fairness import TableSeed

log = logging.getLogger("tablehost.lobby")


@dataclass(frozen=True, slots=True)
class TournamentTable:
    """A table a tournament seated itself: its players in seat order (the
    pairing balanced the seats), each a display name and join data; seats
    not seen `no_show_after_s` after it opens are no-shows."""

    table_id: str
    game: str
    seed: TableSeed
    players: tuple[tuple[str, dict[str, Any]], ...]
    options: dict[str, Any] = field(default_factory=dict)
    variant: str = ""
    no_show_after_s: float | None = None


@dataclass(frozen=True, slots=True)
class PlacedTable:
    """Where a tournament's table runs, and each seat's token."""

    table_id: str
    endpoint: str
    game: str
    display_names: tuple[str, ...]
    deal_commitment: str
    seat_tokens: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PlacingRefused:
    """A tournament's table that could not be opened, and why."""

    table_id: str
    error: str


# What a tournament is told of each table it asked for: where it runs; how
# it stands, if it was settled before this ask (a restarted tournament);
# or why it could not be opened.
Placing = PlacedTable | TableState | PlacingRefused


def placed_table(record: TableRecord, token: Callable[[str, int], str]) -> PlacedTable | TableState:
    """A running table's endpoint and seat tokens; a settled one's state
    (as `table_results` gives it)."""
    state = table_state(record)
    if state.state != "running":
        return state
    return PlacedTable(record.table_id, record.endpoint, record.game, tuple(record.players), record.commitment,
                       tuple(token(record.table_id, seat) for seat in range(len(record.players))))


def tables_between_rooms(config: LobbyConfig, directory: TableDirectory) -> list[TableRecord]:
    """Tables of this run the store holds unfinished that no room holds
    (none when the host keeps no store, or the store cannot list them)."""
    if config.room.store is None:
        return []
    found = []
    store = open_store(config.room.store)
    try:
        for table_id in store.unfinished():
            if directory.running(table_id) is not None:
                continue
            header = store.header(table_id)
            if header.run_id != config.room.run_id:
                continue  # an earlier run's: its players' tokens are refused anyway
            found.append(TableRecord.opened(header.opened, "", ""))
    except StoreError as error:
        log.error("the store could not list the tables to resume: %s", error)
    finally:
        store.close()
    return found
