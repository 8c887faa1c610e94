"""A real multi-process Ray cluster on this machine: the head started as an
operator starts one (`ray start --head --node-ip-address 127.0.0.1`), and
worker nodes each in their own process tree (scripts/ray_worker_node.py says
why they are not `ray start --address`: that command cannot stay on
loopback). Every process is ours to stop by pid: each is kept in the
foreground (--block for the head). Never `ray stop`: that ends every Ray on
the machine, the test session's own among them."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

RAY = str(Path(sys.executable).with_name("ray"))
WORKER_NODE = Path(__file__).resolve().parent / "scripts" / "ray_worker_node.py"
LOOPBACK_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}  # 127.0.0.1 stays 127.0.0.1 in every address
# A test's cluster is thrown away: its processes get this long after SIGTERM
# (enough for a `ray start` to stop its raylet and GCS) before SIGKILL ends
# what is left, and then this long to be gone.
_TERM_GRACE_S = 2.0
_KILL_WAIT_S = 10.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(predicate, timeout: float, what: str, interval: float = 0.1) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout:.0f} s")
        time.sleep(interval)


class RayStartCluster:
    """A head and `workers` worker nodes of `cpus` CPUs each; `env` is added
    to every node's environment, `worker_env` to the workers' alone (a node's
    rooms inherit its environment)."""

    def __init__(self, workers: int = 2, cpus: int = 1, env: dict[str, str] | None = None,
                 worker_env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        # Short: Ray's unix sockets live under it, and their paths are limited to 107 bytes.
        self.temp_dir = tempfile.mkdtemp(prefix="thc-", dir="/tmp")
        # Ray's token authentication, with a token of this cluster's own that
        # every process of it (nodes, front doors, probes) is given.
        auth = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
        self.env = {**os.environ, **LOOPBACK_ENV, **auth, **(env or {})}
        self._workers, self._cpus, self._worker_env = workers, cpus, worker_env or {}
        self.nodes: list[subprocess.Popen[bytes]] = []

    def start(self) -> RayStartCluster:
        self._start_node([RAY, "start", "--head", "--port", str(self.port), "--node-ip-address", "127.0.0.1",
                          "--num-cpus", str(self._cpus), "--include-dashboard", "false", "--temp-dir", self.temp_dir,
                          "--block", "--disable-usage-stats"])
        wait_for(lambda: self.alive_nodes() == 1, 90, "the head node alive")
        for number in range(1, self._workers + 1):
            # One at a time: a node picks its free ports before binding them,
            # so two starting at once can pick the same one.
            self._start_node([sys.executable, str(WORKER_NODE), self.address, str(self._cpus)],
                             {**self.env, **self._worker_env})
            wait_for(lambda: self.alive_nodes() == 1 + number, 90, f"{1 + number} Ray nodes alive")
        return self

    def _start_node(self, command: list[str], env: dict[str, str] | None = None) -> None:
        log = open(Path(self.temp_dir) / f"node-{len(self.nodes)}.log", "wb")
        self.nodes.append(subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env or self.env))

    def named_actors(self, prefix: str) -> list[str]:
        """Names of the cluster's live named actors that start with `prefix`."""
        probe = subprocess.run(
            [sys.executable, "-c", "import json, ray, sys; ray.init(address=sys.argv[1], logging_level='ERROR'); "
             "print(json.dumps([a['name'] for a in ray.util.list_named_actors(all_namespaces=True)]))",
             self.address], capture_output=True, text=True, env=self.env, timeout=60, check=True)
        return [name for name in json.loads(probe.stdout.strip().splitlines()[-1]) if name.startswith(prefix)]

    def alive_nodes(self) -> int:
        """Nodes the cluster's GCS counts alive, asked by a short-lived driver
        (the test session's own Ray stays untouched)."""
        probe = subprocess.run(
            [sys.executable, "-c", "import ray, sys; ray.init(address=sys.argv[1], logging_level='ERROR'); "
             "print(sum(node['Alive'] for node in ray.nodes()))", self.address],
            capture_output=True, text=True, env=self.env, timeout=60, check=False)
        lines = probe.stdout.strip().splitlines()
        return int(lines[-1]) if probe.returncode == 0 and lines else 0

    def stop(self) -> None:
        """SIGTERM each `ray start`, then SIGKILL whatever of its process tree
        (raylet, GCS, workers, agents) is left after a grace period."""
        stop_process_trees(self.nodes)


def stop_process_trees(processes: list[subprocess.Popen[bytes]]) -> None:
    tree: list[psutil.Process] = []
    for process in processes:
        try:
            root = psutil.Process(process.pid)
            tree += [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            continue
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    _gone, alive = psutil.wait_procs(tree, timeout=_TERM_GRACE_S)
    for straggler in alive:
        try:
            straggler.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(alive, timeout=_KILL_WAIT_S)
    for process in processes:
        process.wait(timeout=_KILL_WAIT_S)
