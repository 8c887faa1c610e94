"""The web gateway as a hostile browser meets it, through real HTTP and
WebSocket connections to the session host: only the Lobby's and
Tournaments' calls are relayed; bodies and frames are bounded; a table
stream must open with a hello whose seat token the host signed, within the
hello timeout; each address holds a bounded number of streams; and the
front door's quotas count the browser's player, not the gateway."""

from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest
from conftest import player_token, run
from support import waiting_in_queue, wait_until

from tablehost.host.web_gateway import MAX_MESSAGE_BYTES, MAX_STREAMS_PER_ADDRESS
from tablehost.v1 import lobby_pb2, table_pb2

pytestmark = [pytest.mark.integration]

PLAY = "/v1/stream/tablehost.v1.Table/Play"


def base(host) -> str:
    return f"http://{host.host.web.address}"


async def final_status(socket: aiohttp.ClientWebSocketResponse) -> dict:
    """The text frame that ends a stream, past any binary ones."""
    async with asyncio.timeout(10):
        async for frame in socket:
            if frame.type == aiohttp.WSMsgType.TEXT:
                return json.loads(frame.data)
    raise AssertionError("the stream closed without its status")


def test_only_the_players_calls_are_relayed_and_bodies_are_bounded(host) -> None:
    async def scenario() -> None:
        async with aiohttp.ClientSession() as http:
            async with http.post(f"{base(host)}/v1/rpc/tablehost.v1.Admin/Status", data=b"") as refused:
                assert refused.status == 404
                assert (await refused.json())["code"] == 12  # UNIMPLEMENTED: the admin plane is not for browsers
            async with http.post(f"{base(host)}/v1/rpc/tablehost.v1.Lobby/LookupTable",
                                 data=b"x" * (MAX_MESSAGE_BYTES + 1)) as too_big:
                assert too_big.status == 413
            async with http.post(f"{base(host)}/v1/rpc/tablehost.v1.Lobby/LookupTable", data=b"\xff\xff") as garbage:
                assert garbage.status == 400 and (await garbage.json())["code"] == 3  # the door's INVALID_ARGUMENT
            request = lobby_pb2.LookupTableRequest(table_id="bigtwo-nothing-1-000000").SerializeToString()
            async with http.post(f"{base(host)}/v1/rpc/tablehost.v1.Lobby/LookupTable", data=request) as missing:
                assert missing.status == 404 and (await missing.json())["code"] == 5

    run(scenario())


def test_a_table_stream_needs_a_signed_hello_in_time(host) -> None:
    async def scenario() -> None:
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(base(host) + PLAY) as forged:
                hello = table_pb2.ClientMessage(hello=table_pb2.Hello(seat_token="e30.AAAA"))
                await forged.send_bytes(hello.SerializeToString())
                assert (await final_status(forged))["code"] == 16  # UNAUTHENTICATED
            async with http.ws_connect(base(host) + PLAY) as not_hello:
                ack = table_pb2.ClientMessage(ack=table_pb2.Ack(seq=1, view_hash="0" * 64))
                await not_hello.send_bytes(ack.SerializeToString())
                assert (await final_status(not_hello))["code"] == 9  # FAILED_PRECONDITION
            async with http.ws_connect(base(host) + PLAY) as silent:
                ended = await final_status(silent)
                assert ended["code"] == 4 and "no first message" in ended["details"]  # DEADLINE_EXCEEDED
            async with http.ws_connect(base(host) + PLAY) as flooding:
                await flooding.send_bytes(b"\x0a" * (MAX_MESSAGE_BYTES + 1))
                async with asyncio.timeout(10):
                    frame = await flooding.receive()
                assert frame.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING)
                assert flooding.close_code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG

    run(scenario())


def test_an_address_holds_a_bounded_number_of_streams(host) -> None:
    async def scenario() -> None:
        async with aiohttp.ClientSession() as http:
            sockets = [await http.ws_connect(base(host) + PLAY) for _ in range(MAX_STREAMS_PER_ADDRESS)]
            try:
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await http.ws_connect(base(host) + PLAY)
                assert refused.value.status == 429
            finally:
                for socket in sockets:
                    await socket.close()

    run(scenario())


def test_the_front_doors_quotas_count_the_browsers_player(host) -> None:
    """A player waits for 4 seats at once at most: the fifth join of one
    signed-in browser is refused, whatever the gateway's own address is
    allowed (tables of 8 that these joins alone never fill)."""
    async def scenario() -> None:
        headers = {"authorization": f"Bearer {player_token('web-quota')}"}
        async with aiohttp.ClientSession() as http:
            async def join(i: int) -> tuple[int, dict | None]:
                request = lobby_pb2.JoinQueueRequest(game="kingdoms", display_name=f"q{i}", ticket=f"web-quota-{i}",
                                                     seats=8)
                async with http.post(f"{base(host)}/v1/rpc/tablehost.v1.Lobby/JoinQueue",
                                     data=request.SerializeToString(), headers=headers) as answer:
                    return answer.status, (await answer.json() if answer.status != 200 else None)

            joins = [asyncio.ensure_future(join(i)) for i in range(8)]
            done, waiting = await asyncio.wait(joins, timeout=5)
            refused = [result for result in (task.result() for task in done) if result[0] == 429]
            assert refused and all(body["code"] == 8 for _, body in refused), [t.result() for t in done]
            assert len(waiting) == 4 and len(refused) == 4
            await wait_until(lambda: waiting_in_queue(host, "kingdoms") == 4)
            for task in waiting:
                task.cancel()  # the browser leaves: its calls end and the tickets leave the queue
            await asyncio.gather(*waiting, return_exceptions=True)
        await wait_until(lambda: waiting_in_queue(host, "kingdoms") == 0)

    run(scenario())
