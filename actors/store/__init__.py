"""Where tables are made durable: a table's header, every accepted command
(its journal) and periodic checkpoints of its state, so a room that dies
loses no accepted command and its tables resume in another room.

Two stores: a local directory (`local.py`, for a host on one machine) and
Redis (`redis_store.py`, for clusters). Both fence: each incarnation of a
table owns an epoch, claiming the table bumps it, and a write with an older
epoch is refused (`Fenced`), so a room that was only paused cannot append
after the table resumed elsewhere.

A finished table stays in the store for FINISHED_RETENTION_S (to be
inspected, `load`) and is then deleted, so the store's size follows the
tables running, not every game ever played.

Headers, entries and checkpoints are typed records, kept as their plain
form (`to_plain`) encoded with msgpack."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tablehost.actors.room_calls import OpenedTable
from tablehost.actors.versions import CodeVersions
from tablehost.games.engine.match import MatchHeader

FINISHED_RETENTION_S = 3600.0


class Fenced(Exception):
    """A newer incarnation of the table owns it: this one may not write."""


class StoreError(Exception):
    """The store could not keep what it was given (a disk or server error)."""


class StoreUnavailable(StoreError):
    """The store could not be reached (Redis restarting, a connection
    timed out): the same call may succeed if tried again."""


class TableExists(StoreError):
    """`create` of a table the store holds already (its first room recorded
    it and died before the lobby heard back)."""


@dataclass(frozen=True, slots=True)
class TableHeader:
    """What a store keeps of a table besides its journal, written once when
    the table opens: the match's header, the lobby's record of the table
    and the run (for a lobby that restarts while the table moves between
    rooms), and the code it started under."""

    table_id: str
    run_id: str
    match: MatchHeader
    opened: OpenedTable  # kept under "record"
    versions: CodeVersions | None  # None: written before versions were kept

    def to_plain(self) -> dict[str, Any]:
        plain = {"table_id": self.table_id, "run_id": self.run_id, "match": self.match.to_plain(),
                 "record": self.opened.to_plain()}
        if self.versions is not None:
            plain["versions"] = self.versions.to_plain()
        return plain

    @classmethod
    def from_plain(cls, plain: Mapping[str, Any]) -> TableHeader:
        versions = plain.get("versions")
        return cls(plain["table_id"], plain["run_id"], MatchHeader.from_plain(plain["match"]),
                   OpenedTable.from_plain(plain["record"]),
                   CodeVersions.from_plain(versions) if versions is not None else None)


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One accepted command, with what idempotency and a replay need."""

    seq: int
    act_id: str
    seat: int
    action: dict[str, Any]
    now_ms: int
    automatic: bool

    def to_plain(self) -> dict[str, Any]:
        return {"seq": self.seq, "act_id": self.act_id, "seat": self.seat, "action": self.action,
                "now_ms": self.now_ms, "automatic": self.automatic}

    @classmethod
    def from_plain(cls, plain: Mapping[str, Any]) -> JournalEntry:
        return cls(plain["seq"], plain["act_id"], plain["seat"], plain["action"], plain["now_ms"], plain["automatic"])


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A table's state after command `seq`, the act_ids accepted up to then
    (a client may resend one after a failover: it must not apply twice), and
    the commands up to then (the journal before a checkpoint is dropped, and
    a finished game's record, which players verify, needs every command)."""

    seq: int
    state: dict[str, Any]
    accepted: dict[str, int]  # "seat:act_id" -> seq
    commands: list[dict[str, Any]]  # games.engine.match.Command.to_plain(), in order

    def to_plain(self) -> dict[str, Any]:
        return {"seq": self.seq, "state": self.state, "accepted": self.accepted, "commands": self.commands}

    @classmethod
    def from_plain(cls, plain: Mapping[str, Any]) -> Checkpoint:
        return cls(plain["seq"], plain["state"], dict(plain["accepted"]), list(plain["commands"]))


@dataclass
class StoredTable:
    """What a store holds of one table: enough to resume it."""

    table_id: str
    epoch: int
    header: TableHeader
    checkpoint: Checkpoint | None
    entries: list[JournalEntry] = field(default_factory=list)  # after the checkpoint, in seq order

    @property
    def seq(self) -> int:
        if self.entries:
            return self.entries[-1].seq
        return self.checkpoint.seq if self.checkpoint is not None else 0


@dataclass(frozen=True, slots=True)
class Appends:
    """What one table adds in one group commit: entries, and maybe a
    checkpoint taken after the last of them."""

    epoch: int
    entries: Sequence[JournalEntry]
    checkpoint: Checkpoint | None = None


class TableStore(Protocol):
    """What rooms and the lobby ask of a store. Every method may block on
    I/O: rooms call them off their event loop."""

    def create(self, headers: Sequence[TableHeader]) -> dict[str, Exception]:
        """Record new tables, each at epoch 1; returns those it could not
        create, by id (TableExists, StoreError). Raises StoreUnavailable when
        the store cannot be reached: the whole batch may be tried again."""
        ...

    def append(self, batch: Mapping[str, Appends]) -> dict[str, Exception]:
        """Make every table's entries (and checkpoint) durable, in one group
        commit where the store allows; returns the tables that failed, each
        with Fenced or StoreError."""
        ...

    def claim(self, table_id: str) -> StoredTable:
        """Take the table over for a new incarnation (epoch + 1) and return
        what it needs to resume."""
        ...

    def finish(self, table_id: str, epoch: int, outcome: str) -> None:
        """The table is over (or closed): it will not be resumed."""
        ...

    def unfinished(self) -> list[str]:
        """Tables recorded and not finished (what a restarted lobby resumes)."""
        ...

    def header(self, table_id: str) -> TableHeader:
        """What the table was created with, without claiming it."""
        ...

    def load(self, table_id: str) -> StoredTable:
        """Everything held of the table, read without claiming it (what an
        operator or a test inspects; a finished table's too)."""
        ...

    def forget(self, table_id: str) -> None:
        """This process no longer writes the table: let go of what it holds open."""
        ...

    def close(self) -> None:
        ...


def open_store(url: str, finished_retention_s: float = FINISHED_RETENTION_S) -> TableStore:
    """`local:/path/to/dir` (or a bare path), `redis://host:port/db`, or
    `redis+sentinel://host:port,.../service` (see redis_url.py)."""
    from tablehost.actors.store.redis_url import SCHEMES

    if url.startswith(SCHEMES):
        from tablehost.actors.store.redis_store import RedisStore

        return RedisStore(url, finished_retention_s)
    from tablehost.actors.store.local import LocalStore

    return LocalStore(url.removeprefix("local:"), finished_retention_s)
