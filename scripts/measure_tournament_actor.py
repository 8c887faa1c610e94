"""What one tournament costs a host: the memory (PSS) of its actor's process.

    .venv/bin/python scripts/measure_tournament_actor.py [--tournaments 5] [--players 0] [--start]

Starts a host of its own (an embedded Ray, a store in a temporary folder),
issues itself an organiser token, creates `--tournaments` tournaments (each
a Ray actor, so a process of its own), registers `--players` players in
each (and with --start, starts them: round 1 is paired and its tables
opened, which loads the pairing and the lobby's modules), and prints one
JSON object: each actor process's PSS (its private
memory plus its share of what it shares with other processes, the figure
that adds up over processes), USS and RSS in MiB, and how much the PSS of
every process on the machine grew meanwhile (what the host as a whole paid,
Ray's own bookkeeping included). docs/operations.md ("Sizing") quotes it."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import tempfile
import time

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # before ray is imported

import psutil  # noqa: E402
import ray  # noqa: E402

from tablehost.actors.store.event_log import open_event_log  # noqa: E402
from tablehost.actors.tournament.actor import tournament_actor_name  # noqa: E402
from tablehost.clients.tournament import TournamentClient  # noqa: E402
from tablehost.host.config import HostConfig  # noqa: E402
from tablehost.host.organisers import OrganiserRegistry, now_ms  # noqa: E402
from tablehost.host.server import FrontDoor  # noqa: E402

MIB = 2**20
# Long enough for a new worker's imports and first garbage to settle.
SETTLE_S = 5.0


def machine_pss() -> int:
    total = 0
    for process in psutil.process_iter():
        try:
            total += process.memory_full_info().pss
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            pass
    return total


async def measure(tournaments: int, players: int, start: bool) -> dict[str, object]:
    store = tempfile.mkdtemp(prefix="measure-tournament-")
    config = HostConfig(port=0, store=f"local:{store}")
    host = FrontDoor(config)
    await host.start()
    try:
        token, _ = OrganiserRegistry(open_event_log(config.store)).issue(config.token_secret, "measurement",
                                                                          3600_000, now_ms())
        await asyncio.sleep(SETTLE_S)
        before = machine_pss()
        pids = []
        async with TournamentClient(host.target, organiser_token=token) as client:
            for index in range(tournaments):
                created = await client.create(f"measured {index}", "duel", "swiss")
                for player in range(players):
                    await client.register(created.tournament_id, f"p{player:05d}", {"deck": "mage-basic"},
                                          patient_s=600.0)
                if start:
                    await client.start(created.tournament_id, created.organiser_key)
                actor = ray.get_actor(tournament_actor_name(created.tournament_id))
                pids.append(await actor.pid.remote())
            await asyncio.sleep(SETTLE_S)
            after = machine_pss()
        memory = [psutil.Process(pid).memory_full_info() for pid in pids]
    finally:
        await host.stop()
        shutil.rmtree(store, ignore_errors=True)
    pss = [m.pss / MIB for m in memory]
    return {
        "tournaments": tournaments, "players_each": players, "started": start,
        "actor_pss_mib": {"median": round(statistics.median(pss), 1), "min": round(min(pss), 1),
                          "max": round(max(pss), 1)},
        "actor_uss_mib_median": round(statistics.median(m.uss / MIB for m in memory), 1),
        "actor_rss_mib_median": round(statistics.median(m.rss / MIB for m in memory), 1),
        "machine_pss_growth_mib_per_tournament": round((after - before) / MIB / tournaments, 1),
        "measured_at": time.strftime("%Y-%m-%d"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=5)
    parser.add_argument("--players", type=int, default=0, help="players registered in each tournament")
    parser.add_argument("--start", action="store_true", help="start each tournament (needs 2 players or more)")
    args = parser.parse_args()
    if args.start and args.players < 2:
        raise SystemExit("--start needs --players 2 or more")
    print(json.dumps(asyncio.run(measure(args.tournaments, args.players, args.start))))


if __name__ == "__main__":
    main()
