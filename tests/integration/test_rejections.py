"""Every rejection reason, provoked through the wire; each leaves the table
exactly as it was (the next view hash chains from the same view), and a
repeated act_id is never applied twice."""

from __future__ import annotations

import asyncio

import grpc
import msgpack
import pytest
from conftest import run
from support import close_all, play_randomly, seat_table, table_status

from tablehost.clients.sdk import LobbyClient, TableSession
from tablehost.v1 import table_pb2, table_pb2_grpc

pytestmark = pytest.mark.integration


async def raw_exchange(endpoint: str, messages: list[table_pb2.ClientMessage], replies: int) -> tuple[list, grpc.StatusCode | None]:
    """Send messages on a bare stream (no SDK) and read `replies` answers."""
    async with grpc.aio.insecure_channel(endpoint) as channel:
        call = table_pb2_grpc.TableStub(channel).Play()
        for message in messages:
            await call.write(message)
        received = []
        try:
            for _ in range(replies):
                reply = await asyncio.wait_for(call.read(), 10)
                if reply is grpc.aio.EOF:
                    break
                received.append(reply)
            await call.done_writing()
        except grpc.aio.AioRpcError as error:
            return received, error.code()
        call.cancel()
        return received, None


def commit(act_id: str, action: bytes) -> table_pb2.ClientMessage:
    return table_pb2.ClientMessage(commit=table_pb2.Commit(act_id=act_id, action=action))


def hello(token: str, last_seq: int = 0) -> table_pb2.ClientMessage:
    return table_pb2.ClientMessage(hello=table_pb2.Hello(seat_token=token, last_seq=last_seq))


