"""What an operator scrapes: the front door lists every room's metrics
address on /targets, and the rooms' counters move by exactly what a table
did: a game's moves, its rejection, its reconnect and its end; turns whose
deadline passed; a desync and a reconnect the log cannot replay, each
answered by a snapshot; and the journal's writes to the store and its
checkpoints."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections import Counter as Tally
from typing import Any

import grpc
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tablehost.actors.table_commands import CHECKPOINT_EVERY
from tablehost.clients.sdk import LobbyClient, TableSession
from tablehost.v1 import table_pb2
from tests.integration.conftest import HostThread, run
from tests.integration.support import (close_all, lobby_status, play_randomly, room_of, rooms_by_id, seat_table,
                                       wait_for_quiet_lobby, wait_until)

pytestmark = pytest.mark.integration

PLAY = "/tablehost.v1.Table/Play"


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.read().decode()


Samples = Tally[tuple[str, tuple[tuple[str, str], ...]]]


def scrape(endpoint: str) -> Samples:
    """Every sample of one process, by name and labels."""
    samples: Samples = Tally()
    for family in text_string_to_metric_families(fetch(f"http://{endpoint}/metrics")):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] += sample.value
    return samples


def targets(host: HostThread) -> list[str]:
    return json.loads(fetch(f"http://{host.host.metrics.address}/targets"))[0]["targets"]


def rooms_scraped(host: HostThread, listing: str | None = None) -> dict[str, Samples]:
    """Every room's samples by its metrics address, the rooms found the way
    Prometheus finds them. The front door reads the lobby every few seconds:
    with `listing` (a room's address), once its /targets lists that room."""
    if listing is not None:
        run(wait_until(lambda: listing in targets(host), timeout=15))
    rooms = {}
    for endpoint in targets(host):
        try:
            rooms[endpoint] = scrape(endpoint)
        except urllib.error.URLError:
            continue  # released while idle since the front door last read the lobby
    return rooms


def added_up(rooms: dict[str, Samples]) -> Samples:
    total: Samples = Tally()
    for samples in rooms.values():
        total.update(samples)
    return total


def increase(before: dict[str, Samples], after: dict[str, Samples]) -> Samples:
    """What the rooms counted between two scrapes, as Prometheus's increase()
    reads it: a room started meanwhile counts from zero, and one released
    meanwhile (idle rooms beyond the reserve stop) takes nothing away."""
    counted: Samples = Tally()
    for endpoint, samples in after.items():
        counted.update(samples)
        counted.subtract(before.get(endpoint, Tally()))
    return counted


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples[(name, tuple(sorted(labels.items())))]


def metrics_address_of(host: HostThread, table_id: str) -> str:
    """The metrics address of the room serving a table."""
    return rooms_by_id(host)[room_of(host, table_id)].metrics_endpoint


async def seat_private_table(host: HostThread, game: str, seats: int, turn_timeout_ms: int,
                             join_data: dict[str, Any] | None = None) -> tuple[list[LobbyClient], list[TableSession]]:
    async with LobbyClient(host.target) as creator:
        code = await creator.create_private_table(game, turn_timeout_ms=turn_timeout_ms)
    lobbies = [LobbyClient(host.target) for _ in range(seats)]
    assignments = await asyncio.gather(
        *(lobby.join_private_table(code, f"{game}-{i}", join_data=join_data) for i, lobby in enumerate(lobbies)))
    sessions = await asyncio.gather(*(TableSession.connect(a, lobby) for a, lobby in zip(assignments, lobbies)))
    await asyncio.gather(*(session.wait_dealt(timeout=30) for session in sessions))
    return lobbies, list(sessions)


async def open_play(channel: grpc.aio.Channel, seat_token: str, last_seq: int) -> grpc.aio.StreamStreamCall:
    """A Play stream that has said its hello."""
    stream = channel.stream_stream(PLAY, request_serializer=table_pb2.ClientMessage.SerializeToString,
                                   response_deserializer=table_pb2.ServerMessage.FromString)()
    await stream.write(table_pb2.ClientMessage(hello=table_pb2.Hello(seat_token=seat_token, last_seq=last_seq)))
    return stream


async def play_passing_the_lead_round(session: TableSession) -> int:
    """A Big Two seat that leads its lowest single and follows with its
    lowest single only while it holds more cards than whoever played last
    (else passes): the lead goes round the table and every hand shrinks
    slowly, so the game outlasts a checkpoint (66 moves or more in each of
    20,000 deals tried offline). Returns its moves."""
    moves = 0
    while (view := await session.wait_for_request(timeout=30)) is not None:
        legal = view["request"]["legal_actions"]
        singles = [action for action in legal if action["type"] == "play" and len(action["cards"]) == 1]
        passes = [action for action in legal if action["type"] == "pass"]
        last, counts = view["last_play"], view["hand_counts"]
        if not passes:  # leading: a play is due
            action = (singles or legal)[0]
        elif singles and last is not None and counts[view["seat"]] > counts[last["seat"]]:
            action = singles[0]
        else:
            action = passes[0]
        assert (await session.commit(action)).accepted
        moves += 1
    return moves


def room_metrics_endpoints(host: HostThread) -> set[str]:
    return {room.metrics_endpoint for node in lobby_status(host).nodes for room in node.rooms
            if room.state == "ready"}


def test_targets_list_every_room_and_nothing_else(host: HostThread) -> None:
    def listed() -> set[str]:
        groups = json.loads(fetch(f"http://{host.host.metrics.address}/targets"))
        assert len(groups) == 1 and groups[0]["labels"] == {"job": "tablehost-room"}
        return set(groups[0]["targets"])

    # The front door reads the lobby every few seconds: rooms started since appear then.
    run(wait_until(lambda: bool(room_metrics_endpoints(host)) and listed() == room_metrics_endpoints(host),
                   timeout=30))
    assert all(endpoint.startswith("127.0.0.1:") for endpoint in listed())


def test_a_games_counters_are_what_the_game_did(host: HostThread) -> None:
    run(wait_for_quiet_lobby(host))
    before = rooms_scraped(host)

    async def play() -> tuple[int, Samples, str]:
        lobbies, sessions = await seat_table(host.target, names=[f"metrics-{i}" for i in range(4)])
        try:
            during = added_up(rooms_scraped(host))
            room = metrics_address_of(host, sessions[0].table_id)
            # One move nobody may make (a seat acting out of turn): a rejection.
            idle = next(s for s in sessions if not (s.view or {}).get("request"))
            assert not (await idle.commit({"type": "pass"})).accepted
            await idle.drop()
            await idle.reconnect()
            moves = sum(await asyncio.gather(
                *(play_randomly(session, seed=index) for index, session in enumerate(sessions))))
            for session in sessions:
                await session.wait_game_over()
                assert session.desyncs == 0
            return moves, during, room
        finally:
            await close_all(lobbies, sessions)

    moves, during, room = run(play())
    delta = increase(before, rooms_scraped(host, listing=room))
    assert value(delta, "tablehost_moves_total", game="bigtwo", kind="player") == moves
    assert value(delta, "tablehost_move_latency_seconds_count", game="bigtwo") == moves
    assert value(delta, "tablehost_games_finished_total", game="bigtwo") == 1
    assert value(delta, "tablehost_tables_opened_total", game="bigtwo") == 1
    assert value(delta, "tablehost_rejects_total", game="bigtwo", reason="NOT_YOUR_TURN") == 1
    assert value(delta, "tablehost_reconnects_total", game="bigtwo") == 1
    # Back at the deal's seq, before any move: the room sent the view it sends any new stream.
    assert value(delta, "tablehost_resyncs_total", game="bigtwo") == 0
    assert value(delta, "tablehost_desyncs_total", game="bigtwo") == 0
    assert value(during, "tablehost_tables", game="bigtwo") >= 1
    assert value(during, "tablehost_seated_players", game="bigtwo") >= 4

    def door_agrees_with_the_lobby() -> bool:
        door = scrape(host.host.metrics.address)
        return (value(door, "tablehost_lobby_up") == 1
                and value(door, "tablehost_tables_started") == lobby_status(host).tables_started)

    run(wait_until(door_agrees_with_the_lobby, timeout=15))


def test_turns_whose_deadline_passed_count_as_timer_expiries_and_automatic_moves(host: HostThread) -> None:
    """Three players of the test game trio who never act: each of their nine
    picks (three rounds, three seats) is taken by its default when its
    150 ms pass. All pick 1, so nobody attacks and nothing else is asked."""
    run(wait_for_quiet_lobby(host))
    before = rooms_scraped(host)

    async def sit_it_out() -> str:
        lobbies, sessions = await seat_private_table(host, "trio", 3, turn_timeout_ms=150, join_data={"league": "a"})
        try:
            room = metrics_address_of(host, sessions[0].table_id)
            await asyncio.gather(*(session.wait_game_over(timeout=30) for session in sessions))
            return room
        finally:
            await close_all(lobbies, sessions)

    room = run(sit_it_out())
    counted = increase(before, rooms_scraped(host, listing=room))
    assert value(counted, "tablehost_timer_expiries_total", game="trio") == 9
    assert value(counted, "tablehost_moves_total", game="trio", kind="automatic") == 9
    assert value(counted, "tablehost_moves_total", game="trio", kind="player") == 0
    # Latency is a commit's, from the room receiving it: a default has none.
    assert value(counted, "tablehost_move_latency_seconds_count", game="trio") == 0
    assert value(counted, "tablehost_games_finished_total", game="trio") == 1
    # A default is journaled like any move: one write each (the next waits
    # for it), after the deal's.
    assert value(counted, "tablehost_store_writes_total") == 1 + 9


def test_a_desync_and_a_reconnect_the_log_cannot_replay_each_cost_a_snapshot(host: HostThread) -> None:
    """A seat's client on the raw wire: it says hello at seq 0 (a new
    stream's snapshot, no resync), acks that view with a hash that is not the
    host's (a desync, answered by a snapshot), then comes back holding a seq
    the table never reached (nothing to replay from: a snapshot)."""
    run(wait_for_quiet_lobby(host))
    before = rooms_scraped(host)

    async def fall_out_of_step() -> tuple[list[str], int, str]:
        # A turn that cannot time out meanwhile: nothing moves but what the test does.
        lobbies, sessions = await seat_private_table(host, "bigtwo", 4, turn_timeout_ms=600_000)
        try:
            room = metrics_address_of(host, sessions[0].table_id)
            seat = next(session for session in sessions if session.request is None)
            await seat.close()
            endpoint, token = seat.assignment.endpoint, seat.assignment.seat_token
            async with grpc.aio.insecure_channel(endpoint) as channel:
                stream = await open_play(channel, token, last_seq=0)
                first = await stream.read()
                ack = table_pb2.Ack(seq=first.snapshot.seq, view_hash="0" * 64)
                await stream.write(table_pb2.ClientMessage(ack=ack))
                resent = await stream.read()
                stream.cancel()
                again = await open_play(channel, token, last_seq=first.snapshot.seq + 1000)
                back = await again.read()
                again.cancel()
            kinds = [message.WhichOneof("kind") for message in (first, resent, back)]
            return kinds, back.snapshot.seq, room
        finally:
            await close_all(lobbies, sessions)

    kinds, seq, room = run(fall_out_of_step())
    assert kinds == ["snapshot"] * 3 and seq == 1  # dealt, and nothing moved since
    counted = increase(before, rooms_scraped(host, listing=room))
    assert value(counted, "tablehost_desyncs_total", game="bigtwo") == 1
    assert value(counted, "tablehost_resyncs_total", game="bigtwo") == 2
    assert value(counted, "tablehost_reconnects_total", game="bigtwo") == 2
    assert value(counted, "tablehost_moves_total", game="bigtwo", kind="player") == 0


def test_a_tables_every_move_is_one_store_write_and_every_64th_brings_a_checkpoint(host: HostThread) -> None:
    """A table alone in the rooms applies one command at a time and waits for
    the store before the next, so its deal and each of its moves is a group
    commit of its own (several tables at once would share them)."""
    run(wait_for_quiet_lobby(host))
    before = rooms_scraped(host)

    async def play() -> tuple[int, str]:
        lobbies, sessions = await seat_table(host.target, names=[f"journal-{i}" for i in range(4)])
        try:
            room = metrics_address_of(host, sessions[0].table_id)
            moves = sum(await asyncio.gather(*(play_passing_the_lead_round(session) for session in sessions)))
            await asyncio.gather(*(session.wait_game_over(timeout=30) for session in sessions))
            return moves, room
        finally:
            await close_all(lobbies, sessions)

    moves, room = run(play())
    counted = increase(before, rooms_scraped(host, listing=room))
    assert moves >= CHECKPOINT_EVERY
    assert value(counted, "tablehost_moves_total", game="bigtwo", kind="player") == moves
    # The deal is written as the first entry, then every move; checkpoints
    # come with every 64th move.
    assert value(counted, "tablehost_store_writes_total") == 1 + moves
    assert value(counted, "tablehost_store_write_seconds_count") == 1 + moves
    assert value(counted, "tablehost_checkpoints_total") == moves // CHECKPOINT_EVERY


def test_the_metrics_server_answers_only_its_paths(host: HostThread) -> None:
    with pytest.raises(urllib.error.HTTPError) as refused:
        fetch(f"http://{host.host.metrics.address}/anything-else")
    assert refused.value.code == 404


def test_the_front_door_answers_its_liveness_and_readiness_probes_over_plain_http(host: HostThread) -> None:
    """What a kubelet's httpGet probes ask, whatever the gRPC ports serve."""
    address = host.host.metrics.address
    assert fetch(f"http://{address}/livez").strip() == "live"
    assert fetch(f"http://{address}/readyz").strip() == "ready"


def test_the_front_door_gauges_count_ray_nodes_and_overdue_tournament_rounds(host: HostThread) -> None:
    door = scrape(host.host.metrics.address)
    assert door[("tablehost_ray_nodes", (("state", "alive"),))] >= 1
    assert ("tablehost_ray_nodes", (("state", "dead"),)) in door
    assert door[("tablehost_tournament_rounds_overdue", ())] == 0
