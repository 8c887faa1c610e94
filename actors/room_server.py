"""A room's servers: the grpc.aio server its players' streams reach (the
table service and health, on a port of the room's range, plaintext or TLS
with this node's certificate) and, when the host serves metrics, the
process's metrics server, whose gauges are counted on the room's loop."""

from __future__ import annotations

import asyncio
import os
import ssl
from pathlib import Path

from grpc import aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from tablehost.actors.config import RoomConfig
from tablehost.actors.metrics import Gauge, MetricsServer, serve_process_metrics
from tablehost.actors.server_options import (
    ROOM_PENDING_CALLS,
    ROOM_STREAMS_PER_CONNECTION,
    bind_port,
    server_credentials,
    server_options,
)
from tablehost.actors.table import Table
from tablehost.actors.table_service import TABLE_SERVICE, TableService

# A scrape waits this long at most for the room's loop to count its tables.
_GAUGE_READ_TIMEOUT_S = 5.0
# What a room's scrape reads of its tables now (see RoomServer._gauges).
ROOM_GAUGES = (
    ("tablehost_room_capacity", "Tables this room may hold", ()),
    ("tablehost_tables", "Tables open in this room, by game", ("game",)),
    ("tablehost_seated_players", "Players with a stream open to their seat, by game", ("game",)),
    ("tablehost_spectators", "Spectator streams open, by game", ("game",)),
)


class NoFreePort(RuntimeError):
    pass


def advertised_host(advertise: str, bind_host: str) -> str:
    """The host part of a room's endpoints: `advertise` ("" for `bind_host`,
    "env:NAME" for that variable of this process). A room on a node without
    the variable fails to start, saying so, rather than advertise an address
    nobody can reach."""
    if not advertise:
        return bind_host
    if not advertise.startswith("env:"):
        return advertise
    name = advertise.removeprefix("env:")
    value = os.environ.get(name, "")
    if not value:
        raise ValueError(f"the rooms advertise the address in ${name}, which is not set on this node")
    return value


def node_certificate(cert_path: str, key_path: str) -> tuple[bytes, bytes]:
    """The certificate chain and key in files on this room's node, each path
    given as is or as "env:NAME" (the path in the variable NAME of this
    process). A room whose node lacks them, or whose files do not make a
    pair, fails to start, saying which, rather than serve with another
    node's certificate."""
    paths = []
    for given in (cert_path, key_path):
        path = given
        if given.startswith("env:"):
            path = os.environ.get(given.removeprefix("env:"), "")
            if not path:
                raise ValueError(f"the rooms read their certificate from the path in ${given.removeprefix('env:')}, "
                                 "which is not set on this node")
        paths.append(path)
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(paths[0], paths[1])
        return Path(paths[0]).read_bytes(), Path(paths[1]).read_bytes()
    except (OSError, ssl.SSLError) as error:
        raise ValueError(f"this node's room certificate {paths[0]} with key {paths[1]}: {error}") from None


class RoomServer:
    def __init__(self, config: RoomConfig, tables: dict[str, Table]) -> None:
        self.config = config
        self.tables = tables  # the room's, by id: the service routes each stream to its table
        self.endpoint = ""
        self.metrics_endpoint = ""
        self._server: aio.Server | None = None
        self._metrics: MetricsServer | None = None

    async def start(self) -> None:
        server = aio.server(options=server_options(self.config.max_message_bytes, ROOM_PENDING_CALLS,
                                                  streams_per_connection=ROOM_STREAMS_PER_CONNECTION))
        TableService(self.tables, self.config).add_to_server(server)
        health_servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        port = self._bind(server)
        await server.start()
        await health_servicer.set(TABLE_SERVICE, health_pb2.HealthCheckResponse.SERVING)
        self._server = server
        host = advertised_host(self.config.advertise_host, self.config.bind_host)
        self.endpoint = f"{host}:{port}"
        if self.config.metrics:
            self._serve_metrics(host)

    async def stop(self, grace_s: float) -> None:
        if self._server is not None:
            await self._server.stop(grace_s)
            self._server = None
        if self._metrics is not None:
            self._metrics.stop()
            self._metrics = None

    def _bind(self, server: aio.Server) -> int:
        low, high = self.config.port_min, self.config.port_max
        candidates = [0] if low == 0 else list(range(low, high + 1))
        if self.config.tls_cert_file:
            credentials = server_credentials(*node_certificate(self.config.tls_cert_file, self.config.tls_key_file))
        else:
            credentials = server_credentials(self.config.tls_cert_pem, self.config.tls_key_pem)
        for port in candidates:
            try:
                bound = bind_port(server, f"{self.config.bind_host}:{port}", credentials)
            except RuntimeError:
                continue
            if bound:
                return bound
        raise NoFreePort(f"no free port in {low}-{high} on {self.config.bind_host}")

    def _serve_metrics(self, host: str) -> None:
        """This process's metrics on a free port of the room's address (the
        front door's /targets lists it for Prometheus). The gauges are counted
        on the room's loop, which owns the tables, when a scrape asks."""
        loop = asyncio.get_running_loop()

        def read() -> list[Gauge]:
            return asyncio.run_coroutine_threadsafe(self._gauges(), loop).result(timeout=_GAUGE_READ_TIMEOUT_S)

        self._metrics = serve_process_metrics(self.config.bind_host, ROOM_GAUGES, read)
        self.metrics_endpoint = f"{host}:{self._metrics.port}"

    async def _gauges(self) -> list[Gauge]:
        by_game: dict[str, list[int]] = {}
        for table in self.tables.values():
            counts = by_game.setdefault(table.metrics.game, [0, 0, 0])
            counts[0] += 1
            counts[1] += table.streams.seated
            counts[2] += table.streams.spectators
        gauges = [Gauge("tablehost_room_capacity", (), self.config.tables_per_room)]
        for game, (tables, seated, spectators) in sorted(by_game.items()):
            gauges += [Gauge("tablehost_tables", (game,), tables), Gauge("tablehost_seated_players", (game,), seated),
                       Gauge("tablehost_spectators", (game,), spectators)]
        return gauges
