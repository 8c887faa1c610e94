"""Run by test_node_loss.py in its own process (a simulated cluster cannot
share the session's Ray): a head node with no CPUs and two 1-CPU nodes
(ray.cluster_utils.Cluster, all on 127.0.0.1), a front door joined to it
with tables kept in a real redis-server (appendfsync always), and bots on
tables at all times (tests/integration/chaos.py). Then:

1. `--losses` times, the node serving the most tables being played is
   removed (its raylet and every process on it die at once) and a fresh node
   is added: every table resumes elsewhere from Redis;
2. redis-server is SIGKILLed mid-game and restarted on its files: commands
   wait for it and none acknowledged is lost.

Every game played is checked as chaos.py checks them. Prints one JSON report
(and writes it to --report).

    .venv/bin/python tests/integration/scripts/node_loss.py --losses 5 --tables 6"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[2])]

import ray  # noqa: E402
from chaos import Chaos, Kill  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402
from redis_server import RedisServer  # noqa: E402

from tablehost.actors.lobby import NAMESPACE  # noqa: E402
from tablehost.actors.store.redis_store import RedisStore  # noqa: E402
from tablehost.host.config import HostConfig  # noqa: E402
from tablehost.host.server import FrontDoor  # noqa: E402

# How long redis-server stays down: what a crash and a supervisor's restart take.
REDIS_DOWN_S = 1.0
ADD_NODE_ATTEMPTS = 3


class NodeLoss(Chaos):
    """Strikes remove whole nodes; after the last, Redis itself is killed."""

    def __init__(self, host: Any, cluster: Cluster, redis_server: RedisServer, **kwargs: Any) -> None:
        super().__init__(host, RedisStore(redis_server.url), **kwargs)
        self.cluster = cluster
        self.redis_server = redis_server
        self.redis_outage: dict[str, Any] = {}

    async def choose(self, rooms: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Every room of the node that serves the most tables being played."""
        endpoints = [plays[0].session.endpoint for plays in list(self.live.values())]
        node = max({room["node_id"] for room in rooms},
                   key=lambda n: sum(endpoints.count(r["endpoint"]) for r in rooms if r["node_id"] == n))
        return [room for room in rooms if room["node_id"] == node]

    async def strike(self, number: int, victims: list[dict[str, Any]]) -> str:
        (node,) = [n for n in self.cluster.list_all_nodes() if n.node_id == victims[0]["node_id"]]
        await asyncio.to_thread(self.cluster.remove_node, node, False)
        # A fresh node in its place (Ray's Node must start on the main
        # thread: the bots pause while it does). On this 2-core machine a
        # raylet sometimes misses Ray's startup deadline: try again.
        for attempt in range(1, ADD_NODE_ATTEMPTS + 1):
            try:
                self.cluster.add_node(num_cpus=1)
                break
            except Exception as error:  # Ray raises a bare Exception for a node that did not start
                if attempt == ADD_NODE_ATTEMPTS or "timed out during startup" not in str(error):
                    raise
                print(f"a replacement node did not start ({error}); trying again", flush=True)
        return "node removed"

    async def _kill_rooms(self) -> None:
        await super()._kill_rooms()
        await self._kill_redis()

    async def _kill_redis(self) -> None:
        """SIGKILL redis-server mid-game; restart it on its files."""
        loop = asyncio.get_running_loop()
        await self._rooms_with_tables()  # tables are being played
        tables = {table_id: self.store.load(table_id).seq for table_id in list(self.live)}
        self.redis_server.kill()
        await asyncio.sleep(REDIS_DOWN_S)  # the outage itself, not a wait for anything
        self.redis_server.start()
        # What Redis holds after its restart is what was acknowledged before the kill.
        kill = Kill(["redis-server"], "redis-server killed", {t: self.store.load(t).seq for t in tables}, loop.time())
        self.redis_outage = {"tables": len(tables), "seq_went_back": sum(kill.tables[t] < s for t, s in tables.items())}
        self.kills.append(kill)
        await self._await_recovery(kill)
        self.redis_outage["recovered_s"] = round(max(kill.recovered_s.values(), default=0.0), 3)


async def main(losses: int, tables: int, seed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="tablehost-node-loss-") as folder:
        redis_server = RedisServer(Path(folder))
        redis_server.start()
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
        # The driver joins while the head is the only node, so it sits on the head: every node
        # shares 127.0.0.1, a driver that joined later might sit on a room node, and Ray
        # refuses to remove the node a driver sits on.
        ray.init(address=cluster.address, namespace=NAMESPACE, log_to_driver=False)
        for _ in range(2):
            cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        host = FrontDoor(HostConfig(port=0, ray_address=cluster.address, store=redis_server.url, tables_per_room=8,
                               free_slots=2, linger_s=1.0, abandon_after_s=120.0, seed=seed))
        try:
            await host.start()
            chaos = NodeLoss(_HostView(host), cluster, redis_server, kills=losses, tables=tables, seed=seed)
            started = time.monotonic()
            report = await chaos.run(timeout_s=600)
            report["redis_outage"] = chaos.redis_outage
            report["clean"] = chaos.findings.clean
            report["elapsed_s"] = round(time.monotonic() - started, 1)
            return report
        finally:
            await host.stop()
            cluster.shutdown()
            redis_server.stop()


class _HostView:
    """What Chaos asks of the session's HostThread, for a Host in this process."""

    def __init__(self, host: FrontDoor) -> None:
        self.host = host
        self.target = host.target


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--losses", type=int, default=5)
    parser.add_argument("--tables", type=int, default=6)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--report", type=Path, help="also write the report here (Ray's logs share stdout)")
    args = parser.parse_args()
    result = asyncio.run(main(args.losses, args.tables, args.seed))
    print(json.dumps(result), flush=True)
    if args.report is not None:
        args.report.write_text(json.dumps(result))
    sys.exit(0 if result["clean"] else 1)
