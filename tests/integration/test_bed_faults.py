"""Faults on the network test bed while bots play through the whole stack, each
judged by the history (scripts/bed_players.py): every acknowledged command in
its table's final log exactly once and in order, no two clients of a table
seeing different commands at one seq, every game finished, nobody seated twice.

- The store's Redis primary is killed mid-game: Sentinel promotes a replica,
  the rooms' store follows it, and no command acknowledged before the primary
  died is lost, because none was acknowledged before a replica held it. A
  Swiss tournament plays beside the tables: it counts every result its
  players were sent to play once.
- The room node serving the tables is frozen (every process of its Ray
  SIGSTOPped), or cut off from everyone, until Ray declares it dead and its
  tables resume on the other room node; then thawed, healed, or left cut off.
  The old incarnation of each table may wake with commands in hand, but the
  store fences it, so it publishes nothing.
- The room node is cut off from the store only, or from the players only,
  for a while: commands wait (none acknowledged that the store lacks) or
  streams are given up and reopened, and every game finishes.
- Every process of the head is killed (Ray's GCS, its raylet, the lobby, the
  front door) and the head started again: the GCS reloads the cluster from
  its own Redis, the lobby comes back with it, games in rooms on other nodes
  play on meanwhile, and seating resumes."""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bed_cluster import QUICK_FAILURE_DETECTION, REDIS_PORT, Cluster, RedisOnBed
from netbed import NetBed
from ray_processes import wait_for
from redis_replicated import standalone_command

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PLAYERS = Path(__file__).resolve().parent / "scripts" / "bed_players.py"
FIGURES_VARIABLE = "TABLEHOST_BED_FIGURES"


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


def recovery_s(tables: dict[str, dict], fault_at: float, first_in: str | None = None) -> dict[str, float]:
    """For each table playing across the fault (and first served from the address
    `first_in`, when given): from the fault to its first command acknowledged after it."""
    recovered = {}
    for table_id, played in tables.items():
        times = played["acknowledged_at"]
        if first_in is not None and not any(host_of(e) == first_in for e in played["endpoints"]):
            continue
        if times and times[0] < fault_at < times[-1]:
            recovered[table_id] = min(t for t in times if t > fault_at) - fault_at
    return recovered


def host_of(endpoint: str) -> str:
    return endpoint.rsplit(":", 1)[0]


def figures(report: dict, resumed: dict[str, float], **more: float | None) -> dict:
    """What a fault cost, as the closing reports and docs/reliability.md give it."""
    waits = sorted(resumed.values())
    return {**{name: round(value, 2) for name, value in more.items() if value is not None},
            "tables_across_the_fault": len(waits),
            "recovery_p50_s": round(statistics.median(waits), 2) if waits else None,
            "recovery_max_s": round(waits[-1], 2) if waits else None,
            "acknowledged": report["acknowledged"], "lost": len(report["lost"])}


def publish(fault: str, figures_of_run: dict) -> None:
    """Print the fault's figures; append them to $TABLEHOST_BED_FIGURES too when set
    (tests/benchmarks/bench_cluster_faults.py collects them over many runs)."""
    line = json.dumps({"fault": fault, **figures_of_run})
    print(line)
    if os.environ.get(FIGURES_VARIABLE):
        with open(os.environ[FIGURES_VARIABLE], "a", encoding="utf-8") as out:
            out.write(line + "\n")


def player_moves(cluster: Cluster) -> float:
    """Players' moves applied by every room so far, from the rooms' own Prometheus counters."""
    return cluster.room_counters().get("tablehost_moves_total{game=bigtwo,kind=player}", 0.0)


def findings_of(report: dict) -> dict:
    return {key: value for key, value in report.items() if key != "tables"}


REDIS_NODES = ["redis1", "redis2", "redis3"]


@pytest.fixture
def bed_with_two_room_nodes(tmp_path: Path) -> Iterator[tuple[Cluster, RedisOnBed]]:
    bed = NetBed.create(["head", "room1", "room2", *REDIS_NODES, "client"])
    redis = RedisOnBed(bed, REDIS_NODES, tmp_path)
    cluster = Cluster(bed, tmp_path, store=redis.url, room_nodes=("room1", "room2"), head_env=QUICK_FAILURE_DETECTION)
    try:
        redis.start()
        yield cluster.start(), redis
    finally:
        bed.destroy()
        cluster.keep_logs_and_clean_up()


ROOM_NODE_FAULTS = {
    # (how the node is struck, how it comes back once its tables have resumed elsewhere, or None)
    "frozen then thawed": (lambda c, node: c.signal_node(node, signal.SIGSTOP),
                           lambda c, node: c.signal_node(node, signal.SIGCONT)),
    "cut off then healed": (lambda c, node: c.bed.partition(node), lambda c, node: c.bed.heal(node)),
    "cut off for good": (lambda c, node: c.bed.partition(node), None),
}


