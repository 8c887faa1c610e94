"""One worker node of a Ray cluster, on 127.0.0.1, in its own process tree
(raylet, object store, workers, agents) until SIGTERM:

    python tests/integration/scripts/ray_worker_node.py GCS_ADDRESS CPUS

What `ray start --address GCS_ADDRESS` starts, without the two things that
keep that command off loopback in Ray 2.x: it refuses to add a node while
RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 (the setting that keeps Ray's servers
on 127.0.0.1), and with it unset it rewrites 127.0.0.1 in the address to
the machine's routed IP and listens on every interface. The node it starts
is Ray's own (ray._private.node.Node, what ray.cluster_utils uses too)."""

from __future__ import annotations

import os
import signal
import sys
import threading

os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"

from ray._private.node import Node  # noqa: E402
from ray._private.parameter import RayParams  # noqa: E402


def main() -> None:
    gcs_address, cpus = sys.argv[1], int(sys.argv[2])
    params = RayParams(node_ip_address="127.0.0.1", gcs_address=gcs_address, num_cpus=cpus, num_gpus=0,
                       object_store_memory=150 * 2**20, min_worker_port=0, max_worker_port=0, node_manager_port=0,
                       include_log_monitor=False)
    params.dashboard_agent_listen_port = None  # a free one: the head's agent has the default
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    node = Node(params, head=False, shutdown_at_exit=True, spawn_reaper=True)
    print(f"node {node.node_id} up", flush=True)
    stopping.wait()
    node.kill_all_processes(check_alive=False, allow_graceful=True)


if __name__ == "__main__":
    main()
