"""Nothing lost, nobody let in, over the wire to a real room: a reader that
never reads is ended with RESOURCE_EXHAUSTED and leaves the room's memory
bounded; one live stream per seat; hostile bytes (a 1000-deep value, an
act_id that is not UTF-8) are rejected and change nothing; tokens of
another run or for a seat the table does not have are refused; a stream
that never says hello is closed; spectators are bounded per table."""

from __future__ import annotations

import asyncio
import math
import time

import grpc
import msgpack
import psutil
import pytest
from conftest import run
from support import close_all, play_randomly, seat_table, table_status, wait_until

from tablehost.actors.config import RoomConfig
from tablehost.actors.server_options import ROOM_STREAMS_PER_CONNECTION
from tablehost.actors.tokens import SeatClaim, sign_seat_token
from tablehost.clients.sdk import LobbyClient, StreamReplaced, TableSession
from tablehost.v1 import table_pb2

pytestmark = pytest.mark.integration

PLAY = "/tablehost.v1.Table/Play"
# A connection of its own for a stream (gRPC shares one among a process's channels).
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]
# A client's own window of unread messages stays small (no bandwidth probing),
# so a client that does not read holds the room's writes back at once.
SMALL_WINDOW = [("grpc.http2.bdp_probe", 0)]


class RawStream:
    """A Play stream of raw bytes both ways (no SDK, no serializers)."""

    def __init__(self, endpoint: str, options: list | None = None) -> None:
        self.channel = grpc.aio.insecure_channel(endpoint, options=options or [])
        self.call = self.channel.stream_stream(PLAY)()

    async def send(self, *messages: bytes | table_pb2.ClientMessage) -> None:
        for message in messages:
            await self.call.write(message if isinstance(message, bytes) else message.SerializeToString())

    async def read(self, count: int, timeout: float = 10) -> list[table_pb2.ServerMessage]:
        replies = []
        for _ in range(count):
            raw = await asyncio.wait_for(self.call.read(), timeout)
            if raw is grpc.aio.EOF:
                break
            replies.append(table_pb2.ServerMessage.FromString(raw))
        return replies

    async def ending(self, timeout: float = 20) -> tuple[grpc.StatusCode, str, int]:
        """Read to the end: the status, its details, and how many messages came first."""
        received = 0
        try:
            async with asyncio.timeout(timeout):
                while await self.call.read() is not grpc.aio.EOF:
                    received += 1
        except grpc.aio.AioRpcError:
            pass
        return await self.call.code(), await self.call.details(), received

    async def close(self) -> None:
        self.call.cancel()
        await self.channel.close()


def hello(token: str, last_seq: int = 0) -> table_pb2.ClientMessage:
    return table_pb2.ClientMessage(hello=table_pb2.Hello(seat_token=token, last_seq=last_seq))


def commit(act_id: str, action: bytes) -> table_pb2.ClientMessage:
    return table_pb2.ClientMessage(commit=table_pb2.Commit(act_id=act_id, action=action))


def token_for(host, table_id: str, seat: int, run_id: str | None = None) -> str:
    """A token signed with the host's own secret, as the lobby would sign it."""
    expires_ms = time.time_ns() // 1_000_000 + 60_000
    run = host.host.run_id if run_id is None else run_id
    return sign_seat_token(host.host.config.token_secret, SeatClaim(table_id, seat, expires_ms, run))


async def room_pid(host, table_id: str) -> int:
    record = host.lobby("table_record", table_id)
    rooms = await host.host.lobby.room_handles.remote()
    return (await rooms[record.room_id].status.remote()).pid


