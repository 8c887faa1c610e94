"""Scenario: tables held open concurrently, and what each one costs the host.

One `tablehost serve` with a turn timer of an hour and a grace period of a day, so the
games stay in progress and nothing closes a table on its own. Players (4 per table, real
SDK sessions: JoinQueue, hello, first snapshot) are added level by level (e.g. 10, 100,
1,000, 2,000 tables) from several client processes, and stay connected. At 0 tables and
at each level, after the host settles: the host tree's PSS, threads and file descriptors,
by process kind, and its CPU over an idle window; the same for the client processes.
The per-table figures are least-squares slopes over the levels (with R²); idle CPU per
table is the host's idle CPU at a level minus its idle CPU at 0 tables, over the tables.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hostbench.children import Budget
from hostbench.host import HOST_KINDS, HostUnderTest, LOAD_GENERATOR_EXEMPT
from hostbench.load import PlayerProcesses, split_evenly
from hostbench.procs import MIB, TreeReading, cpu_delta_by_kind, memory_info, open_files_limit
from hostbench.stats import fit_line

TURN_TIMEOUT_MS = 3_600_000
ABANDON_AFTER_S = 86_400
EPHEMERAL_PORTS = "/proc/sys/net/ipv4/ip_local_port_range"


@dataclass(frozen=True)
class HeldOpenPlan:
    levels: tuple[int, ...]
    client_processes: int
    idle_window_s: float
    settle_s: float
    own_connections: bool
    join_timeout_s: float = 120.0


def _measure(host: HostUnderTest, load: PlayerProcesses, idle_window_s: float) -> dict[str, Any]:
    """Memory, threads and fds of host and clients, then both CPUs over one idle window."""
    host_now, clients_now = host.reading(), load.reading()
    host_before, clients_before = host.reading(memory=False), load.reading(memory=False)
    time.sleep(idle_window_s)
    host_after, clients_after = host.reading(memory=False), load.reading(memory=False)
    host_idle = cpu_delta_by_kind(host_before, host_after)
    clients_idle = cpu_delta_by_kind(clients_before, clients_after)
    return {
        "host": _tree_figures(host_now),
        "host_idle_ms_per_s": {k: round(host_idle.get(k, 0.0) * 1000 / idle_window_s, 3) for k in HOST_KINDS},
        "clients": _tree_figures(clients_now),
        "clients_idle_ms_per_s": round(clients_idle.get("clients", 0.0) * 1000 / idle_window_s, 3),
    }


def _tree_figures(reading: TreeReading) -> dict[str, Any]:
    return {
        "pss_mib": {k: round(v / MIB, 2) for k, v in reading.by_kind("pss").items()},
        "threads": reading.by_kind("threads"),
        "fds": reading.by_kind("fds"),
        "processes": {k: reading.count(k) for k in {p.kind for p in reading.processes}},
        "largest_fds": {k: reading.largest("fds", k) for k in {p.kind for p in reading.processes}},
    }


def run(plan: HeldOpenPlan, logdir: Path, budget: Budget, seed: int) -> dict[str, Any]:
    flags = ["--turn-timeout", f"bigtwo={TURN_TIMEOUT_MS}", "--abandon-after", str(ABANDON_AFTER_S),
             "--seed", str(seed)]
    result: dict[str, Any] = {"plan": plan.__dict__ | {"levels": list(plan.levels)}, "flags": flags, "levels": []}
    print(f"held open: starting a host ({' '.join(flags)}) and {plan.client_processes} client processes", flush=True)
    host = HostUnderTest("host-held-open", [*flags, *LOAD_GENERATOR_EXEMPT], logdir, budget)
    load: PlayerProcesses | None = None
    try:
        load = PlayerProcesses("held", host.target, plan.client_processes, logdir, plan.own_connections)
        time.sleep(plan.settle_s)
        status = host.status()
        result["memory_available_at_start"] = memory_info()
        result["tables_per_room"] = int(status["tables_per_room"])
        result["host_fd_limit"] = open_files_limit(host.pid)
        result["clients_fd_limit"] = open_files_limit(load.children[0].pid)
        baseline = {"tables": 0, "running": int(status["tables"]), "rooms": int(status["rooms"]),
                    **_measure(host, load, plan.idle_window_s)}
        result["levels"].append(baseline)
        _print_level(baseline)
        held = 0
        for level in plan.levels:
            shares = split_evenly((level - held) * 4, plan.client_processes)
            load.prepare(shares, budget)
            host_before, clients_before = host.reading(memory=False), load.reading(memory=False)
            started = time.monotonic()
            joined = load.join(shares, connect=True, budget=budget, timeout_s=plan.join_timeout_s)
            step_s = time.monotonic() - started
            host_step = cpu_delta_by_kind(host_before, host.reading(memory=False))
            clients_step = cpu_delta_by_kind(clients_before, load.reading(memory=False))
            status = host.wait_for_tables(level, budget.seconds(30))
            time.sleep(plan.settle_s)
            row: dict[str, Any] = {
                "tables": level,
                "running": int(status["tables"]),
                "rooms": int(status["rooms"]),
                "added_players": sum(shares),
                "seated": joined["seated"],
                "connected": joined.get("connected", 0),
                "join_errors": joined["errors"],
                "join_error_messages": joined["error_messages"],
                "seat_and_connect_s": round(step_s, 2),
                "host_cpu_for_step_s": round(sum(host_step.values()), 3),
                "clients_cpu_for_step_s": round(sum(clients_step.values()), 3),
                **_measure(host, load, plan.idle_window_s),
            }
            row["check"] = load.check(budget)
            result["levels"].append(row)
            _print_level(row)
            held = level
            if row["check"]["open"] < level * 4 or row["join_errors"]:
                result["stopped_at"] = level
                print(f"  stopping: {row['check']['open']} of {level * 4} streams open, "
                      f"{row['join_errors']} errors: {row['join_error_messages'][:2]}", flush=True)
                break
    except Exception as error:  # keep the levels measured so far: they are figures of the run too
        result["error"] = f"{type(error).__name__}: {error}"
        print(f"  held open stopped: {result['error']}", flush=True)
    finally:
        if load is not None:
            load.close()
        result["host_end"] = host.stop()
    result["summary"] = summarize(result, plan)
    return result


def _print_level(row: dict[str, Any]) -> None:
    pss = sum(row["host"]["pss_mib"].values())
    idle = sum(row["host_idle_ms_per_s"].values())
    extra = ""
    if row["tables"]:
        extra = (f", seated+connected {row['added_players']} players in {row['seat_and_connect_s']} s, "
                 f"{row['check']['open']} streams open")
    print(f"  {row['tables']} tables ({row['running']} running, {row['rooms']} rooms): host PSS {pss:.0f} MiB, "
          f"threads {sum(row['host']['threads'].values())}, fds {sum(row['host']['fds'].values())}, "
          f"idle {idle:.1f} ms/s; clients PSS {sum(row['clients']['pss_mib'].values()):.0f} MiB{extra}", flush=True)


def _ephemeral_ports() -> int:
    try:
        low, high = (int(x) for x in Path(EPHEMERAL_PORTS).read_text().split())
        return high - low + 1
    except (OSError, ValueError):
        return 0


def summarize(result: dict[str, Any], plan: HeldOpenPlan) -> dict[str, Any]:
    """Per-table slopes over the levels held (0 tables excluded), idle CPU beyond the
    fixed cost, and where each resource of this machine would run out."""
    rows = [row for row in result["levels"] if row["tables"] > 0]
    if not rows:
        return {}
    base = result["levels"][0]
    xs = [float(row["tables"]) for row in rows]

    def fit(values: list[float]) -> dict[str, float]:
        line = fit_line(xs, values)
        return {"slope": line.slope, "intercept": line.intercept, "r2": line.r2, "points": line.points}

    host_pss = fit([sum(row["host"]["pss_mib"].values()) for row in rows])
    host_threads = fit([float(sum(row["host"]["threads"].values())) for row in rows])
    host_fds = fit([float(sum(row["host"]["fds"].values())) for row in rows])
    pss_by_kind = {k: fit([row["host"]["pss_mib"].get(k, 0.0) for row in rows])["slope"] for k in HOST_KINDS}
    fds_by_kind = {k: fit([float(row["host"]["fds"].get(k, 0)) for row in rows])["slope"] for k in HOST_KINDS}
    threads_by_kind = {k: fit([float(row["host"]["threads"].get(k, 0)) for row in rows])["slope"] for k in HOST_KINDS}
    clients_pss = fit([sum(row["clients"]["pss_mib"].values()) for row in rows])
    clients_fds = fit([float(sum(row["clients"]["fds"].values())) for row in rows])
    idle_base = sum(base["host_idle_ms_per_s"].values())
    idle_beyond = [
        {"tables": row["tables"], "ms_per_s": (sum(row["host_idle_ms_per_s"].values()) - idle_base) / row["tables"]}
        for row in rows
    ]
    idle_fit = fit([sum(row["host_idle_ms_per_s"].values()) for row in rows])
    largest = rows[-1]

    # Where each resource runs out on this machine, extrapolating the slopes.
    available_mib = result["memory_available_at_start"].get("MemAvailable", 0) / MIB
    cores = os.cpu_count() or 1
    fd_limit = int(result.get("host_fd_limit") or 1024)
    clients_fd_limit = int(result.get("clients_fd_limit") or 1024)
    limits: list[dict[str, Any]] = []

    def limit(resource: str, per_table: float, room: float, note: str) -> None:
        tables = room / per_table if per_table > 0 else float("inf")
        limits.append({"resource": resource, "per_table": per_table, "room_for": room, "tables": tables, "note": note})

    limit("memory (host and load generator together)", host_pss["slope"] + clients_pss["slope"], available_mib,
          "MiB available when the run started, 0 tables held")
    limit("memory (host alone)", host_pss["slope"], available_mib, "MiB available when the run started")
    limit("idle CPU (host)", max(idle_fit["slope"], 0.0), cores * 1000.0 - idle_base,
          f"ms/s left of {cores} cores beyond the host's fixed cost")
    limit("file descriptors (the front door's process)", fds_by_kind["front_door"],
          fd_limit - base["host"]["fds"].get("front_door", 0), f"per-process limit {fd_limit}")
    per_room = int(result.get("tables_per_room") or 500)
    room_fds_full = fds_by_kind["rooms"] * per_room
    limit("file descriptors (one room process)", 0.0 if room_fds_full < fd_limit else fds_by_kind["rooms"],
          float(fd_limit), f"a room holds at most {per_room} tables: about {room_fds_full:,.0f} fds")
    limit("file descriptors (load generator)", clients_fds["slope"] / plan.client_processes,
          float(clients_fd_limit), f"per-process limit {clients_fd_limit}, {plan.client_processes} client processes")
    ports = _ephemeral_ports()
    if plan.own_connections and ports:
        limit("ephemeral ports (load generator -> front door)", 4.0, float(ports),
              "one loopback address: 4 lobby connections per table to one host:port")
    finite = [entry for entry in limits if entry["tables"] != float("inf")]
    first = min(finite, key=lambda entry: entry["tables"]) if finite else None
    return {
        "host_pss_mib": host_pss,
        "host_threads": host_threads,
        "host_fds": host_fds,
        "host_pss_mib_by_kind": pss_by_kind,
        "host_fds_by_kind": fds_by_kind,
        "host_threads_by_kind": threads_by_kind,
        "clients_threads": fit([float(sum(row["clients"]["threads"].values())) for row in rows]),
        "clients_pss_mib": clients_pss,
        "clients_fds": clients_fds,
        "idle_base_ms_per_s": idle_base,
        "idle_beyond_fixed": idle_beyond,
        "idle_fit": idle_fit,
        "largest_level": largest["tables"],
        "largest_level_open_streams": largest["check"]["open"],
        "all_levels_clean": all(r["check"]["open"] == r["tables"] * 4 and not r["join_errors"]
                                and not r["check"]["desyncs"] for r in rows),
        "limits": limits,
        "binds_first": first,
    }
