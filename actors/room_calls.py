"""What the lobby and a room hand each other, as typed records (they cross
a Ray call): a table to open and the room's answer, where a room serves,
the games it reports over and the tables it closed; and who sits where at
a table a room opened (`OpenedTable`), which the store's header keeps too."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import Any

from tablehost.games.engine.fairness import TableSeed


@dataclass(frozen=True, slots=True)
class SeatRequest:
    """One player for a table: its ticket, display name, the game's checked
    join data, and the client its front door named ("" for none)."""

    ticket: str
    name: str
    join: dict[str, Any] = field(default_factory=dict)
    client: str = ""


@dataclass(frozen=True, slots=True)
class TableRequest:
    """A table for a room to open. The room seats the entrants from the
    seed's own stream, unless `keep_order` (a tournament's pairing chose
    the seats); `no_show_after_s`: seats not seen this long after opening
    are no-shows (None: the deserted-table grace judges instead)."""

    table_id: str
    game: str
    variant: str
    seed: TableSeed
    entrants: tuple[SeatRequest, ...]
    options: dict[str, Any]
    keep_order: bool = False
    no_show_after_s: float | None = None


@dataclass(frozen=True, slots=True)
class OpenedTable:
    """Who sits where at a table a room opened, and with what: the room
    answers with it, the store's header keeps it (for a lobby that restarts
    while the table moves between rooms), and the lobby's directory starts
    its TableRecord from it."""

    table_id: str
    game: str
    variant: str
    commitment: str  # the deal's commitment, published before the deal
    players: tuple[str, ...]  # display names by seat
    tickets: tuple[str, ...]  # by seat
    clients: tuple[str, ...]  # by seat: who each seat's front door said it was ("" for none)
    join: tuple[dict[str, Any], ...]  # each seat's join data, as the game checked it
    entrants: tuple[str, ...]  # tickets in arrival order (the seating's input)
    options: dict[str, Any]
    started_ms: int

    def to_plain(self) -> dict[str, Any]:
        """The form the store's header keeps (its keys and order unchanged since it was a dict)."""
        return {"table_id": self.table_id, "game": self.game, "variant": self.variant, "commitment": self.commitment,
                "players": list(self.players), "tickets": list(self.tickets), "clients": list(self.clients),
                "join": list(self.join), "entrants": list(self.entrants), "options": self.options,
                "started_ms": self.started_ms}

    @classmethod
    def from_plain(cls, plain: Mapping[str, Any]) -> OpenedTable:
        return cls(plain["table_id"], plain["game"], plain["variant"], plain["commitment"], tuple(plain["players"]),
                   tuple(plain["tickets"]), tuple(plain["clients"]), tuple(dict(data) for data in plain["join"]),
                   tuple(plain["entrants"]), dict(plain["options"]), plain["started_ms"])


@dataclass(frozen=True, slots=True)
class TableOpening:
    """A room's answer for one table it was asked to open or to resume: who
    sits where (its OpenedTable) and, for a resumed table, its seq and
    epoch; or why it is not open, and whether another room may take it
    (this one was full)."""

    table_id: str
    opened: OpenedTable | None = None
    error: str = ""
    retry: bool = False
    seq: int = 0
    epoch: int = 0


@dataclass(frozen=True, slots=True)
class RoomStarted:
    """Where a room serves (its `start`), and, for a lobby taking it back
    (its `inventory`), its capacity and every table's OpenedTable."""

    room_id: str
    endpoint: str
    metrics_endpoint: str
    node_id: str
    pid: int
    capacity: int = 0
    opened: tuple[OpenedTable, ...] = ()


@dataclass(frozen=True, slots=True)
class TableOver:
    """A game a room reports over: its result, or None when its no-shows
    ended it, and the seats that never came."""

    table_id: str
    result: dict[str, Any] | None
    no_show: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class TableClosed:
    """A table a room closed (its slot is free): how it ended, and, for one
    cancelled before its deal, the seats that never came."""

    table_id: str
    outcome: str
    absent: tuple[int, ...] = ()


class RoomUnreachable(Exception):
    """A room did not answer a call in time, or its actor failed: the
    lobby treats it as dead."""


def opened_table(request: TableRequest, seated: list[SeatRequest]) -> OpenedTable:
    """The room's record of the table it opens for `request` with `seated` in seat order."""
    return OpenedTable(
        table_id=request.table_id,
        game=request.game,
        variant=request.variant,
        commitment=request.seed.commitment,
        players=tuple(entrant.name for entrant in seated),
        tickets=tuple(entrant.ticket for entrant in seated),
        clients=tuple(entrant.client for entrant in seated),
        join=tuple(entrant.join for entrant in seated),
        entrants=tuple(entrant.ticket for entrant in request.entrants),
        options=dict(request.options),
        started_ms=time.time_ns() // 1_000_000,
    )
