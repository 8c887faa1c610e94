"""The view log on its own: what a stream that reconnects is sent, and the
hash an ack at any seq is checked against, for seats and for spectators who
start watching mid-game."""

from __future__ import annotations

from tablehost.actors.view_log import ViewLog
from tablehost.games.engine.views import encode_view, view_hash

SPECTATOR = -1


def views(n: int, spectators: bool = False) -> dict[int, dict]:
    seen = {seat: {"n": n, "seat": seat, "hand": [f"{seat}{n}"]} for seat in (0, 1)}
    if spectators:
        seen[SPECTATOR] = {"n": n, "seat": SPECTATOR}
    return seen


def test_a_reconnect_gets_the_changes_it_missed_or_a_snapshot() -> None:
    log = ViewLog(3, views(3))
    for n in range(4, 8):
        log.publish(f"a{n}", False, views(n))
    assert log.seq == 7
    assert [change.seq for change in log.since(0, 5, at_most=256)] == [6, 7]
    assert log.since(0, 7, at_most=256) == []  # holds the latest: nothing to send
    assert log.since(0, 3, at_most=256) is None  # the seq the log starts at: only a snapshot shows it whole
    assert log.since(0, 5, at_most=1) is None  # too far behind: a snapshot is cheaper
    assert log.since(0, 9, at_most=256) is None  # ahead of the table: not a seq it published


def test_an_ack_is_checked_against_the_hash_the_viewer_had_at_that_seq() -> None:
    log = ViewLog(3, views(3))
    for n in range(4, 7):
        log.publish("", True, views(n))
    for seq in (3, 4, 5, 6):
        assert log.hash_at(1, seq) == view_hash(views(seq)[1])
    assert log.hash_at(1, 2) is None
    assert log.current(1) == encode_view(views(6)[1])


def test_spectators_views_start_when_someone_watches_and_stop_when_nobody_does() -> None:
    log = ViewLog(3, views(3))
    log.publish("", False, views(4))
    assert not log.shows(SPECTATOR)
    log.want(SPECTATOR)
    log.start(SPECTATOR, views(4, spectators=True)[SPECTATOR])
    change = log.publish("", False, views(5, spectators=True))
    assert SPECTATOR in change.deltas and log.hash_at(SPECTATOR, 4) == view_hash(views(4, spectators=True)[SPECTATOR])
    assert log.since(SPECTATOR, 3, at_most=256) is None  # from before it watched
    log.stop(SPECTATOR)
    assert not log.shows(SPECTATOR) and SPECTATOR not in log.viewers
