"""Host benchmark, rooms at tournament scale: tables held open, table starts, the lobby
under a crowd, moves and the scaling curve beside the grpc.aio echo floor, and the
Colyseus peer, all in one run.

    .venv/bin/python tests/benchmarks/bench_host.py [--quick | --goals] [--only SCENARIO ...] [--no-write]

A script, not a test (pytest collects only test_*.py). Loopback only, bounded in count
and time: every wait has a limit and the whole run a budget, after which it gives up;
every process it starts is ended by PID (never by name). The load runs in client
processes of its own, never counted in the host's figures. Speed and memory are given
beside a floor or a peer measured in the same run. Scenarios (hostbench/ has one module
each):

- held_open: 10, 100, 1,000, 2,000 tables of 4 connected players held open; the host
  tree's PSS, threads, fds and idle CPU per table, and what binds first.
- table_starts: a burst of 1,000 tables (4,000 JoinQueue at once); tables/s.
- lobby_burst: 10,000 players joining at once; peak waiting, seats/s, lobby memory.
- moves: the scaling curve (1 to 200 tables of bots), with the echo floors at 1, 25 and
  100 tables; moves/s, p50/p99, server CPU per move, host PSS; at 25 and 100 tables the
  same tables again with the TypeScript SDK as the client (Node, as Colyseus's clients).
- placement: 100 tables of bots against hosts keeping 0.5, 1 and 2 rooms per CPU.
- peer: Colyseus at 25 and 100 tables, 75 moves a table.

A complete run (every scenario, full sizes) writes its section of docs/benchmarks.md
(the rules engine's section is left as it is) and docs/scaling.png; --quick or --only
runs print only. Every run saves its figures as JSON (--save), and --render re-writes
the section and the plot from such a file without measuring again.

Every run ends with the three move-path goals it measured, as ratios (server CPU per move
beside the echo + acks floor; moves/s beside Colyseus; seat assignments per second) and
records them in the tracked history (tests/benchmarks/history.py) as "host", or
"host_goals" / "host_quick" for those plans, so runs of one plan compare with each
other. --goals runs only what the goals need: moves at 25 and 100 tables with their
floors, the peer at 25 and 100, and 10,000 players joining at once (about a minute).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # hostbench, beside this script
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # Ray on loopback only

from hostbench import DOC, PLOT, ROOT, goals, held_open, lobby_burst, moves, peer, placement, table_starts  # noqa: E402
from hostbench.children import Budget, end_leftovers, raise_nofile_limit  # noqa: E402
from hostbench.procs import ForeignLoad, busy_before, memory_info  # noqa: E402
from history import cpu_model, record  # noqa: E402

SCENARIOS = ("held_open", "table_starts", "lobby_burst", "moves", "placement", "peer")
GOAL_SCENARIOS = ("lobby_burst", "moves", "peer")
SEED = 20261201


def plans(quick: bool, goals: bool = False) -> dict[str, Any]:
    """The sizes of a full run, of the goals' run (only their tables and crowd), or of a
    quick check that every scenario works (about a minute)."""
    if goals:
        full = plans(quick=False)
        return {
            **full,
            "budget_s": 900.0,
            "moves": moves.MovesPlan(levels=(25, 100), floors_at=(25, 100), split_above=50, ts_at=(25, 100)),
        }
    if quick:
        return {
            "budget_s": 600.0,
            "held_open": held_open.HeldOpenPlan(levels=(2, 10, 20), client_processes=2, idle_window_s=2.0,
                                                settle_s=1.0, own_connections=True),
            "table_starts": table_starts.BurstPlan(tables=25, client_processes=2, own_connections=True),
            "lobby_burst": lobby_burst.CrowdPlan(players=400, client_processes=2, own_connections=True),
            "moves": moves.MovesPlan(levels=(1, 5, 10), floors_at=(1, 10), split_above=5, ts_at=(10,)),
            "placement": placement.PlacementPlan(rooms_per_cpu=(0.5, 1.0), tables=10, split_above=5),
            "peer": {"levels": (10,), "moves_per_table": 75},
        }
    return {
        "budget_s": 1800.0,
        "held_open": held_open.HeldOpenPlan(levels=(10, 100, 1000, 2000), client_processes=4, idle_window_s=10.0,
                                            settle_s=3.0, own_connections=True),
        "table_starts": table_starts.BurstPlan(tables=1000, client_processes=4, own_connections=True),
        "lobby_burst": lobby_burst.CrowdPlan(players=10_000, client_processes=4, own_connections=True),
        "moves": moves.MovesPlan(levels=(1, 10, 25, 50, 100, 200), floors_at=(1, 25, 100), split_above=50,
                                 ts_at=(25, 100)),
        "placement": placement.PlacementPlan(rooms_per_cpu=(0.5, 1.0, 2.0), tables=100, split_above=50),
        "peer": {"levels": (25, 100), "moves_per_table": 75},
    }


def machine_line() -> str:
    model = cpu_model()
    versions = []
    for package in ("ray", "grpc"):
        try:
            versions.append(f"{package} {__import__(package).__version__}")
        except Exception:
            pass
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip() or "no node"
    memory_gib = memory_info().get("MemTotal", 0) / 2**30
    return (f"{os.cpu_count()} cores ({model or platform.machine()}), {memory_gib:.0f} GiB, "
            f"Python {platform.python_version()}, {', '.join(versions)}, Node {node}")


def tree_line() -> dict[str, str]:
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout
        except (OSError, subprocess.TimeoutExpired):
            return ""

    # Porcelain lines are "XY path": the status columns may be spaces, so no strip().
    changed = git("status", "--porcelain", "--", "actors", "host", "clients", "games", "protos").splitlines()
    return {"commit": git("rev-parse", "--short", "HEAD").strip() or "unknown",
            "dirty": ", ".join(line[3:] for line in changed if len(line) > 3)}


def run_scenarios(selected: list[str], plan: dict[str, Any], logdir: Path) -> dict[str, Any]:
    budget = Budget(plan["budget_s"])
    results: dict[str, Any] = {"failures": {}}
    for name in selected:
        started = time.monotonic()
        try:
            if name == "held_open":
                results[name] = held_open.run(plan[name], logdir, budget, SEED)
            elif name == "table_starts":
                results[name] = table_starts.run(plan[name], logdir, budget, SEED + 1)
            elif name == "lobby_burst":
                results[name] = lobby_burst.run(plan[name], logdir, budget, SEED + 2)
            elif name == "moves":
                results[name] = moves.run(plan[name], logdir, budget, SEED + 3)
            elif name == "placement":
                results[name] = placement.run(plan[name], logdir, budget, SEED + 4)
            elif name == "peer":
                results[name] = peer.run(plan[name]["levels"], plan[name]["moves_per_table"], logdir, budget)
        except Exception as error:  # one failing scenario (OutOfTime included) must not lose the others' figures
            results["failures"][name] = f"{type(error).__name__}: {error}"
            print(f"  {name} FAILED: {results['failures'][name]}", file=sys.stderr, flush=True)
        results.setdefault("durations_s", {})[name] = round(time.monotonic() - started, 1)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sizes = parser.add_mutually_exclusive_group()
    sizes.add_argument("--quick", action="store_true", help="small sizes: check every scenario works (prints only)")
    sizes.add_argument("--goals", action="store_true",
                       help=f"only what the move-path goals need ({', '.join(GOAL_SCENARIOS)}, their sizes)")
    parser.add_argument("--only", nargs="+", choices=SCENARIOS, metavar="SCENARIO",
                        help=f"run only these ({', '.join(SCENARIOS)}); prints only")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/ and the history alone")
    parser.add_argument("--save", type=Path, help="where to save the run's figures as JSON (default: the log folder)")
    parser.add_argument("--render", type=Path, metavar="RUN.json",
                        help="write docs/benchmarks.md's host section and docs/scaling.png from a saved run")
    args = parser.parse_args(argv)

    from hostbench import report

    if args.render:
        results = json.loads(args.render.read_text())
        held = results.get("held_open")
        if held and held.get("levels"):
            # Derived figures (slopes, limits) are recomputed from the saved measurements.
            plan = held["plan"]
            held["summary"] = held_open.summarize(held, held_open.HeldOpenPlan(**{**plan, "levels": tuple(plan["levels"])}))
        write_docs(results)
        return 0

    def on_sigterm(_signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt  # so every `finally` ends what it started

    signal.signal(signal.SIGTERM, on_sigterm)
    raise_nofile_limit()
    selected = list(args.only) if args.only else list(GOAL_SCENARIOS if args.goals else SCENARIOS)
    complete = selected == list(SCENARIOS) and not args.quick and not args.goals
    logdir = Path(tempfile.mkdtemp(prefix="bench_host-"))
    meta: dict[str, Any] = {
        "started_at": subprocess.run(["date", "-u"], capture_output=True, text=True).stdout.strip(),
        "machine": machine_line(),
        **tree_line(),
        "argv": sys.argv[1:] if argv is None else argv,
        "quick": args.quick,
        "goals": args.goals,
        "complete": complete,
    }
    print(f"{meta['started_at']}; {meta['machine']}; commit {meta['commit']}", flush=True)
    meta["busy_before"] = busy_before(2.0, os.getpid())
    print(f"before the run: machine {meta['busy_before']['machine_busy_share']:.0%} busy; other processes "
          f"{meta['busy_before']['foreign_top']}", flush=True)
    watch = ForeignLoad(os.getpid())
    started = time.monotonic()
    try:
        results = run_scenarios_watched(selected, plans(args.quick, args.goals), logdir, watch)
    except KeyboardInterrupt:
        end_leftovers()
        print(f"interrupted; every process started here has been ended (logs: {logdir})", file=sys.stderr)
        return 130
    left = end_leftovers()
    if left:
        results["failures"]["cleanup"] = f"{left} child process(es) were still running after their scenario; ended by PID"
    watch.sample()
    meta["foreign_during"] = watch.summary()
    meta["duration_s"] = round(time.monotonic() - started, 1)
    results["meta"] = meta
    save = args.save or logdir / "results.json"
    save.write_text(json.dumps(results, indent=1, default=str))
    print()
    print(report.section(results))
    measured = goals.measures(results)
    print(goals.text(measured))
    print(f"figures saved to {save}; logs in {logdir}")
    if measured and not args.no_write:
        record("host_quick" if args.quick else "host_goals" if args.goals else "host", measured,
               tree=(meta["commit"], bool(meta["dirty"])))
    if complete and not args.no_write:
        write_docs(results)
    elif not args.no_write:
        print("a --quick, --goals or --only run leaves docs/ alone (write a complete run's with --render FILE)")
    return 1 if results["failures"] else 0


def run_scenarios_watched(selected: list[str], plan: dict[str, Any], logdir: Path, watch: ForeignLoad) -> dict[str, Any]:
    """Run the scenarios while a thread samples the foreign load every few seconds."""
    import threading

    stop = threading.Event()

    def sample_forever() -> None:
        while not stop.wait(3.0):
            watch.sample()

    sampler = threading.Thread(target=sample_forever, name="foreign-load", daemon=True)
    sampler.start()
    try:
        return run_scenarios(selected, plan, logdir)
    finally:
        stop.set()
        sampler.join(10)


def write_docs(results: dict[str, Any]) -> None:
    from hostbench import plot, report

    report.write_section(DOC, report.section(results))
    print(f"wrote the host section of {DOC.relative_to(ROOT)}")
    drawn = plot.scaling_plot(results, PLOT)
    print(f"wrote {PLOT.relative_to(ROOT)}" if drawn else f"no plot: {drawn.reason}")


if __name__ == "__main__":
    sys.exit(main())
