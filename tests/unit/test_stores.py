"""The stores that make tables durable, held to one contract: the local
directory and Redis (a real redis-server the tests start). What is appended
is what a claim returns, after the last checkpoint, in order; a claim fences
every older incarnation; a gap or a repeat is refused whole. The local store
also cuts a torn journal record off."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablehost.actors.journal import through_outage
from tablehost.actors.store import (Appends, Checkpoint, Fenced, JournalEntry, StoreError, StoreUnavailable, TableExists,
                                    TableHeader, TableStore)
from tablehost.actors.store.files import frame, read_frames
from tablehost.actors.store.local import LocalStore
from tablehost.actors.store.redis_store import RedisStore
from tablehost.actors.versions import CodeVersions
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import MatchHeader
from opened_tables import opened

_ids = itertools.count()


def header(table_id: str, run_id: str = "run") -> TableHeader:
    match = MatchHeader("bigtwo", TableSeed.numbered(7), ("a", "b", "c", "d"), ({},) * 4, {}, 0, None)
    return TableHeader(table_id, run_id, match, opened(table_id), CodeVersions("test", 1))


def entry(seq: int, act_id: str = "") -> JournalEntry:
    return JournalEntry(seq, act_id or f"a{seq}", seq % 4, {"type": "pass"}, 1_000 + seq, False)


def entries(first: int, last: int) -> list[JournalEntry]:
    return [entry(seq) for seq in range(first, last + 1)]


@pytest.fixture(params=["local", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TableStore]:
    if request.param == "local":
        opened: TableStore = LocalStore(str(tmp_path / "store"))
    else:
        opened = RedisStore(request.getfixturevalue("redis_server").url)
    yield opened
    opened.close()


def new_table(store: TableStore) -> str:
    table_id = f"table-{next(_ids)}"
    assert store.create([header(table_id)]) == {}
    return table_id


def test_what_is_appended_is_what_a_claim_returns_in_order(store: TableStore) -> None:
    table_id = new_table(store)
    assert store.append({table_id: Appends(1, entries(1, 3))}) == {}
    assert store.append({table_id: Appends(1, entries(4, 5))}) == {}
    stored = store.claim(table_id)
    assert stored.epoch == 2 and stored.header.table_id == table_id and stored.checkpoint is None
    assert stored.entries == entries(1, 5) and stored.seq == 5


def test_a_claim_fences_the_older_incarnation_and_the_new_one_goes_on(store: TableStore) -> None:
    table_id = new_table(store)
    store.append({table_id: Appends(1, entries(1, 2))})
    assert store.claim(table_id).epoch == 2
    refused = store.append({table_id: Appends(1, entries(3, 3))})
    assert isinstance(refused[table_id], Fenced)
    assert store.append({table_id: Appends(2, entries(3, 3))}) == {}
    assert store.claim(table_id).entries == entries(1, 3)


def test_a_gap_is_refused_whole(store: TableStore) -> None:
    table_id = new_table(store)
    store.append({table_id: Appends(1, entries(1, 2))})
    assert isinstance(store.append({table_id: Appends(1, entries(4, 5))})[table_id], StoreError)
    assert store.claim(table_id).entries == entries(1, 2)


def test_a_retry_with_later_entries_behind_it_adds_only_the_later_ones(store: TableStore) -> None:
    # The journal retries a batch whose reply was lost (or that the replicas did not confirm) together
    # with what the table submitted since: the part its first try wrote is taken once.
    table_id = new_table(store)
    assert store.append({table_id: Appends(1, entries(1, 3))}) == {}
    assert store.append({table_id: Appends(1, entries(2, 5))}) == {}
    assert store.append({table_id: Appends(1, entries(6, 6))}) == {}
    assert store.claim(table_id).entries == entries(1, 6)


def test_a_batch_sent_again_after_its_reply_was_lost_is_taken_once(store: TableStore) -> None:
    table_id = new_table(store)
    assert store.append({table_id: Appends(1, entries(1, 3))}) == {}
    assert store.append({table_id: Appends(1, entries(1, 3))}) == {}  # the journal's retry
    assert store.append({table_id: Appends(1, entries(4, 4))}) == {}
    assert store.claim(table_id).entries == entries(1, 4)


def test_a_load_reads_everything_without_fencing_the_writer(store: TableStore) -> None:
    table_id = new_table(store)
    checkpoint = Checkpoint(2, {"n": 2}, {"0:a2": 2}, [{"seat": 0, "action": {}, "now_ms": 1, "automatic": False}])
    store.append({table_id: Appends(1, entries(1, 2), checkpoint)})
    store.append({table_id: Appends(1, entries(3, 3))})
    loaded = store.load(table_id)
    assert (loaded.epoch, loaded.checkpoint, loaded.entries) == (1, checkpoint, entries(3, 3))
    assert store.append({table_id: Appends(1, entries(4, 4))}) == {}
    store.finish(table_id, 1, "finished")
    assert store.load(table_id).seq == 4


def test_a_checkpoint_trims_the_journal_before_it(store: TableStore) -> None:
    table_id = new_table(store)
    checkpoint = Checkpoint(4, {"zones": {}, "rng": 9}, {"1:a1": 1, "0:a4": 4}, [])
    assert store.append({table_id: Appends(1, entries(1, 4), checkpoint)}) == {}
    assert store.append({table_id: Appends(1, entries(5, 6))}) == {}
    stored = store.claim(table_id)
    assert stored.checkpoint == checkpoint and stored.entries == entries(5, 6) and stored.seq == 6


def test_one_group_commit_reports_each_tables_failure_on_its_own(store: TableStore) -> None:
    fine, fenced = new_table(store), new_table(store)
    store.claim(fenced)
    failed = store.append({fine: Appends(1, entries(1, 1)), fenced: Appends(1, entries(1, 1))})
    assert list(failed) == [fenced] and isinstance(failed[fenced], Fenced)
    assert store.claim(fine).entries == entries(1, 1)


def test_a_finished_table_is_not_listed_for_resuming_and_an_older_epoch_cannot_finish_it(store: TableStore) -> None:
    table_id = new_table(store)
    assert table_id in store.unfinished()
    store.claim(table_id)  # epoch 2
    store.finish(table_id, 1, "finished")  # a stale incarnation: no effect
    assert table_id in store.unfinished()
    store.finish(table_id, 2, "finished")
    assert table_id not in store.unfinished()


def test_a_tables_header_is_read_back_without_claiming_it(store: TableStore) -> None:
    table_id = new_table(store)
    assert store.header(table_id) == header(table_id)
    assert store.append({table_id: Appends(1, entries(1, 1))}) == {}  # still epoch 1: not claimed
    with pytest.raises(StoreError, match="no table"):
        store.header("never-created")


def test_a_table_id_cannot_be_created_twice_and_the_first_stays_fenced(store: TableStore) -> None:
    table_id = new_table(store)
    store.append({table_id: Appends(1, entries(1, 1))})
    assert store.claim(table_id).epoch == 2
    assert isinstance(store.create([header(table_id, run_id="another run")])[table_id], TableExists)
    assert isinstance(store.append({table_id: Appends(1, entries(2, 2))})[table_id], Fenced)
    assert store.header(table_id).table_id == table_id and store.claim(table_id).entries == entries(1, 1)


def test_a_local_create_a_crash_cut_short_is_finished_by_the_next(tmp_path: Path) -> None:
    store = LocalStore(str(tmp_path))
    (tmp_path / "cut-short").mkdir()
    (tmp_path / "cut-short" / "epoch").write_bytes(b"1")
    assert store.create([header("cut-short")]) == {}
    assert store.claim("cut-short").header == header("cut-short")
    store.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(1, 5), st.booleans(), st.booleans()), min_size=1, max_size=12))
def test_any_run_of_appends_checkpoints_and_claims_keeps_exactly_the_journal_after_the_checkpoint(
    store: TableStore, steps: list[tuple[int, bool, bool]]
) -> None:
    table_id = new_table(store)
    epoch, seq, checkpoint_seq = 1, 0, 0
    for count, with_checkpoint, then_claim in steps:
        batch = entries(seq + 1, seq + count)
        checkpoint = Checkpoint(seq + count, {"n": seq + count}, {}, []) if with_checkpoint else None
        assert store.append({table_id: Appends(epoch, batch, checkpoint)}) == {}
        seq += count
        checkpoint_seq = seq if with_checkpoint else checkpoint_seq
        if then_claim:
            stored = store.claim(table_id)
            epoch = stored.epoch
            assert stored.seq == seq and [e.seq for e in stored.entries] == list(range(checkpoint_seq + 1, seq + 1))
    assert store.claim(table_id).seq == seq


# -- the local store's journal framing --------------------------------------------------


def test_frames_read_back_whole_and_stop_at_a_torn_or_corrupt_record() -> None:
    records = [b"one", b"two" * 50, b""]
    data = b"".join(frame(r) for r in records)
    assert read_frames(data) == (records, len(data))
    assert read_frames(data + frame(b"torn")[:-2]) == (records, len(data))
    corrupt = bytearray(data + frame(b"flipped"))
    corrupt[-1] ^= 0xFF
    assert read_frames(bytes(corrupt)) == (records, len(data))


def test_a_torn_record_at_the_end_of_the_journal_is_cut_off_when_the_table_is_claimed(tmp_path: Path) -> None:
    store = LocalStore(str(tmp_path))
    table_id = new_table(store)
    store.append({table_id: Appends(1, entries(1, 3))})
    segment = next((tmp_path / table_id).glob("log-*"))
    with open(segment, "ab") as journal:
        journal.write(frame(b"a record a crash cut short")[:-5])
    size_with_tear = segment.stat().st_size
    stored = store.claim(table_id)
    assert stored.entries == entries(1, 3)
    assert segment.stat().st_size < size_with_tear
    assert store.append({table_id: Appends(2, entries(4, 4))}) == {}
    assert store.claim(table_id).entries == entries(1, 4)
    store.close()


def test_a_finished_local_table_is_deleted_after_the_retention_and_running_ones_never(tmp_path: Path) -> None:
    store = LocalStore(str(tmp_path), finished_retention_s=0.0)
    running, finished = new_table(store), new_table(store)
    store.append({running: Appends(1, entries(1, 2))})
    store.finish(finished, 1, "finished")
    assert not (tmp_path / finished).exists()
    assert store.claim(running).entries == entries(1, 2)
    store.close()


def test_a_finished_redis_tables_keys_expire_after_the_retention(redis_server) -> None:
    import redis

    store = RedisStore(redis_server.url, finished_retention_s=120)
    table_id = new_table(store)
    store.append({table_id: Appends(1, entries(1, 3), Checkpoint(2, {"n": 2}, {}, []))})
    client = redis.Redis.from_url(redis_server.url)
    keys = [f"th:{{{table_id}}}:{part}" for part in ("header", "epoch", "seq", "journal", "checkpoint")]
    assert all(client.ttl(key) == -1 for key in keys)  # no expiry while it runs
    store.finish(table_id, 1, "finished")
    assert all(0 < client.ttl(key) <= 120 for key in keys)
    store.close()
    client.close()


def test_an_unreachable_redis_is_reported_as_worth_retrying_and_other_failures_are_not(redis_server) -> None:
    from redis_server import free_port

    gone = RedisStore(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
    with pytest.raises(StoreUnavailable):
        gone.create([header("t-gone")])
    with pytest.raises(StoreUnavailable):
        gone.claim("t-gone")
    assert all(isinstance(e, StoreUnavailable) for e in gone.append({"t-gone": Appends(1, entries(1, 1))}).values())
    gone.close()
    reachable = RedisStore(redis_server.url)
    with pytest.raises(StoreError) as missing:
        reachable.claim("t-never-created")
    assert not isinstance(missing.value, StoreUnavailable)
    reachable.close()


def test_a_call_through_an_outage_is_tried_again_until_the_store_answers() -> None:
    calls = []

    def create(table_id: str) -> int:
        calls.append(table_id)
        if len(calls) < 3:
            raise StoreUnavailable("redis: connection refused")
        return 1

    def missing(table_id: str) -> int:
        calls.append(table_id)
        raise StoreError(f"no table {table_id}")

    assert asyncio.run(through_outage(create, "t")) == 1 and calls == ["t"] * 3
    calls.clear()
    with pytest.raises(StoreError, match="no table"):
        asyncio.run(through_outage(missing, "u"))
    assert calls == ["u"]  # only an unreachable store is tried again


def test_a_batch_creates_every_table_it_can_and_names_those_it_cannot(store: TableStore) -> None:
    existing = new_table(store)
    fresh = [f"table-{next(_ids)}" for _ in range(5)]
    failed = store.create([header(fresh[0]), header(existing, run_id="another run"), *map(header, fresh[1:])])
    assert list(failed) == [existing] and isinstance(failed[existing], TableExists)
    for table_id in fresh:
        assert store.header(table_id) == header(table_id)
        assert store.append({table_id: Appends(1, entries(1, 2))}) == {}
        assert store.claim(table_id).entries == entries(1, 2)
    assert set(fresh) <= set(store.unfinished())


def test_a_local_batch_leaves_no_temporary_files_and_a_bad_id_fails_alone(tmp_path: Path) -> None:
    store = LocalStore(str(tmp_path))
    failed = store.create([header("a"), header("../escape"), header("b")])
    assert list(failed) == ["../escape"] and "not a table id" in str(failed["../escape"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]
    assert not [p for p in tmp_path.rglob(".*.tmp")]
    assert store.unfinished() == ["a", "b"]
    store.close()