@pytest.mark.parametrize("fault", list(ROOM_NODE_FAULTS))
def test_a_room_node_lost_past_failure_detection_hands_its_tables_over_and_publishes_nothing_after(
        fault: str, bed_with_two_room_nodes: tuple[Cluster, RedisOnBed], tmp_path: Path) -> None:
    """Frozen, or cut off from everyone (its port on the bridge down: packets dropped
    silently), until Ray declares the node dead and its tables resume on the other
    room node. Thawed or healed, the old incarnation of each table may wake with
    commands in hand; the store fences it, so it publishes nothing. Cut off for good,
    its players notice the silence (keepalive) and follow their tables."""
    strike, restore = ROOM_NODE_FAULTS[fault]
    cluster, redis = bed_with_two_room_nodes
    players = Players.start(cluster, redis.url, tables=3, games=6, seed=7)
    addresses = {cluster.bed.address(node): node for node in cluster.room_nodes}

    def busiest_room() -> dict | None:
        rooms = [room for room in cluster.rooms() if room["state"] == "ready" and room["tables"] > 0]
        return max(rooms, key=lambda room: room["tables"], default=None)

    wait_for(lambda: busiest_room() is not None, 120, "tables playing in a room")
    victim = addresses[host_of(busiest_room()["endpoint"])]
    survivor = next(node for node in cluster.room_nodes if node != victim)

    struck_at = time.time()
    strike(cluster, victim)

    def resumed_on_survivor() -> bool:
        serving = [room for room in cluster.rooms() if room["tables"] > 0]
        return bool(serving) and all(host_of(room["endpoint"]) == cluster.bed.address(survivor) for room in serving)

    wait_for(resumed_on_survivor, 120, f"the tables of {victim} to resume on {survivor}")
    moved_s = time.time() - struck_at
    if restore is not None:
        restore(cluster, victim)
    report = players.report(300, tmp_path)

    assert report["clean"], findings_of(report)
    assert report["games"] == 6 and report["unfinished"] == 0 and report["lost"] == [], findings_of(report)
    resumed = recovery_s(report["tables"], struck_at, first_in=cluster.bed.address(victim))
    assert resumed, f"no table of {victim} was playing when it was struck"
    publish(f"room node {fault}", figures(report, resumed, moved_s=moved_s))


DOOR_PORT = 7443


@pytest.fixture
def bed_with_a_fault_tolerant_head(tmp_path: Path) -> Iterator[tuple[Cluster, RedisOnBed]]:
    bed = NetBed.create(["head", "room1", *REDIS_NODES, "gcs", "client"])
    redis = RedisOnBed(bed, REDIS_NODES, tmp_path)
    gcs_redis = f"{bed.address('gcs')}:{REDIS_PORT}"
    cluster = Cluster(bed, tmp_path, store=redis.url, door_port=DOOR_PORT,
                      head_env={**QUICK_FAILURE_DETECTION, "RAY_REDIS_ADDRESS": gcs_redis})
    try:
        redis.start()
        bed.start("gcs", standalone_command(tmp_path / "gcs", bed.address("gcs"), REDIS_PORT),
                  stdout=open(tmp_path / "redis-gcs.log", "wb"), stderr=subprocess.STDOUT)
        wait_for(lambda: "PONG" in bed.run("gcs", ["redis-cli", "-h", bed.address("gcs"), "ping"]).stdout, 30,
                 "the GCS's Redis")
        yield cluster.start(), redis
    finally:
        bed.destroy()
        cluster.keep_logs_and_clean_up()


def test_the_head_killed_and_restarted_loses_no_game_and_seats_again(
        bed_with_a_fault_tolerant_head: tuple[Cluster, RedisOnBed], tmp_path: Path) -> None:
    cluster, redis = bed_with_a_fault_tolerant_head
    players = Players.start(cluster, redis.url, tables=3, games=6, seed=9)
    wait_for(lambda: players.finished >= 1 or players.process.poll() is not None, 180, "a first game to finish")
    assert players.process.poll() is None, (tmp_path / "players.log").read_text()[-4000:]

    rooms_before = {room["room_id"] for room in cluster.rooms() if room["state"] == "ready"}
    killed_at = time.time()
    cluster.kill_head()
    cluster.restart_head()
    back_s = time.time() - killed_at
    # The same cluster, reloaded: the rooms on the room node lived through it and the lobby
    # that came back knows them (a new cluster would have started rooms of its own).
    assert rooms_before and rooms_before <= {room["room_id"] for room in cluster.rooms()}
    report = players.report(300, tmp_path)

    assert report["clean"], findings_of(report)
    assert report["games"] == 6 and report["unfinished"] == 0 and report["lost"] == [], findings_of(report)
    across = recovery_s(report["tables"], killed_at)
    assert across, "no table was playing when the head was killed"
    # Seating is the head's: it works again once the head is back (the players above may
    # all have been seated before the kill, so a table of bots is seated now, whatever).
    after = cluster.bots(tables=1, seed=10)
    assert after["ok"] and after["games_completed"] == 1 and after["desyncs"] == after["errors"] == 0, after
    seated_after = [t["seated_at"] for t in report["tables"].values() if t["seated_at"] > killed_at]
    seated_again_s = min(seated_after) - killed_at if seated_after else None
    publish("head killed and restarted", figures(report, across, head_back_s=back_s, seated_again_s=seated_again_s))


