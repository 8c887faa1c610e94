"""The store's Redis scripts of the deploy layouts (deploy/redis), run for
real on loopback: three sentinels and two servers started by the scripts
agree on a primary and a replica; the primary is killed and Sentinel
promotes the replica; the killed server, started again by its script,
comes back as the new primary's replica (not as a second primary); every
server refuses to evict (noeviction, maxmemory); the backup script writes a
snapshot redis-check-rdb accepts, of the primary Sentinel names."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest
import redis
from redis_replicated import wait
from redis_server import free_port

SCRIPTS = Path(__file__).resolve().parents[2] / "deploy" / "redis"
SERVICE = "tablehost"
LOOPBACK = "127.0.0.1"


class Layout:
    """The processes the scripts start, each in a process group of its own."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.store_ports = [free_port(), free_port()]
        self.sentinel_ports = [free_port(), free_port(), free_port()]
        self.processes: dict[str, subprocess.Popen] = {}
        self.sentinels = " ".join(f"{LOOPBACK}:{port}" for port in self.sentinel_ports)

    def environment(self, **values: object) -> dict[str, str]:
        return {**os.environ, "SELF": LOOPBACK, "FIRST_PRIMARY": LOOPBACK, "SENTINELS": self.sentinels,
                "SERVICE": SERVICE, **{key: str(value) for key, value in values.items()}}

    def start_store(self, index: int) -> None:
        data = self.folder / f"store-{index}"
        data.mkdir(exist_ok=True)
        self._start(f"store-{index}", "start-store.sh",
                    self.environment(PORT=self.store_ports[index], FIRST_PRIMARY_PORT=self.store_ports[0], DATA=data,
                                     MAXMEMORY="64mb"))

    def start_sentinel(self, index: int) -> None:
        self._start(f"sentinel-{index}", "start-sentinel.sh", self.environment(
            PORT=self.sentinel_ports[index], STORE_PORT=self.store_ports[0],
            CONFIG=self.folder / f"sentinel-{index}.conf", DOWN_AFTER_MS=2000, FAILOVER_TIMEOUT_MS=6000))

    def _start(self, name: str, script: str, environment: dict[str, str]) -> None:
        log = open(self.folder / f"{name}.log", "a")
        self.processes[name] = subprocess.Popen(["sh", str(SCRIPTS / script)], env=environment, stdout=log,
                                                stderr=subprocess.STDOUT, start_new_session=True)

    def client(self, port: int) -> redis.Redis:
        return redis.Redis(host=LOOPBACK, port=port, socket_timeout=2)

    def primary_named(self) -> int | None:
        """The primary's port as a majority of the sentinels name it."""
        named = []
        for port in self.sentinel_ports:
            try:
                answer = self.client(port).execute_command("SENTINEL", "get-master-addr-by-name", SERVICE)
            except redis.RedisError:
                continue
            if answer:
                named.append(int(answer[1]))
        return max(set(named), key=named.count) if len(named) >= 2 else None

    def replicas_known(self) -> bool:
        """Every sentinel has learned of a replica (from the primary's INFO,
        every 10 s): only then can they promote one."""
        try:
            return all(self.client(port).execute_command("SENTINEL", "replicas", SERVICE)
                       for port in self.sentinel_ports)
        except redis.RedisError:
            return False

    def role(self, port: int) -> tuple[str, int | None]:
        """("master", None) or ("slave", its primary's port) once linked."""
        info = self.client(port).info("replication")
        if info["role"] == "slave":
            return "slave", info["master_port"] if info.get("master_link_status") == "up" else None
        return "master", None

    def one_primary_and_its_replica(self) -> bool:
        """No split brain: the server the sentinels name is the primary, and
        the other replicates from it."""
        primary = self.primary_named()
        if primary is None:
            return False
        [replica] = [port for port in self.store_ports if port != primary]
        return self.role(primary) == ("master", None) and self.role(replica) == ("slave", primary)

    def kill(self, name: str) -> None:
        os.killpg(self.processes[name].pid, signal.SIGKILL)
        self.processes[name].wait(10)

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(10)


