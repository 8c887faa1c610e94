"""Scenario: the peer, Colyseus 0.18 on the same table workload, in the same run.

`shared/peers/colyseus/run.sh TABLES MOVES_PER_TABLE` installs Colyseus into a temporary
folder on first use, starts a Node server and Node clients (4 seats a table, only the
seat to act moves, every accepted move patches all four) and prints one JSON line:
moves/s and the move round trip's p50/p99. Its server does no rules, no per-seat views
and no hashes.

For server CPU per move, the benchmark finds the server among the descendants of the
run.sh process it started (walking /proc from that PID, never by name), reads its CPU
when the load process appears (so Node's start and Colyseus's imports are left out) and
keeps reading it every few milliseconds until it exits; the last reading minus the
first, over the moves, is the figure. Its PSS is read along the way.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from hostbench import PEER_RUN
from hostbench.children import Budget, Child
from hostbench.procs import MIB, cmdline, cpu_s, descendants, pss_bytes

POLL_S = 0.01
PSS_EVERY_S = 0.5
INSTALL_TIMEOUT_S = 300.0
RUN_TIMEOUT_S = 150.0


def peer_script() -> Path:
    return Path(os.environ.get("TABLEHOST_COLYSEUS_PEER", str(PEER_RUN)))


def _node_running(tree: list[tuple[int, int]], script: str) -> int | None:
    """The node process (not its `timeout` wrapper) running `script`, among `tree`."""
    for pid, _ in tree:
        argv = cmdline(pid).split()
        if argv and Path(argv[0]).name == "node" and script in argv:
            return pid
    return None


def run_once(tables: int, moves_per_table: int, logdir: Path, timeout_s: float) -> dict[str, Any]:
    script = peer_script()
    child = Child(f"peer-{tables}x{moves_per_table}", ["bash", str(script), str(tables), str(moves_per_table)], logdir)
    server = load = None
    server_cpu_at_load = server_cpu_last = 0.0
    load_cpu_last = 0.0
    pss_peak = 0.0
    next_pss = 0.0
    deadline = time.monotonic() + timeout_s
    try:
        while child.running and time.monotonic() < deadline:
            tree = descendants(child.pid)
            if server is None:
                server = _node_running(tree, "server.mjs")
            if server is not None and load is None:
                load = _node_running(tree, "load.mjs")
                if load is not None:
                    server_cpu_at_load = cpu_s(server)
            if server is not None:
                reading = cpu_s(server)
                if reading > 0:
                    server_cpu_last = reading
                if time.monotonic() >= next_pss:
                    next_pss = time.monotonic() + PSS_EVERY_S
                    pss_peak = max(pss_peak, pss_bytes(server) / MIB)
            if load is not None:
                load_cpu_last = max(load_cpu_last, cpu_s(load))
            time.sleep(POLL_S)
        code = child.wait(5)
        if code is None:
            raise RuntimeError(f"{child.name} did not finish within {timeout_s:g} s")
        figures = child.last_json()
    finally:
        child.stop(grace_s=3)
    figures["exit_code"] = code
    if load is not None:
        figures["server_cpu_s"] = round(server_cpu_last - server_cpu_at_load, 4)
        figures["server_cpu_ms_per_move"] = round(figures["server_cpu_s"] * 1000 / max(1, figures["moves"]), 4)
        figures["clients_cpu_s"] = round(load_cpu_last, 4)
        figures["server_pss_peak_mib"] = round(pss_peak, 1)
    return figures


def run(levels: tuple[int, ...], moves_per_table: int, logdir: Path, budget: Budget) -> dict[str, Any]:
    script = peer_script()
    if not script.exists():
        return {"skipped": f"no peer harness at {script}"}
    print(f"peer: {script} (first a small run, which installs Colyseus if it is not yet installed)", flush=True)
    warm = run_once(1, 10, logdir, budget.seconds(INSTALL_TIMEOUT_S))
    result: dict[str, Any] = {"script": str(script), "moves_per_table": moves_per_table,
                              "warmup_ok": warm.get("exit_code") == 0, "levels": []}
    for tables in levels:
        figures = run_once(tables, moves_per_table, logdir, budget.seconds(RUN_TIMEOUT_S))
        figures["tables"] = tables
        result["levels"].append(figures)
        print(f"  {tables} tables: {figures['moves']} moves, {figures['moves_per_s']} moves/s, p50 {figures['p50_ms']} ms, "
              f"p99 {figures['p99_ms']} ms, server CPU {figures.get('server_cpu_ms_per_move', float('nan')):.3f} ms/move",
              flush=True)
    return result
