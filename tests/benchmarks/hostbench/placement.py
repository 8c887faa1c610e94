"""Scenario: how many rooms per CPU. The same 100 tables of bots (two bots
processes) against hosts that keep 0.5, 1 and 2 rooms per CPU of the machine
(`--rooms-per-cpu`); every room is started with the host, so no run pays a
process start. Figures per setting: rooms, moves/s, p50/p99 of the commit round
trip, server CPU per move. It is what the default of one room per CPU was
chosen from.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hostbench.children import Budget
from hostbench.host import HOST_KINDS, HostUnderTest, LOAD_GENERATOR_EXEMPT
from hostbench.moves import MovesPlan, merge_bots, run_bots, split
from hostbench.procs import cpu_delta_by_kind


@dataclass(frozen=True)
class PlacementPlan:
    rooms_per_cpu: tuple[float, ...]
    tables: int
    split_above: int
    bots_timeout_s: float = 240.0


def run(plan: PlacementPlan, logdir: Path, budget: Budget, seed: int) -> dict[str, Any]:
    shares = split(plan.tables, MovesPlan(levels=(plan.tables,), floors_at=(), split_above=plan.split_above))
    result: dict[str, Any] = {"plan": plan.__dict__, "settings": []}
    for rooms_per_cpu in plan.rooms_per_cpu:
        flags = ["--seed", str(seed), "--rooms-per-cpu", f"{rooms_per_cpu:g}"]
        print(f"placement: a host with {' '.join(flags)}", flush=True)
        host = HostUnderTest(f"host-placement-{rooms_per_cpu:g}", [*flags, *LOAD_GENERATOR_EXEMPT], logdir, budget)
        try:
            run_bots(host, [1], logdir, seed + 1, f"placement-warmup-{rooms_per_cpu:g}", budget.seconds(plan.bots_timeout_s))
            time.sleep(0.5)
            before = host.reading(memory=False)
            summaries = run_bots(host, shares, logdir, seed + 1000, f"placement-{rooms_per_cpu:g}",
                              budget.seconds(plan.bots_timeout_s))
            used = cpu_delta_by_kind(before, host.reading(memory=False))
            bots = merge_bots(summaries)
            host_cpu = sum(used.get(kind, 0.0) for kind in HOST_KINDS)
            row = {
                "rooms_per_cpu": rooms_per_cpu,
                "rooms": int(host.status()["rooms"]),
                "bots": bots,
                "server_cpu_ms_per_move": round(host_cpu * 1000 / max(1, bots["moves"]), 4),
            }
            print(f"  {row['rooms']} rooms: {bots['moves_per_s']:.0f} moves/s, p50 {bots['p50_ms']} ms, "
                  f"p99 {bots['p99_ms']} ms, server CPU {row['server_cpu_ms_per_move']:.3f} ms/move, "
                  f"errors {bots['errors']}", flush=True)
            result["settings"].append(row)
        finally:
            host.stop()
    return result
