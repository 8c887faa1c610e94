"""The lobby's rooms as Ray actors: starting the rooms placement asks for,
watching each (Ray fails a room's open `watch` call the moment its process
dies), releasing idle and drained ones, taking a dead lobby's rooms back,
and every call the lobby makes to a room.

Rooms are detached and named after the lobby: one that dies does not take
its rooms' games with it, and a restarted lobby finds them again. What a
lost room's tables become is the table opener's business (`on_lost`); a
room that came up or went is news to it too (`on_slots_changed`)."""

from __future__ import annotations

import asyncio
import logging
import time
import warnings
from collections.abc import Callable, Coroutine
from typing import Any

import ray
from ray.actor import ActorHandle
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from tablehost.actors.config import LobbyConfig
from tablehost.actors.placement import ANY_NODE, ROOM_RESOURCE, Placement, RoomRecord, RoomState, room_number
from tablehost.actors.ray_classes import actor_class
from tablehost.actors.room import RoomActor, room_actor_name
from tablehost.actors.room_calls import RoomStarted, RoomUnreachable, TableOpening, TableRequest
from tablehost.actors.table_directory import TableDirectory, TableRecord

log = logging.getLogger("tablehost.lobby")

LOBBY_NAME = "tablehost-lobby"
NAMESPACE = "tablehost"
NODES_REFRESH_S = 2.0
# After a room failed to start on a node, no other is started there for this
# long (a node without the room ports or the advertised address must not
# become a start storm); the other nodes start rooms meanwhile.
ROOM_START_BACKOFF_S = 5.0
# A room that takes longer than this to open a batch of tables cannot be
# reached (hung, or cut off): it is dropped from placement and stopped.
ROOM_CALL_TIMEOUT_S = 30.0
# A restarted lobby waits this long for its rooms' inventories; a room that
# has not answered by then is stopped (its tables resume from the store).
ROOM_INVENTORY_TIMEOUT_S = 10.0


