"""Players for the network test bed, run in a client namespace: `--tables`
tables of four bots at all times until `--games` games have been played,
every stream recorded. Then the history decides (chaos.py's checks, reading
the records and the store): every command a client saw acknowledged is in
its table's final log exactly once at the seq it was told; no two clients of
a table saw different commands at one seq; no seq skipped or hash differed;
every game finished; no player seated twice.

Prints `finished N` as each game ends (the test strikes on these) and at the
end one JSON line: the findings and, per table, when each of its commands
was acknowledged and when it was asked for and seated (wall clock, to
measure recovery around a fault), and the rooms it was played in.

    python tests/integration/scripts/bed_players.py --target HOST:PORT --store URL --games 8"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import random
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[2])]

from chaos import Findings, SeatPlay, check_game, play_seat, seat_table  # noqa: E402

from tablehost.actors.store import open_store  # noqa: E402


async def play(target: str, store_url: str, tables: int, games: int, seed: int) -> dict:
    store = open_store(store_url)
    findings = Findings()
    rnd = random.Random(seed)
    seated: list[str] = []
    tables_played: dict[str, dict] = {}
    started = 0

    async def keep_a_table_playing(slot: int) -> None:
        nonlocal started
        while started < games:
            started += 1
            label = f"s{slot}g{started}"
            asked_at = time.time()
            lobbies, sessions = await seat_table(target, label)
            seated_at = time.time()
            # Who the lobby seated, as every seat was told: one list, each player once in all the run.
            names = {session.assignment.display_names for session in sessions}
            seated.extend(names.pop() if len(names) == 1 else ["the seats disagree on who sits"] * 2)
            table_id = sessions[0].table_id
            plays = [SeatPlay(session) for session in sessions]
            try:
                await asyncio.gather(*(play_seat(p, random.Random(rnd.random())) for p in plays))
            finally:
                for session in sessions:
                    await session.close()
                for lobby in lobbies:
                    await lobby.close()
            await asyncio.to_thread(check_game, table_id, plays, store, findings)
            tables_played[table_id] = {
                "asked_at": asked_at, "seated_at": seated_at,
                "acknowledged_at": sorted(t for p in plays for t in p.accepted_at),
                # Where the table was first, and where its seats ended (another room's if it moved).
                "endpoints": sorted({sessions[0].assignment.endpoint, *(session.endpoint for session in sessions)}),
            }
            print(f"finished {findings.games}", flush=True)

    try:
        await asyncio.gather(*(keep_a_table_playing(slot) for slot in range(tables)))
    finally:
        store.close()
    report = dataclasses.asdict(findings)
    report["seated_twice"] = len(seated) - len(set(seated))
    report["clean"] = findings.clean and not report["seated_twice"]
    report["tables"] = tables_played
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", required=True, help="the front door, HOST:PORT")
    parser.add_argument("--store", required=True, help="the host's store URL, read by the checks")
    parser.add_argument("--tables", type=int, default=3, help="tables played at once")
    parser.add_argument("--games", type=int, default=6, help="games to play in all")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    report = asyncio.run(play(args.target, args.store, args.tables, args.games, args.seed))
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
