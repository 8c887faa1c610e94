"""A TCP proxy on 127.0.0.1 that breaks connections on command, for tests of
what clients and the host do when the network between them misbehaves.

A `FaultProxy` listens on a free loopback port and forwards every connection
it accepts to its target endpoint (host:port), byte for byte, in order. Each
`Connection` can be told, and the proxy can tell all of them at once, to:

- delay: hold every chunk for a while before forwarding it (latency; the
  order is kept);
- drop: close both sides with a FIN, as a peer that went away;
- reset: abort both sides with an RST (SO_LINGER 0), as a crashed peer or a
  middlebox that forgot the connection;
- blackhole: forward nothing more in either direction and keep both sides
  open, so the endpoints learn of it only from their own keepalive or
  timeouts. When the client finally gives up and closes its side, the proxy
  closes the target's side too (what the server's own keepalive would do in
  time; without it the server would hold a dead stream until it ends).

`forced` counts, per kind, the faults that ended or blackholed a live
connection: what the endpoints had to recover from. A fault aimed at a
connection that has already ended, or is already blackholed, does nothing
and is not counted.

Everything runs on the event loop that started the proxy."""

from __future__ import annotations

import asyncio
import enum
import itertools
import socket
import struct
from collections import Counter
from typing import Final

_CHUNK_BYTES: Final = 65536
# SO_LINGER on with a zero timeout: close() sends RST and discards unsent data.
_LINGER_ZERO: Final = struct.pack("ii", 1, 0)


class Fault(enum.Enum):
    DROP = "drop"
    RESET = "reset"
    BLACKHOLE = "blackhole"


def split_endpoint(endpoint: str) -> tuple[str, int]:
    host, _, port = endpoint.rpartition(":")
    return host, int(port)


class Connection:
    """One client connection and its connection to the target: two pumps,
    each reading one side and writing, after the delay, to the other."""

    def __init__(self, proxy: FaultProxy, number: int, client: tuple[asyncio.StreamReader, asyncio.StreamWriter],
                 target: tuple[asyncio.StreamReader, asyncio.StreamWriter]) -> None:
        self.proxy = proxy
        self.number = number
        # This connection's own delay in seconds; None follows the proxy's.
        self.delay: float | None = None
        self.blackholed = False
        self.ended = asyncio.Event()
        self.fault: Fault | None = None
        self.bytes_to_target = 0
        self.bytes_to_client = 0
        self._client_reader, self._client_writer = client
        self._target_reader, self._target_writer = target
        self._directions_done = 0
        self._tasks: list[asyncio.Task[None]] = []
        for name, reader, writer in (("up", self._client_reader, self._target_writer),
                                     ("down", self._target_reader, self._client_writer)):
            queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
            self._tasks.append(asyncio.create_task(self._read(reader, queue, name), name=f"proxy {number} {name} read"))
            self._tasks.append(asyncio.create_task(self._write(queue, writer), name=f"proxy {number} {name} write"))

    @property
    def live(self) -> bool:
        """Still forwarding: neither ended nor blackholed."""
        return not self.ended.is_set() and not self.blackholed

    # -- faults ----------------------------------------------------------------

    def drop(self) -> bool:
        """Close both sides (FIN). True if the connection was live."""
        return self._force(Fault.DROP)

    def reset(self) -> bool:
        """Abort both sides with RST. True if the connection was live."""
        return self._force(Fault.RESET)

    def blackhole(self) -> bool:
        """Forward nothing more, keep both sides open. True if it was live."""
        if not self.live:
            return False
        self.blackholed, self.fault = True, Fault.BLACKHOLE
        self.proxy.forced[Fault.BLACKHOLE] += 1
        return True

    def _force(self, fault: Fault) -> bool:
        if not self.live:
            return False
        self.fault = fault
        self.proxy.forced[fault] += 1
        self._end(reset=fault is Fault.RESET)
        return True

    # -- forwarding ------------------------------------------------------------

    async def _read(self, reader: asyncio.StreamReader, queue: asyncio.Queue[tuple[float, bytes]], name: str) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                chunk = await reader.read(_CHUNK_BYTES)
                if self.blackholed and chunk:
                    continue  # swallowed
                if self.blackholed:
                    # The client gave up on the blackholed connection (or the
                    # target closed it): end the other side as well.
                    self._end(reset=False)
                    return
                delay = self.proxy.delay if self.delay is None else self.delay
                if delay > 0 and chunk:
                    self.proxy.delayed_chunks += 1
                if name == "up":
                    self.bytes_to_target += len(chunk)
                else:
                    self.bytes_to_client += len(chunk)
                queue.put_nowait((loop.time() + delay, chunk))
                if not chunk:
                    return
        except OSError:
            self._end(reset=True)  # a reset from one side is passed on to the other

    async def _write(self, queue: asyncio.Queue[tuple[float, bytes]], writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                due, chunk = await queue.get()
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)  # the delay itself, not a synchronisation
                if self.blackholed:
                    continue
                if not chunk:
                    # The other side half-closed: pass it on, and end the
                    # connection once both directions have.
                    if writer.can_write_eof():
                        writer.write_eof()
                    self._directions_done += 1
                    if self._directions_done == 2:
                        self._end(reset=False)
                    return
                writer.write(chunk)
                await writer.drain()
        except OSError:
            self._end(reset=True)

    def _end(self, *, reset: bool) -> None:
        if self.ended.is_set():
            return
        self.ended.set()
        for writer in (self._client_writer, self._target_writer):
            if reset:
                sock = writer.get_extra_info("socket")
                if sock is not None:
                    try:
                        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _LINGER_ZERO)
                    except OSError:
                        pass  # already closed by the peer
                writer.transport.abort()
            else:
                writer.close()
        current = asyncio.current_task()
        for task in self._tasks:
            if task is not current:
                task.cancel()
        self.proxy._ended(self)


