"""Faults on the network test bed while bots play through the whole stack, each
judged by the history (scripts/bed_players.py): every acknowledged command in
its table's final log exactly once and in order, no two clients of a table
seeing different commands at one seq, every game finished, nobody seated twice.

The store's Redis primary is killed mid-game: Sentinel promotes a replica,
the rooms' store follows it, and no command acknowledged before the primary
died is lost, because none was acknowledged before a replica held it."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bed_cluster import Cluster, RedisOnBed
from netbed import NetBed
from ray_processes import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PLAYERS = Path(__file__).resolve().parent / "scripts" / "bed_players.py"


@dataclass
class Players:
    """bed_players.py running in the client namespace: its `finished N` lines as
    they come, then its report."""

    process: subprocess.Popen
    lines: list[str] = field(default_factory=list)

    @classmethod
    def start(cls, cluster: Cluster, store: str, tables: int, games: int, seed: int) -> Players:
        assert cluster.target is not None
        process = cluster.bed.start("client", [sys.executable, str(PLAYERS), "--target", cluster.target, "--store",
                                               store, "--tables", str(tables), "--games", str(games), "--seed",
                                               str(seed)],
                                    stdout=subprocess.PIPE, stderr=open(cluster.log_dir / "players.log", "w"),
                                    text=True)
        players = cls(process)
        threading.Thread(target=lambda: players.lines.extend(line.strip() for line in process.stdout),
                         daemon=True).start()
        return players

    @property
    def finished(self) -> int:
        return sum(1 for line in self.lines if line.startswith("finished "))

    def report(self, timeout_s: float, log_dir: Path) -> dict:
        wait_for(lambda: self.process.poll() is not None, timeout_s, "the players to finish every game")
        assert self.process.returncode == 0, (log_dir / "players.log").read_text()[-4000:]
        wait_for(lambda: bool(self.lines) and self.lines[-1].startswith("{"), 10, "the players' report")
        return json.loads(self.lines[-1])


def recovery_s(acknowledged_at: dict[str, list[float]], fault_at: float) -> dict[str, float]:
    """For each table playing across the fault: from the fault to its first
    command acknowledged after it."""
    return {table: min(t for t in times if t > fault_at) - fault_at for table, times in acknowledged_at.items()
            if times and times[0] < fault_at < times[-1]}


@pytest.fixture
def bed_with_replicated_store(tmp_path: Path) -> Iterator[tuple[Cluster, RedisOnBed]]:
    bed = NetBed.create(["head", "room1", "redis1", "redis2", "redis3", "client"])
    try:
        redis = RedisOnBed(bed, ["redis1", "redis2", "redis3"], tmp_path).start()
        yield Cluster(bed, tmp_path, store=redis.url).start(), redis
    finally:
        bed.destroy()


def test_the_redis_primary_killed_mid_game_loses_no_acknowledged_command(
        bed_with_replicated_store: tuple[Cluster, RedisOnBed], tmp_path: Path) -> None:
    cluster, redis = bed_with_replicated_store
    players = Players.start(cluster, redis.url, tables=3, games=6, seed=5)
    wait_for(lambda: players.finished >= 1 or players.process.poll() is not None, 180, "a first game to finish")
    assert players.process.poll() is None, (tmp_path / "players.log").read_text()[-4000:]

    killed_at = time.time()
    old_primary = redis.kill_primary()
    wait_for(lambda: redis.primary_named() not in ("", old_primary), 60, "Sentinel to promote a replica")
    promoted_s = time.time() - killed_at
    report = players.report(300, tmp_path)

    findings = {key: value for key, value in report.items() if key != "acknowledged_at"}
    assert report["clean"], findings
    assert report["games"] == 6 and report["unfinished"] == 0 and report["lost"] == [], findings
    resumed = recovery_s(report["acknowledged_at"], killed_at)
    assert resumed, "no table was playing when the primary died"
    figures = {"promoted_s": round(promoted_s, 2), "tables_across_the_fault": len(resumed),
               "recovery_s": sorted(round(s, 2) for s in resumed.values()),
               "acknowledged": report["acknowledged"], "lost": len(report["lost"])}
    print(json.dumps(figures))
