"""Scenario: what durability costs a running host. The same tables of bots (two bots
processes, as the placement scenario) against three hosts: no store (a dead room loses
its games), the local store (every command fsync'ed to a folder before it is
published, group commits) and Redis (a redis-server of the benchmark's own, appendonly
with appendfsync always: every command on disk before it is published). Figures per
host: moves/s, p50/p99 of the commit round trip, server CPU per move (the host's tree;
redis-server's CPU beside it, as it is another machine's in a cluster).
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hostbench import ROOT
from hostbench.children import Budget
from hostbench.host import HOST_KINDS, HostUnderTest, LOAD_GENERATOR_EXEMPT
from hostbench.moves import MovesPlan, merge_bots, run_bots, split
from hostbench.procs import cpu_delta_by_kind, cpu_s

sys.path.insert(0, str(ROOT / "tests"))
from redis_server import RedisServer  # noqa: E402


@dataclass(frozen=True)
class StoresPlan:
    tables: int
    split_above: int
    bots_timeout_s: float = 240.0


def _measure(name: str, store: str, plan: StoresPlan, logdir: Path, budget: Budget, seed: int,
             redis_pid: int | None) -> dict[str, Any]:
    shares = split(plan.tables, MovesPlan(levels=(plan.tables,), floors_at=(), split_above=plan.split_above))
    host = HostUnderTest(f"host-store-{name}", ["--seed", str(seed), "--store", store, *LOAD_GENERATOR_EXEMPT],
                         logdir, budget)
    try:
        run_bots(host, [1], logdir, seed + 1, f"store-warmup-{name}", budget.seconds(plan.bots_timeout_s))
        time.sleep(0.5)  # let the warm-up table close before the measured run
        before = host.reading(memory=False)
        redis_before = cpu_s(redis_pid) if redis_pid else 0.0
        summaries = run_bots(host, shares, logdir, seed + 1000, f"store-{name}", budget.seconds(plan.bots_timeout_s))
        used = cpu_delta_by_kind(before, host.reading(memory=False))
        redis_used = cpu_s(redis_pid) - redis_before if redis_pid else 0.0
    finally:
        host.stop()
    bots = merge_bots(summaries)
    moves = max(1, bots["moves"])
    row = {
        "store": name,
        "bots": bots,
        "server_cpu_ms_per_move": round(sum(used.get(kind, 0.0) for kind in HOST_KINDS) * 1000 / moves, 4),
        "redis_cpu_ms_per_move": round(redis_used * 1000 / moves, 4),
    }
    print(f"  {name}: {bots['moves_per_s']:.0f} moves/s, p50 {bots['p50_ms']} ms, p99 {bots['p99_ms']} ms, "
          f"server CPU {row['server_cpu_ms_per_move']:.3f} ms/move (+ redis {row['redis_cpu_ms_per_move']:.3f}), "
          f"errors {bots['errors']}", flush=True)
    return row


def run(plan: StoresPlan, logdir: Path, budget: Budget, seed: int) -> dict[str, Any]:
    result: dict[str, Any] = {"plan": plan.__dict__, "settings": []}
    with tempfile.TemporaryDirectory(prefix="bench-stores-") as folder:
        redis = RedisServer(Path(folder) / "redis")
        redis.folder.mkdir()
        redis.start()
        try:
            for name, store, redis_pid in (("none", "none", None),
                                           ("local", f"local:{folder}/local", None),
                                           ("redis", redis.url, redis.process.pid)):
                print(f"stores: a host with --store {store}", flush=True)
                result["settings"].append(_measure(name, store, plan, logdir, budget, seed, redis_pid))
        finally:
            redis.stop()
    return result
