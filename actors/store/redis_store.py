"""The Redis store, for hosts on a cluster: every node reaches it.

Keys of one table (the {table_id} hash tag keeps them in one slot):

    th:{id}:header      the table's header
    th:{id}:epoch       the incarnation that may write
    th:{id}:seq         the last seq journaled
    th:{id}:journal     a stream: one entry per command, its id "<seq>-1"
    th:{id}:checkpoint  the last checkpoint
    th:tables           the set of tables not finished

A finished table's keys expire after the retention (actors/store/__init__.py).

Every append runs one Lua script that checks the epoch (the fencing token)
and that the entries continue the journal exactly (seq + 1, + 2, ...) before
it writes anything, so a stale incarnation of a room cannot append and a
append that leaves a gap is refused whole. The same batch sent again (a
retry after its reply was lost) is taken once, and so is the part of a
retry its first try wrote. A checkpoint is written by the
same script, which trims the journal up to it: the two never disagree. One
group commit is one round trip: a pipeline of one script call per table.

Durability is Redis's: run it with `appendonly yes` and `appendfsync always`
(or `everysec`, trading the last second for speed). Behind Sentinel, a
write counts once the replicas the URL asks for hold it (`redis_url.py`):
every write here ends with WAIT, and one not confirmed is reported
unavailable, to be tried again."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgpack
import redis
from redis.client import Pipeline

from tablehost.actors.store import (FINISHED_RETENTION_S, Appends, Checkpoint, Fenced, JournalEntry, StoredTable,
                                    StoreError, StoreUnavailable, TableExists, TableHeader)
from tablehost.actors.store.redis_url import connect

_TABLES = "th:tables"

# KEYS: epoch, seq, journal, checkpoint. ARGV: epoch, first seq, n, n payloads,
# then the checkpoint's payload and seq ("" when none).
_APPEND = """
local epoch = redis.call('GET', KEYS[1])
if epoch ~= ARGV[1] then
  return redis.error_reply('FENCED the table is at epoch ' .. tostring(epoch) .. ', not ' .. ARGV[1])
end
local first = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
if n > 0 and first + n - 1 <= last then
  return n  -- a retry of a batch already taken (its reply was lost): taken once
end
-- A retry whose first try was taken comes back with the table's later
-- entries behind it: only those are new. (The epoch says this incarnation
-- wrote the ones taken.)
local skip = 0
if n > 0 and first <= last then
  skip = last - first + 1
end
if n > 0 and first + skip ~= last + 1 then
  return redis.error_reply('GAP the journal is at seq ' .. last .. '; these entries start at ' .. first)
end
for i = skip, n - 1 do
  redis.call('XADD', KEYS[3], (first + i) .. '-1', 'e', ARGV[4 + i])
end
if n > 0 then
  redis.call('SET', KEYS[2], first + n - 1)
end
local checkpoint = ARGV[4 + n]
if checkpoint ~= '' then
  redis.call('SET', KEYS[4], checkpoint)
  redis.call('XTRIM', KEYS[3], 'MINID', (tonumber(ARGV[5 + n]) + 1) .. '-1')
end
return n
"""

# KEYS: header, epoch, seq, the set of tables not finished. ARGV: header, table id.
_CREATE = """
local existing = redis.call('GET', KEYS[1])
if existing == ARGV[1] then
  return 1  -- a retry of this create (not confirmed by the replicas, or its reply lost): taken once
end
if existing then
  return redis.error_reply('EXISTS the table exists already')
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], 1)
redis.call('SET', KEYS[3], 0)
redis.call('SADD', KEYS[4], ARGV[2])
return 1
"""

# KEYS: epoch, the set of tables not finished, then the table's other keys.
# ARGV: epoch, table id, seconds a finished table is kept.
_FINISH = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SREM', KEYS[2], ARGV[2])
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  for i = 3, #KEYS do
    redis.call('EXPIRE', KEYS[i], ARGV[3])
  end
  return 1
end
return 0
"""


