"""The floor: a bare grpc.aio bidirectional echo with the same streams and traffic as a
table of bots, server and clients each in a process of their own.

N groups of 4 streams; in each group one stream at a time sends 40 bytes (a commit),
the server sends 200 bytes (a delta) to all 4 streams of the group, the sender's round
trip is send -> its own reply, then the turn passes to the next stream. The server has
the shape of the room's TableService: an async generator per stream fed by an outbox
queue, and a reader task per stream. The "echo + acks" floor adds what the SDK also does:
every stream answers every reply with a 72-byte ack (an Ack's seq and 64-hex-digit view
hash) before it reads on, 4 acks per move.

Nothing here parses, validates, builds views or hashes: it is what the same streams cost
grpc.aio and asyncio alone.
"""

from __future__ import annotations

import asyncio
import signal
import time
from typing import Any

from hostbench import stats

COMMIT_BYTES = 40
DELTA_BYTES = 200
ACK_BYTES = 72
ACK_MARK = 0xFF
ECHO_SERVICE = "tablehost.bench.Echo"
ECHO_METHOD = f"/{ECHO_SERVICE}/Play"


def _echo_handler() -> Any:
    import grpc

    groups: dict[bytes, list[asyncio.Queue[bytes | None]]] = {}
    padding = b"d" * (DELTA_BYTES - 8)

    async def play(request_iterator: Any, context: Any) -> Any:
        try:
            hello = await anext(request_iterator)
        except StopAsyncIteration:
            return
        key = bytes(hello[:8])
        outbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        members = groups.setdefault(key, [])
        members.append(outbox)
        outbox.put_nowait(b"ok")

        async def read() -> None:
            try:
                async for message in request_iterator:
                    if message[0] == ACK_MARK:
                        continue  # an ack: read and dropped, as a room checks one against a hash
                    reply = bytes(message[:8]) + padding
                    for member in members:
                        member.put_nowait(reply)
            finally:
                outbox.put_nowait(None)

        reader = asyncio.create_task(read())
        try:
            while (item := await outbox.get()) is not None:
                yield item
        finally:
            reader.cancel()
            members.remove(outbox)
            if not members:
                groups.pop(key, None)

    return grpc.method_handlers_generic_handler(ECHO_SERVICE, {"Play": grpc.stream_stream_rpc_method_handler(play)})


async def serve(lifetime_s: float) -> None:
    """Serve until SIGINT/SIGTERM, or `lifetime_s` at most (a server left behind ends itself)."""
    from grpc import aio

    server = aio.server()
    server.add_generic_rpc_handlers((_echo_handler(),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(f"listening on 127.0.0.1:{port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await asyncio.wait_for(stop.wait(), lifetime_s)
    except TimeoutError:
        pass
    await server.stop(1)


async def run_clients(
    target: str, groups: int, rounds: int, timeout_s: float, acks: bool, group_base: int = 0
) -> dict[str, Any]:
    """Play `rounds` turns in each of `groups` groups of 4 streams; the histogram of
    round trips comes back encoded so split runs add up exactly."""
    import grpc
    from grpc import aio

    hist = stats.histogram()
    errors: list[str] = []
    padding = b"c" * (COMMIT_BYTES - 8)
    ack = bytes([ACK_MARK]) + b"a" * (ACK_BYTES - 1)

    async def one_group(group: int) -> None:
        channels = [aio.insecure_channel(target) for _ in range(4)]
        calls = [channel.stream_stream(ECHO_METHOD)() for channel in channels]
        waiting: list[asyncio.Future[None] | None] = [None] * 4
        locks = [asyncio.Lock() for _ in calls]  # grpc.aio allows one write at a time per call
        closed = [False] * 4  # no ack after this stream's done_writing
        readers: list[asyncio.Task[None]] = []
        try:
            key = group.to_bytes(8, "big")
            for call in calls:
                await call.write(key)
            for call in calls:  # every stream of the group is registered before the first send
                if await call.read() != b"ok":
                    raise RuntimeError("the echo server did not acknowledge the hello")

            async def read(index: int, call: Any) -> None:
                while (message := await call.read()) is not aio.EOF:
                    future = waiting[index]
                    if message[0] == index and future is not None and not future.done():
                        future.set_result(None)
                    if acks:  # like the SDK: the outcome first, then the ack, before reading on
                        async with locks[index]:
                            if not closed[index]:
                                await call.write(ack)

            readers = [asyncio.create_task(read(index, call)) for index, call in enumerate(calls)]
            loop = asyncio.get_running_loop()
            for turn in range(rounds):
                sender = turn % 4
                waiting[sender] = future = loop.create_future()
                message = bytes([sender]) + turn.to_bytes(7, "big") + padding
                started = time.perf_counter()
                async with locks[sender]:
                    await calls[sender].write(message)
                await future
                stats.record(hist, time.perf_counter() - started)
            for index, call in enumerate(calls):
                async with locks[index]:
                    closed[index] = True
                    await call.done_writing()
            await asyncio.wait_for(asyncio.gather(*readers), 5)
        except (grpc.aio.AioRpcError, RuntimeError, TimeoutError, asyncio.InvalidStateError) as error:
            errors.append(f"group {group}: {type(error).__name__}: {error}")
        finally:
            for task in readers:
                task.cancel()
            for channel in channels:
                await channel.close()

    started, cpu_started = time.perf_counter(), time.process_time()
    try:
        await asyncio.wait_for(asyncio.gather(*(one_group(group_base + g) for g in range(groups))), timeout_s)
    except TimeoutError:
        errors.append(f"the echo run did not finish within {timeout_s:g} s")
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    return {
        "streams": 4 * groups,
        "round_trips": hist.get_total_count(),
        "elapsed_s": round(elapsed, 3),
        "client_cpu_s": round(cpu, 4),
        "histogram": stats.encode(hist),
        "errors": len(errors),
        "error_messages": errors[:5],
    }