def was_restarted() -> bool:
    """Whether Ray restarted this actor. Ray's own property reads a
    deprecated attribute inside and warns on every call (three lines of
    text in a log that is otherwise one JSON object a line); the warning is
    Ray's to fix, not ours to pass on."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return bool(ray.get_runtime_context().was_current_actor_reconstructed)


class RoomSupervisor:
    def __init__(self, config: LobbyConfig, placement: Placement, directory: TableDirectory, *,
                 spawn: Callable[[Coroutine[Any, Any, Any]], None],
                 on_lost: Callable[[RoomRecord, str], None], on_slots_changed: Callable[[], None]) -> None:
        self.config = config
        self.placement = placement
        self.directory = directory
        self._spawn = spawn
        self._on_lost = on_lost
        self._on_slots_changed = on_slots_changed
        # Nodes drained whole: no room starts there again (an upgraded node
        # rejoins Ray under a new node id).
        self.cordoned: set[str] = set()
        # Set when the host stops its rooms: none starts after, and their ends
        # are not taken for deaths whose tables must resume elsewhere.
        self._stopping = False
        self._room_counter = 0
        # Per node, until when no room is started there: one failed to start
        # (its node lacks what rooms need); the other nodes take its share.
        self._starts_paused: dict[str, float] = {}
        self._nodes_refreshed = 0.0
        # Nodes Ray lists as dead (lost, or removed after a drain), as of the last refresh.
        self.nodes_dead = 0

    # -- calls to a room --------------------------------------------------------------

    async def open_tables(self, room: RoomRecord, requests: list[TableRequest]) -> list[TableOpening]:
        return await self._call(room, room.handle.open_tables.remote(requests))

    async def resume_tables(self, room: RoomRecord, table_ids: list[str]) -> list[TableOpening]:
        return await self._call(room, room.handle.resume_tables.remote(table_ids))

    async def hand_off(self, room: RoomRecord) -> list[str]:
        """Ask a draining room to let its tables go; the ids it let go."""
        return await self._call(room, room.handle.hand_off.remote(sorted(room.tables)))

    @staticmethod
    async def _call(room: RoomRecord, reference: Any) -> Any:
        try:
            return await asyncio.wait_for(reference, ROOM_CALL_TIMEOUT_S)
        except TimeoutError:
            raise RoomUnreachable("it did not answer") from None
        except ray.exceptions.RayError as error:
            raise RoomUnreachable(f"it failed ({type(error).__name__})") from None

    def lost(self, room: RoomRecord, why: str) -> None:
        """A room failed a call or did not answer: it takes no more tables,
        and it is stopped, so a room cut off does not keep serving tables
        the lobby has given to others."""
        self.died(room.room_id, why)
        ray.kill(room.handle)

    def died(self, room_id: str, why: str) -> None:
        room = self.placement.remove(room_id)
        if room is not None:
            self._on_lost(room, why)

    # -- starting, watching, releasing -----------------------------------------------

    def nodes_without_new_rooms(self) -> set[str]:
        """Nodes where no room is started now: a room failed to start there
        lately, or the node was drained."""
        now = time.monotonic()
        self._starts_paused = {node: until for node, until in self._starts_paused.items() if until > now}
        return set(self._starts_paused) | self.cordoned

    def none_can_start(self) -> bool:
        """Room starts are backing off after failures on every node."""
        return bool(self.placement.nodes) and set(self.placement.nodes) <= self.nodes_without_new_rooms()

    def start_wanted(self, tables_waiting: int) -> None:
        """Start the rooms placement wants, with `tables_waiting` for a slot."""
        if self._stopping:
            return
        for node_id in self.placement.rooms_to_start(excluded=self.nodes_without_new_rooms(),
                                                     tables_waiting=tables_waiting):
            self._room_counter += 1
            room_id = f"room-{self._room_counter}"
            self.placement.add_starting(room_id, node_id)
            self._spawn(self._start(room_id, node_id))

    async def _start(self, room_id: str, node_id: str) -> None:
        lobby = ray.get_runtime_context().current_actor
        named = {"name": room_actor_name(LOBBY_NAME, room_id), "namespace": NAMESPACE, "lifetime": "detached"}
        handle: Any = None
        started: RoomStarted
        try:
            try:
                if node_id == ANY_NODE:
                    # Wherever a room node has a free room slot; while none
                    # has, the room waits, and Ray's autoscaler adds a node.
                    handle = actor_class(RoomActor).options(resources={ROOM_RESOURCE: 1}, **named).remote(
                        room_id, self.config.room, lobby)
                else:
                    handle = actor_class(RoomActor).options(
                        scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False), **named
                    ).remote(room_id, self.config.room, lobby)
                started = await handle.start.remote()
            except (ray.exceptions.ActorUnschedulableError, ray.exceptions.RayActorError) as error:
                # The node went away between choosing it and placing the room.
                log.warning("room %s could not start on node %s (%s); letting Ray place it", room_id, node_id, error)
                ray.kill(handle)  # frees its name
                handle = actor_class(RoomActor).options(**named).remote(room_id, self.config.room, lobby)
                started = await handle.start.remote()
        except Exception:  # a room that cannot start must not take the lobby down
            log.exception("room %s failed to start", room_id)
            if handle is not None:
                ray.kill(handle)  # detached: left alive, every retry would leave one more process
            self.placement.remove(room_id)
            self._starts_paused[node_id] = time.monotonic() + ROOM_START_BACKOFF_S
            self._on_slots_changed()  # rooms start on the other nodes, or the waiting tables are told
            return
        if room_id not in self.placement.rooms:
            ray.kill(handle)  # forgotten while starting (the lobby is stopping)
            return
        self.placement.mark_ready(room_id, handle, started.endpoint, started.node_id, started.pid, time.monotonic(),
                                  started.metrics_endpoint)
        log.info("room %s ready on node %s at %s", room_id, started.node_id[:12], started.endpoint)
        self._spawn(self._watch(room_id, handle))
        if started.node_id in self.cordoned:  # drained while this room was starting there
            self.placement.rooms[room_id].state = RoomState.DRAINING
        self._on_slots_changed()

    def take_back(self) -> None:
        """Rooms outlive a lobby that dies: take back every room named after
        this lobby, with its tables, and watch it again. A room that does not
        answer in time is stopped; its tables resume from the store."""
        prefix = room_actor_name(LOBBY_NAME, "")
        names = [actor["name"] for actor in ray.util.list_named_actors(all_namespaces=True)
                 if actor["namespace"] == NAMESPACE and actor["name"].startswith(prefix)]
        handles = {}
        for name in names:
            try:
                handles[name] = ray.get_actor(name, namespace=NAMESPACE)
            except ValueError:
                continue  # it died since the listing
        me = ray.get_runtime_context().current_actor
        asked: dict[Any, str] = {handle.inventory.remote(me): name for name, handle in handles.items()}
        answered, _ = ray.wait(list(asked), num_returns=len(asked), timeout=ROOM_INVENTORY_TIMEOUT_S)
        now = time.monotonic()
        for reference, name in asked.items():
            room_id, handle = name.removeprefix(prefix), handles[name]
            self._room_counter = max(self._room_counter, room_number(room_id))
            try:
                if reference not in answered:
                    raise TimeoutError(f"no answer within {ROOM_INVENTORY_TIMEOUT_S:.0f} s")
                inventory: RoomStarted = ray.get(reference)
            except (ray.exceptions.RayError, TimeoutError) as error:
                log.warning("room %s could not be taken back (%s); stopping it", room_id, error)
                ray.kill(handle)
                continue
            opened = inventory.opened
            self.placement.adopt(room_id, inventory.node_id, inventory.capacity, {table.table_id for table in opened})
            self.placement.mark_ready(room_id, handle, inventory.endpoint, inventory.node_id, inventory.pid, now,
                                      inventory.metrics_endpoint)
            for table in opened:
                self.directory.add(TableRecord.opened(table, room_id, inventory.endpoint))
            self._spawn(self._watch(room_id, handle))

    async def _watch(self, room_id: str, handle: Any) -> None:
        """Keep the room's `watch` call open: Ray fails it the moment the
        room's process dies, which is how a dead room is noticed."""
        try:
            await handle.watch.remote()
            why = "it stopped"
        except ray.exceptions.RayError as error:
            why = f"its actor died ({type(error).__name__})"
        room = self.placement.rooms.get(room_id)
        if room is not None and room.state is not RoomState.RELEASING:
            self.died(room_id, why)

    def release(self, room: RoomRecord, why: str) -> None:
        """Stop a room in the background; no table is placed in it meanwhile."""
        room.state = RoomState.RELEASING
        self._spawn(self._release(room, why))

    async def _release(self, room: RoomRecord, why: str) -> None:
        try:
            await room.handle.stop.remote()
        except ray.exceptions.RayError:
            pass  # it is going away either way
        ray.kill(room.handle)
        self.placement.remove(room.room_id)
        log.info("released %s room %s", why, room.room_id)

    def release_idle(self, now: float) -> None:
        for room in self.placement.rooms_to_release(now, self.config.idle_release_s):
            self.release(room, "idle")

    async def stop_all(self) -> int:
        """Stop every room, as a host with an embedded Ray does when it stops:
        each is released (its streams end with a status) rather than left to
        end behind the lobby's back, whose ends the lobby would take for
        deaths; no room starts after. Returns how many rooms were stopped."""
        self._stopping = True
        rooms = list(self.placement.rooms.values())
        for room in rooms:
            room.state = RoomState.RELEASING
            if room.handle is None:
                self.placement.remove(room.room_id)  # still starting: ended once it is up
        started = [room for room in rooms if room.handle is not None]
        await asyncio.gather(*(self._release(room, "stopping") for room in started))
        return len(started)

    def handles(self) -> dict[str, ActorHandle[RoomActor]]:
        return {room_id: room.handle for room_id, room in self.placement.rooms.items() if room.handle is not None}

    def refresh_nodes(self, force: bool = False) -> None:
        """Ray's live nodes and their CPUs, for placement (at most every NODES_REFRESH_S)."""
        now = time.monotonic()
        if not force and now - self._nodes_refreshed < NODES_REFRESH_S:
            return
        self._nodes_refreshed = now
        nodes = ray.nodes()
        self.placement.set_nodes(
            {node["NodeID"]: float(node["Resources"].get("CPU", 0.0)) for node in nodes if node["Alive"]}
        )
        self.nodes_dead = sum(1 for node in nodes if not node["Alive"])
        self.cordoned &= set(self.placement.nodes)  # a node that left is gone for good
