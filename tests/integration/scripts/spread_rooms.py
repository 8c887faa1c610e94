"""Run by test_placement.py in its own process: a simulated two-node Ray
cluster (ray.cluster_utils.Cluster, both nodes on 127.0.0.1), a lobby with a
warm pool, and a report of which nodes its room actors landed on."""

import json
import os

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

from actors.config import LobbyConfig  # noqa: E402
from actors.lobby import NAMESPACE, LobbyActor  # noqa: E402


def main() -> None:
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, namespace=NAMESPACE)
    try:
        cluster.wait_for_nodes()
        lobby = LobbyActor.remote(LobbyConfig(warm_pool_size=8))
        ray.get(lobby.ready.remote(), timeout=120)
        rooms = ray.get(lobby.room_handles.remote(), timeout=30)
        nodes = [ray.get(room.status.remote(), timeout=30)["node_id"] for room in rooms.values()]
        print(json.dumps({"cluster_nodes": len(ray.nodes()), "rooms": len(nodes), "room_nodes": len(set(nodes)), "per_node": sorted(nodes.count(n) for n in set(nodes))}))
    finally:
        ray.shutdown()
        cluster.shutdown()


if __name__ == "__main__":
    main()
