"""The Redis store behind Sentinel (real redis-servers and a real sentinel on
127.0.0.1): a write is acknowledged only once a replica holds it, a write
the replica cannot confirm is reported worth retrying and is then taken
once, and when the primary is killed the store follows the replica Sentinel
promotes with every acknowledged entry there."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from opened_tables import opened
from redis_replicated import LoopbackGroup, wait
from tablehost.actors.store import Appends, JournalEntry, StoreUnavailable, TableHeader
from tablehost.actors.store.redis_store import RedisStore
from tablehost.actors.store.redis_url import BadStoreUrl, connect
from tablehost.actors.versions import CodeVersions
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import MatchHeader


def header(table_id: str) -> TableHeader:
    match = MatchHeader("bigtwo", TableSeed.numbered(7), ("a", "b", "c", "d"), ({},) * 4, {}, 0, None)
    return TableHeader(table_id, "run", match, opened(table_id), CodeVersions("test", 1))


def entry(seq: int) -> JournalEntry:
    return JournalEntry(seq, f"a{seq}", seq % 4, {"type": "pass"}, 1_000 + seq, False)


@pytest.fixture
def group(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[LoopbackGroup]:
    # Two replicas where a failover is tried: the promoted one needs another to confirm its writes.
    started = LoopbackGroup(tmp_path, replicas=getattr(request, "param", 1))
    try:
        yield started.start()
    finally:
        started.stop()


def journal_on(group: LoopbackGroup, port: int, table_id: str) -> list[bytes]:
    with group.client(port) as client:
        return [entry_id for entry_id, _ in client.xrange(f"th:{{{table_id}}}:journal")]


def test_an_acknowledged_append_is_on_the_replica_when_it_returns(group: LoopbackGroup) -> None:
    store = RedisStore(group.url)
    store.create([header("t1")])
    assert store.append({"t1": Appends(1, [entry(1), entry(2)])}) == {}
    replica = next(port for port in group.servers if port != group.primary_port)
    # No waiting here: WAIT returned only once the replica had both entries.
    assert journal_on(group, replica, "t1") == [b"1-1", b"2-1"]
    store.close()


def test_a_write_the_replica_cannot_confirm_is_not_acknowledged_and_its_retry_is_taken_once(group: LoopbackGroup) -> None:
    RedisStore(group.url).create([header("t2")])
    store = RedisStore(group.url.replace("wait_ms=1000", "wait_ms=200"))
    replica = next(port for port in group.servers if port != group.primary_port)
    group.pause(replica)
    try:
        failed = store.append({"t2": Appends(1, [entry(1)])})
    finally:
        group.resume(replica)
    assert isinstance(failed["t2"], StoreUnavailable) and "0 of the 1 replicas" in str(failed["t2"])
    # The journal tries again with what the table submitted since behind it.
    assert store.append({"t2": Appends(1, [entry(1), entry(2)])}) == {}
    assert [e.seq for e in store.load("t2").entries] == [1, 2]
    store.close()


def test_a_create_the_replica_cannot_confirm_is_reported_worth_retrying_and_its_retry_is_taken_once(
        group: LoopbackGroup) -> None:
    store = RedisStore(group.url.replace("wait_ms=1000", "wait_ms=200"))
    replica = next(port for port in group.servers if port != group.primary_port)
    group.pause(replica)
    try:
        with pytest.raises(StoreUnavailable, match="0 of the 1 replicas"):
            store.create([header("t4"), header("t5")])
    finally:
        group.resume(replica)

    def created() -> bool:  # tried again as the room does, until the resumed replica has caught up
        try:
            return store.create([header("t4"), header("t5")]) == {}
        except StoreUnavailable:
            return False

    wait(created, 10, "the create to be confirmed once the replica is back")
    assert store.header("t5") == header("t5") and {"t4", "t5"} <= set(store.unfinished())
    store.close()


@pytest.mark.parametrize("group", [2], indirect=True)
def test_the_store_follows_the_promoted_replica_and_nothing_acknowledged_is_lost(group: LoopbackGroup) -> None:
    group.wait_until_sentinel_knows_replicas()
    store = RedisStore(group.url)
    store.create([header("t3")])
    acknowledged = 0
    for seq in range(1, 21):
        assert store.append({"t3": Appends(1, [entry(seq)])}) == {}
        acknowledged = seq
    old_primary = group.primary_port
    group.kill(old_primary)
    killed_at = time.monotonic()
    seq = acknowledged + 1
    while seq <= acknowledged + 10:  # the journal's loop: try again while the store is unavailable
        failed = store.append({"t3": Appends(1, [entry(seq)])})
        if not failed:
            seq += 1
            continue
        assert isinstance(failed["t3"], StoreUnavailable), failed
        assert time.monotonic() - killed_at < 30, f"no primary within 30 s: {failed['t3']}"
        time.sleep(0.1)  # a retry's backoff, as the journal's
    wait(lambda: group.primary_named() != old_primary, 10, "the sentinel to name the new primary")
    assert [e.seq for e in store.load("t3").entries] == list(range(1, 31))
    assert journal_on(group, group.primary_named(), "t3")[:20] == [f"{n}-1".encode() for n in range(1, 21)]
    store.close()


@pytest.mark.parametrize(("url", "says"), [
    ("redis+sentinel://127.0.0.1:26379", "the path is /SERVICE"),
    ("redis+sentinel://127.0.0.1/tablehost", "sentinels are HOST:PORT"),
    ("redis+sentinel://127.0.0.1:26379/tablehost?replicas=one", "replicas takes one whole number"),
    ("redis://127.0.0.1:6379/0?wait_ms=0", "wait_ms must be at least 1"),
])
def test_a_bad_store_url_says_what_is_wrong(url: str, says: str) -> None:
    with pytest.raises(BadStoreUrl, match=says):
        connect(url)


def test_replicas_default_to_one_behind_sentinel_and_none_for_one_server() -> None:
    assert connect("redis+sentinel://127.0.0.1:26379,127.0.0.1:26380/tablehost").replicas == 1
    assert connect("redis://127.0.0.1:6379/0").replicas == 0
    assert connect("redis://127.0.0.1:6379/0?replicas=2&wait_ms=50").wait_ms == 50