class FaultProxy:
    """Forwards connections on 127.0.0.1:<port> to `target`, and breaks them
    on command. `async with FaultProxy(target) as proxy:` or `start()` and
    `close()`; `address` is what a client connects to instead of `target`.
    `target` may be changed (the served endpoint moved): new connections
    go to the new one."""

    def __init__(self, target: str, *, host: str = "127.0.0.1") -> None:
        self.target = target
        self.host = host
        # Seconds every chunk of every connection (without a delay of its own) is held.
        self.delay = 0.0
        self.forced: Counter[Fault] = Counter()
        self.accepted = 0
        self.delayed_chunks = 0
        self.connections: list[Connection] = []  # not yet ended, in the order accepted
        self.latest: Connection | None = None  # the last accepted, ended or not
        self._server: asyncio.Server | None = None
        self._port = 0
        self._numbers = itertools.count(1)

    async def __aenter__(self) -> FaultProxy:
        return await self.start()

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    async def start(self) -> FaultProxy:
        self._server = await asyncio.start_server(self._accept, self.host, 0)
        self._port = self._server.sockets[0].getsockname()[1]
        return self

    @property
    def address(self) -> str:
        if not self._port:
            raise RuntimeError("the proxy is not started")
        return f"{self.host}:{self._port}"

    @property
    def live(self) -> list[Connection]:
        return [connection for connection in self.connections if connection.live]

    @property
    def blackholed(self) -> list[Connection]:
        return [connection for connection in self.connections if connection.blackholed]

    @property
    def forced_total(self) -> int:
        return sum(self.forced.values())

    def drop_all(self) -> int:
        """Drop every live connection; returns how many were."""
        return sum(connection.drop() for connection in list(self.connections))

    def reset_all(self) -> int:
        return sum(connection.reset() for connection in list(self.connections))

    def blackhole_all(self) -> int:
        return sum(connection.blackhole() for connection in list(self.connections))

    async def close(self) -> None:
        """Stop accepting and end every connection (not counted as faults)."""
        server, self._server = self._server, None
        if server is not None:
            server.close()
        for connection in list(self.connections):
            connection._end(reset=False)
        if server is not None:
            await server.wait_closed()

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        try:
            target = await asyncio.open_connection(*split_endpoint(self.target))
        except OSError:
            client_writer.transport.abort()  # as the target itself would have refused
            return
        self.latest = Connection(self, next(self._numbers), (client_reader, client_writer), target)
        self.connections.append(self.latest)

    def _ended(self, connection: Connection) -> None:
        if connection in self.connections:
            self.connections.remove(connection)
