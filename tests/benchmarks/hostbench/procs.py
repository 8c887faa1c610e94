"""What a process tree costs, read from /proc, and how busy the machine is apart from us.

Memory is PSS (proportional set size, /proc/PID/smaps_rollup): a page shared by n
processes counts 1/n in each, so the PSS of a tree's processes adds up to what the tree
really holds, which RSS (shared libraries counted in full in every process) does not.

CPU is the sum of /proc/PID/task/*/schedstat (nanoseconds each thread has run), not the
10 ms ticks of /proc/PID/stat: a host's per-move cost is a fraction of a millisecond, so
tick rounding over a dozen processes would be the same size as the figure.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
MIB = 1024 * 1024


def _stat_fields(pid: int) -> list[str] | None:
    """Fields of /proc/PID/stat after the command name (which may hold spaces)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2 :].split()


def start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot: with the PID it names one
    process for good, so a PID reused meanwhile is never mistaken for ours."""
    fields = _stat_fields(pid)
    return int(fields[19]) if fields else None


def is_alive(pid: int, started: int) -> bool:
    """The process that started at `started` still runs (a zombie only waits to be reaped)."""
    fields = _stat_fields(pid)
    return fields is not None and fields[0] != "Z" and int(fields[19]) == started


def parents() -> dict[int, int]:
    """PID -> parent PID of every process on the machine."""
    found: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))
            if fields is not None:
                found[int(entry.name)] = int(fields[1])
    return found


def descendants(pid: int, parent_of: dict[int, int] | None = None) -> list[tuple[int, int]]:
    """(pid, start time) of every live descendant of `pid`, found by walking parent
    links from /proc (never by process name)."""
    parent_of = parents() if parent_of is None else parent_of
    children: dict[int, list[int]] = {}
    for child, parent in parent_of.items():
        children.setdefault(parent, []).append(child)
    found: list[tuple[int, int]] = []
    stack = list(children.get(pid, []))
    while stack:
        child = stack.pop()
        started = start_time(child)
        if started is not None:
            found.append((child, started))
        stack.extend(children.get(child, []))
    return found


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def cpu_s(pid: int) -> float:
    """CPU seconds the process's live threads have run so far (schedstat; else the
    ticks of /proc/PID/stat); 0 once it is gone."""
    total_ns, found = 0, False
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                total_ns += int((task / "schedstat").read_text().split()[0])
                found = True
            except (OSError, ValueError, IndexError):
                pass
    except OSError:
        return 0.0
    if found:
        return total_ns / 1e9
    fields = _stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS if fields else 0.0


def ticks_cpu_s(pid: int) -> float:
    """User + system CPU seconds from /proc/PID/stat (10 ms ticks): cheap enough to read
    for every process on the machine, which is what the foreign-load watch does."""
    fields = _stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS if fields else 0.0


def pss_bytes(pid: int) -> int:
    """Proportional set size from smaps_rollup; 0 when the process is gone."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def thread_count(pid: int) -> int:
    try:
        return sum(1 for _ in Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return 0


def fd_count(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


@dataclass
class ProcessReading:
    """One process at one moment."""

    pid: int
    kind: str
    pss: int
    threads: int
    fds: int
    cpu_s: float


@dataclass
class TreeReading:
    """A set of processes at one moment, with totals by kind (see `classify`)."""

    processes: list[ProcessReading] = field(default_factory=list)

    def total(self, attribute: str, kinds: Iterable[str] | None = None) -> float:
        wanted = None if kinds is None else set(kinds)
        return sum(getattr(p, attribute) for p in self.processes if wanted is None or p.kind in wanted)

    def by_kind(self, attribute: str) -> dict[str, float]:
        totals: dict[str, float] = {}
        for process in self.processes:
            totals[process.kind] = totals.get(process.kind, 0) + getattr(process, attribute)
        return totals

    def largest(self, attribute: str, kind: str) -> float:
        return max((getattr(p, attribute) for p in self.processes if p.kind == kind), default=0)

    def count(self, kind: str) -> int:
        return sum(1 for p in self.processes if p.kind == kind)


def read_processes(pids: Iterable[tuple[int, str]], memory: bool = True) -> TreeReading:
    """Read each (pid, kind); PSS only when `memory` (smaps_rollup walks every mapping,
    a few ms for a big process: too slow to read many times a second)."""
    reading = TreeReading()
    for pid, kind in pids:
        reading.processes.append(
            ProcessReading(pid, kind, pss_bytes(pid) if memory else 0, thread_count(pid), fd_count(pid), cpu_s(pid))
        )
    return reading


def cpu_delta_by_kind(before: TreeReading, after: TreeReading) -> dict[str, float]:
    """CPU seconds each kind used between two readings of the same tree. A process that
    appeared in between counts from its start; one that vanished loses what it used
    after `before` (rare here: nothing in a host ends mid-measurement)."""
    start = {p.pid: p.cpu_s for p in before.processes}
    used: dict[str, float] = {}
    for process in after.processes:
        used[process.kind] = used.get(process.kind, 0.0) + process.cpu_s - start.get(process.pid, 0.0)
    return used


# -- the machine ---------------------------------------------------------------------------


def machine_busy_jiffies() -> tuple[int, int]:
    """(busy, total) CPU jiffies of the whole machine since boot, from /proc/stat."""
    numbers = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = numbers[3] + numbers[4]
    total = sum(numbers[:8])  # guest time is already inside user time
    return total - idle, total


def machine_cpu_jiffies() -> dict[str, int]:
    """The whole machine's CPU jiffies since boot by where they went, from
    /proc/stat: user (nice included), kernel (system, irq and softirq: the
    kernel's own work, such as loopback TCP for every process), idle (iowait
    included)."""
    user, nice, system, idle, iowait, irq, softirq, steal = (
        int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:9])
    return {"user": user + nice, "kernel": system + irq + softirq, "idle": idle + iowait, "steal": steal}


def machine_cpu_shares(before: dict[str, int], after: dict[str, int]) -> dict[str, float]:
    """Each part's share of the machine's CPU time between two readings."""
    spent = {part: after[part] - before[part] for part in before}
    total = max(sum(spent.values()), 1)
    return {part: round(jiffies / total, 3) for part, jiffies in spent.items()}


def memory_info() -> dict[str, int]:
    """MemTotal and MemAvailable in bytes."""
    found: dict[str, int] = {}
    for line in Path("/proc/meminfo").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("MemTotal", "MemAvailable"):
            found[key] = int(value.split()[0]) * 1024
    return found


def open_files_limit(pid: int) -> int:
    """The soft limit on open files a process runs with (/proc/PID/limits)."""
    try:
        for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
            if line.startswith("Max open files"):
                return int(line.split()[3])
    except (OSError, ValueError, IndexError):
        pass
    return 0


class ForeignLoad:
    """CPU used on the machine by processes that are not this run's (another engineer's
    tests, say): every process outside our own tree, read from /proc/PID/stat, summed
    between calls to `sample`. Processes born and gone between two samples are missed,
    so sample every few seconds; the machine-wide busy share is given beside it."""

    def __init__(self, own_pid: int) -> None:
        self.own_pid = own_pid
        self.foreign_cpu_s = 0.0
        self.busiest: dict[str, float] = {}
        self._seen: dict[tuple[int, int], float] = {}
        self._busy0, self._total0 = machine_busy_jiffies()
        self._started = time.monotonic()
        self.sample()

    def sample(self) -> None:
        parent_of = parents()
        ours = {self.own_pid} | {pid for pid, _ in descendants(self.own_pid, parent_of)}
        seen: dict[tuple[int, int], float] = {}
        for pid in parent_of:
            if pid in ours:
                continue
            started = start_time(pid)
            if started is None:
                continue
            used = ticks_cpu_s(pid)
            key = (pid, started)
            seen[key] = used
            if key in self._seen:
                delta = used - self._seen[key]
                self.foreign_cpu_s += delta
                if delta > 0:
                    name = (cmdline(pid) or f"pid {pid}")[:80]
                    self.busiest[name] = self.busiest.get(name, 0.0) + delta
        self._seen = seen

    def summary(self) -> dict[str, object]:
        busy1, total1 = machine_busy_jiffies()
        elapsed = time.monotonic() - self._started
        top = sorted(self.busiest.items(), key=lambda item: -item[1])[:3]
        return {
            "elapsed_s": round(elapsed, 1),
            "machine_busy_share": round((busy1 - self._busy0) / max(1, total1 - self._total0), 3),
            "foreign_cpu_s": round(self.foreign_cpu_s, 1),
            "foreign_cores": round(self.foreign_cpu_s / elapsed, 3) if elapsed > 0 else 0.0,
            "foreign_top": [(name, round(cpu, 1)) for name, cpu in top if cpu >= 0.5],
        }


def busy_before(seconds: float, own_pid: int) -> dict[str, object]:
    """How busy the machine was over `seconds` just before the run, and by whom."""
    watch = ForeignLoad(own_pid)
    time.sleep(seconds)
    watch.sample()
    return watch.summary()
