"""The host on the network test bed, started as an operator starts it: `ray start`
in each node's namespace with that node's address, the front door on the head, rooms
advertising their node's address; and a Redis primary with replicas and sentinels on
nodes of their own, for a store that outlives its primary. Used by the bed's tests."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import psutil

from conftest import admin_token
from netbed import NetBed
from ray_processes import wait_for
from redis_replicated import SERVICE, sentinel_command, server_command, store_url

RAY = str(Path(sys.executable).with_name("ray"))
TABLEHOST = [sys.executable, "-m", "tablehost.host.cli"]
NODE_HOST_VARIABLE = "TABLEHOST_NODE_HOST"
RAY_PORT = 6380
START_TIMEOUT_S = 120.0


# Ray's failure detection, as the bed's faults tests set it on the head: a node
# silent for three checks a second apart is dead (Ray's defaults take about half
# a minute), so a fault past detection fits in a test.
QUICK_FAILURE_DETECTION = {"RAY_health_check_initial_delay_ms": "1000", "RAY_health_check_period_ms": "1000",
                           "RAY_health_check_timeout_ms": "1000", "RAY_health_check_failure_threshold": "3"}


class Cluster:
    """Ray on the bed: the head (one CPU: the lobby) and room nodes (one CPU each)."""

    def __init__(self, bed: NetBed, log_dir: Path, store: str = "none", room_nodes: tuple[str, ...] = ("room1",),
                 head_env: dict[str, str] | None = None, door_port: int = 0, door_args: tuple[str, ...] = (),
                 node_env: dict[str, dict[str, str]] | None = None, tls_ca: Path | None = None) -> None:
        self.bed, self.log_dir, self.store, self.room_nodes = bed, log_dir, store, room_nodes
        self.door_port = door_port  # 0: any; a fixed port keeps the players' target across a head restart
        self.door: subprocess.Popen | None = None
        self.door_args = door_args  # more `tablehost serve` flags (TLS, ...)
        self.node_env = node_env or {}  # more environment for a room node's `ray start`, by node
        self.tls_ca = tls_ca  # what the tools trust when the host serves TLS
        self.head_env = head_env or {}
        self.ray_nodes: dict[str, subprocess.Popen] = {}  # node -> its `ray start --block`
        self.temp_dirs: list[tuple[str, Path]] = []  # each `ray start`'s, with its node
        # The suite keeps its own Ray on loopback by refusing multi-node clusters
        # (RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0); the bed's nodes have addresses of their
        # own, and whatever a node listens on is inside its namespace.
        self.env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "1",
                    "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32),
                    "TABLEHOST_TOKEN_SECRET": "bed-test-secret-" + "x" * 24}
        self.address = f"{bed.address('head')}:{RAY_PORT}"
        self.front_door_lines: list[str] = []

    def start(self) -> Cluster:
        self._start_head()
        for count, node in enumerate(self.room_nodes, start=2):
            room = self._ray(node, ["start", "--address", self.address],
                             {NODE_HOST_VARIABLE: self.bed.address(node), **self.node_env.get(node, {})})
            self._wait_for_nodes(count, room)
        self._start_door()
        return self

    def _start_head(self) -> None:
        head = self._ray("head", ["start", "--head", "--port", str(RAY_PORT), "--include-dashboard", "false"],
                         self.head_env)
        self._wait_for_nodes(1 + sum(node in self.ray_nodes for node in self.room_nodes), head)

    def _start_door(self) -> None:
        self.front_door_lines.clear()
        self.door = self.bed.start("head", [*TABLEHOST, "serve", "--address", self.address, "--host",
                                            self.bed.address("head"), "--port", str(self.door_port),
                                            # Reached from the client node, where the operator's tools run.
                                            "--admin-host", self.bed.address("head"), "--room-host",
                                            "0.0.0.0", "--advertise-host", f"env:{NODE_HOST_VARIABLE}", "--store",
                                            self.store, "--metrics-port", "0", *self.door_args],
                                   stdout=subprocess.PIPE, stderr=open(self.log_dir / "door.log", "a"), text=True,
                                   env=self.env)
        door = self.door
        threading.Thread(target=lambda: self.front_door_lines.extend(line.strip() for line in door.stdout),
                         daemon=True).start()
        wait_for(lambda: self.target is not None or door.poll() is not None, START_TIMEOUT_S, "the front door")
        assert self.target is not None, (self.log_dir / "door.log").read_text()[-3000:]

    @property
    def metrics_address(self) -> str | None:
        """The front door's Prometheus address (its /targets lists the rooms')."""
        return next((line.split("//")[1].split("/")[0] for line in self.front_door_lines
                     if line.startswith("metrics on http://")), None)

    def loadtest(self, tables: int, out: Path, duration_s: int = 180) -> tuple[int, dict]:
        """`tablehost loadtest` from the head, joined to the bed's Ray: an agent on every
        node, each playing from its node's namespace. Its exit code and report."""
        done = self.bed.run("head", [*TABLEHOST, "loadtest", "--address", self.address, "--target", self.target,
                                     "--tables", str(tables), "--duration", str(duration_s), "--no-progress",
                                     "--out", str(out)], timeout=duration_s + 120, env=self.env)
        (self.log_dir / "loadtest.log").write_text(done.stdout + done.stderr)
        return done.returncode, json.loads((out / "report.json").read_text())

    def room_counters(self, from_node: str = "client") -> dict[str, float]:
        """Every room's Prometheus counters added up by name and labels, scraped from
        `from_node` as Prometheus would find them (the front door's /targets)."""
        done = self.bed.run(from_node, [sys.executable, "-c", _SCRAPE, self.metrics_address], timeout=60)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout)

    def keep_logs_and_clean_up(self) -> None:
        """After the bed is gone: keep the lobby's and rooms' logs (Ray's worker logs)
        beside the test's others, under ray-logs/NODE/, and delete Ray's folders."""
        for number, (node, temp_dir) in enumerate(self.temp_dirs):
            kept = self.log_dir / "ray-logs" / f"{node}-{number}"
            for log in temp_dir.glob("session_*/logs/worker-*.err"):
                if log.stat().st_size:
                    kept.mkdir(parents=True, exist_ok=True)
                    shutil.copy(log, kept / log.name)
            shutil.rmtree(temp_dir, ignore_errors=True)

    def kill_head(self) -> None:
        """SIGKILL every process of the head: its Ray (GCS, raylet, the lobby) and the front door."""
        for root in (self.ray_nodes.pop("head"), self.door):
            tree = [psutil.Process(root.pid)]
            try:
                tree += tree[0].children(recursive=True)
            except psutil.NoSuchProcess:
                pass
            for process in tree:
                try:
                    process.kill()
                except psutil.NoSuchProcess:
                    pass
            root.wait(10)

    def restart_head(self) -> None:
        """Start the head again on the same address and port, and the front door on its
        port: Ray's GCS reloads the cluster from its Redis, the room nodes reconnect."""
        self._start_head()
        self._start_door()

    def _ray(self, node: str, args: list[str], extra_env: dict[str, str] | None = None) -> subprocess.Popen:
        temp_dir = tempfile.mkdtemp(prefix=f"thb-{node}-", dir="/tmp")  # short: Ray's socket paths
        self.temp_dirs.append((node, Path(temp_dir)))
        started = self.bed.start(node, [RAY, *args, "--node-ip-address", self.bed.address(node), "--num-cpus", "1",
                                        "--temp-dir", temp_dir, "--block", "--disable-usage-stats"],
                                 stdout=open(self.log_dir / f"ray-{node}.log", "wb"), stderr=subprocess.STDOUT,
                                 env={**self.env, **(extra_env or {})})
        self.ray_nodes[node] = started
        return started

    def signal_node(self, node: str, signal_number: int) -> int:
        """Send a signal to every process of the node's Ray (raylet, workers, rooms),
        as a machine that froze or woke would; returns how many got it."""
        root = psutil.Process(self.ray_nodes[node].pid)
        processes = [root, *root.children(recursive=True)]
        for process in processes:
            try:
                process.send_signal(signal_number)
            except psutil.NoSuchProcess:
                pass
        return len(processes)

    def rooms(self) -> list[dict]:
        """Every room of every live node, as `tablehost status` shows them."""
        return [room for node in self.status()["nodes"] if node["alive"] for room in node["rooms"]]

    def _wait_for_nodes(self, count: int, starting: subprocess.Popen) -> None:
        probe = ("import ray, sys; ray.init(address=sys.argv[1], logging_level='ERROR'); "
                 "print(sum(node['Alive'] for node in ray.nodes()))")

        def alive() -> int:
            done = self.bed.run("head", [sys.executable, "-c", probe, self.address], timeout=60, env=self.env)
            lines = done.stdout.strip().splitlines()
            return int(lines[-1]) if done.returncode == 0 and lines else 0

        wait_for(lambda: starting.poll() is not None or alive() == count, START_TIMEOUT_S, f"{count} Ray nodes alive")
        assert starting.poll() is None, f"ray start exited {starting.returncode}: see {self.log_dir}"

    @property
    def target(self) -> str | None:
        return next((line.removeprefix("listening on ") for line in self.front_door_lines
                     if line.startswith("listening on ")), None)

    @property
    def admin_target(self) -> str | None:
        return next((line.removeprefix("admin on ") for line in self.front_door_lines
                     if line.startswith("admin on ")), None)

    def bots(self, tables: int, seed: int, timeout_s: int = 90) -> dict:
        done = self.bed.run("client", [*TABLEHOST, "bots", "--target", self.target, "--tables", str(tables),
                                       "--seed", str(seed), "--timeout", str(timeout_s), "--json", *self._trust()],
                            timeout=timeout_s + 60)
        assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
        return json.loads(done.stdout.strip().splitlines()[-1])

    def organiser_token(self) -> str:
        """A tournament organiser's token, issued in the host's store as an operator does."""
        done = self.bed.run("client", [*TABLEHOST, "organiser", "issue", "bed tests", "--store", self.store],
                            timeout=60, env=self.env)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])["token"]

    def start_tournament(self, players: int, seed: int, game: str = "duel") -> subprocess.Popen:
        """`tablehost tournament simulate` from the client node: a Swiss tournament of bots
        through the front door, which prints its summary (what the players were told
        against what the tournament recorded) as its last line."""
        return self.bed.start("client", [*TABLEHOST, "tournament", "simulate", "--target", self.target, "--players",
                                         str(players), "--game", game, "--format", "swiss", "--seed", str(seed),
                                         "--no-progress", "--organiser-token", self.organiser_token(),
                                         *self._trust()],
                              stdout=open(self.log_dir / "tournament.out", "w"),
                              stderr=open(self.log_dir / "tournament.log", "w"), env=self.env)

    def _trust(self) -> list[str]:
        return ["--tls-ca", str(self.tls_ca)] if self.tls_ca is not None else []

    def status(self) -> dict:
        done = self.bed.run("client", [*TABLEHOST, "status", "--target", self.admin_target, "--json", *self._trust()],
                            timeout=60, env={**self.env, "TABLEHOST_ADMIN_TOKEN": admin_token("bed")})
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout)


