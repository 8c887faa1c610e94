"""Starting and stopping a host: Ray (embedded, or joined), the lobby actor,
and the front door's two grpc.aio servers: the players' (Lobby,
Tournaments, health) and the admin listener (Admin, health, reflection),
each call of which needs an admin token."""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from grpc import aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from tablehost.actors.ray_classes import actor_class
from tablehost.actors.server_options import FRONT_DOOR_PENDING_CALLS, bind_port, server_credentials, server_options
from tablehost.actors.table_service import TABLE_SERVICE
from tablehost.actors.unary_parsing import add_unary_service
from tablehost.games.registry import GameCatalog
from tablehost.host.admin_auth import AdminGuard, admin_token, write_audit_file, write_token_file
from tablehost.host.admin_service import AdminService
from tablehost.host.call_guard import FrontDoorGuard
from tablehost.host.config import HostConfig
from tablehost.host.console import Console
from tablehost.host.door_metrics import DoorMetrics
from tablehost.host.identity import Identities, allowance_for, load_verifier
from tablehost.host.lobby_service import LobbyService
from tablehost.host.quotas import Quotas
from tablehost.host.tournament_service import TournamentService, TournamentSettings
from tablehost.host.waiting import WaitingLine
from tablehost.host.web_gateway import WebGateway
from tablehost.v1 import admin_pb2, lobby_pb2, tournament_pb2

log = logging.getLogger("tablehost.host")

LOBBY_SERVICE = lobby_pb2.DESCRIPTOR.services_by_name["Lobby"].full_name
ADMIN_SERVICE = admin_pb2.DESCRIPTOR.services_by_name["Admin"].full_name
TOURNAMENT_SERVICE = tournament_pb2.DESCRIPTOR.services_by_name["Tournaments"].full_name
# Lobby requests are small; anything bigger is refused by gRPC before it is parsed.
MAX_REQUEST_BYTES = 16 * 1024


# Ray reads it when it is imported: "0" keeps every server of a local Ray
# (GCS, raylet, workers, agents) on 127.0.0.1 instead of all interfaces.
LOOPBACK_RAY_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
# Every log file of a local Ray's processes (the lobby's and rooms' output
# among them) rotates at this size, keeping this many old files: at most
# 320 MiB a process, whatever clients make the host log. Ray rotates its
# workers' output only when the variable is set; an operator's own values
# win, and a cluster started with `ray start` needs them in its environment.
LOG_ROTATION = {"RAY_ROTATION_MAX_BYTES": str(64 * 2**20), "RAY_ROTATION_BACKUP_COUNT": "4"}
# Ray starts its workers at niceness 15 unless told otherwise, so the rooms
# (workers serving every move) would yield the CPU to anything else on the
# node, the front door's handling of a flood of refused calls included. A
# room is the latency-critical process of the host: run workers at 0. An
# operator's own value wins; `ray start` reads the same variable.
WORKER_NICENESS = {"RAY_worker_niceness": "0"}


def start_ray(config: HostConfig) -> None:
    """With no address, start a Ray of our own on loopback: its node address
    is 127.0.0.1 and every process it starts binds there, which needs
    LOOPBACK_RAY_ENV set to "0" before ray was imported (the tablehost
    command sets it; a program embedding FrontDoor must too). With an address,
    join that cluster."""
    import ray
    from ray._private import ray_constants  # where Ray keeps what it read of LOOPBACK_RAY_ENV

    from tablehost.actors.lobby import NAMESPACE

    if ray.is_initialized():
        return
    if config.ray_address is None:
        if ray_constants.ENABLE_RAY_CLUSTER:
            raise SystemExit(f"a local Ray would listen beyond 127.0.0.1: set {LOOPBACK_RAY_ENV}=0 before ray is "
                             "imported (the tablehost command does this itself)")
        os.environ[LOOPBACK_RAY_ENV] = "0"  # for the processes it starts
        for name, value in {**LOG_ROTATION, **WORKER_NICENESS}.items():
            os.environ.setdefault(name, value)
        # address="local": a Ray of our own, even if another cluster on this
        # machine left its address where ray.init() would find it.
        ray.init(address="local", namespace=NAMESPACE, include_dashboard=False, log_to_driver=False,
                 configure_logging=False, _node_ip_address="127.0.0.1")
    else:
        ray.init(address=config.ray_address, namespace=NAMESPACE, log_to_driver=False)


def _clock_ms() -> int:
    return time.time_ns() // 1_000_000


def new_run_id() -> str:
    """A random id for one run of the host: in every table id and seat token,
    so nothing issued by an earlier run (same seed, same secret) is accepted."""
    return secrets.token_hex(8)


# A resource Ray gives the head node alone.
HEAD_NODE_RESOURCE = "node:__internal_head__"
# How long a starting front door waits for a lobby that Ray is restarting.
LOBBY_READY_TIMEOUT_S = 120.0