def test_a_reader_that_never_reads_is_ended_with_resource_exhausted_and_the_room_stays_bounded(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        watcher = LobbyClient(host.target)
        flood = None
        try:
            table_id = sessions[0].table_id
            spectator = await watcher.spectate(table_id)
            room = psutil.Process(await room_pid(host, table_id))
            rss_before = room.memory_info().rss
            hash_before = (await table_status(host, table_id)).state_hash
            flood = RawStream(spectator.endpoint, SMALL_WINDOW)
            await flood.send(hello(spectator.seat_token))
            await wait_until(lambda: host.call(table_status(host, table_id)).streams == 5, timeout=10)
            # Act_ids far over their 64-byte limit, in messages just under the room's 16 KiB,
            # and short distinct ones (remembered, boundedly): all within the stream's budget.
            huge_act_id, action = "a" * 15_000, msgpack.packb({"type": "pass"})
            sent = 0
            try:
                for index in range(300):
                    await flood.send(commit(huge_act_id if index % 2 else f"short-{index}", action))
                    sent += 1
                # Then acks that do not match the view, each answered with a snapshot the
                # reader never reads: its queue overflows before its budget runs out.
                for index in range(2000):
                    await flood.send(table_pb2.ClientMessage(ack=table_pb2.Ack(seq=0, view_hash="not-the-view")))
                    sent += 1
                    if index % 100 == 99 and (await table_status(host, table_id)).streams == 4:
                        break
            except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                pass  # the room ended the stream while we were still writing
            await wait_until(lambda: host.call(table_status(host, table_id)).streams == 4, timeout=20)
            status = await table_status(host, table_id)
            rss_growth = room.memory_info().rss - rss_before
            ending = await flood.ending()
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return sent, status, hash_before, rss_growth, ending, sessions
        finally:
            if flood is not None:
                await flood.close()
            await close_all(lobbies + [watcher], sessions)

    sent, status, hash_before, rss_growth, (code, details, received), sessions = run(scenario())
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "fell too far behind" in details, (code, details, sent)
    assert "reconnect with your last seq" in details and received > 0
    assert 0 < status.remembered_rejections <= 64
    assert status.state_hash == hash_before and status.seq == 1  # dealt, no move
    assert rss_growth < 64 * 1024 * 1024, f"the room grew by {rss_growth >> 20} MB during the flood"
    assert all(s.result is not None and s.desyncs == 0 for s in sessions)


def test_four_streams_of_one_seat_leave_only_the_newest(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        streams = []
        try:
            table_id, token = sessions[1].table_id, sessions[1].assignment.seat_token
            for _ in range(4):
                stream = RawStream(sessions[1].assignment.endpoint)
                await stream.send(hello(token))
                assert (await stream.read(1))[0].HasField("snapshot")
                streams.append(stream)
            endings = [await stream.ending() for stream in streams[:3]]
            streams_open = (await table_status(host, table_id)).streams
            with pytest.raises(StreamReplaced):
                await sessions[1].wait_for_request(after_seq=10_000, timeout=10)
            sdk_failure = (sessions[1].reconnects, sessions[1].connected)
            await streams[3].close()
            await sessions[1].reconnect()  # taking the seat back on purpose
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return endings, streams_open, sdk_failure, sessions
        finally:
            for stream in streams:
                await stream.close()
            await close_all(lobbies, sessions)

    endings, streams_open, (reconnects, connected), sessions = run(scenario())
    for code, details, _ in endings:
        assert code == grpc.StatusCode.ABORTED and details == "replaced by a newer stream for seat 1"
    assert streams_open == 4  # three SDK sessions and the newest raw stream
    assert reconnects == 0 and not connected  # the SDK did not fight for its seat
    assert all(s.result is not None and s.desyncs == 0 for s in sessions)


def test_a_seat_flooding_far_over_its_budget_loses_its_stream_and_is_refused_streams_for_a_while(host) -> None:
    """The room answers RATE_LIMITED for a while, then ends the stream instead
    of answering (and reading) the rest of the flood; the seat's new streams
    are refused until its cooldown has passed, and then it plays on."""

    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        flood = refused = None
        try:
            token, endpoint = sessions[1].assignment.seat_token, sessions[1].assignment.endpoint
            flood = RawStream(endpoint)
            await flood.send(hello(token))
            reading = asyncio.ensure_future(flood.ending(timeout=30))  # answers read as they come
            sent = 0
            try:
                async with asyncio.timeout(30):
                    for index in range(5_000):
                        await flood.send(commit(f"flood-{index}", msgpack.packb({"type": "pass"})))
                        sent += 1
            except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                pass  # ended: the rest is never sent
            flood_ending = await reading
            status = await table_status(host, sessions[1].table_id)
            refused = RawStream(endpoint)
            await refused.send(hello(token))
            refused_ending = await refused.ending()
            await sessions[1].reconnect()  # after the cooldown the seat may play again

            async def taken_back() -> bool:
                return sessions[1].connected

            await wait_until(taken_back, 15)
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return sent, flood_ending, status, refused_ending, sessions
        finally:
            for stream in (flood, refused):
                if stream is not None:
                    await stream.close()
            await close_all(lobbies, sessions)

    sent, (flood_code, flood_details, answers), status, (code, details, _), sessions = run(scenario())
    assert status.streams_flooded == 1 and status.seq == 1  # dealt, no move
    # The room's status, unless the client's gRPC ended the call itself for a
    # write that raced it (INTERNAL, "Internal error from Core").
    assert (flood_code == grpc.StatusCode.RESOURCE_EXHAUSTED and "far over its budget" in flood_details
            or flood_code == grpc.StatusCode.INTERNAL), (flood_code, flood_details)
    assert answers < sent  # the flood's end came before an answer to each of its commits
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "flooded its last stream" in details
    assert all(s.result is not None and s.desyncs == 0 for s in sessions)


def test_a_second_session_of_a_seat_takes_it_over_and_the_first_does_not_fight_back(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        second = None
        try:
            first = sessions[2]
            second = await TableSession.connect(first.assignment, lobbies[2])
            with pytest.raises(StreamReplaced, match="another stream for seat 2"):
                await first.wait_for_request(after_seq=10_000, timeout=10)
            players = [*sessions[:2], second, sessions[3]]
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(players)))
            return first, second
        finally:
            if second is not None:
                await second.close()
            await close_all(lobbies, sessions)

    first, second = run(scenario())
    assert first.reconnects == 0 and second.reconnects == 0
    assert second.result is not None and second.desyncs == 0


def test_a_thousand_deep_seat_value_and_a_non_utf8_act_id_are_rejected_and_change_nothing(host) -> None:
    deep_seat = b"\x82\xa4type\xa4pass\xa4seat" + b"\x91" * 1000 + b"\x00"  # {"type": "pass", "seat": [[[...0]]]}
    # A ClientMessage whose commit's act_id (a proto3 string) is not UTF-8: it does not parse.
    not_utf8 = b"\x12\x08\x0a\x02\xff\xfe\x12\x02\x81\xa0"

    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        stream = None
        try:
            actor = sessions[sessions[0].view["to_act"]]
            hash_before = (await table_status(host, actor.table_id)).state_hash
            stream = RawStream(actor.assignment.endpoint)
            await stream.send(hello(actor.assignment.seat_token, 0), commit("deep", deep_seat), not_utf8)
            replies = await stream.read(3)  # a snapshot, then the two answers
            status = await table_status(host, actor.table_id)
            legal = msgpack.packb(actor.view["request"]["legal_actions"][0])
            await stream.send(commit("fine", legal))  # the stream still works
            accepted = await stream.read(1)
            await stream.close()
            await actor.reconnect()
            await wait_until(lambda: actor.seq >= 2)  # the move made on the raw stream (after the deal), replayed
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return replies, accepted, hash_before, status
        finally:
            if stream is not None:
                await stream.close()
            await close_all(lobbies, sessions)

    replies, accepted, hash_before, status = run(scenario())
    rejections = [(r.rejection.act_id, r.rejection.reason) for r in replies if r.HasField("rejection")]
    assert rejections == [("deep", table_pb2.REJECT_REASON_MALFORMED), ("", table_pb2.REJECT_REASON_PROTOCOL)]
    assert "nested at most" in replies[-2].rejection.message
    assert "not a tablehost.v1.ClientMessage" in replies[-1].rejection.message
    assert status.state_hash == hash_before and status.seq == 1  # dealt, no move
    assert accepted[0].HasField("delta") and accepted[0].delta.act_id == "fine"


@pytest.mark.parametrize("seat", [4, 1000, -2])
def test_a_token_for_a_seat_the_table_does_not_have_is_refused(host, seat: int) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        stream = None
        try:
            table_id = sessions[0].table_id
            stream = RawStream(sessions[0].assignment.endpoint)
            await stream.send(hello(token_for(host, table_id, seat)))
            replies = await stream.read(1)
            ending = await stream.ending()
            streams = (await table_status(host, table_id)).streams
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return replies, ending, streams, sessions
        finally:
            if stream is not None:
                await stream.close()
            await close_all(lobbies, sessions)

    replies, (code, details, _), streams, sessions = run(scenario())
    assert replies[0].rejection.reason == table_pb2.REJECT_REASON_BAD_TOKEN
    assert code == grpc.StatusCode.UNAUTHENTICATED and f"names seat {seat}" in details and "seats 0-3" in details
    assert streams == 4  # no broken subscriber left behind
    assert all(s.result is not None for s in sessions)  # and the table did not freeze


def test_a_token_of_another_run_of_the_host_is_refused(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        stream = None
        try:
            table_id = sessions[0].table_id
            stream = RawStream(sessions[0].assignment.endpoint)
            await stream.send(hello(token_for(host, table_id, 0, run_id="0" * 16)))
            replies = await stream.read(1)
            ending = await stream.ending()
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return table_id, replies, ending
        finally:
            if stream is not None:
                await stream.close()
            await close_all(lobbies, sessions)

    table_id, replies, (code, details, _) = run(scenario())
    assert replies[0].rejection.reason == table_pb2.REJECT_REASON_BAD_TOKEN
    assert code == grpc.StatusCode.UNAUTHENTICATED and "another run of the host" in details
    assert host.host.run_id in table_id and host.lobby("status").run_id == host.host.run_id


def test_streams_that_never_say_hello_are_closed_after_the_hello_timeout(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        # Each on its own connection: a room takes 16 streams at once on one.
        silent = [RawStream(sessions[0].assignment.endpoint, OWN_CONNECTION) for _ in range(50)]
        try:
            started = time.monotonic()
            endings = await asyncio.gather(*(stream.ending(timeout=10) for stream in silent))
            waited = time.monotonic() - started
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return endings, waited
        finally:
            for stream in silent:
                await stream.close()
            await close_all(lobbies, sessions)

    endings, waited = run(scenario())
    assert {(code, details) for code, details, _ in endings} == {
        (grpc.StatusCode.DEADLINE_EXCEEDED, "no hello within 1 s of opening the stream")
    }
    assert waited < 8


def test_past_the_rooms_bound_on_silent_streams_the_one_waiting_longest_is_closed(host) -> None:
    """More streams wait for their hello than the room keeps (128): the
    oldest are closed RESOURCE_EXHAUSTED at once, the rest at the hello
    timeout, and a client that says hello meanwhile is served."""
    bound = RoomConfig().max_streams_awaiting_hello
    extra = 20

    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        # As many connections as the room's cap of streams on one requires.
        channels = [grpc.aio.insecure_channel(sessions[0].assignment.endpoint, options=OWN_CONNECTION)
                    for _ in range(math.ceil((bound + extra) / ROOM_STREAMS_PER_CONNECTION))]
        try:
            silent = [channels[index % len(channels)].stream_stream(PLAY)() for index in range(bound + extra)]
            watcher = LobbyClient(host.target)
            spectator = await TableSession.connect(await watcher.spectate(sessions[0].table_id), watcher)
            watched = spectator.view is not None
            await spectator.close()
            await watcher.close()
            endings = []
            for call in silent:
                try:
                    await call.read()
                except grpc.aio.AioRpcError:
                    pass
                endings.append((await call.code(), await call.details()))
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return endings, watched
        finally:
            for channel in channels:
                await channel.close()
            await close_all(lobbies, sessions)

    endings, watched = run(scenario())
    evicted = [details for code, details in endings if code == grpc.StatusCode.RESOURCE_EXHAUSTED]
    timed_out = [details for code, details in endings if code == grpc.StatusCode.DEADLINE_EXCEEDED]
    assert watched and len(evicted) + len(timed_out) == bound + extra
    assert len(evicted) >= extra and all("had waited longest" in details for details in evicted)


def test_spectator_streams_are_bounded_per_table(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        watcher = LobbyClient(host.target)
        watchers: list[RawStream] = []
        try:
            spectator = await watcher.spectate(sessions[0].table_id)
            for _ in range(64):
                stream = RawStream(spectator.endpoint, OWN_CONNECTION)
                await stream.send(hello(spectator.seat_token))
                assert (await stream.read(1))[0].HasField("snapshot")
                watchers.append(stream)
            one_too_many = RawStream(spectator.endpoint, OWN_CONNECTION)
            watchers.append(one_too_many)
            await one_too_many.send(hello(spectator.seat_token))
            ending = await one_too_many.ending()
            streams = (await table_status(host, sessions[0].table_id)).streams
            for stream in watchers:
                await stream.close()
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return ending, streams
        finally:
            for stream in watchers:
                await stream.close()
            await close_all(lobbies + [watcher], sessions)

    (code, details, received), streams = run(scenario())
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "maximum of 64 spectator streams" in details
    assert received == 0 and streams == 4 + 64


def test_the_front_door_refuses_requests_that_cannot_name_anything_before_asking_the_lobby(host) -> None:
    async def scenario():
        async with grpc.aio.insecure_channel(host.target) as channel:
            async def code_of(method: str, request: bytes) -> tuple[grpc.StatusCode, str]:
                try:
                    await channel.unary_unary(f"/tablehost.v1.Lobby/{method}")(request, timeout=10)
                except grpc.aio.AioRpcError as error:
                    return error.code(), error.details()
                return grpc.StatusCode.OK, ""

            return {
                "empty table id": await code_of("LookupTable", b""),
                "control characters": await code_of("Spectate", b"\x0a\x04\x1b[2J"),
                "empty ticket": await code_of("LeaveQueue", b""),
                "not UTF-8": await code_of("LookupTable", b"\x0a\x02\xff\xfe"),
            }

    refused = run(scenario())
    assert {name: code for name, (code, _) in refused.items()} == dict.fromkeys(refused, grpc.StatusCode.INVALID_ARGUMENT)
    assert refused["empty table id"][1] == "table_id is empty"
    assert "control characters" in refused["control characters"][1]
    assert refused["not UTF-8"][1] == "4 bytes that are not a tablehost.v1.LookupTableRequest"


def test_a_message_over_the_rooms_size_limit_ends_the_stream_and_changes_nothing(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        watcher = LobbyClient(host.target)
        stream = None
        try:
            table_id = sessions[0].table_id
            before = await table_status(host, table_id)
            spectator = await watcher.spectate(table_id)
            stream = RawStream(spectator.endpoint)
            await stream.send(hello(spectator.seat_token))
            assert (await stream.read(1))[0].HasField("snapshot")
            oversized = commit("x" * (RoomConfig().max_message_bytes + 1024), msgpack.packb({"type": "pass"}))
            try:
                await stream.send(oversized)
            except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                pass  # the room ended the stream while it was still being written
            ending = await stream.ending()
            after = await table_status(host, table_id)
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return ending, before, after, sessions
        finally:
            if stream is not None:
                await stream.close()
            await close_all(lobbies + [watcher], sessions)

    (code, details, _), before, after, sessions = run(scenario())
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "larger than max" in details
    assert after.state_hash == before.state_hash and after.seq == before.seq
    assert all(s.result is not None and s.desyncs == 0 for s in sessions)

