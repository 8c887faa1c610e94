"""Scenario: a burst of table starts.

4 x N players, spread over several client processes, each with its own LobbyClient whose
channel is already connected, send JoinQueue at once (N = 1,000 in the full run). The
host was started with rooms enough for the burst and its free-slot reserve after it
(`--rooms-per-cpu`), all running before the burst: this measures seating, not process
starts. Figures:
tables seated per second, from the first JoinQueue sent to the last TableAssignment
received (one clock: CLOCK_MONOTONIC, shared by every process of the machine), and the
wait of the last player seated; the host's CPU by process kind over the burst.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablehost.actors.config import DEFAULT_TABLES_PER_ROOM, default_free_slots
from hostbench.children import Budget
from hostbench.host import HOST_KINDS, HostUnderTest, LOAD_GENERATOR_EXEMPT
from hostbench.load import PlayerProcesses, split_evenly
from hostbench.procs import cpu_delta_by_kind
from hostbench.stats import nearest_rank



@dataclass(frozen=True)
class BurstPlan:
    tables: int
    client_processes: int
    own_connections: bool
    settle_s: float = 2.0
    timeout_s: float = 120.0


def burst_figures(joined: dict[str, Any], tables: int) -> dict[str, Any]:
    """Rates and waits of one burst, from the merged answers of its client processes."""
    span = joined["last_assigned"] - joined["first_sent"]
    waits = joined["waits_ms"]
    return {
        "players": joined["players"],
        "seated": joined["seated"],
        "tables_seen": joined["tables"],
        "full_tables": joined["full_tables"],
        "span_s": round(span, 4),
        "send_spread_s": round(joined["last_sent"] - joined["first_sent"], 4),
        "tables_per_s": round(tables / span, 1) if span > 0 else 0.0,
        "seats_per_s": round(joined["seated"] / span, 1) if span > 0 else 0.0,
        "wait_p50_ms": nearest_rank(waits, 50),
        "wait_p99_ms": nearest_rank(waits, 99),
        "last_wait_ms": max(waits, default=float("nan")),
        "errors": joined["errors"],
        "error_messages": joined["error_messages"],
    }


def start_host_with_rooms_for(name: str, tables: int, logdir: Path, budget: Budget, seed: int) -> HostUnderTest:
    """A host that starts, with itself, rooms enough for `tables` tables and its default
    free-slot reserve after them (by `--rooms-per-cpu`), so the burst neither waits for a
    room nor shares the machine with rooms the reserve would start behind it."""
    rooms = math.ceil((tables + default_free_slots(DEFAULT_TABLES_PER_ROOM)) / DEFAULT_TABLES_PER_ROOM)
    flags = ["--rooms-per-cpu", f"{rooms / (os.cpu_count() or 1):g}", "--seed", str(seed)]
    return HostUnderTest(name, [*flags, *LOAD_GENERATOR_EXEMPT], logdir, budget)


def run(plan: BurstPlan, logdir: Path, budget: Budget, seed: int) -> dict[str, Any]:
    print(f"table starts: a host with rooms for {plan.tables} tables; {4 * plan.tables} players in "
          f"{plan.client_processes} processes", flush=True)
    host = start_host_with_rooms_for("host-table-starts", plan.tables, logdir, budget, seed)
    result: dict[str, Any] = {"plan": plan.__dict__, "flags": host.flags}
    load: PlayerProcesses | None = None
    try:
        load = PlayerProcesses("starts", host.target, plan.client_processes, logdir, plan.own_connections)
        shares = split_evenly(4 * plan.tables, plan.client_processes)
        prepared = load.prepare(shares, budget)
        result["warm_s"] = max(answer["warm_s"] for answer in prepared)
        time.sleep(plan.settle_s)
        result["status_before"] = _room_status(host.status())
        before, clients_before = host.reading(memory=False), load.reading(memory=False)
        joined = load.join(shares, connect=False, budget=budget, timeout_s=plan.timeout_s)
        used = cpu_delta_by_kind(before, host.reading(memory=False))
        clients_used = cpu_delta_by_kind(clients_before, load.reading(memory=False)).get("clients", 0.0)
        result["status_after"] = _room_status(host.status())
        result["burst"] = burst_figures(joined, plan.tables)
        result["host_cpu_s"] = {kind: round(used.get(kind, 0.0), 3) for kind in HOST_KINDS}
        result["clients_cpu_s"] = round(clients_used, 3)
        burst = result["burst"]
        print(f"  {burst['full_tables']} tables seated in {burst['span_s']:.3f} s: {burst['tables_per_s']:.0f} tables/s; "
              f"last player's wait {burst['last_wait_ms']:.0f} ms; errors {burst['errors']}", flush=True)
    finally:
        if load is not None:
            load.close()
        result["host_end"] = host.stop()
    return result


def _room_status(status: dict[str, Any]) -> dict[str, int]:
    return {key: int(status[key]) for key in ("rooms", "tables", "free_slots", "tables_started", "waiting")}
