"""A Redis primary with replicas and Sentinel, as a cluster's store runs it:
the command lines for each process, so the same group starts on loopback
(`LoopbackGroup`, for the store's own tests) or in the network test bed's
namespaces (each process in its node's, started by the bed).

Every server refuses writes while no replica is connected
(`min-replicas-to-write 1`): a primary cut off from its replicas stops
taking writes instead of diverging from the one Sentinel promotes. The
sentinels decide quickly (a primary silent for DOWN_AFTER_MS is down) so a
test sees a failover in seconds, not the default half minute."""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis
from redis.sentinel import Sentinel

from redis_server import free_port

SERVICE = "tablehost"
DOWN_AFTER_MS = 800
FAILOVER_TIMEOUT_MS = 4000


def _binary() -> str:
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is not installed: run scripts/install_services.sh (the README's test command does)")
    return binary


def server_command(folder: Path, host: str, port: int, primary: tuple[str, int] | None = None) -> list[str]:
    """A redis-server on host:port, a replica of `primary` if given. No disk
    persistence: what survives a lost server is what its replicas hold."""
    folder.mkdir(parents=True, exist_ok=True)
    command = [_binary(), "--port", str(port), "--bind", host, "--dir", str(folder), "--save", "", "--appendonly", "no",
               "--protected-mode", "no", "--min-replicas-to-write", "1", "--min-replicas-max-lag", "5",
               "--repl-ping-replica-period", "1", "--repl-diskless-sync-delay", "0"]
    if primary is not None:
        command += ["--replicaof", primary[0], str(primary[1])]
    return command


def standalone_command(folder: Path, host: str, port: int) -> list[str]:
    """One redis-server on host:port with every write fsync'ed (what Ray's GCS
    keeps its tables in on the bed: Ray asks for one address, not Sentinel)."""
    folder.mkdir(parents=True, exist_ok=True)
    return [_binary(), "--port", str(port), "--bind", host, "--dir", str(folder), "--save", "", "--appendonly", "yes",
            "--appendfsync", "always", "--protected-mode", "no"]


def sentinel_command(folder: Path, host: str, port: int, primary: tuple[str, int], quorum: int) -> list[str]:
    """A sentinel on host:port watching `primary` (its config file is its own:
    Sentinel rewrites it as it learns)."""
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / f"sentinel-{port}.conf"
    config.write_text(
        f"port {port}\nbind {host}\nprotected-mode no\ndir {folder}\n"
        f"sentinel monitor {SERVICE} {primary[0]} {primary[1]} {quorum}\n"
        f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}\n"
        f"sentinel failover-timeout {SERVICE} {FAILOVER_TIMEOUT_MS}\n"
        f"sentinel parallel-syncs {SERVICE} 1\n"
    )
    return [_binary(), str(config), "--sentinel"]


def store_url(sentinels: list[tuple[str, int]], replicas: int = 1, wait_ms: int = 1000) -> str:
    listed = ",".join(f"{host}:{port}" for host, port in sentinels)
    return f"redis+sentinel://{listed}/{SERVICE}?replicas={replicas}&wait_ms={wait_ms}"


@dataclass
class LoopbackGroup:
    """A primary, `replicas` replicas and one sentinel (quorum 1), all on
    127.0.0.1, each stopped by its pid."""

    folder: Path
    replicas: int = 1
    servers: dict[int, subprocess.Popen] = field(default_factory=dict)  # port -> process
    sentinel: tuple[int, subprocess.Popen] | None = None
    primary_port: int = 0

    def start(self, timeout_s: float = 30.0) -> LoopbackGroup:
        self.primary_port = free_port()
        ports = [self.primary_port] + [free_port() for _ in range(self.replicas)]
        for port in ports:
            primary = None if port == self.primary_port else ("127.0.0.1", self.primary_port)
            self.servers[port] = subprocess.Popen(server_command(self.folder / str(port), "127.0.0.1", port, primary),
                                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        sentinel_port = free_port()
        self.sentinel = (sentinel_port, subprocess.Popen(
            sentinel_command(self.folder / "sentinel", "127.0.0.1", sentinel_port, ("127.0.0.1", self.primary_port), 1),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait(lambda: self._replicas_in_sync() == self.replicas, timeout_s, "every replica in sync with the primary")
        wait(self._sentinel_names_a_primary, timeout_s, "the sentinel to see the primary up")
        return self

    def _sentinel_names_a_primary(self) -> bool:
        assert self.sentinel is not None
        try:
            Sentinel([("127.0.0.1", self.sentinel[0])], socket_timeout=2).discover_master(SERVICE)
        except redis.RedisError:
            return False
        return True

    def wait_until_sentinel_knows_replicas(self, timeout_s: float = 30.0) -> None:
        """Sentinel learns of replicas from the primary's INFO (every few
        seconds): until it has, it has none to promote."""
        wait(lambda: self._replicas_known() == self.replicas, timeout_s, "the sentinel to know every replica")

    def _replicas_in_sync(self) -> int:
        """Replicas the primary counts online and that say themselves their
        link is up with no sync in progress (a replica still loading the
        primary's snapshot holds none of its data yet)."""
        try:
            with self.client(self.primary_port) as primary:
                online = sum(1 for key, value in primary.info("replication").items()
                             if key.startswith("slave") and isinstance(value, dict) and value.get("state") == "online")
            linked = 0
            for port in self.servers:
                if port == self.primary_port:
                    continue
                with self.client(port) as replica:
                    info = replica.info("replication")
                linked += info.get("master_link_status") == "up" and not info.get("master_sync_in_progress")
            return min(online, linked)
        except redis.RedisError:
            return -1

    @property
    def url(self) -> str:
        assert self.sentinel is not None
        return store_url([("127.0.0.1", self.sentinel[0])])

    def client(self, port: int) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=port, socket_timeout=2)

    def primary_named(self) -> int:
        """The primary's port as the sentinel names it now."""
        assert self.sentinel is not None
        with redis.Redis(host="127.0.0.1", port=self.sentinel[0], socket_timeout=2) as sentinel:
            return int(sentinel.sentinel_get_master_addr_by_name(SERVICE)[1])

    def _replicas_known(self) -> int:
        assert self.sentinel is not None
        try:
            with redis.Redis(host="127.0.0.1", port=self.sentinel[0], socket_timeout=2) as sentinel:
                replicas = sentinel.sentinel_slaves(SERVICE)
        except redis.RedisError:
            return -1
        return sum(1 for replica in replicas if "s_down" not in replica["flags"] and replica["master-link-status"] == "ok")

    def kill(self, port: int) -> None:
        process = self.servers[port]
        process.kill()
        process.wait(10)

    def pause(self, port: int) -> None:
        self.servers[port].send_signal(signal.SIGSTOP)

    def resume(self, port: int) -> None:
        self.servers[port].send_signal(signal.SIGCONT)

    def stop(self) -> None:
        processes = [*self.servers.values(), *([self.sentinel[1]] if self.sentinel else [])]
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.kill()
                process.wait(10)


def wait(condition, timeout_s: float, what: str, interval_s: float = 0.05) -> None:
    """Poll `condition` until it holds; fail naming `what` after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout_s:.0f} s for {what}")
        time.sleep(interval_s)  # the poll interval of this condition wait
