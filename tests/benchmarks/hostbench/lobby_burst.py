"""Scenario: the lobby under a crowd.

10,000 players (in the full run) send JoinQueue at once, all in flight together, from
several client processes, each player with its own connected LobbyClient; every room the
resulting tables need is already running. While they wait, the benchmark polls the
front door's Admin.Status (players held waiting at the front door, players in the
lobby's queues, tables waiting for a room) and the PSS of the lobby actor and the front
door. Figures: seat assignments per second (first JoinQueue sent to last assignment
received), the peak number waiting, and the lobby's and front door's memory before,
at the peak and after.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hostbench.children import Budget
from hostbench.host import HOST_KINDS, HostUnderTest
from hostbench.load import PlayerProcesses, split_evenly
from hostbench.procs import MIB, cpu_delta_by_kind, pss_bytes
from hostbench.table_starts import burst_figures, start_host_with_rooms_for

STATUS_POLL_S = 0.05
MEMORY_POLL_S = 0.25


@dataclass(frozen=True)
class CrowdPlan:
    players: int
    client_processes: int
    own_connections: bool
    settle_s: float = 2.0
    timeout_s: float = 120.0


class CrowdWatch:
    """Polls Admin.Status and the lobby's and front door's PSS on a thread of its own
    while the crowd is being seated, keeping the peaks."""

    def __init__(self, host: HostUnderTest, lobby_pid: int) -> None:
        self.host = host
        self.lobby_pid = lobby_pid
        self.peaks = {"waiting_at_front_door": 0, "waiting_in_lobby_queues": 0, "tables_awaiting_room": 0,
                      "lobby_pss_mib": 0.0, "front_door_pss_mib": 0.0}
        self.polls = 0
        self.poll_errors = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="crowd-watch", daemon=True)

    def __enter__(self) -> CrowdWatch:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join(10)

    def _watch(self) -> None:
        next_memory = 0.0
        while not self._stop.is_set():
            try:
                status = self.host.status(timeout_s=5)
                self.polls += 1
                self._peak("waiting_at_front_door", int(status["waiting_here"]))
                self._peak("waiting_in_lobby_queues", int(status["waiting"]))
                self._peak("tables_awaiting_room", int(status["tables_awaiting_room"]))
            except Exception:  # a status call that times out under the crowd is itself a finding
                self.poll_errors += 1
            if time.monotonic() >= next_memory:
                next_memory = time.monotonic() + MEMORY_POLL_S
                self._peak("lobby_pss_mib", pss_bytes(self.lobby_pid) / MIB)
                self._peak("front_door_pss_mib", pss_bytes(self.host.pid) / MIB)
            self._stop.wait(STATUS_POLL_S)

    def _peak(self, key: str, value: float) -> None:
        self.peaks[key] = max(self.peaks[key], value)


def _memory(host: HostUnderTest, lobby_pid: int) -> dict[str, float]:
    return {"lobby_pss_mib": round(pss_bytes(lobby_pid) / MIB, 2),
            "front_door_pss_mib": round(pss_bytes(host.pid) / MIB, 2)}


def run(plan: CrowdPlan, logdir: Path, budget: Budget, seed: int) -> dict[str, Any]:
    tables = plan.players // 4
    print(f"lobby burst: a host with rooms for {tables} tables; {plan.players} players in "
          f"{plan.client_processes} processes", flush=True)
    host = start_host_with_rooms_for("host-lobby-burst", tables, logdir, budget, seed)
    result: dict[str, Any] = {"plan": plan.__dict__, "flags": host.flags}
    load: PlayerProcesses | None = None
    try:
        load = PlayerProcesses("crowd", host.target, plan.client_processes, logdir, plan.own_connections)
        lobby_pid = next(pid for pid, kind in host.processes() if kind == "lobby")
        shares = split_evenly(plan.players, plan.client_processes)
        prepared = load.prepare(shares, budget)
        result["warm_s"] = max(answer["warm_s"] for answer in prepared)
        time.sleep(plan.settle_s)
        result["memory_before"] = _memory(host, lobby_pid)
        result["rooms"] = int(host.status()["rooms"])
        before, clients_before = host.reading(memory=False), load.reading(memory=False)
        with CrowdWatch(host, lobby_pid) as watch:
            joined = load.join(shares, connect=False, budget=budget, timeout_s=plan.timeout_s)
        used = cpu_delta_by_kind(before, host.reading(memory=False))
        clients_used = cpu_delta_by_kind(clients_before, load.reading(memory=False)).get("clients", 0.0)
        time.sleep(plan.settle_s)
        result["memory_after"] = _memory(host, lobby_pid)
        result["peaks"] = {key: round(value, 2) for key, value in watch.peaks.items()}
        result["status_polls"] = watch.polls
        result["status_poll_errors"] = watch.poll_errors
        result["burst"] = burst_figures(joined, tables)
        result["host_cpu_s"] = {kind: round(used.get(kind, 0.0), 3) for kind in HOST_KINDS}
        result["clients_cpu_s"] = round(clients_used, 3)
        burst = result["burst"]
        print(f"  {burst['seated']} players seated in {burst['span_s']:.3f} s: {burst['seats_per_s']:.0f} seats/s; "
              f"peak waiting at the front door {result['peaks']['waiting_at_front_door']}, in the lobby's queues "
              f"{result['peaks']['waiting_in_lobby_queues']}; lobby PSS {result['memory_before']['lobby_pss_mib']} -> "
              f"{result['memory_after']['lobby_pss_mib']} MiB; errors {burst['errors']}", flush=True)
    finally:
        if load is not None:
            load.close()
        result["host_end"] = host.stop()
    return result
