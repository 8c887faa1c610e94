"""Starting and stopping a host: Ray (embedded, or joined), the lobby actor,
and the front door's grpc.aio server (lobby, admin, health, reflection)."""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

from grpc import aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from tablehost.actors.server_options import server_options
from tablehost.games.registry import GameCatalog
from tablehost.host.admin_service import AdminService
from tablehost.host.config import HostConfig
from tablehost.host.lobby_service import LobbyService
from tablehost.host.waiting import WaitingRoom
from tablehost.v1 import admin_pb2, admin_pb2_grpc, lobby_pb2, lobby_pb2_grpc, table_pb2

log = logging.getLogger("tablehost.host")

LOBBY_SERVICE = lobby_pb2.DESCRIPTOR.services_by_name["Lobby"].full_name
TABLE_SERVICE = table_pb2.DESCRIPTOR.services_by_name["Table"].full_name
ADMIN_SERVICE = admin_pb2.DESCRIPTOR.services_by_name["Admin"].full_name
# Lobby requests are small; anything bigger is refused by gRPC before it is parsed.
MAX_REQUEST_BYTES = 16 * 1024


def start_ray(config: HostConfig) -> None:
    """With no address, start a Ray of our own on loopback: its node address
    is 127.0.0.1 and the processes it starts inherit the variable that keeps
    Ray's servers off the machine's network address. With an address, join
    that cluster."""
    import ray

    from tablehost.actors.lobby import NAMESPACE

    if ray.is_initialized():
        return
    if config.ray_address is None:
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
        # address="local": a Ray of our own, even if another cluster on this
        # machine left its address where ray.init() would find it.
        ray.init(address="local", namespace=NAMESPACE, include_dashboard=False, log_to_driver=False,
                 configure_logging=False, _node_ip_address="127.0.0.1")
    else:
        ray.init(address=config.ray_address, namespace=NAMESPACE, log_to_driver=False)


def get_or_create_lobby(config: HostConfig) -> Any:
    from tablehost.actors.lobby import LOBBY_NAME, NAMESPACE, LobbyActor

    return LobbyActor.options(
        name=LOBBY_NAME,
        namespace=NAMESPACE,
        get_if_exists=True,
        lifetime="detached" if config.ray_address is not None else None,
    ).remote(config.lobby_config())


class Host:
    """One front door over one lobby. `start` returns once it serves."""

    def __init__(self, config: HostConfig) -> None:
        self.config = config
        self.lobby: Any = None
        self.waiting: WaitingRoom | None = None
        self.server: aio.Server | None = None
        self.port = 0
        self._health = health.aio.HealthServicer()

    @property
    def target(self) -> str:
        return f"{self.config.host}:{self.port}"

    async def start(self) -> None:
        start_ray(self.config)
        self.lobby = get_or_create_lobby(self.config)
        await self.lobby.ready.remote()
        self.waiting = WaitingRoom(self.lobby, self.config.max_waiting)
        self.waiting.start()
        catalog = GameCatalog.load(self.config.game_modules, self.config.game_path)
        server = aio.server(options=server_options(MAX_REQUEST_BYTES, self.config.max_waiting))
        lobby_pb2_grpc.add_LobbyServicer_to_server(LobbyService(self.lobby, self.waiting, catalog), server)
        admin_pb2_grpc.add_AdminServicer_to_server(AdminService(self.lobby, self.waiting), server)
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        # Rooms serve Table without reflection (their memory is their
        # tables'): the front door describes it, so tools can fetch it here.
        reflection.enable_server_reflection(
            (LOBBY_SERVICE, ADMIN_SERVICE, TABLE_SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME), server
        )
        self.port = server.add_insecure_port(f"{self.config.host}:{self.config.port}")
        if self.port == 0:
            raise SystemExit(f"cannot bind {self.config.host}:{self.config.port}")
        await server.start()
        await self._health.set("", health_pb2.HealthCheckResponse.SERVING)
        await self._health.set(LOBBY_SERVICE, health_pb2.HealthCheckResponse.SERVING)
        self.server = server

    async def stop(self, grace_s: float = 2.0) -> None:
        """Stop taking calls, close every room's streams with a status, then
        leave Ray: an embedded Ray is shut down, a joined cluster is left
        running (its lobby is detached)."""
        import ray

        await self._health.enter_graceful_shutdown()
        if self.waiting is not None:
            await self.waiting.stop()
        if self.server is not None:
            await self.server.stop(grace_s)
            self.server = None
        if self.config.ray_address is None and self.lobby is not None:
            rooms = await self.lobby.room_handles.remote()
            await asyncio.gather(*(room.stop.remote() for room in rooms.values()), return_exceptions=True)
            ray.shutdown()
        elif ray.is_initialized():
            ray.shutdown()
        log.info("host stopped")
