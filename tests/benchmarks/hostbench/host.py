"""One `tablehost serve` under test: started as a child process with the flags a scenario
needs, read through its admin listener, accounted for through /proc, stopped by PID.

The host's process tree is the serve process (the front door) and every descendant:
Ray's GCS and raylet and helpers, the lobby actor and the room actors. Client processes
are never part of it: they are children of the benchmark, not of the host.
"""

from __future__ import annotations

import re
import signal
import time
from collections import Counter
from pathlib import Path
from typing import Any

from hostbench.children import Budget, Child, tablehost_argv
from hostbench.procs import TreeReading, cmdline, cpu_delta_by_kind, descendants, read_processes

HOST_START_S = 120.0
# The benchmarks' players all come from 127.0.0.1: one address making thousands of
# players' calls, as the operator's own load generator, which a host exempts from
# its per-client quotas (the front door benchmark measures those quotas instead).
LOAD_GENERATOR_EXEMPT = ("--quota-exempt", "127.0.0.1")
HOST_KINDS = ("front_door", "lobby", "rooms", "ray")
KIND_LABELS = {"front_door": "front door", "lobby": "lobby", "rooms": "rooms", "ray": "rest of Ray"}


def process_kind(command: str) -> str:
    """A host process's kind from its command line (Ray names an actor's process
    `ray::ClassName` or `ray::ClassName.method_now_running`)."""
    if command.startswith("ray::RoomActor"):
        return "rooms"
    if command.startswith("ray::LobbyActor"):
        return "lobby"
    return "ray"


class HostUnderTest:
    def __init__(self, name: str, flags: list[str], logdir: Path, budget: Budget) -> None:
        self.name = name
        self.flags = flags
        # With no admin secret in its environment, the host writes its run's admin token here.
        token_file = logdir / f"{name}-admin-token"
        self.child = Child(name, tablehost_argv("serve", "--host", "127.0.0.1", "--port", "0", "--admin-port", "0",
                                                "--console-port", "0", "--admin-token-file", str(token_file), *flags),
                           logdir)
        self._channel: Any = None
        try:
            self.target = self.child.wait_for_line(r"listening on (\S+)", budget.seconds(HOST_START_S)).group(1)
            self.admin_target = self.child.wait_for_line(r"admin on (\S+)", budget.seconds(HOST_START_S)).group(1)
            self.admin_token = token_file.read_text().strip()
        except BaseException:
            self.child.stop(signal.SIGINT, grace_s=30)
            raise
        self.session_dir = self._session_dir()

    @property
    def pid(self) -> int:
        return self.child.pid

    # -- what it holds ---------------------------------------------------------------

    def processes(self) -> list[tuple[int, str]]:
        tree = [(pid, process_kind(cmdline(pid))) for pid, _ in descendants(self.pid)]
        return [(self.pid, "front_door"), *tree]

    def reading(self, memory: bool = True) -> TreeReading:
        return read_processes(self.processes(), memory=memory)

    def idle_cpu(self, window_s: float) -> dict[str, float]:
        """CPU seconds per second each kind used over a window in which nothing is asked
        of the host."""
        before = self.reading(memory=False)
        time.sleep(window_s)
        used = cpu_delta_by_kind(before, self.reading(memory=False))
        return {kind: used.get(kind, 0.0) / window_s for kind in HOST_KINDS}

    def status(self, timeout_s: float = 10.0) -> dict[str, Any]:
        """The host's Admin.Status (rooms, tables, free slots, queues), as a dict."""
        import grpc
        from google.protobuf.json_format import MessageToDict
        from tablehost.v1 import admin_pb2, admin_pb2_grpc

        if self._channel is None:
            self._channel = grpc.insecure_channel(self.admin_target)
        reply = admin_pb2_grpc.AdminStub(self._channel).Status(
            admin_pb2.StatusRequest(), metadata=(("authorization", f"Bearer {self.admin_token}"),), timeout=timeout_s)
        return MessageToDict(reply, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)

    def wait_for_tables(self, tables: int, timeout_s: float) -> dict[str, Any]:
        """Poll Admin.Status until `tables` tables run (or the time is up)."""
        deadline = time.monotonic() + timeout_s
        while True:
            status = self.status()
            if int(status["tables"]) >= tables or time.monotonic() > deadline:
                return status
            time.sleep(0.2)

    # -- its logs --------------------------------------------------------------------

    def _session_dir(self) -> str | None:
        for pid, _ in self.processes():
            match = re.search(r"--session-dir=(\S+)", cmdline(pid))
            if match:
                return match.group(1)
        return None

    def scan_logs(self) -> dict[str, int]:
        """Counts of worrying lines in the Ray session's worker logs (the lobby and the
        rooms log there) and in the front door's stderr."""
        counts: Counter[str] = Counter()
        paths = sorted(Path(self.session_dir, "logs").glob("worker-*")) if self.session_dir else []
        for path in [*paths[:500], self.child.stderr_path]:
            try:
                text = path.read_text(errors="replace")
            except OSError:
                continue
            for line in text.splitlines():
                if "Traceback" in line:
                    counts["tracebacks"] += 1
                if "desync table=" in line:
                    counts["desyncs"] += 1
                if "turn timer expired" in line:
                    counts["automatic_moves"] += 1
                if " ERROR " in line or "table failed" in line:
                    counts["error_lines"] += 1
        return dict(counts)

    # -- the end -----------------------------------------------------------------------

    def stop(self) -> dict[str, Any]:
        """SIGINT (the host closes every stream and shuts its Ray down), then every
        process of its tree still alive is ended by PID. Returns the log counts and how
        many processes had to be ended that way."""
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        logs = {}
        try:
            logs = self.scan_logs()
        except Exception:  # the counts are a courtesy; stopping is what matters
            pass
        leftovers = self.child.stop(signal.SIGINT, grace_s=30)
        return {"logs": logs, "leftovers": leftovers}
