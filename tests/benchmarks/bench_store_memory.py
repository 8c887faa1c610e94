"""What one table costs the store's Redis in memory: the keys a real room
writes for a table, read back from redis-server's own accounting.

    .venv/bin/python tests/benchmarks/bench_store_memory.py [--games 60] [--tables 2000]

For each built-in game, random bots play `--games` games through the room's
real Table (commit, rules, journal entries with the SDK's act_ids, a
checkpoint every CHECKPOINT_EVERY commands, as a room hands them to its
journal), and every store write is recorded. The writes are then replayed
through RedisStore for `--tables` tables per game, in two shapes, each into
a new redis-server of the tests' own (tests/redis_server.py):

- running: each table cut at a random point of its game (what a table still
  playing holds: its header, a checkpoint and the journal after it);
- finished: each table played to its end and finished, as a room does; the
  store keeps its keys for FINISHED_RETENTION_S (an hour) after that.

The tables are written a command each in one pipeline a round, as a room's
group commit sends them. Each shape's cost is the growth of INFO memory's
`used_memory` (and of the server's RSS) over the empty server, divided by
the tables. Prints one JSON object; docs/operations.md ("Sizing") has the
figures. A script, not a test (pytest collects only test_*.py); loopback
only, and each redis-server it starts is stopped by its PID."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import random
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack
import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from redis_server import RedisServer  # noqa: E402

from tablehost.actors.room_calls import SeatRequest, TableRequest, opened_table  # noqa: E402
from tablehost.actors.store import Appends, Checkpoint, JournalEntry, TableHeader  # noqa: E402
from tablehost.actors.store.redis_store import RedisStore  # noqa: E402
from tablehost.actors.table import Table  # noqa: E402
from tablehost.clients.bots import RandomBot  # noqa: E402
from tablehost.games.engine.fairness import TableSeed  # noqa: E402
from tablehost.games.engine.rules import GameRules  # noqa: E402
from tablehost.games.registry import BUILT_IN  # noqa: E402

MAX_MOVES = 5_000  # a game that has not ended by then is a bug, not a measurement


@dataclass
class RecordedGame:
    """One game's store writes, in order: its header, then each command with
    the checkpoint taken after it (if any)."""

    header: TableHeader
    writes: list[tuple[JournalEntry, Checkpoint | None]]


class RecordingJournal:
    """A journal that records what the table hands it and makes it durable at once."""

    def __init__(self) -> None:
        self.writes: list[tuple[JournalEntry, Checkpoint | None]] = []

    def submit(self, table: Table, entry: JournalEntry, checkpoint: Checkpoint | None = None) -> None:
        self.writes.append((entry, checkpoint))
        table.released(entry.seq)


async def play(rules: GameRules, seed: int) -> RecordedGame:
    seats = rules.default_seats or rules.max_seats
    table_id = f"t-{uuid.uuid4().hex[:12]}"
    join = rules.check_join(rules.example_join())  # what the bots join with (Duel: a deck)
    entrants = [SeatRequest(uuid.uuid4().hex, f"player-{seed}-{seat}", join) for seat in range(seats)]
    request = TableRequest(table_id, rules.name, "", TableSeed.numbered(seed), tuple(entrants), {})
    opened = opened_table(request, entrants)
    journal = RecordingJournal()
    table = Table(table_id, rules, request.seed, list(opened.players), {}, join=list(opened.join),
                  journal=journal)
    header = TableHeader(table_id, uuid.uuid4().hex, table.match.header(), opened, None)
    streams = [table.subscribe(seat, 0) for seat in range(seats)]
    bots = [RandomBot(seed * 100 + seat) for seat in range(seats)]
    for _ in range(MAX_MOVES):
        if table.over or table.failure is not None:
            break
        asked = [request.seat for request in table.match.requests]
        seat = asked[0]
        action = bots[seat].choose(table.match.view(seat))
        table.commit(streams[seat], uuid.uuid4().hex, msgpack.packb(action))  # act_ids as the SDK makes them
        for stream in streams:
            stream.outbox.take_all()
    assert table.over and table.failure is None, f"{rules.name} game {seed} did not end cleanly"
    table.close("measured")
    return RecordedGame(header, journal.writes)


def replay(store: RedisStore, games: list[RecordedGame], tables: int, finished: bool, chooser: random.Random) -> None:
    """Write `tables` tables, each one of `games` under a table id of its own:
    cut at a random command (running) or whole and finished. One pipeline a
    round, one command per table in it, as a room's group commit sends them."""
    plans = []
    for index in range(tables):
        game = games[index % len(games)]
        table_id = f"m{int(finished)}-{index}-{uuid.uuid4().hex[:8]}"
        store.create([dataclasses.replace(game.header, table_id=table_id)])
        length = len(game.writes) if finished else chooser.randint(1, len(game.writes))
        plans.append((table_id, game.writes[:length]))
    for round_index in range(max(len(writes) for _table_id, writes in plans)):
        batch = {table_id: Appends(1, [writes[round_index][0]], writes[round_index][1])
                 for table_id, writes in plans if round_index < len(writes)}
        failed = store.append(batch)
        assert not failed, failed
    if finished:
        for table_id, _writes in plans:
            store.finish(table_id, 1, "finished")


def memory(client: redis.Redis) -> dict[str, int]:
    info = client.info("memory")
    return {"used_memory": info["used_memory"], "used_memory_rss": info["used_memory_rss"]}


def measure(folder: Path, games: list[RecordedGame], tables: int, finished: bool,
            chooser: random.Random) -> dict[str, Any]:
    """The tables written into a redis-server of their own (its RSS, which
    Redis does not give back, starts from an empty server)."""
    folder.mkdir()
    server = RedisServer(folder)
    server.start()
    try:
        client = redis.Redis.from_url(server.url)
        store = RedisStore(server.url)
        before = memory(client)
        replay(store, games, tables, finished, chooser)
        after = memory(client)
        keys = client.dbsize()
        store.close()
        client.close()
    finally:
        server.stop()
    return {"tables": tables, "keys": keys,
            "used_memory_kib_per_table": round((after["used_memory"] - before["used_memory"]) / tables / 1024, 2),
            "rss_kib_per_table": round((after["used_memory_rss"] - before["used_memory_rss"]) / tables / 1024, 2)}


def redis_version() -> str:
    return subprocess.run(["redis-server", "--version"], capture_output=True, text=True, check=True).stdout.split()[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60, help="games played per game (their writes are replayed)")
    parser.add_argument("--tables", type=int, default=2_000, help="tables written per game and shape")
    parser.add_argument("--seed", type=int, default=20261202)
    args = parser.parse_args()
    chooser = random.Random(args.seed)
    results: dict[str, Any] = {"redis": redis_version(), "games": {}}
    with tempfile.TemporaryDirectory(prefix="bench_store_memory-") as folder:
        for rules in BUILT_IN:
            games = [asyncio.run(play(rules, args.seed + index)) for index in range(args.games)]
            moves = [len(game.writes) for game in games]
            results["games"][rules.name] = {
                "seats": rules.default_seats or rules.max_seats,
                "commands_per_game": {"mean": round(sum(moves) / len(moves), 1), "max": max(moves)},
                "running": measure(Path(folder) / f"{rules.name}-running", games, args.tables, False, chooser),
                "finished": measure(Path(folder) / f"{rules.name}-finished", games, args.tables, True, chooser),
            }
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