def _key(table_id: str, part: str) -> str:
    return f"th:{{{table_id}}}:{part}"


def _pack(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


def _unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=True)


# Replies of a server that cannot take writes for now: it has no replica in
# reach (min-replicas-to-write), or it is a replica (a primary demoted by a
# failover, until the client finds the new one).
_FOR_NOW = ("NOREPLICAS", "READONLY", "MASTERDOWN", "LOADING")


def _failure(error: redis.RedisError) -> StoreError:
    """What a redis-py error means to the store's callers: a connection that
    failed, or a server that cannot take writes for now, is worth trying
    again; anything else is not."""
    if isinstance(error, (redis.ConnectionError, redis.TimeoutError)) or str(error).startswith(_FOR_NOW):
        return StoreUnavailable(f"redis: {error}")
    return StoreError(f"redis: {error}")


class RedisStore:
    def __init__(self, url: str, finished_retention_s: float = FINISHED_RETENTION_S) -> None:
        self.url = url
        self.finished_retention_s = finished_retention_s
        self._target = connect(url)
        self._redis = self._target.client
        self._create = self._redis.register_script(_CREATE)
        self._append = self._redis.register_script(_APPEND)
        self._finish = self._redis.register_script(_FINISH)

    def create(self, headers: Sequence[TableHeader]) -> dict[str, Exception]:
        """Record new tables in one pipeline (a create the replicas do not
        confirm is tried again whole: each is taken once)."""
        failed: dict[str, Exception] = {}
        try:
            with self._redis.pipeline(transaction=False) as pipe:
                for header in headers:
                    keys = [_key(header.table_id, part) for part in ("header", "epoch", "seq")] + [_TABLES]
                    self._create(keys=keys, args=[_pack(header.to_plain()), header.table_id], client=pipe)
                results = self._held(pipe)
        except redis.RedisError as error:
            raise _failure(error) from error
        for header, result in zip(headers, results):
            if isinstance(result, redis.ResponseError) and str(result).startswith("EXISTS"):
                failed[header.table_id] = TableExists(f"table {header.table_id} exists already in {self.url}")
            elif isinstance(result, redis.RedisError):
                failure = _failure(result)
                if isinstance(failure, StoreUnavailable):
                    raise failure  # tried again whole: the creates taken already are taken once
                failed[header.table_id] = failure
            elif isinstance(result, Exception):
                failed[header.table_id] = StoreError(f"redis: {result}")
        return failed

    def append(self, batch: Mapping[str, Appends]) -> dict[str, Exception]:
        failed: dict[str, Exception] = {}
        try:
            with self._redis.pipeline(transaction=False) as pipe:
                order = list(batch)
                for table_id in order:
                    appends = batch[table_id]
                    first = appends.entries[0].seq if appends.entries else 0
                    checkpoint = appends.checkpoint
                    args: list[Any] = [appends.epoch, first, len(appends.entries)]
                    args += [_pack({**e.to_plain(), "epoch": appends.epoch}) for e in appends.entries]
                    args += [_pack(checkpoint.to_plain()), checkpoint.seq] if checkpoint is not None else ["", 0]
                    self._append(keys=[_key(table_id, p) for p in ("epoch", "seq", "journal", "checkpoint")],
                                 args=args, client=pipe)
                results = self._held(pipe)
        except redis.RedisError as error:
            return {table_id: _failure(error) for table_id in batch}
        except StoreUnavailable as unconfirmed:
            return {table_id: unconfirmed for table_id in batch}
        for table_id, result in zip(order, results):
            if isinstance(result, redis.ResponseError) and str(result).startswith("FENCED"):
                failed[table_id] = Fenced(str(result))
            elif isinstance(result, redis.RedisError):
                failed[table_id] = _failure(result)
            elif isinstance(result, Exception):
                failed[table_id] = StoreError(f"redis: {result}")
        return failed

    def claim(self, table_id: str) -> StoredTable:
        return self._read(table_id, claim=True)

    def load(self, table_id: str) -> StoredTable:
        return self._read(table_id, claim=False)

    def _read(self, table_id: str, claim: bool) -> StoredTable:
        try:
            header = self._redis.get(_key(table_id, "header"))
            if header is None:
                raise StoreError(f"no table {table_id} in {self.url}")
            epoch_key = _key(table_id, "epoch")
            if claim:
                # A claim a promoted replica lacked would let the old incarnation write on.
                with self._redis.pipeline(transaction=False) as pipe:
                    pipe.incr(epoch_key)
                    (claimed,) = self._held(pipe)
                if isinstance(claimed, Exception):
                    raise claimed
                epoch = int(claimed)
            else:
                epoch = int(self._redis.get(epoch_key))
            raw_checkpoint = self._redis.get(_key(table_id, "checkpoint"))
            checkpoint = Checkpoint.from_plain(_unpack(raw_checkpoint)) if raw_checkpoint is not None else None
            after = checkpoint.seq if checkpoint is not None else 0
            records = self._redis.xrange(_key(table_id, "journal"), min=f"{after + 1}-1", max="+")
        except redis.RedisError as error:
            raise _failure(error) from error
        entries = [JournalEntry.from_plain(_unpack(fields[b"e"])) for _, fields in records]
        if [entry.seq for entry in entries] != list(range(after + 1, after + 1 + len(entries))):
            raise StoreError(f"table {table_id}'s journal has a gap or a repeat after seq {after}")
        return StoredTable(table_id, epoch, TableHeader.from_plain(_unpack(header)), checkpoint, entries)

    def finish(self, table_id: str, epoch: int, outcome: str) -> None:
        try:
            others = [_key(table_id, part) for part in ("header", "seq", "journal", "checkpoint")]
            with self._redis.pipeline(transaction=False) as pipe:
                self._finish(keys=[_key(table_id, "epoch"), _TABLES, *others],
                             args=[epoch, table_id, max(1, int(self.finished_retention_s))], client=pipe)
                (finished,) = self._held(pipe)
            if isinstance(finished, Exception):
                raise finished
        except redis.RedisError as error:
            raise _failure(error) from error

    def unfinished(self) -> list[str]:
        try:
            return sorted(member.decode() for member in self._redis.smembers(_TABLES))
        except redis.RedisError as error:
            raise _failure(error) from error

    def header(self, table_id: str) -> TableHeader:
        try:
            header = self._redis.get(_key(table_id, "header"))
        except redis.RedisError as error:
            raise _failure(error) from error
        if header is None:
            raise StoreError(f"no table {table_id} in {self.url}")
        return TableHeader.from_plain(_unpack(header))

    def _held(self, pipe: Pipeline) -> list[Any]:
        """Execute `pipe`, then wait for the replicas the URL asks for on the
        same connection (WAIT counts the writes of the connection it is sent
        on, and a pool lends another to the next call); the pipeline's
        replies, without the wait's. Raises StoreUnavailable (worth trying
        again) when the replicas do not confirm in time."""
        if self._target.replicas:
            pipe.wait(self._target.replicas, self._target.wait_ms)
        results: list[Any] = pipe.execute(raise_on_error=False)
        if self._target.replicas:
            holding = results.pop()
            if isinstance(holding, Exception) or not self._target.confirmed(holding):
                raise StoreUnavailable(self._unconfirmed(holding))
        return results

    def _unconfirmed(self, holding: object) -> str:
        return (f"redis: the write reached {holding} of the {self._target.replicas} replicas that must hold it "
                f"within {self._target.wait_ms} ms; not acknowledged")

    def forget(self, table_id: str) -> None:
        """Nothing is kept open per table."""

    def close(self) -> None:
        self._redis.close()
