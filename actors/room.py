"""The room actor (R-L4): one per table, reused from the lobby's warm pool.

Server reflection is left to the front door (which describes the Table
service too): each room is a process per table, and reflection's imports
would cost every one of them.

It owns the authoritative game (actors.table.Table) and serves that table's
player streams itself on a grpc.aio server in the actor's own event loop,
so a move costs no Ray call (see shared/PERFORMANCE.md). Ray calls reach it
only per game: open a table, report status, recycle."""

from __future__ import annotations

import asyncio
import ctypes
import os
import logging
from typing import Any

import ray
from grpc import aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from actors.config import RoomConfig
from actors.table import Table
from actors.table_service import TableService
from games.engine.rng import Random
from games.registry import get_rules
from tablehost.v1 import table_pb2, table_pb2_grpc

log = logging.getLogger("tablehost.room")
TABLE_SERVICE = table_pb2.DESCRIPTOR.services_by_name["Table"].full_name


class NoFreePort(RuntimeError):
    pass


def _release_free_heap() -> None:
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to trim
        pass


def seat_entrants(seed: int, entrants: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """R-L2: seats come from the table's seeded PRNG, so the log's seed
    explains them. A permutation with SplitMix64's Fisher-Yates."""
    seated = list(entrants)
    Random(seed).shuffle(seated)
    return seated


@ray.remote(num_cpus=0)
class RoomActor:
    def __init__(self, room_id: str, config: RoomConfig, lobby: Any = None) -> None:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
        self.room_id = room_id
        self.config = config
        self.lobby = lobby
        self.table: Table | None = None
        self.endpoint = ""
        self._server: aio.Server | None = None
        self._recycling: asyncio.Task[None] | None = None
        self.games_hosted = 0

    async def start(self) -> str:
        """Start the table service; returns its host:port."""
        if self._server is not None:
            return self.endpoint
        options = [
            ("grpc.max_receive_message_length", self.config.max_message_bytes),
            ("grpc.so_reuseport", 0),
        ]
        server = aio.server(options=options)
        table_pb2_grpc.add_TableServicer_to_server(TableService(lambda: self.table, self.config.token_secret), server)
        health_servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        port = self._bind(server)
        await server.start()
        await health_servicer.set(TABLE_SERVICE, health_pb2.HealthCheckResponse.SERVING)
        self._server = server
        self.endpoint = f"{self.config.bind_host}:{port}"
        log.info("room %s serving its table on %s", self.room_id, self.endpoint)
        return self.endpoint

    def _bind(self, server: aio.Server) -> int:
        low, high = self.config.port_min, self.config.port_max
        candidates = [0] if low == 0 else list(range(low, high + 1))
        for port in candidates:
            try:
                bound = server.add_insecure_port(f"{self.config.bind_host}:{port}")
            except RuntimeError:
                continue
            if bound:
                return bound
        raise NoFreePort(f"no free port in {low}-{high} on {self.config.bind_host}")

    async def open_table(
        self, table_id: str, game: str, seed: int, entrants: list[dict[str, Any]], options: dict[str, Any]
    ) -> dict[str, Any]:
        """Seat the entrants at random and start the game. Returns the seating
        (entrant tickets by seat) and where the table is served."""
        if self.table is not None:
            raise RuntimeError(f"room {self.room_id} already holds table {self.table.table_id}")
        seated = seat_entrants(seed, entrants)
        self.table = Table(
            table_id,
            get_rules(game),
            seed,
            [entrant["name"] for entrant in seated],
            options,
            rate=self.config.commit_rate,
            burst=self.config.commit_burst,
            on_finished=self._on_finished,
            on_deserted=self._on_deserted,
        )
        self.games_hosted += 1
        log.info("room %s opened table %s (%s, seed %d)", self.room_id, table_id, game, seed)
        return {"table_id": table_id, "endpoint": self.endpoint, "seated": [e["ticket"] for e in seated]}

    def _on_finished(self, table: Table) -> None:
        self._recycling = asyncio.get_running_loop().create_task(self._recycle_after_linger(table))

    async def _recycle_after_linger(self, table: Table) -> None:
        """Let the final messages reach the players, then hand the room back."""
        deadline = asyncio.get_running_loop().time() + self.config.linger_s
        while table.subscriber_count and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.05)
        await self._recycle(table)

    def _on_deserted(self, table: Table) -> None:
        asyncio.get_running_loop().create_task(self._recycle_if_still_deserted(table))

    async def _recycle_if_still_deserted(self, table: Table) -> None:
        """R-P9's grace period: players may come back (timers keep playing
        their turns meanwhile); a table nobody returns to is closed."""
        await asyncio.sleep(self.config.abandon_after_s)
        if self.table is table and table.match.result is None and table.seated_streams == 0:
            log.info("room %s: every player left table %s %.0f s ago; closing it",
                     self.room_id, table.table_id, self.config.abandon_after_s)
            await self._recycle(table)

    async def _recycle(self, table: Table) -> None:
        if self.table is not table:
            return
        await self.reset()
        if self.lobby is not None:
            self.lobby.room_released.remote(self.room_id, table.table_id)

    async def reset(self) -> None:
        """Close the table's streams and forget it: the room is warm again.
        A room's memory is the cost of a table, so what the game freed is
        handed back to the OS (glibc keeps freed heap otherwise)."""
        if self.table is not None:
            self.table.close("the room was recycled")
            self.table = None
            _release_free_heap()

    async def status(self) -> dict[str, Any]:
        table = self.table
        summary: dict[str, Any] = {
            "room_id": self.room_id,
            "endpoint": self.endpoint,
            "games_hosted": self.games_hosted,
            "node_id": ray.get_runtime_context().get_node_id(),
            "pid": os.getpid(),
        }
        if table is not None:
            summary.update(
                table_id=table.table_id,
                seq=table.seq,
                over=table.match.result is not None,
                streams=table.subscriber_count,
                moves=table.stats.moves,
                automatic_moves=table.stats.automatic_moves,
                rejects=table.stats.rejects,
                desyncs=table.stats.desyncs,
                state_hash=table.match.state_hash(),
            )
        return summary

    async def stop(self, grace_s: float = 1.0) -> None:
        await self.reset()
        if self._server is not None:
            await self._server.stop(grace_s)
            self._server = None
