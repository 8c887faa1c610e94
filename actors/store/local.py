"""The local-directory store: one folder per table, for a host on one machine.

    <root>/<table_id>/header        the table's header (written once)
    <root>/<table_id>/epoch         the incarnation that may write
    <root>/<table_id>/lock          flock'ed around every write and claim
    <root>/<table_id>/checkpoint    the last checkpoint
    <root>/<table_id>/log-<seq>     journal segments, named by their first seq
    <root>/<table_id>/finished      present once the table is over

Whole files (header, epoch, checkpoint, finished) are written crash-safe:
to a temporary file, fsync'ed, renamed over the old one, and the folder
fsync'ed. Journal segments are append-only records framed by their length
and CRC32, so a record torn by a crash is found and cut off when the table
is claimed. A checkpoint starts a new segment and deletes the older ones.
One group commit costs one disk sync for all its tables (`sync_all`).

Fencing: every append and every claim holds the table's flock and reads
its epoch under it, so a room whose incarnation was superseded (it was
paused while the table resumed elsewhere) cannot append after the claim.
flock is only sound on one machine's file system: clusters use Redis."""

from __future__ import annotations

import fcntl
import os
import shutil
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import msgpack

from tablehost.actors import crash_points
from tablehost.actors.store import (FINISHED_RETENTION_S, Appends, Checkpoint, Fenced, JournalEntry, StoredTable,
                                    StoreError, TableExists, TableHeader)
from tablehost.actors.store.files import frame, fsync_folder, read_frames, sync_all, sync_paths, write_atomically

_SEGMENT = "log-"


def _pack(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


def _unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=True)


class _OpenTable:
    """A table this process writes: its lock and current segment, kept open."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.lock = os.open(folder / "lock", os.O_RDWR | os.O_CREAT, 0o644)
        self.segment: int | None = None
        self.segment_first_seq = 0
        self.last_seq: int | None = None  # the last seq journaled; None until read or written

    def open_segment(self, first_seq: int, sync_folder: bool = True) -> None:
        """Open (creating it if need be) the segment from `first_seq`; a new
        one's folder entry is made durable unless the caller syncs it."""
        self.close_segment()
        path = self.folder / f"{_SEGMENT}{first_seq:012d}"
        created = not path.exists()
        self.segment = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.segment_first_seq = first_seq
        if created and sync_folder:
            fsync_folder(self.folder)

    def close_segment(self) -> None:
        if self.segment is not None:
            os.close(self.segment)
            self.segment = None

    def close(self) -> None:
        self.close_segment()
        os.close(self.lock)


