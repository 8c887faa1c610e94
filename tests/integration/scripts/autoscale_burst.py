"""Run by test_autoscaling.py in its own process (its Ray cluster is not the
session's): a Ray head started with an autoscaling config for Ray's fake
multi-node provider (every node it adds is a raylet of this machine, on
127.0.0.1), whose room node type declares the tablehost_room resource; a
front door with --rooms-follow-demand; then a burst of bot tables. Rooms
wait for a node with a room slot, Ray's autoscaler adds room nodes for them,
the games are played, the idle rooms are released and the autoscaler
removes the idle nodes. Prints one JSON report: the nodes alive over time,
the games played, the rooms' nodes, and any socket beyond loopback.

    .venv/bin/python tests/integration/scripts/autoscale_burst.py --tables 4"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
# Ray's token authentication, with a token of this cluster's own, set before
# ray is imported (it reads the mode then): the head, its nodes, the front
# door and this driver share it.
os.environ["RAY_AUTH_MODE"] = "token"
os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[2])]

import psutil  # noqa: E402
import ray  # noqa: E402
import yaml  # noqa: E402
from ray_processes import LOOPBACK_ENV, RAY, free_port, stop_process_trees, wait_for  # noqa: E402
from support import sockets_beyond_loopback  # noqa: E402

from tablehost.actors.placement import ROOM_RESOURCE  # noqa: E402

TABLEHOST = [sys.executable, "-m", "tablehost.host.cli"]
ROOM_NODES_MAX = 2
# The autoscaler removes a node idle this long (15 s).
IDLE_TIMEOUT_MINUTES = 0.25


def autoscaling_config(gcs_address: str) -> dict[str, Any]:
    """An autoscaling config for Ray's fake multi-node provider (what Ray's
    own example for it holds): a head that holds no room, and a room node
    type of one CPU and one room slot."""
    return {
        "cluster_name": "tablehost-autoscaling",
        "max_workers": ROOM_NODES_MAX,
        "upscaling_speed": 10,
        "idle_timeout_minutes": IDLE_TIMEOUT_MINUTES,
        "provider": {"type": "fake_multinode", "use_node_id_as_ip": True, "disable_node_updaters": True,
                     "disable_launch_config_check": True, "gcs_address": gcs_address},
        "available_node_types": {
            "ray.head.default": {"resources": {"CPU": 1}, "node_config": {}, "max_workers": 0},
            "room_node": {"resources": {"CPU": 1, ROOM_RESOURCE: 1}, "node_config": {}, "min_workers": 0,
                          "max_workers": ROOM_NODES_MAX},
        },
        "head_node_type": "ray.head.default",
        "auth": {"ssh_user": "ubuntu"},
        "docker": {},
        "file_mounts": {}, "cluster_synced_files": [], "file_mounts_sync_continuously": False,
        "rsync_exclude": [], "rsync_filter": [], "initialization_commands": [], "setup_commands": [],
        "head_setup_commands": [], "worker_setup_commands": [], "head_start_ray_commands": [],
        "worker_start_ray_commands": [],
    }


class NodeCounts(threading.Thread):
    """The cluster's alive nodes every half second, as (seconds, count)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.samples: list[tuple[float, int]] = []
        self.started_at = time.monotonic()
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(0.5):
            self.samples.append((round(time.monotonic() - self.started_at, 1), alive_nodes()))

    def stop(self) -> None:
        self._done.set()
        self.join(5)


def alive_nodes() -> int:
    return sum(1 for node in ray.nodes() if node["Alive"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--report", type=Path)
    args = parser.parse_args()
    port = free_port()
    address = f"127.0.0.1:{port}"
    temp_dir = tempfile.mkdtemp(prefix="tha-", dir="/tmp")
    config_path = Path(temp_dir) / "autoscaling.yaml"
    config_path.write_text(yaml.safe_dump(autoscaling_config(address)))
    env = {**os.environ, **LOOPBACK_ENV, "RAY_FAKE_CLUSTER": "1", "AUTOSCALER_UPDATE_INTERVAL_S": "1"}
    processes: list[subprocess.Popen[bytes]] = []
    log = open(Path(temp_dir) / "head.log", "wb")
    processes.append(subprocess.Popen(
        [RAY, "start", "--head", "--port", str(port), "--node-ip-address", "127.0.0.1", "--num-cpus", "1",
         "--autoscaling-config", str(config_path), "--include-dashboard", "false", "--temp-dir", temp_dir,
         "--block", "--disable-usage-stats"], stdout=log, stderr=subprocess.STDOUT, env=env))
    report: dict[str, Any] = {}
    try:
        ray.init(address=address, logging_level="ERROR", log_to_driver=False)
        wait_for(lambda: alive_nodes() == 1, 90, "the head alive")
        counts = NodeCounts()
        counts.start()
        serve = subprocess.Popen(
            [*TABLEHOST, "serve", "--address", address, "--port", "0", "--rooms-follow-demand", "--tables-per-room",
             "2", "--free-slots", "0", "--idle-release", "2", "--store", "none", "--linger", "0.5"],
            stdout=subprocess.PIPE, stderr=open(Path(temp_dir) / "serve.log", "wb"), env=env, text=True)
        processes.append(serve)  # type: ignore[arg-type]
        target = ""
        while not target:
            line = serve.stdout.readline() if serve.stdout is not None else ""
            if not line and serve.poll() is not None:
                raise RuntimeError(f"tablehost serve exited {serve.returncode}: see {temp_dir}/serve.log")
            target = line.strip().removeprefix("listening on ") if line.startswith("listening on ") else ""
        nodes_before = alive_nodes()
        bots = subprocess.run([*TABLEHOST, "bots", "--target", target, "--tables", str(args.tables), "--json",
                               "--timeout", "150"], capture_output=True, text=True, env=env, timeout=240)
        played = json.loads(bots.stdout.strip().splitlines()[-1]) if bots.stdout.strip() else {}
        peak = max(count for _, count in counts.samples)
        # While the room nodes are up: every socket of the cluster's process tree on loopback.
        processes_seen, outside = sockets_beyond_loopback(psutil.Process(processes[0].pid))
        wait_for(lambda: alive_nodes() == nodes_before, 120, "the idle room nodes removed", interval=0.5)
        counts.stop()
        report = {"nodes_before": nodes_before, "nodes_peak": peak, "nodes_after": alive_nodes(),
                  "games_completed": played.get("games_completed", 0), "bots_exit": bots.returncode,
                  "bots_stderr": bots.stderr[-2000:], "samples": counts.samples,
                  "processes": processes_seen, "beyond_loopback": [str(entry) for entry in outside]}
    finally:
        ray.shutdown()
        stop_process_trees(processes)
    if report:  # a run that failed keeps its logs in temp_dir, for whoever looks
        shutil.rmtree(temp_dir, ignore_errors=True)
    text = json.dumps(report)
    if args.report is not None:
        args.report.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