_SCRAPE = """
import json, sys, urllib.request
from prometheus_client.parser import text_string_to_metric_families

def fetch(url):
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.read().decode()

totals = {}
for endpoint in json.loads(fetch(f"http://{sys.argv[1]}/targets"))[0]["targets"]:
    for family in text_string_to_metric_families(fetch(f"http://{endpoint}/metrics")):
        for sample in family.samples:
            if sample.name.startswith("tablehost_") and sample.name.endswith(("_total", "_count")):
                labels = ",".join(f"{key}={value}" for key, value in sorted(sample.labels.items()))
                key = f"{sample.name}{{{labels}}}"
                totals[key] = totals.get(key, 0.0) + sample.value
print(json.dumps(totals))
"""

REDIS_PORT = 6379
SENTINEL_PORT = 26379


class RedisOnBed:
    """A Redis primary on the first of `nodes` and a replica on each other,
    with a sentinel beside every server (quorum: a majority of them)."""

    def __init__(self, bed: NetBed, nodes: list[str], folder: Path) -> None:
        self.bed, self.nodes, self.folder = bed, nodes, folder
        self.servers: dict[str, subprocess.Popen] = {}
        self.primary_node = nodes[0]

    @property
    def url(self) -> str:
        return store_url([(self.bed.address(node), SENTINEL_PORT) for node in self.nodes])

    def start(self, timeout_s: float = 60.0) -> RedisOnBed:
        primary = (self.bed.address(self.primary_node), REDIS_PORT)
        quorum = len(self.nodes) // 2 + 1
        for node in self.nodes:
            address = self.bed.address(node)
            log = open(self.folder / f"redis-{node}.log", "wb")
            self.servers[node] = self.bed.start(node, server_command(
                self.folder / node, address, REDIS_PORT, None if node == self.primary_node else primary),
                stdout=log, stderr=subprocess.STDOUT)
            self.bed.start(node, sentinel_command(self.folder / f"sentinel-{node}", address, SENTINEL_PORT, primary,
                                                  quorum), stdout=open(self.folder / f"sentinel-{node}.log", "wb"),
                           stderr=subprocess.STDOUT)
        wait_for(self.ready, timeout_s, "every sentinel to see the primary, every replica and each other")
        return self

    def cli(self, node: str, *args: str) -> str:
        """redis-cli from `node`'s namespace; its output, or "" if it failed."""
        done = self.bed.run(node, ["redis-cli", "--no-raw", *args], timeout=20)
        return done.stdout if done.returncode == 0 else ""

    def ready(self) -> bool:
        """Every sentinel sees the primary up, knows every replica and every other
        sentinel (without which no majority can agree on a failover)."""
        others = str(len(self.nodes) - 1)
        for node in self.nodes:
            fields = self.cli(node, "-h", self.bed.address(node), "-p", str(SENTINEL_PORT), "--raw",
                              "sentinel", "master", SERVICE).split()
            state = dict(zip(fields[0::2], fields[1::2]))
            if (state.get("flags"), state.get("num-slaves"), state.get("num-other-sentinels")) != ("master", others,
                                                                                                   others):
                return False
        return True

    def primary_named(self) -> str:
        """The address the sentinels name as primary now (asked of the last node's)."""
        node = self.nodes[-1]
        answer = self.cli(node, "-h", self.bed.address(node), "-p", str(SENTINEL_PORT), "--raw",
                          "sentinel", "get-master-addr-by-name", SERVICE)
        return answer.split()[0] if answer.split() else ""

    def kill_primary(self) -> str:
        """SIGKILL the primary's redis-server, as a crash would; returns its address."""
        process = self.servers[self.primary_node]
        process.kill()
        process.wait(10)
        return self.bed.address(self.primary_node)