# The faults that leave their bed whole share one, torn down after the last of them.

@pytest.fixture(scope="module")
def bed_with_replicated_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cluster, RedisOnBed]]:
    """Shared by the faults that leave it whole: a cut mended, or one failover (after
    which a replica is left to confirm writes)."""
    folder = tmp_path_factory.mktemp("bed")
    bed = NetBed.create(["head", "room1", *REDIS_NODES, "client"])
    redis = RedisOnBed(bed, REDIS_NODES, folder)
    cluster = Cluster(bed, folder, store=redis.url)
    try:
        redis.start()
        yield cluster.start(), redis
    finally:
        bed.destroy()
        cluster.keep_logs_and_clean_up()


def test_the_redis_primary_killed_mid_game_loses_no_acknowledged_command(
        bed_with_replicated_store: tuple[Cluster, RedisOnBed]) -> None:
    cluster, redis = bed_with_replicated_store
    players = Players.start(cluster, redis.url, tables=3, games=6, seed=5)
    # A tournament beside them: its events go through the same store (and the same WAIT).
    tournament = cluster.start_tournament(players=8, seed=5)
    wait_for(lambda: players.finished >= 1 or players.process.poll() is not None, 180, "a first game to finish")
    assert players.process.poll() is None, (cluster.log_dir / "players.log").read_text()[-4000:]

    killed_at = time.time()
    old_primary = redis.kill_primary()
    wait_for(lambda: redis.primary_named() not in ("", old_primary), 60, "Sentinel to promote a replica")
    promoted_s = time.time() - killed_at
    report = players.report(300, cluster.log_dir)

    assert report["clean"], findings_of(report)
    assert report["games"] == 6 and report["unfinished"] == 0 and report["lost"] == [], findings_of(report)
    resumed = recovery_s(report["tables"], killed_at)
    assert resumed, "no table was playing when the primary died"
    # The tournament counted every table its players were sent to once, none forfeited.
    wait_for(lambda: tournament.poll() is not None, 300, "the tournament to finish")
    summary = json.loads((cluster.log_dir / "tournament.out").read_text().strip().splitlines()[-1])
    assert tournament.returncode == 0, (cluster.log_dir / "tournament.log").read_text()[-3000:]
    assert summary["state"] == "finished" and summary["games"] == summary["rounds"] * 4, summary
    assert (summary["lost_results"], summary["duplicate_results"], summary["forfeited_tables"]) == (0, 0, 0), summary
    publish("Redis primary killed", figures(report, resumed, promoted_s=promoted_s))


# How long each cut lasts: the store's, within the journal's outage allowance (commands
# wait unpublished, then go on); the players', past their keepalive's detection (the
# SDK gives the stream up, looks the table up and reconnects once the room is reachable).
ROOM_NODE_CUTS = {"from the store": (REDIS_NODES, 10.0), "from the players": (["client"], 25.0)}


@pytest.mark.parametrize("cut", list(ROOM_NODE_CUTS))
def test_a_room_node_cut_off_from_the_store_or_the_players_and_mended_loses_nothing(
        cut: str, bed_with_replicated_store: tuple[Cluster, RedisOnBed]) -> None:
    others, lasting_s = ROOM_NODE_CUTS[cut]
    cluster, redis = bed_with_replicated_store
    # The bed is shared: moves counted from now on are these players' (an earlier test's
    # tables may still be closing).
    moves_before = player_moves(cluster)
    players = Players.start(cluster, redis.url, tables=3, games=6, seed=11)
    wait_for(lambda: player_moves(cluster) >= moves_before + 12, 120, "these players' tables to be playing")

    cut_at = time.time()
    cluster.bed.cut("room1", others)
    cut_whole_at = time.time()  # every side's entry changed (a few `ip` commands after cut_at)
    time.sleep(lasting_s)  # the fault's length: what it is, not a wait for something to happen
    mended_at = time.time()
    cluster.bed.mend("room1", others)
    report = players.report(300, cluster.log_dir)

    assert report["clean"], findings_of(report)
    assert report["games"] == 6 and report["unfinished"] == 0 and report["lost"] == [], findings_of(report)
    across = recovery_s(report["tables"], cut_at)
    assert across, "no table was playing when the room node was cut off"
    # Nothing was acknowledged while the room could not reach the store: nothing was durable.
    # (An acknowledgement written before the cut may still be on its way to its player as
    # the cut completes: half a second's grace.)
    if cut == "from the store":
        during = [t for played in report["tables"].values() for t in played["acknowledged_at"]
                  if cut_whole_at + 0.5 < t < mended_at]
        assert not during, f"{len(during)} commands acknowledged while the store was out of reach"
    publish(f"room node cut off {cut} for {lasting_s:.0f} s", figures(report, across))
