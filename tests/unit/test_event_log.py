"""The durable event logs a tournament keeps (actors/store/event_log.py), held
to one contract on a local folder and on a real redis-server: appends land
at the index they expect or not at all, a torn tail is cut off, names are
checked."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablehost.actors.store.event_log import EventConflict, EventLog, LocalEventLog, RedisEventLog
from tablehost.actors.store.files import frame

_names = itertools.count()


@pytest.fixture(params=["local", "redis"])
def logs(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EventLog]:
    if request.param == "local":
        opened: EventLog = LocalEventLog(str(tmp_path / "store"))
    else:
        opened = RedisEventLog(request.getfixturevalue("redis_server").url)
    yield opened
    opened.close()


def fresh() -> str:
    return f"t-log-{next(_names)}"


def test_events_are_read_back_in_order(logs: EventLog) -> None:
    name = fresh()
    for index in range(5):
        logs.append(name, index, {"kind": "core", "n": index, "nested": {"a": [1, 2]}})
    assert [event["n"] for event in logs.read(name)] == [0, 1, 2, 3, 4]
    assert name in logs.names()


def test_an_append_at_another_index_is_refused_and_changes_nothing(logs: EventLog) -> None:
    name = fresh()
    logs.append(name, 0, {"n": 0})
    logs.append(name, 1, {"n": 1})
    with pytest.raises(EventConflict):
        logs.append(name, 1, {"n": "a retry whose reply was lost"})
    with pytest.raises(EventConflict):
        logs.append(name, 3, {"n": "a gap"})
    assert logs.read(name) == [{"n": 0}, {"n": 1}]


def test_a_log_never_written_is_empty(logs: EventLog) -> None:
    assert logs.read(fresh()) == []


def test_a_name_that_is_not_a_safe_file_name_is_refused(logs: EventLog) -> None:
    with pytest.raises(ValueError, match="name"):
        logs.append("../escape", 0, {})


def test_a_torn_tail_is_cut_off_and_the_next_append_follows_the_last_whole_event(tmp_path: Path) -> None:
    logs = LocalEventLog(str(tmp_path))
    logs.append("t", 0, {"n": 0})
    logs.append("t", 1, {"n": 1})
    path = tmp_path / "_logs" / "t.log"
    path.write_bytes(path.read_bytes() + frame(b"\x81\xa1n\x02")[:-2])  # a crash mid-write
    reopened = LocalEventLog(str(tmp_path))
    assert reopened.read("t") == [{"n": 0}, {"n": 1}]
    reopened.append("t", 2, {"n": 2})
    assert [event["n"] for event in LocalEventLog(str(tmp_path)).read("t")] == [0, 1, 2]