def get_or_create_lobby(config: HostConfig, run_id: str) -> Any:
    """The cluster's lobby; created with `run_id` when there is none yet (a
    front door joining a running lobby serves that lobby's run)."""
    from tablehost.actors.lobby import LOBBY_NAME, NAMESPACE, LobbyActor

    return actor_class(LobbyActor).options(
        name=LOBBY_NAME,
        namespace=NAMESPACE,
        get_if_exists=True,
        lifetime="detached" if config.ray_address is not None else None,
        # Ray restarts a lobby whose process died; it takes its rooms back.
        max_restarts=-1,
        # On the head node (the resource only the head has; a restarted head
        # has it too), not on a worker node whose loss would take the lobby
        # with it: Ray declares a lost node dead only once its health checks
        # have failed (about 15 s), and restarts the lobby only then.
        resources={HEAD_NODE_RESOURCE: 0.001},
    ).remote(config.lobby_config(run_id))


async def lobby_ready(lobby: Any, timeout_s: float = LOBBY_READY_TIMEOUT_S) -> None:
    """Return once the lobby answers. A front door started while the lobby
    restarts (its head node was lost and started again) finds Ray still
    naming the lobby's old process for a few seconds: "temporarily
    unavailable", so it asks again, for up to `timeout_s`."""
    import ray

    loop = asyncio.get_running_loop()
    give_up_at = loop.time() + timeout_s
    pause_s = 0.1
    while True:
        try:
            await lobby.ready.remote()
            return
        except ray.exceptions.ActorUnavailableError as error:
            if loop.time() + pause_s > give_up_at:
                raise
            log.warning("the lobby is not answering yet (%s); asking again", type(error).__name__)
            await asyncio.sleep(pause_s)
            pause_s = min(pause_s * 2, 2.0)


