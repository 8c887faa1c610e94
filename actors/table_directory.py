"""The lobby's record of tables: where each running table is served (for
LookupTable and Spectate) and what it was started with (the commitment to
its secret seed, seats, entrants: what explains its seating once the seed
is revealed). Lookups are by key; a finished
table's record is kept for a retention period and then forgotten, so the
lobby's memory follows the tables running, not every table ever played."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from tablehost.actors.room_calls import OpenedTable


@dataclass(eq=False)
class TableRecord:
    table_id: str
    game: str
    variant: str
    commitment: str
    room_id: str
    endpoint: str
    players: list[str]  # display names by seat
    tickets: list[str]  # by seat
    clients: list[str]  # by seat: who each seat's front door said it was ("" for none)
    join: list[dict[str, Any]]  # each seat's join data, as the game checked it
    entrants: list[str]  # tickets in arrival order (the seating's input)
    options: dict[str, Any]
    started_ms: int
    outcome: str | None = None  # None while running; finished, closed, failed, room lost
    finished_at: float | None = field(default=None, repr=False)
    # True between its room's death and its resumption in another room.
    resuming: bool = False
    # The game's result, once its room reported the game over.
    result: dict[str, Any] | None = field(default=None, repr=False)
    # Its seats that never showed up, once its room reported the game over
    # (with a result) or ended by its no-shows (without one).
    no_show: list[int] | None = field(default=None, repr=False)
    # Seats an administrator took from their players, with what they were told.
    removed: dict[int, str] = field(default_factory=dict, repr=False)
    # The places an administrator decided for its seats (0 = first), if any.
    adjudicated: list[int] | None = field(default=None, repr=False)

    @classmethod
    def opened(cls, opened: OpenedTable, room_id: str, endpoint: str) -> TableRecord:
        """The directory's record of a table a room opened, served at `endpoint`."""
        return cls(
            table_id=opened.table_id, game=opened.game, variant=opened.variant, commitment=opened.commitment,
            room_id=room_id, endpoint=endpoint, players=list(opened.players), tickets=list(opened.tickets),
            clients=list(opened.clients), join=[dict(data) for data in opened.join], entrants=list(opened.entrants),
            options=dict(opened.options), started_ms=opened.started_ms,
        )

    @property
    def running(self) -> bool:
        return self.outcome is None


@dataclass(frozen=True, slots=True)
class TableDescription:
    """What a front door needs of a running table to answer LookupTable and
    Spectate (and the console to watch it), as the lobby sends it over Ray."""

    table_id: str
    endpoint: str  # empty while it moves between rooms
    resuming: bool
    game: str
    players: tuple[str, ...]
    commitment: str
    spectator_token: str


class TableDirectory:
    def __init__(self, retention_s: float) -> None:
        self.retention_s = retention_s
        self._records: dict[str, TableRecord] = {}
        self._by_room: dict[str, set[str]] = {}
        self._finished: deque[tuple[float, str]] = deque()
        self.started = 0

    def add(self, record: TableRecord) -> None:
        self._records[record.table_id] = record
        self._by_room.setdefault(record.room_id, set()).add(record.table_id)
        self.started += 1

    def get(self, table_id: str) -> TableRecord | None:
        return self._records.get(table_id)

    def running(self, table_id: str) -> TableRecord | None:
        record = self._records.get(table_id)
        return record if record is not None and record.running else None

    def running_records(self) -> list[TableRecord]:
        return [self._records[table_id] for tables in self._by_room.values() for table_id in tables]

    @property
    def running_count(self) -> int:
        return sum(len(tables) for tables in self._by_room.values())

    @property
    def retained_count(self) -> int:
        return len(self._records)

    def finish(self, table_id: str, outcome: str, now: float) -> TableRecord | None:
        """The table closed; keep its record for the retention period."""
        record = self._records.get(table_id)
        if record is None or not record.running:
            return None
        record.outcome, record.finished_at = outcome, now
        room_tables = self._by_room.get(record.room_id)
        if room_tables is not None:
            room_tables.discard(table_id)
            if not room_tables:
                del self._by_room[record.room_id]
        self._finished.append((now, table_id))
        return record

    def tables_in(self, room_id: str) -> list[str]:
        return sorted(self._by_room.get(room_id, ()))

    def move(self, table_id: str, room_id: str, endpoint: str) -> None:
        """The table resumed in another room."""
        record = self._records[table_id]
        old = self._by_room.get(record.room_id)
        if old is not None:
            old.discard(table_id)
            if not old:
                del self._by_room[record.room_id]
        record.room_id, record.endpoint, record.resuming = room_id, endpoint, False
        self._by_room.setdefault(room_id, set()).add(table_id)

    def lose_room(self, room_id: str, now: float) -> list[str]:
        """A room died: its tables are no longer served anywhere."""
        lost = sorted(self._by_room.get(room_id, ()))
        for table_id in lost:
            self.finish(table_id, "room lost", now)
        return lost

    def expire(self, now: float) -> int:
        """Forget finished tables older than the retention period."""
        forgotten = 0
        while self._finished and now - self._finished[0][0] >= self.retention_s:
            _, table_id = self._finished.popleft()
            if self._records.pop(table_id, None) is not None:
                forgotten += 1
        return forgotten
