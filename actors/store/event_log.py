"""Durable, append-only event logs by name: what a tournament keeps so that a
restarted tournament actor rebuilds its rounds, results and standings
exactly (they are a fold of its events).

An append names the index it expects the event to take (the log's length
before it). The store refuses any other index, so a retry of an append whose
reply was lost, or a second incarnation writing the same log, cannot add an
event twice or fork the log: the caller reads the log again instead.

Two stores, chosen by the same URL as the tables' store:

- a local folder (`<root>/_logs/<name>.log`), records framed by length and
  CRC32, each append fsync'ed before it returns, a torn tail cut off on read;
- Redis, a stream per log whose entry ids are `<index>-1`, appended by one
  Lua script that checks the index first.

Events are rare next to a table's moves (one per registration, round and
result), so each append is its own sync; no group commit is needed."""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import Any, Protocol

import msgpack
import redis

from tablehost.actors.store import StoreError, StoreUnavailable
from tablehost.actors.store.files import frame, fsync_folder, read_frames
from tablehost.actors.store.redis_store import _failure
from tablehost.actors.store.redis_url import SCHEMES as REDIS_SCHEMES, connect

# A log's name becomes a file name and a Redis key: keep it to safe characters.
_NAME = re.compile(r"^[A-Za-z0-9._-]{1,128}$")


class EventConflict(StoreError):
    """The log is not at the index the append expected: another writer (or an
    earlier try of this one) got there first. Read the log again."""


class EventLog(Protocol):
    def append(self, name: str, index: int, event: dict[str, Any]) -> None:
        """Make `event` the log's entry number `index` (0-based), durably."""
        ...

    def read(self, name: str) -> list[dict[str, Any]]:
        """Every event of the log, in order ([] for a log never written)."""
        ...

    def names(self) -> list[str]:
        """Every log the store holds."""
        ...

    def close(self) -> None:
        ...


def _checked(name: str) -> str:
    if not _NAME.match(name):
        raise ValueError(f"an event log's name is 1 to 128 of A-Z a-z 0-9 . _ -, got {name!r}")
    return name


def _pack(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


def _unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=True)


class LocalEventLog:
    def __init__(self, root: str) -> None:
        self.folder = Path(root) / "_logs"
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lengths: dict[str, int] = {}
        self._lock = threading.Lock()

    def append(self, name: str, index: int, event: dict[str, Any]) -> None:
        path = self.folder / f"{_checked(name)}.log"
        with self._lock:
            length = self._lengths.get(name)
            if length is None:
                length = len(self._read(path, repair=True))
            if index != length:
                raise EventConflict(f"log {name} holds {length} events; an append expected {index}")
            created = not path.exists()
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                os.write(descriptor, frame(_pack(event)))
                os.fsync(descriptor)
            finally:
                os.close(descriptor)
            if created:
                fsync_folder(self.folder)
            self._lengths[name] = length + 1

    def read(self, name: str) -> list[dict[str, Any]]:
        with self._lock:
            events = self._read(self.folder / f"{_checked(name)}.log", repair=True)
            self._lengths[name] = len(events)
            return events

    @staticmethod
    def _read(path: Path, repair: bool) -> list[dict[str, Any]]:
        """The whole records; a tail torn by a crash is cut off so the next
        append follows the last whole event."""
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return []
        records, end = read_frames(data)
        if repair and end < len(data):
            with open(path, "r+b") as file:
                file.truncate(end)
                os.fsync(file.fileno())
        return [_unpack(record) for record in records]

    def names(self) -> list[str]:
        return sorted(path.stem for path in self.folder.glob("*.log"))

    def close(self) -> None:
        """Nothing is kept open."""


# KEYS: the stream, the length. ARGV: the expected index, the payload.
_APPEND = """
local length = tonumber(redis.call('GET', KEYS[2]) or '0')
if length == tonumber(ARGV[1]) + 1 then
  -- A retry of the last append (its reply lost, or not yet on the replicas): taken once.
  local last = redis.call('XRANGE', KEYS[1], length .. '-1', length .. '-1')
  if last[1] and last[1][2][2] == ARGV[2] then
    return length
  end
end
if length ~= tonumber(ARGV[1]) then
  return redis.error_reply('CONFLICT the log holds ' .. length .. ' events')
end
redis.call('XADD', KEYS[1], (length + 1) .. '-1', 'e', ARGV[2])
redis.call('SET', KEYS[2], length + 1)
redis.call('SADD', KEYS[3], ARGV[3])
return length + 1
"""
_LOGS = "th:logs"


def _key(name: str, part: str) -> str:
    return f"th:log:{{{name}}}:{part}"


class RedisEventLog:
    def __init__(self, url: str) -> None:
        self.url = url
        self._target = connect(url)
        self._redis = self._target.client
        self._append = self._redis.register_script(_APPEND)

    def append(self, name: str, index: int, event: dict[str, Any]) -> None:
        keys = [_key(_checked(name), "events"), _key(name, "length"), _LOGS]
        try:
            self._append(keys=keys, args=[index, _pack(event), name])
            if self._target.replicas:
                holding = self._redis.wait(self._target.replicas, self._target.wait_ms)
                if not self._target.confirmed(holding):
                    # Not acknowledged: the caller reads the log again, and finds the event there or not.
                    raise StoreUnavailable(f"redis: the event reached {holding} of {self._target.replicas} replicas")
        except redis.ResponseError as error:
            if str(error).startswith("CONFLICT"):
                raise EventConflict(f"log {name}: {error}; an append expected {index}") from None
            raise StoreError(f"redis: {error}") from error
        except redis.RedisError as error:
            raise _failure(error) from error

    def read(self, name: str) -> list[dict[str, Any]]:
        try:
            records = self._redis.xrange(_key(_checked(name), "events"), min="-", max="+")
        except redis.RedisError as error:
            raise _failure(error) from error
        return [_unpack(fields[b"e"]) for _, fields in records]

    def names(self) -> list[str]:
        try:
            return sorted(member.decode() for member in self._redis.smembers(_LOGS))
        except redis.RedisError as error:
            raise _failure(error) from error

    def close(self) -> None:
        self._redis.close()


def open_event_log(url: str) -> EventLog:
    """The event logs beside a tables' store of the same URL."""
    if url.startswith(REDIS_SCHEMES):
        return RedisEventLog(url)
    return LocalEventLog(url.removeprefix("local:"))
