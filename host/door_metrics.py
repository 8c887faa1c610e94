"""A front door's metrics: what the lobby holds (queues, rooms, tables) and
this door's waiting players, served with `/targets`, the list of every
room's metrics address for Prometheus's HTTP service discovery, and the
probes `/livez` (its event loop runs) and `/readyz` (and the lobby answers).

The lobby is asked for its status every REFRESH_S by one task, never by a
scrape: however often Prometheus (or anyone who can reach the port) asks,
the lobby answers one call per interval per front door."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable
from typing import Any

import ray
from prometheus_client import CollectorRegistry, ProcessCollector

from tablehost.actors.lobby_status import LobbyStatus
from tablehost.actors.metrics import Gauge, GaugeCollector, MetricsServer
from tablehost.host.waiting import WaitingLine

log = logging.getLogger("tablehost.host")

REFRESH_S = 2.0
# /livez fails once the front door's event loop has not refreshed for this long.
STUCK_AFTER_S = 30.0

DOOR_GAUGES = (
    ("tablehost_queue_waiting", "Players waiting in a lobby queue", ("game", "variant", "seats")),
    ("tablehost_queue_being_seated", "Players of a queue proposed a table, being confirmed", ("game", "variant", "seats")),
    ("tablehost_door_waiting", "Players waiting at this front door (counted against --max-waiting)", ()),
    ("tablehost_lobby_up", "1 while the lobby answers this front door, else 0", ()),
    ("tablehost_rooms", "Room processes the lobby has started, on every node", ()),
    ("tablehost_tables_running", "Tables open in every room", ()),
    ("tablehost_tables_started", "Tables the lobby has started since it (re)started", ()),
    ("tablehost_free_slots", "Free table slots in started rooms", ()),
    ("tablehost_tables_awaiting_room", "Tables formed that wait for a room to hold them", ()),
    ("tablehost_private_tables", "Private tables waiting to fill", ()),
    ("tablehost_ray_nodes", "Ray nodes by state: alive, or dead (lost, or removed after a drain)", ("state",)),
    ("tablehost_tournament_rounds_overdue",
     "Tournaments whose round is open a minute past its deadline (their actor is stuck or gone)", ()),
)


class DoorMetrics:
    """Serves the metrics on `host:port` (0: any free port; see `address`)."""

    def __init__(self, lobby: Any, waiting: WaitingLine, host: str, port: int) -> None:
        self._lobby = lobby
        self._waiting = waiting
        # The lobby's last status: replaced whole by the refresh task, read
        # by the HTTP server's threads.
        self._status: LobbyStatus | None = None
        self.registry = CollectorRegistry()
        ProcessCollector(registry=self.registry)
        self.registry.register(GaugeCollector(DOOR_GAUGES, self._gauges))
        self._server = MetricsServer(host, port, self.registry, targets=self._room_targets,
                                     checks={"/livez": self._live, "/readyz": self._ready})
        self._refresher: asyncio.Task[None] | None = None
        # When the event loop last ran a refresh (monotonic seconds), set by
        # the loop and read by the HTTP server's threads.
        self._refreshed_at = time.monotonic()

    @property
    def address(self) -> str:
        return self._server.address

    async def start(self) -> None:
        await self._refresh()
        self._server.start()
        self._refresher = asyncio.get_running_loop().create_task(self._refresh_forever())
        log.info("metrics on http://%s/metrics, rooms' addresses on /targets", self.address)

    async def stop(self) -> None:
        if self._refresher is not None:
            self._refresher.cancel()
            await asyncio.gather(self._refresher, return_exceptions=True)
        self._server.stop()

    async def _refresh_forever(self) -> None:
        while True:
            await asyncio.sleep(REFRESH_S)
            await self._refresh()

    def _live(self) -> tuple[bool, str]:
        """Whether the front door's event loop still runs (it refreshes every
        REFRESH_S, the lobby answering or not): plain HTTP, so a kubelet probe
        works whether or not the gRPC ports serve TLS."""
        quiet_s = time.monotonic() - self._refreshed_at
        if quiet_s > STUCK_AFTER_S:
            return False, f"the front door's event loop has not run for {quiet_s:.0f} s"
        return True, "live"

    def _ready(self) -> tuple[bool, str]:
        """Live, and the lobby answered the last refresh: it can seat players."""
        live, why = self._live()
        if not live:
            return live, why
        if self._status is None:
            return False, "the lobby did not answer the last refresh"
        return True, "ready"

    async def _refresh(self) -> None:
        self._refreshed_at = time.monotonic()
        try:
            self._status = await self._lobby.status.remote()
        except ray.exceptions.RayError as error:
            log.warning("metrics: the lobby did not answer (%s); its gauges are left out", type(error).__name__)
            self._status = None

    def _room_targets(self) -> list[str]:
        status = self._status
        if status is None:
            return []
        return [room.metrics_endpoint for node in status.nodes for room in node.rooms if room.metrics_endpoint]

    def _gauges(self) -> Iterable[Gauge]:
        status = self._status
        yield Gauge("tablehost_door_waiting", (), self._waiting.waiting)
        yield Gauge("tablehost_lobby_up", (), 0 if status is None else 1)
        if status is None:
            return
        # Summed over a queue's partitions (what a game splits its queue by,
        # e.g. a rating band): one series per game, variant and seat count.
        queues: dict[tuple[str, str, str], list[int]] = {}
        for queue in status.queues:
            counts = queues.setdefault((queue.game, queue.variant, str(queue.seats)), [0, 0])
            counts[0] += queue.waiting
            counts[1] += queue.proposed
        for labels, (waiting, proposed) in sorted(queues.items()):
            yield Gauge("tablehost_queue_waiting", labels, waiting)
            yield Gauge("tablehost_queue_being_seated", labels, proposed)
        yield Gauge("tablehost_rooms", (), status.rooms)
        yield Gauge("tablehost_tables_running", (), status.tables)
        yield Gauge("tablehost_tables_started", (), status.tables_started)
        yield Gauge("tablehost_free_slots", (), status.free_slots)
        yield Gauge("tablehost_tables_awaiting_room", (), status.tables_awaiting_room)
        yield Gauge("tablehost_private_tables", (), status.private_tables)
        yield Gauge("tablehost_ray_nodes", ("alive",), status.nodes_alive)
        yield Gauge("tablehost_ray_nodes", ("dead",), status.nodes_dead)
        yield Gauge("tablehost_tournament_rounds_overdue", (), status.tournament_rounds_overdue)