def test_each_bad_commit_gets_its_reason_and_changes_nothing(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        try:
            to_act = sessions[0].view["to_act"]
            actor, other = sessions[to_act], sessions[(to_act + 1) % 4]
            hand = actor.view["hand"]
            other_hand = other.view["hand"]
            seq_before = actor.seq
            hash_before = host.call(table_status(host, actor.table_id)).state_hash
            outcomes = {
                "out of turn": await other.commit({"type": "play", "cards": [other_hand[0]]}),
                "another seat": await actor.commit({"type": "pass", "seat": (to_act + 2) % 4}),
                "illegal play": await actor.commit({"type": "play", "cards": [c for c in hand if c != "3C"][:1]}),
                "not a combination": await actor.commit({"type": "play", "cards": hand[:3]}),
                "leader passes": await actor.commit({"type": "pass"}),
                "unknown action": await actor.commit({"type": "draw_card"}),
                "malformed payload": await actor.commit({"type": "play", "cards": "3C"}),
            }
            raw, _ = await raw_exchange(
                actor.assignment.endpoint,
                [hello(actor.assignment.seat_token, 0), commit("raw-1", b"\xc1\xff not msgpack")],
                2,  # the snapshot a fresh stream gets, then the answer
            )
            hash_after = host.call(table_status(host, actor.table_id)).state_hash
            seq_after = actor.seq
            await actor.reconnect()  # the raw stream took the seat over (one live stream per seat)
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return outcomes, raw, hash_before, hash_after, seq_before, seq_after, sessions
        finally:
            await close_all(lobbies, sessions)

    outcomes, raw, hash_before, hash_after, seq_before, seq_after, sessions = run(scenario())
    reasons = {name: outcome.reason for name, outcome in outcomes.items()}
    assert reasons == {
        "out of turn": table_pb2.REJECT_REASON_NOT_YOUR_TURN,
        "another seat": table_pb2.REJECT_REASON_NOT_YOUR_SEAT,
        "illegal play": table_pb2.REJECT_REASON_ILLEGAL_MOVE,
        "not a combination": table_pb2.REJECT_REASON_ILLEGAL_MOVE,
        "leader passes": table_pb2.REJECT_REASON_ILLEGAL_MOVE,
        "unknown action": table_pb2.REJECT_REASON_UNKNOWN_ACTION,
        "malformed payload": table_pb2.REJECT_REASON_MALFORMED,
    }
    assert all(not outcome.accepted and outcome.message for outcome in outcomes.values())
    assert [r.rejection.reason for r in raw if r.HasField("rejection")] == [table_pb2.REJECT_REASON_MALFORMED]
    assert hash_before == hash_after and seq_before == seq_after
    assert all(s.desyncs == 0 for s in sessions)


def test_a_forged_token_is_refused_with_unauthenticated(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        try:
            genuine = sessions[0].assignment.seat_token
            payload, signature = genuine.split(".")
            forged_payload = msgpack.packb({"exp": 2**62, "seat": 1, "table": sessions[0].table_id})
            import base64

            forged = base64.urlsafe_b64encode(forged_payload).rstrip(b"=").decode() + "." + signature
            refused = await raw_exchange(sessions[0].assignment.endpoint, [hello(forged)], 2)
            garbage = await raw_exchange(sessions[0].assignment.endpoint, [hello("not-a-token")], 2)
            no_hello = await raw_exchange(sessions[0].assignment.endpoint, [commit("x", b"\x80")], 2)
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return refused, garbage, no_hello
        finally:
            await close_all(lobbies, sessions)

    for (replies, status), reason in zip(run(scenario()), ("BAD_TOKEN", "BAD_TOKEN", "BAD_TOKEN")):
        assert status in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.FAILED_PRECONDITION)
        assert replies and replies[0].rejection.reason == table_pb2.RejectReason.Value(f"REJECT_REASON_{reason}")


def test_a_spectator_cannot_act_and_acting_after_game_over_is_refused(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        watcher_lobby = LobbyClient(host.target)
        try:
            spectator = await TableSession.connect(await watcher_lobby.spectate(sessions[0].table_id), watcher_lobby)
            as_spectator = await spectator.commit({"type": "pass"})
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            await spectator.wait_game_over(10)
            after = await sessions[0].commit({"type": "pass"})
            await spectator.close()
            return as_spectator, after, spectator
        finally:
            await close_all(lobbies + [watcher_lobby], sessions)

    as_spectator, after, spectator = run(scenario())
    assert as_spectator.reason == table_pb2.REJECT_REASON_NOT_YOUR_SEAT
    assert after.reason == table_pb2.REJECT_REASON_GAME_OVER
    assert spectator.desyncs == 0 and "hand" not in spectator.view


def test_a_repeated_act_id_is_applied_once(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        try:
            actor = sessions[sessions[0].view["to_act"]]
            action = actor.view["request"]["legal_actions"][0]
            first = await actor.commit(action, act_id="same-id")
            seq_after_first = actor.seq
            again = await actor.commit(action, act_id="same-id")
            seq_after_again = actor.seq
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return first, again, seq_after_first, seq_after_again
        finally:
            await close_all(lobbies, sessions)

    first, again, seq_after_first, seq_after_again = run(scenario())
    assert first.accepted and not first.duplicate
    assert again.accepted and again.duplicate and again.seq == first.seq
    assert seq_after_again == seq_after_first


def test_protocol_errors_on_the_stream_get_their_own_reason(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target)
        try:
            assignment = sessions[1].assignment
            messages = [
                hello(assignment.seat_token),
                hello(assignment.seat_token),  # a second hello
                commit("x" * 65, msgpack.packb({"type": "pass"})),  # act_id too long
                table_pb2.ClientMessage(ack=table_pb2.Ack(seq=10_000, view_hash="0" * 64)),  # a future seq
            ]
            replies, _ = await raw_exchange(assignment.endpoint, messages, 4)
            await sessions[1].reconnect()  # the raw stream took the seat over (one live stream per seat)
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
            return replies
        finally:
            await close_all(lobbies, sessions)

    replies = run(scenario())
    assert replies[0].HasField("snapshot")
    assert [r.rejection.reason for r in replies[1:]] == [table_pb2.REJECT_REASON_PROTOCOL] * 3
