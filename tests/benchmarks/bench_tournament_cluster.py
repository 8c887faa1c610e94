"""A bot tournament on a simulated Ray cluster: several Ray nodes on this
machine (ray.cluster_utils.Cluster, every node on 127.0.0.1), the host
joined to it with --address and keeping its tables and the tournament in a
redis-server of the script's own (as a cluster does), and `tablehost
tournament simulate` run against it, so rooms, and the tables the
tournament opens, spread over the nodes.

    .venv/bin/python tests/benchmarks/bench_tournament_cluster.py [--nodes 3] [--players 256] [--rounds 7]
        [--game bigtwo] [--format table_rounds] [--seats 4] [--out DIR]

Prints the simulation's summary (games, games/s, seconds per round, lost and
duplicate results) with the cluster's shape and the rooms per node, and
exits non-zero when a result was lost, counted twice or forfeited. A script,
not a test (pytest collects only test_*.py)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from redis_server import RedisServer  # noqa: E402

TABLEHOST = [sys.executable, "-m", "tablehost.host.cli"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--cpus-per-node", type=int, default=1)
    parser.add_argument("--players", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--game", default="bigtwo")
    parser.add_argument("--format", default="table_rounds")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="bench_tournament_cluster-"))
    redis = RedisServer(Path(tempfile.mkdtemp(prefix="bench_tournament_redis-")))
    redis.start()
    cluster = Cluster(initialize_head=True,
                      head_node_args={"num_cpus": args.cpus_per_node, "include_dashboard": False})
    for _ in range(args.nodes - 1):
        cluster.add_node(num_cpus=args.cpus_per_node)
    cluster.wait_for_nodes()
    try:
        ran = subprocess.run(
            [*TABLEHOST, "tournament", "simulate", "--address", cluster.address, "--players", str(args.players),
             "--game", args.game, "--format", args.format, "--rounds", str(args.rounds), "--seats", str(args.seats),
             "--store", redis.url, "--no-progress", "--out", str(out)],
            capture_output=True, text=True, check=False)
        sys.stderr.write(ran.stderr[-4000:])
        summary = json.loads(ran.stdout.strip().splitlines()[-1])
        ray.init(address=cluster.address, namespace="tablehost", logging_level="ERROR")
        summary["cluster_nodes"] = len([node for node in ray.nodes() if node["Alive"]])
    finally:
        ray.shutdown()
        cluster.shutdown()
        redis.stop()
    summary["exit_code"] = ran.returncode
    print(json.dumps(summary))
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return ran.returncode


if __name__ == "__main__":
    sys.exit(main())