class FrontDoor:
    """One front door over one lobby. `start` returns once it serves."""

    def __init__(self, config: HostConfig) -> None:
        self.config = config
        self.run_id = new_run_id()
        self.lobby: Any = None
        self.waiting: WaitingLine | None = None
        self.server: aio.Server | None = None
        self.port = 0
        self.metrics: DoorMetrics | None = None
        self.quotas: Quotas | None = None
        self.admin_server: aio.Server | None = None
        self.admin_port = 0
        # Where this run's admin token was written (no secret was configured).
        self.admin_token_file: Path | None = None
        self._audit_handler: logging.Handler | None = None
        self.console: Console | None = None
        self.web: WebGateway | None = None
        self._relay_folder: tempfile.TemporaryDirectory[str] | None = None
        # The web gateway's key for naming the browsers it relays (host/identity.py).
        self._forward_key = secrets.token_hex(16)
        self._health = health.aio.HealthServicer()

    @property
    def target(self) -> str:
        return f"{self.config.host}:{self.port}"

    @property
    def admin_target(self) -> str:
        return f"{self.config.admin_host}:{self.admin_port}"

    async def start(self) -> None:
        start_ray(self.config)
        self.lobby = get_or_create_lobby(self.config, self.run_id)
        await lobby_ready(self.lobby)
        self.waiting = WaitingLine(self.lobby, self.config.max_waiting, on_lobby=self._lobby_reachable)
        self.waiting.start()
        catalog = GameCatalog.load(self.config.game_modules, self.config.game_path)
        pending_calls = max(self.config.max_waiting, FRONT_DOOR_PENDING_CALLS)
        server = aio.server(options=server_options(MAX_REQUEST_BYTES, pending_calls))
        # Every call is its client's, counted against the client's quotas,
        # and its request parsed at the services' edge: bytes that are not
        # a request are INVALID_ARGUMENT (actors/unary_parsing.py).
        verifier = load_verifier(self.config.player_auth, self.config.player_auth_secret, _clock_ms)
        self.quotas = Quotas(allowance_for(self.config.quota_exempt))
        guard = FrontDoorGuard(Identities(verifier, self._forward_key), self.quotas, self.config.request_timeout_s)
        add_unary_service(server, lobby_pb2.DESCRIPTOR.services_by_name["Lobby"],
                          LobbyService(self.lobby, self.waiting, catalog, self.quotas), guard)
        tournaments = TournamentService(TournamentSettings.of_host(self.config), catalog)
        add_unary_service(server, tournament_pb2.DESCRIPTOR.services_by_name["Tournaments"], tournaments, guard)
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        credentials = server_credentials(self.config.tls_cert_pem, self.config.tls_key_pem)
        self.port = bind_port(server, f"{self.config.host}:{self.config.port}", credentials)
        if self.port == 0:
            raise SystemExit(f"cannot bind {self.config.host}:{self.config.port}")
        if self.config.web_port is not None:
            # The web gateway reaches this door's services on a socket in a
            # folder only this user reads: no port, no certificate to match
            # whatever address the door binds.
            self._relay_folder = tempfile.TemporaryDirectory(prefix="tablehost-door-")
            relay = f"unix:{self._relay_folder.name}/door.sock"
            if server.add_insecure_port(relay) == 0:
                raise SystemExit(f"cannot bind the web gateway's socket {relay}")
        await server.start()
        self.server = server
        await self._start_admin(AdminService(self.lobby, self.waiting, tournaments, self.config.status_interval_s),
                                tournaments)
        await self._health.set("", health_pb2.HealthCheckResponse.SERVING)
        await self._health.set(LOBBY_SERVICE, health_pb2.HealthCheckResponse.SERVING)
        if self.config.web_port is not None:
            assert self._relay_folder is not None
            self.web = WebGateway(f"unix:{self._relay_folder.name}/door.sock", self._forward_key,
                                  self.config.token_secret, self.config.host,
                                  self.config.web_port, self.config.hello_timeout_s,
                                  tls=(self.config.tls_cert_pem, self.config.tls_key_pem) if self.config.tls_cert_pem
                                  else None)
            await self.web.start()
        if self.config.metrics_port is not None:
            self.metrics = DoorMetrics(self.lobby, self.waiting, self.config.host, self.config.metrics_port)
            await self.metrics.start()

    async def _start_admin(self, service: AdminService, tournaments: TournamentService) -> None:
        """The admin listener: Admin, health and reflection (which describes
        every service, Table's too: rooms serve none), each call with an
        admin token. Without a configured secret, this run's is made up and
        a token for "local" written where only this user reads it."""
        config = self.config
        if config.audit_file:
            self._audit_handler = write_audit_file(config.audit_file)
        if config.admin_token_file:
            self.admin_token_file = Path(config.admin_token_file).expanduser()
            write_token_file(self.admin_token_file, admin_token(config.admin_secret, "local", 2**53))
        server = aio.server(options=server_options(MAX_REQUEST_BYTES, FRONT_DOOR_PENDING_CALLS))
        guard = AdminGuard(config.admin_secret, _clock_ms, config.request_timeout_s)
        add_unary_service(server, admin_pb2.DESCRIPTOR.services_by_name["Admin"], service, guard)
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        reflection.enable_server_reflection(
            (LOBBY_SERVICE, ADMIN_SERVICE, TOURNAMENT_SERVICE, TABLE_SERVICE, health.SERVICE_NAME,
             reflection.SERVICE_NAME), server
        )
        credentials = server_credentials(config.tls_cert_pem, config.tls_key_pem)
        self.admin_port = bind_port(server, f"{config.admin_host}:{config.admin_port}", credentials)
        if self.admin_port == 0:
            raise SystemExit(f"cannot bind the admin listener at {config.admin_host}:{config.admin_port}")
        await server.start()
        self.admin_server = server
        if config.console_port is not None:
            self.console = Console(service, tournaments, guard, self.lobby, config.admin_host, config.console_port,
                                   tls_root_cert=config.tls_cert_pem or None)
            await self.console.start()

    async def _lobby_reachable(self, reachable: bool) -> None:
        """Health follows the lobby: while it is away (Ray restarts it) this
        front door cannot seat anyone, and load balancers should know."""
        status = health_pb2.HealthCheckResponse.SERVING if reachable else health_pb2.HealthCheckResponse.NOT_SERVING
        log.warning("the lobby is %s", "back" if reachable else "unreachable")
        await self._health.set("", status)
        await self._health.set(LOBBY_SERVICE, status)

    async def stop(self, grace_s: float = 2.0) -> None:
        """Stop taking calls, close every room's streams with a status, then
        leave Ray: an embedded Ray is shut down, a joined cluster is left
        running (its lobby is detached)."""
        import ray

        await self._health.enter_graceful_shutdown()
        if self.metrics is not None:
            await self.metrics.stop()
            self.metrics = None
        if self.web is not None:
            await self.web.stop()
            self.web = None
        if self.waiting is not None:
            await self.waiting.stop()
        if self.server is not None:
            await self.server.stop(grace_s)
            self.server = None
        if self.console is not None:
            await self.console.stop()
            self.console = None
        if self.admin_server is not None:
            await self.admin_server.stop(grace_s)
            self.admin_server = None
        if self._relay_folder is not None:
            self._relay_folder.cleanup()
            self._relay_folder = None
        if self._audit_handler is not None:
            logging.getLogger("tablehost.audit").removeHandler(self._audit_handler)
            self._audit_handler.close()
        if self.config.ray_address is None and self.lobby is not None:
            await self.lobby.stop_rooms.remote()
            ray.shutdown()
        elif ray.is_initialized():
            ray.shutdown()
        if self.config.store_is_temporary and self.config.store is not None:
            # Its tables' tokens die with this run: nothing could resume them.
            shutil.rmtree(self.config.store.removeprefix("local:"), ignore_errors=True)
        log.info("host stopped")
