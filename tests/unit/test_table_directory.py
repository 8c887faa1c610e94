"""The lobby's record of tables: a running table is found by its id (and by
its room when the room dies); a finished one is kept for the retention
period and then forgotten, so memory follows the tables running, not every
table ever played. Time is handed in."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tablehost.actors.table_directory import TableDirectory, TableRecord


def record(table_id: str, room_id: str = "room-1", **changes: Any) -> TableRecord:
    fields: dict[str, Any] = {
        "table_id": table_id,
        "game": "bigtwo",
        "variant": "",
        "commitment": "c" * 64,
        "room_id": room_id,
        "endpoint": "127.0.0.1:7001",
        "players": ["Ann", "Bo", "Cy", "Di"],
        "tickets": ["t-a", "t-b", "t-c", "t-d"],
        "clients": ["", "player:b", "", "address:10.0.0.1"],
        "join": [{}, {}, {}, {}],
        "entrants": ["t-c", "t-a", "t-d", "t-b"],
        "options": {"turn_timeout_ms": 20_000},
        "started_ms": 1_000,
    }
    fields.update(changes)
    return TableRecord(**fields)


def directory_with(*records: TableRecord, retention_s: float = 60.0) -> TableDirectory:
    directory = TableDirectory(retention_s)
    for each in records:
        directory.add(each)
    return directory


# -- running tables ------------------------------------------------------------------------------


def test_an_added_table_is_found_running_by_its_id() -> None:
    table = record("t-1")
    directory = directory_with(table)
    assert directory.get("t-1") is table
    assert directory.running("t-1") is table
    assert table.running and table.outcome is None
    assert (directory.running_count, directory.retained_count, directory.started) == (1, 1, 1)


def test_an_unknown_table_is_not_found() -> None:
    directory = directory_with(record("t-1"))
    assert directory.get("t-9") is None
    assert directory.running("t-9") is None


def test_running_count_counts_tables_in_every_room() -> None:
    directory = directory_with(record("t-1", "room-1"), record("t-2", "room-1"), record("t-3", "room-2"))
    assert directory.running_count == 3


# -- finishing ----------------------------------------------------------------------------------------


def test_a_finished_table_keeps_its_record_but_is_no_longer_running() -> None:
    directory = directory_with(record("t-1"), record("t-2"))
    finished = directory.finish("t-1", "finished", now=10.0)
    assert finished is directory.get("t-1")
    assert (finished.outcome, finished.finished_at, finished.running) == ("finished", 10.0, False)
    assert directory.running("t-1") is None
    assert (directory.running_count, directory.retained_count) == (1, 2)


def test_finishing_an_unknown_table_returns_none() -> None:
    directory = directory_with(record("t-1"))
    assert directory.finish("t-9", "finished", now=1.0) is None
    assert directory.running_count == 1


def test_a_table_finishes_once_with_its_first_outcome_and_time() -> None:
    directory = directory_with(record("t-1"))
    directory.finish("t-1", "finished", now=10.0)
    assert directory.finish("t-1", "room lost", now=50.0) is None
    kept = directory.get("t-1")
    assert kept is not None and (kept.outcome, kept.finished_at) == ("finished", 10.0)
    assert directory.expire(now=70.0) == 1  # retention ran from the first finish, not the second


def test_a_lost_room_finishes_every_table_running_in_it_and_names_them_in_order() -> None:
    directory = directory_with(
        record("t-2", "room-1"), record("t-1", "room-1"), record("t-3", "room-2"), record("t-4", "room-1")
    )
    directory.finish("t-4", "closed", now=1.0)
    lost = directory.lose_room("room-1", now=5.0)
    assert lost == ["t-1", "t-2"]
    for table_id in lost:
        gone = directory.get(table_id)
        assert gone is not None and (gone.outcome, gone.finished_at) == ("room lost", 5.0)
    assert directory.get("t-4").outcome == "closed"  # already finished: not lost again
    assert directory.running("t-3") is not None
    assert directory.running_count == 1


def test_losing_a_room_with_no_table_running_loses_nothing() -> None:
    directory = directory_with(record("t-1", "room-1"))
    assert directory.lose_room("room-9", now=1.0) == []
    directory.finish("t-1", "finished", now=2.0)
    assert directory.lose_room("room-1", now=3.0) == []
    assert directory.get("t-1").outcome == "finished"


# -- forgetting -----------------------------------------------------------------------------------------


def test_a_finished_table_is_forgotten_once_the_retention_period_has_passed() -> None:
    directory = directory_with(record("t-1"), retention_s=60.0)
    directory.finish("t-1", "finished", now=100.0)
    assert directory.expire(now=159.9) == 0
    assert directory.get("t-1") is not None
    assert directory.expire(now=160.0) == 1
    assert directory.get("t-1") is None
    assert directory.retained_count == 0


def test_a_running_table_is_never_forgotten_however_old() -> None:
    directory = directory_with(record("old"), retention_s=1.0)
    assert directory.expire(now=1e9) == 0
    assert directory.running("old") is not None


def test_expire_forgets_only_the_tables_finished_long_enough_ago() -> None:
    directory = directory_with(record("t-1"), record("t-2"), record("t-3"), record("t-4"), retention_s=10.0)
    directory.finish("t-1", "finished", now=1.0)
    directory.finish("t-2", "closed", now=2.0)
    directory.finish("t-3", "failed", now=8.0)
    assert directory.expire(now=12.0) == 2
    assert [t for t in ("t-1", "t-2", "t-3", "t-4") if directory.get(t) is not None] == ["t-3", "t-4"]
    assert directory.expire(now=12.0) == 0
    assert directory.expire(now=18.0) == 1
    assert (directory.running_count, directory.retained_count) == (1, 1)


def test_with_no_retention_a_finished_table_is_forgotten_at_the_next_expire() -> None:
    directory = directory_with(record("t-1"), retention_s=0.0)
    directory.finish("t-1", "finished", now=5.0)
    assert directory.expire(now=5.0) == 1
    assert directory.get("t-1") is None


def test_started_counts_every_table_ever_added_even_forgotten_ones() -> None:
    directory = directory_with(record("t-1"), record("t-2"), retention_s=0.0)
    directory.lose_room("room-1", now=1.0)
    directory.expire(now=1.0)
    directory.add(record("t-3"))
    assert (directory.started, directory.running_count, directory.retained_count) == (3, 1, 1)


# -- what the record says ----------------------------------------------------------------------------------


def test_a_finished_record_carries_its_outcome() -> None:
    directory = directory_with(record("t-1"))
    directory.finish("t-1", "room lost", now=1.0)
    assert directory.get("t-1").outcome == "room lost"


# -- any sequence ------------------------------------------------------------------------------------------

steps = st.lists(
    st.tuples(
        st.sampled_from(["add", "finish", "lose_room", "expire"]),
        st.integers(min_value=0, max_value=10**6),  # which table or room
        st.sampled_from([0.0, 0.5, 3.0, 10.0]),  # time passing before the step
    ),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(steps=steps, retention_s=st.sampled_from([0.0, 1.0, 5.0]))
def test_running_tables_stay_and_finished_ones_go_after_exactly_the_retention_period(
    steps: list[tuple[str, int, float]], retention_s: float
) -> None:
    directory = TableDirectory(retention_s)
    rooms = ["room-1", "room-2", "room-3"]
    added: list[str] = []
    finished_at: dict[str, float] = {}
    now = 0.0
    for step, pick, wait in steps:
        now += wait
        if step == "add":
            table_id = f"t-{len(added)}"
            directory.add(record(table_id, rooms[pick % len(rooms)]))
            added.append(table_id)
        elif step == "finish" and added:
            table_id = added[pick % len(added)]
            if directory.finish(table_id, "finished", now) is not None:
                assert table_id not in finished_at
                finished_at[table_id] = now
        elif step == "lose_room":
            for table_id in directory.lose_room(rooms[pick % len(rooms)], now):
                assert table_id not in finished_at
                finished_at[table_id] = now
        elif step == "expire":
            directory.expire(now)
            for table_id, when in finished_at.items():
                assert (directory.get(table_id) is None) == (now - when >= retention_s)
        running = [t for t in added if t not in finished_at]
        assert all(directory.running(t) is not None for t in running)
        assert all(directory.running(t) is None for t in finished_at)
        assert directory.running_count == len(running)
        assert directory.started == len(added)
        assert directory.retained_count == len(running) + sum(directory.get(t) is not None for t in finished_at)