class LocalStore:
    def __init__(self, root: str, finished_retention_s: float = FINISHED_RETENTION_S) -> None:
        self.root = Path(root)
        self.finished_retention_s = finished_retention_s
        self._next_sweep = 0.0
        self.root.mkdir(parents=True, exist_ok=True)
        self._open: dict[str, _OpenTable] = {}
        self.syncs = 0  # disk syncs the journal's appends cost
        self.entries = 0  # entries those appends carried
        # Rooms call the store from worker threads (the journal's writes, a
        # table's creation, its finish): the open files are shared.
        self._open_lock = threading.Lock()

    # -- the table's life ---------------------------------------------------------

    def create(self, headers: Sequence[TableHeader]) -> dict[str, Exception]:
        """Record new tables, with two syncs for the whole batch (a room
        opens tables in batches): their epoch and header written to
        temporary files and synced; then renamed into place (the header
        last: a folder without one is a create a crash cut short, and is
        finished here) with their first journal segments created, and synced."""
        failed: dict[str, Exception] = {}
        written: list[Path] = []
        for header in headers:
            try:
                folder = self._folder(header.table_id)
                folder.mkdir(parents=True, exist_ok=True)
                if (folder / "header").exists():
                    raise TableExists(f"table {header.table_id} exists already in {self.root}")
                (folder / ".epoch.tmp").write_bytes(b"1")
                (folder / ".header.tmp").write_bytes(_pack(header.to_plain()))
                written.append(folder)
            except StoreError as error:
                failed[header.table_id] = error
            except OSError as error:
                failed[header.table_id] = StoreError(str(error))
        try:
            sync_paths([self.root, *(folder / name for folder in written for name in (".epoch.tmp", ".header.tmp"))])
            for folder in written:
                os.replace(folder / ".epoch.tmp", folder / "epoch")
                os.replace(folder / ".header.tmp", folder / "header")
                table = self._table(folder.name)
                table.open_segment(1, sync_folder=False)
                table.last_seq = 0
            sync_paths(written)
        except OSError as error:
            for folder in written:
                failed[folder.name] = StoreError(str(error))
                self.forget(folder.name)
        return failed

    def append(self, batch: Mapping[str, Appends]) -> dict[str, Exception]:
        """Group commit: every table's records are written under its lock,
        then each written segment is fsync'ed once, then the locks go."""
        failed: dict[str, Exception] = {}
        locked: list[_OpenTable] = []
        written: list[_OpenTable] = []
        try:
            for table_id in sorted(batch):  # one lock order: no two writers deadlock
                appends = batch[table_id]
                try:
                    table = self._table(table_id)
                    fcntl.flock(table.lock, fcntl.LOCK_EX)
                    locked.append(table)
                    epoch = self._epoch(table_id)
                    if epoch != appends.epoch:
                        raise Fenced(f"table {table_id} is at epoch {epoch}, not {appends.epoch}")
                    if table.last_seq is None:
                        table.last_seq = self._load(table_id, epoch).seq
                    if appends.entries and appends.entries[-1].seq <= table.last_seq:
                        # A retry of a batch already written (its sync failed): sync it, once.
                        if table.segment is not None:
                            written.append(table)
                        continue
                    # A retry whose first try was written comes back with the table's later entries
                    # behind it: only those are new (the epoch says this incarnation wrote the rest).
                    entries = [entry for entry in appends.entries if entry.seq > table.last_seq]
                    if entries and entries[0].seq != table.last_seq + 1:
                        raise StoreError(f"table {table_id}'s journal is at seq {table.last_seq}; "
                                         f"these entries start at {entries[0].seq}")
                    if table.segment is None:
                        table.open_segment(table.last_seq + 1)
                    assert table.segment is not None
                    if entries:
                        records = b"".join(frame(_pack({**e.to_plain(), "epoch": epoch})) for e in entries)
                        os.write(table.segment, records)
                        table.last_seq = entries[-1].seq
                        written.append(table)
                    if appends.checkpoint is not None:
                        self._checkpoint(table, appends.checkpoint, written)
                except (Fenced, StoreError) as error:
                    failed[table_id] = error
                except OSError as error:
                    failed[table_id] = StoreError(str(error))
            self.syncs += sync_all([table.segment for table in written if table.segment is not None])
            self.entries += sum(len(appends.entries) for appends in batch.values())
        except OSError as error:
            for table_id in batch:
                failed.setdefault(table_id, StoreError(str(error)))
        finally:
            for table in locked:
                fcntl.flock(table.lock, fcntl.LOCK_UN)
        return failed

    def _checkpoint(self, table: _OpenTable, checkpoint: Checkpoint, written: list[_OpenTable]) -> None:
        """Make the segment durable, write the checkpoint, then start a new
        segment after it and delete the ones it covers."""
        if table.segment is not None:
            os.fsync(table.segment)
        write_atomically(table.folder / "checkpoint", _pack(checkpoint.to_plain()))
        crash_points.reached(crash_points.MID_CHECKPOINT)
        table.open_segment(checkpoint.seq + 1)
        for path in table.folder.glob(f"{_SEGMENT}*"):
            if int(path.name.removeprefix(_SEGMENT)) < table.segment_first_seq:
                path.unlink()
        if table in written:
            written.remove(table)

    def claim(self, table_id: str) -> StoredTable:
        folder = self._folder(table_id)
        if not (folder / "header").exists():
            raise StoreError(f"no table {table_id} in {self.root}")
        table = self._table(table_id)
        fcntl.flock(table.lock, fcntl.LOCK_EX)
        try:
            epoch = self._epoch(table_id) + 1
            write_atomically(folder / "epoch", str(epoch).encode())
            stored = self._load(table_id, epoch)
            table.open_segment(stored.seq + 1)
            table.last_seq = stored.seq
            return stored
        finally:
            fcntl.flock(table.lock, fcntl.LOCK_UN)

    def finish(self, table_id: str, epoch: int, outcome: str) -> None:
        table = self._table(table_id)
        fcntl.flock(table.lock, fcntl.LOCK_EX)
        try:
            if self._epoch(table_id) == epoch:
                write_atomically(table.folder / "finished", outcome.encode())
        finally:
            fcntl.flock(table.lock, fcntl.LOCK_UN)
        self.forget(table_id)
        self._sweep()

    def _sweep(self) -> None:
        """Delete the tables finished longer ago than the retention; at most
        once per tenth of it (a listing of the folder)."""
        now = time.time()
        if now < self._next_sweep:
            return
        self._next_sweep = now + self.finished_retention_s / 10
        for folder in self.root.iterdir():
            try:
                if now - (folder / "finished").stat().st_mtime >= self.finished_retention_s:
                    shutil.rmtree(folder, ignore_errors=True)
            except FileNotFoundError:
                continue

    def unfinished(self) -> list[str]:
        return sorted(p.name for p in self.root.iterdir() if (p / "header").exists() and not (p / "finished").exists())

    def header(self, table_id: str) -> TableHeader:
        path = self._folder(table_id) / "header"
        try:
            return TableHeader.from_plain(_unpack(path.read_bytes()))
        except FileNotFoundError:
            raise StoreError(f"no table {table_id} in {self.root}") from None

    def forget(self, table_id: str) -> None:
        """Close this process's files of a table it no longer writes."""
        with self._open_lock:
            table = self._open.pop(table_id, None)
        if table is not None:
            table.close()

    def close(self) -> None:
        for table_id in list(self._open):
            self.forget(table_id)

    # -- reading ------------------------------------------------------------------

    def load(self, table_id: str) -> StoredTable:
        if not (self._folder(table_id) / "header").exists():
            raise StoreError(f"no table {table_id} in {self.root}")
        return self._load(table_id, self._epoch(table_id), repair=False)

    def _load(self, table_id: str, epoch: int, repair: bool = True) -> StoredTable:
        """Header, checkpoint and the journal after it; a torn record at the
        end of the last segment is cut off (it was never acknowledged) when
        `repair`, and left unread otherwise."""
        folder = self._folder(table_id)
        header = TableHeader.from_plain(_unpack((folder / "header").read_bytes()))
        checkpoint_path = folder / "checkpoint"
        checkpoint = Checkpoint.from_plain(_unpack(checkpoint_path.read_bytes())) if checkpoint_path.exists() else None
        after = checkpoint.seq if checkpoint is not None else 0
        entries: list[JournalEntry] = []
        for path in sorted(folder.glob(f"{_SEGMENT}*")):
            data = path.read_bytes()
            records, good = read_frames(data)
            if good < len(data) and repair:
                with open(path, "r+b") as file:
                    file.truncate(good)
                    os.fsync(file.fileno())
            for record in records:
                entry = JournalEntry.from_plain(_unpack(record))
                if entry.seq > after:
                    entries.append(entry)
        entries.sort(key=lambda entry: entry.seq)
        if [entry.seq for entry in entries] != list(range(after + 1, after + 1 + len(entries))):
            raise StoreError(f"table {table_id}'s journal has a gap or a repeat after seq {after}")
        return StoredTable(table_id, epoch, header, checkpoint, entries)

    def _epoch(self, table_id: str) -> int:
        return int((self._folder(table_id) / "epoch").read_bytes())

    def _folder(self, table_id: str) -> Path:
        if not table_id or "/" in table_id or table_id.startswith("."):
            raise StoreError(f"not a table id: {table_id!r}")
        return self.root / table_id

    def _table(self, table_id: str) -> _OpenTable:
        with self._open_lock:
            table = self._open.get(table_id)
            if table is None:
                table = self._open[table_id] = _OpenTable(self._folder(table_id))
            return table
