"""Run by test_placement.py in its own process: a simulated two-node Ray
cluster (ray.cluster_utils.Cluster, both nodes on 127.0.0.1, 2 CPUs each),
a front door joined to it, 160 players seated through the lobby service,
and a report of where the rooms and tables landed."""

import asyncio
import json
import os
import sys
from collections import Counter

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

from tablehost.clients.sdk import LobbyClient  # noqa: E402
from tablehost.host.config import HostConfig  # noqa: E402
from tablehost.host.server import FrontDoor  # noqa: E402

PLAYERS = 160


async def seat_everyone(target: str) -> list[str]:
    lobbies = [LobbyClient(target) for _ in range(PLAYERS)]
    try:
        assignments = await asyncio.wait_for(
            asyncio.gather(*(lobby.join_queue("bigtwo", f"p{i}") for i, lobby in enumerate(lobbies))), 120
        )
    finally:
        for lobby in lobbies:
            await lobby.close()
    return sorted({assignment.table_id for assignment in assignments})


async def main() -> None:
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 2, "include_dashboard": False})
    cluster.add_node(num_cpus=2)
    cluster.wait_for_nodes()
    host = FrontDoor(HostConfig(port=0, ray_address=cluster.address, tables_per_room=50, free_slots=0,
                           abandon_after_s=600.0, seed=7))
    try:
        await host.start()
        tables = await seat_everyone(host.target)
        status = await host.lobby.status.remote()
        records = [await host.lobby.table_record.remote(table_id) for table_id in tables]
        room_node = {room.room_id: node.node_id for node in status.nodes for room in node.rooms}
        tables_per_room = Counter(record.room_id for record in records)
        tables_per_node = Counter(room_node[record.room_id] for record in records)
        print(json.dumps({
            "cluster_nodes": len([node for node in ray.nodes() if node["Alive"]]),
            "tables": len(tables),
            "rooms_per_node": sorted(len(node.rooms) for node in status.nodes),
            "tables_per_node": sorted(tables_per_node.values()),
            "tables_per_room": sorted(tables_per_room.values()),
        }), flush=True)
    finally:
        await host.stop()
        cluster.shutdown()


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
