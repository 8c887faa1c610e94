"""Child processes, started in their own session and ended by PID only, and the run's
time budget.

Every child runs in a new session, so a Ctrl-C at the terminal reaches only the
benchmark, which then ends its children in order. A child is ended by its PID and start
time (never by name, never by process group): a PID reused by someone else's process in
the meantime is never signalled. A child that started a tree of its own (a host starts
Ray: raylet, GCS, lobby, rooms) is asked to stop, given a grace period, then every
process of its tree still alive is ended the same way.
"""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from hostbench import BENCH_DIR, ROOT
from hostbench.procs import descendants, is_alive, start_time


class OutOfTime(RuntimeError):
    """The run's budget is spent: the scenario gives up and its processes are ended."""


class Budget:
    """One deadline for the whole run, so a stuck run gives up by itself. Every wait
    asks `seconds(n)`: n, or what is left of the run if that is less."""

    def __init__(self, total_s: float) -> None:
        self.total_s = total_s
        self.deadline = time.monotonic() + total_s

    def seconds(self, wanted: float) -> float:
        left = self.deadline - time.monotonic()
        if left <= 1:
            raise OutOfTime(f"the run's {self.total_s:g} s budget is spent")
        return min(wanted, left)

    @property
    def left(self) -> float:
        return self.deadline - time.monotonic()


def signal_if_same(pid: int, started: int, sig: int) -> bool:
    if start_time(pid) != started:
        return False
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        return False
    return True


def end_processes(processes: list[tuple[int, int]], grace_s: float = 3.0) -> int:
    """SIGTERM, then SIGKILL after `grace_s`, each (pid, start time) still alive.
    Returns how many had to be signalled (0 when all had exited already)."""
    alive = [(pid, started) for pid, started in processes if is_alive(pid, started)]
    for pid, started in alive:
        signal_if_same(pid, started, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(is_alive(p, s) for p, s in alive):
        time.sleep(0.05)
    for pid, started in alive:
        if is_alive(pid, started):
            signal_if_same(pid, started, signal.SIGKILL)
    return len(alive)


def raise_nofile_limit() -> int:
    """Raise this process's soft limit on open files to the hard limit, and return it.
    Thousands of streams need thousands of descriptors and many systems start processes
    with a soft limit of 1024; every child started here inherits the raised limit (the
    host included, so its figures are not cut short by our shell's default)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    # Every host here must start its own embedded Ray. `tablehost serve` without
    # --address calls ray.init() with no address, and Ray then joins whatever cluster
    # /tmp/ray/ray_current_cluster names (written by `ray start` or a test's
    # ray.cluster_utils.Cluster anywhere on the machine) instead of starting one;
    # "local" is Ray's own word for "start a new local instance".
    env["RAY_ADDRESS"] = "local"
    env["PYTHONUNBUFFERED"] = "1"
    # The worker package (tests/benchmarks) and the project itself, for `-m hostbench.worker`.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(BENCH_DIR), str(ROOT), env.get("PYTHONPATH", "")]))
    env["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # Ray on loopback only
    # A host under test makes its own admin secret and writes its token (hostbench/host.py).
    env.pop("TABLEHOST_ADMIN_SECRET", None)
    return env


# Every child started in this run, so that whatever a failing scenario left running is
# ended at the end of the run (end_leftovers), by PID like everything else.
_STARTED: list[Child] = []


def end_leftovers() -> int:
    """End every child of this run still running, with its tree; returns how many."""
    left = [child for child in _STARTED if child.running]
    for child in left:
        child.stop(signal.SIGTERM, grace_s=5)
    return len(left)


class Child:
    """A subprocess: its stdout lines are collected by a thread, its stderr goes to a
    file in the run's log folder, and it can be sent JSON commands on stdin."""

    def __init__(self, name: str, argv: list[str], logdir: Path, *, stdin: bool = False, cwd: Path = ROOT) -> None:
        self.name = name
        self.argv = argv
        self.stderr_path = logdir / f"{name}.stderr"
        with open(self.stderr_path, "w") as stderr:
            self.proc = subprocess.Popen(
                argv, stdout=subprocess.PIPE, stderr=stderr, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                text=True, cwd=cwd, env=child_env(), start_new_session=True,
            )
        self.pid = self.proc.pid
        self.started = start_time(self.pid) or 0
        _STARTED.append(self)
        self.lines: list[str] = []
        self._consumed = 0
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, name=f"{name}-stdout", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    @property
    def running(self) -> bool:
        return self.proc.poll() is None

    def wait_for_line(self, pattern: str, timeout: float) -> re.Match[str]:
        """The first line (ever printed) matching `pattern`."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for line in self.lines:
                    match = regex.search(line)
                    if match:
                        return match
                self._check_alive(pattern)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{self.name} printed no {pattern!r} within {timeout:g} s")
                self._changed.wait(min(left, 0.2))

    def next_json(self, timeout: float) -> dict[str, Any]:
        """The next JSON line not yet read (a worker's answer to a command)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                while self._consumed < len(self.lines):
                    line = self.lines[self._consumed]
                    self._consumed += 1
                    if line.startswith("{"):
                        return json.loads(line)
                self._check_alive("a JSON line")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{self.name} gave no answer within {timeout:g} s")
                self._changed.wait(min(left, 0.2))

    def _check_alive(self, what: str) -> None:
        if self.proc.poll() is not None and not self._reader.is_alive():
            raise RuntimeError(f"{self.name} exited ({self.proc.returncode}) before printing {what}: "
                               f"{self.stderr_tail()}")

    def send(self, command: dict[str, Any]) -> None:
        assert self.proc.stdin is not None, f"{self.name} was started without stdin"
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()

    def wait(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def last_json(self) -> dict[str, Any]:
        """The last JSON line it printed (a command-line tool's summary)."""
        self._reader.join(5)
        for line in reversed(self.lines):
            if line.startswith("{"):
                return json.loads(line)
        raise RuntimeError(f"{self.name} printed no JSON line; stderr: {self.stderr_tail()}")

    def stderr_tail(self, lines: int = 8) -> str:
        try:
            return " | ".join(self.stderr_path.read_text(errors="replace").strip().splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self, sig: int = signal.SIGTERM, grace_s: float = 10.0) -> int:
        """Ask it to stop (`sig`), wait up to `grace_s`, then end it and every descendant
        still alive by PID. Returns how many processes had to be ended that way."""
        tree = descendants(self.pid)
        if self.proc.poll() is None:
            signal_if_same(self.pid, self.started, sig)
            self.wait(grace_s)
        leftovers = end_processes([(self.pid, self.started)] + tree)
        self.wait(5)
        if self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        return leftovers


def run_to_end(name: str, argv: list[str], logdir: Path, timeout: float, cwd: Path = ROOT) -> tuple[Child, int | None]:
    """Run a child to completion within `timeout`; on timeout end it (and its tree)."""
    child = Child(name, argv, logdir, cwd=cwd)
    try:
        code = child.wait(timeout)
    except BaseException:  # interrupted: end it before passing the interrupt on
        child.stop(signal.SIGTERM, grace_s=3)
        raise
    if code is None:
        child.stop(signal.SIGTERM, grace_s=3)
    return child, code


def tablehost_argv(*args: str) -> list[str]:
    script = Path(sys.executable).with_name("tablehost")
    if script.exists():
        return [str(script), *args]
    return [sys.executable, "-c", "from tablehost.host.cli import main; main()", *args]


def worker_argv(mode: str, *args: str) -> list[str]:
    """A client-side process of this benchmark (players, echo server or clients)."""
    return [sys.executable, "-m", "hostbench.worker", mode, *args]
