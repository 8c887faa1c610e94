"""A room's table publishes the spectators' (public) view only while a
spectator watches: a spectator arriving mid-game starts from a snapshot,
and every delta after it chains to the published hash, as for a seat."""

import asyncio

import msgpack

from tablehost.actors.outbound import CloseOut, DeltaOut, SnapshotOut
from tablehost.actors.table import Table
from tablehost.actors.tokens import SPECTATOR_SEAT
from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.views import apply_delta, decode, view_hash


def sent(stream) -> list:
    """What the table queued for a stream, without the close at the end of the test."""
    return [m for m in stream.outbox.take_all() if not isinstance(m, CloseOut)]


def play_one_move(table: Table, stream) -> None:
    seat = BIGTWO.to_act(table.match.state)
    table.commit(stream[seat], f"move-{table.seq}", msgpack.packb(table.match.view(seat)["request"]["legal_actions"][0]))


def seated_streams(table: Table) -> dict:
    return {seat: table.subscribe(seat, 0) for seat in range(4)}


def test_a_spectator_arriving_mid_game_starts_from_a_snapshot_and_every_delta_verifies() -> None:
    async def scenario():
        table = Table("t-s1", BIGTWO, TableSeed.numbered(11), ["a", "b", "c", "d"], {})
        streams = seated_streams(table)
        for _ in range(3):
            play_one_move(table, streams)
        spectator = table.subscribe(SPECTATOR_SEAT, 0)
        for _ in range(3):
            play_one_move(table, streams)
        table.close("done")
        return sent(spectator), table

    messages, table = asyncio.run(scenario())
    snapshot, deltas = messages[0], [m for m in messages if isinstance(m, DeltaOut)]
    assert isinstance(snapshot, SnapshotOut) and snapshot.seq == 3
    view = decode(snapshot.view)
    assert view_hash(view) == snapshot.view_hash and "hand" not in view
    assert [d.seq for d in deltas] == [4, 5, 6]
    for delta in deltas:
        view = apply_delta(view, decode(delta.delta))
        assert view_hash(view) == delta.view_hash
    assert view == table.match.view(None)


def test_a_spectator_returning_after_nobody_watched_gets_a_snapshot_not_a_replay() -> None:
    async def scenario():
        table = Table("t-s2", BIGTWO, TableSeed.numbered(12), ["a", "b", "c", "d"], {})
        streams = seated_streams(table)
        first = table.subscribe(SPECTATOR_SEAT, 0)
        play_one_move(table, streams)
        table.unsubscribe(first)  # nobody watches: the public view is not kept
        play_one_move(table, streams)
        returning = table.subscribe(SPECTATOR_SEAT, 1)
        table.ack(returning, 1, "0" * 64)  # a seq from before this watch: resent, not a desync
        table.close("done")
        return sent(returning), table

    messages, table = asyncio.run(scenario())
    assert [type(m) for m in messages] == [SnapshotOut, SnapshotOut]
    assert messages[0].seq == 2 and table.stats.desyncs == 0


def test_a_spectator_reconnecting_while_watched_gets_exactly_the_missed_deltas() -> None:
    async def scenario():
        table = Table("t-s3", BIGTWO, TableSeed.numbered(13), ["a", "b", "c", "d"], {})
        streams = seated_streams(table)
        watching = table.subscribe(SPECTATOR_SEAT, 0)
        play_one_move(table, streams)
        again = table.subscribe(SPECTATOR_SEAT, 1)
        play_one_move(table, streams)
        play_one_move(table, streams)
        table.close("done")
        return sent(watching), sent(again)

    watching, again = asyncio.run(scenario())
    assert [m.seq for m in again] == [2, 3] and all(isinstance(m, DeltaOut) for m in again)
    assert [m.view_hash for m in again] == [m.view_hash for m in watching if isinstance(m, DeltaOut)][1:]


def test_a_finished_tables_streams_end_cleanly_after_their_last_messages() -> None:
    """A finished game's close ends each stream after GameOver, as FINISHED
    (status OK): an error status could cut off the messages still queued."""
    from tablehost.actors.outbound import GameOverOut, StreamEnd

    async def scenario():
        table = Table("t-s4", BIGTWO, TableSeed.numbered(14), ["a", "b", "c", "d"], {})
        streams = seated_streams(table)
        while not table.over:
            play_one_move(table, streams)
        table.close("the game is over")
        unfinished = Table("t-s5", BIGTWO, TableSeed.numbered(15), ["a", "b", "c", "d"], {})
        left = unfinished.subscribe(0, 0)
        unfinished.close("every player left the table")
        return streams[0].outbox.take_all(), left.outbox.take_all()

    finished, deserted = asyncio.run(scenario())
    assert isinstance(finished[-2], GameOverOut) and finished[-1].ending is StreamEnd.FINISHED
    assert deserted[-1].ending is StreamEnd.UNAVAILABLE