@pytest.fixture
def layout(tmp_path: Path):
    started = Layout(tmp_path)
    yield started
    started.stop()


def _takes_writes(layout: Layout, port: int) -> bool:
    try:
        layout.client(port).set("tournament", "log")
    except redis.ResponseError as error:
        if str(error).startswith("NOREPLICAS"):
            return False
        raise
    return True


def _answers(layout: Layout, port: int) -> bool:
    try:
        return bool(layout.client(port).ping())
    except redis.RedisError:
        return False


def test_the_scripts_keep_one_primary_through_a_failover_and_a_restart(layout: Layout) -> None:
    first, second = layout.store_ports
    layout.start_store(0)
    wait(lambda: _answers(layout, first), 20, "the first server")
    for index in range(3):
        layout.start_sentinel(index)
    layout.start_store(1)
    wait(lambda: layout.role(second) == ("slave", first), 20, "the second server replicating the first")
    wait(lambda: layout.primary_named() == first, 20, "the sentinels naming the first server")
    wait(layout.replicas_known, 30, "every sentinel knowing the replica")
    layout.client(first).set("table", "accepted")
    wait(lambda: layout.client(second).get("table") == b"accepted", 10, "the write on the replica")
    policy = {port: layout.client(port).config_get("maxmemory*") for port in (first, second)}

    layout.kill("store-0")
    wait(lambda: layout.primary_named() == second, 30, "Sentinel promoting the replica")
    wait(lambda: layout.role(second) == ("master", None), 10, "the replica acting as primary")
    layout.start_store(0)  # its script asks the sentinels first
    wait(lambda: _answers(layout, first) and layout.one_primary_and_its_replica(), 30,
         "one primary, the sentinels' choice, and the other server its replica")
    assert layout.client(first).get("table") == b"accepted"
    assert f"starting as replica of 127.0.0.1:{second}" in (layout.folder / "store-0.log").read_text()
    assert all(p["maxmemory-policy"] == "noeviction" and int(p["maxmemory"]) == 64 * 2**20 for p in policy.values())


def test_the_backup_is_a_checked_snapshot_of_the_primary_sentinel_names(layout: Layout, tmp_path: Path) -> None:
    first, second = layout.store_ports
    layout.start_store(0)
    wait(lambda: _answers(layout, first), 20, "the first server")
    for index in range(3):
        layout.start_sentinel(index)
    layout.start_store(1)
    wait(lambda: layout.primary_named() == first and layout.role(second) == ("slave", first), 20, "the layout")
    # The primary takes writes once its replica has acknowledged it (min-replicas-to-write).
    wait(lambda: _takes_writes(layout, first), 20, "the primary to take writes")
    backups = tmp_path / "backups"
    backups.mkdir()
    stale = backups / "store-20200101T000000Z.rdb"
    stale.write_bytes(b"old")
    os.utime(stale, (0, 0))
    done = subprocess.run(["sh", str(SCRIPTS / "backup.sh")], capture_output=True, text=True, timeout=60,
                          env=layout.environment(BACKUP_DIR=backups, KEEP_DAYS=7))
    assert done.returncode == 0, done.stderr
    [snapshot] = sorted(backups.glob("store-*.rdb"))
    assert f"127.0.0.1:{first}" in done.stdout and not stale.exists()
    checked = subprocess.run(["redis-check-rdb", str(snapshot)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0 and b"tournament" in snapshot.read_bytes()


def test_the_backup_fails_when_no_sentinel_names_a_primary(layout: Layout, tmp_path: Path) -> None:
    done = subprocess.run(["sh", str(SCRIPTS / "backup.sh")], capture_output=True, text=True, timeout=60,
                          env=layout.environment(BACKUP_DIR=tmp_path))
    assert done.returncode == 1 and "no sentinel names the primary" in done.stderr
    assert not list(tmp_path.glob("*.rdb"))
