"""Tournament benchmark: a whole bot tournament through the real stack on this
machine, and where its time and memory go.

    .venv/bin/python tests/benchmarks/bench_tournament.py [--players 1024] [--rounds 3]
        [--game bigtwo] [--format table_rounds] [--seats 4] [--out DIR]

Runs `tablehost tournament simulate` as a child process (an embedded Ray, the
front door and every bot in that one process; the lobby, the rooms and the
tournament actor in Ray's worker processes) and reads its process tree from
/proc while it plays: CPU seconds and peak PSS by kind of process. Pairing
times come from the tournament actor's log ("paired round N ... in X ms").

The same run measures its floor first: the rules engine alone playing the
game with every seat's views (one core, no host), so the hosted games/s is
reported against what the engine could do here, and against the target of
5 games/s (a marathon's sustained rate). Prints a Markdown table and writes
the figures as JSON. A script, not a test (pytest collects only test_*.py).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # hostbench and bench_rules, beside this script
from bench_rules import time_games  # noqa: E402
from hostbench.procs import MIB, cmdline, descendants, read_processes  # noqa: E402

TARGET_GAMES_PER_S = 5.0
FLOOR_GAMES = 200
MEMORY_EVERY_S = 5.0
KINDS = ("simulation (bots and front door)", "rooms", "lobby", "tournament actor", "rest of Ray")
PAIRED = re.compile(r"paired round (\d+) \((\d+) players\) in ([\d.]+) ms")


def process_kind(command: str) -> str:
    if command.startswith("ray::RoomActor"):
        return "rooms"
    if command.startswith("ray::LobbyActor"):
        return "lobby"
    if command.startswith("ray::TournamentActor"):
        return "tournament actor"
    return "rest of Ray"


def tree(root: int) -> list[tuple[int, str]]:
    return [(root, KINDS[0]), *((pid, process_kind(cmdline(pid))) for pid, _ in descendants(root))]


def session_dir(processes: list[tuple[int, str]]) -> Path | None:
    """The embedded Ray's session folder, from its raylet's command line."""
    for pid, _ in processes:
        found = re.search(r"--session[_-]dir[= ](\S+)", cmdline(pid))
        if found:
            return Path(found.group(1))
    return None


def pairing_ms(session: Path | None) -> list[tuple[int, int, float]]:
    if session is None:
        return []
    found = []
    for path in (session / "logs").glob("worker-*"):
        found.extend((int(r), int(p), float(ms)) for r, p, ms in PAIRED.findall(path.read_text(errors="replace")))
    return sorted(set(found))


def run(args: argparse.Namespace, out: Path) -> dict:
    command = [sys.executable, "-m", "tablehost.host.cli", "tournament", "simulate", "--players", str(args.players),
               "--game", args.game, "--format", args.format, "--rounds", str(args.rounds), "--seats", str(args.seats),
               "--no-progress", "--out", str(out)]
    started = time.monotonic()
    with open(out / "simulate.out", "w") as stdout, open(out / "simulate.err", "w") as stderr:
        child = subprocess.Popen(command, stdout=stdout, stderr=stderr)
        # Per process: its kind, CPU seconds when first seen (0 if it started
        # after the first reading) and when last seen (rooms end before the
        # simulation does, so the last reading of all would miss them).
        cpu: dict[int, tuple[str, float, float]] = {}
        first = True
        peak_pss: dict[str, float] = {}
        session = None
        last_memory = 0.0
        while child.poll() is None:
            processes = tree(child.pid)
            session = session or session_dir(processes)
            with_memory = time.monotonic() - last_memory >= MEMORY_EVERY_S
            reading = read_processes(processes, memory=with_memory)
            if with_memory:
                last_memory = time.monotonic()
                for kind, pss in reading.by_kind("pss").items():
                    peak_pss[kind] = max(peak_pss.get(kind, 0.0), pss)
            for process in reading.processes:
                # The newest kind: a Ray worker is ray::IDLE until it becomes an actor.
                _, start, _ = cpu.get(process.pid, (process.kind, process.cpu_s if first else 0.0, 0.0))
                cpu[process.pid] = (process.kind, start, process.cpu_s)
            first = False
            try:
                child.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                pass
    elapsed = time.monotonic() - started
    summary = json.loads((out / "simulate.out").read_text().strip().splitlines()[-1])
    used = {kind: 0.0 for kind in KINDS}
    for kind, start, latest in cpu.values():
        used[kind] += latest - start
    return {"summary": summary, "exit_code": child.returncode, "wall_s": round(elapsed, 1),
            "cpu_s": {kind: round(seconds, 1) for kind, seconds in used.items()},
            "peak_pss_mib": {kind: round(peak_pss.get(kind, 0.0) / MIB, 1) for kind in KINDS},
            "pairing_ms": pairing_ms(session)}


def report(figures: dict) -> str:
    summary = figures["summary"]
    floor = figures["floor_games_per_s"]
    rate = summary["games_per_s"]
    lines = [
        f"{summary['players']} players, {summary['game']} {summary['format']}, {summary['rounds']} rounds: "
        f"{summary['games']} games in {summary['seconds']} s; lost {summary['lost_results']}, "
        f"counted twice {summary['duplicate_results']}, forfeited {summary['forfeited_tables']}",
        "",
        "| figure | value |",
        "|---|---:|",
        f"| games/s sustained | {rate} |",
        f"| against the 5 games/s target | {rate / TARGET_GAMES_PER_S:.2f}x |",
        f"| against the engine alone on one core, same run ({floor:.1f} games/s) | {rate / floor:.2f}x |",
        f"| seconds per round | {', '.join(str(s) for s in summary['round_seconds'])} |",
        f"| commit round trip p50 / p99 | {summary['p50_ms']:.0f} / {summary['p99_ms']:.0f} ms |",
        f"| pairing, per round | {', '.join(f'{ms:.0f}' for _, _, ms in figures['pairing_ms'])} ms |",
        "",
        "| process | CPU s | peak PSS MiB |",
        "|---|---:|---:|",
    ]
    lines += [f"| {kind} | {figures['cpu_s'][kind]} | {figures['peak_pss_mib'][kind]} |" for kind in KINDS]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--game", default="bigtwo")
    parser.add_argument("--format", default="table_rounds")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="bench_tournament-"))
    out.mkdir(parents=True, exist_ok=True)
    if args.game != "bigtwo":
        raise SystemExit("the engine floor is measured for Big Two only (--game bigtwo)")
    floor_s, _ = time_games(FLOOR_GAMES, seed=1, with_views=True, repeat=1)
    figures = run(args, out)
    figures["floor_games_per_s"] = round(FLOOR_GAMES / floor_s, 1)
    print(report(figures))
    (out / "figures.json").write_text(json.dumps(figures, indent=1) + "\n")
    print(f"wrote {out / 'figures.json'}")
    return figures["exit_code"]


if __name__ == "__main__":
    sys.exit(main())
