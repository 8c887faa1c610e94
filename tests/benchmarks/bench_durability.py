"""Durability benchmark: what persisting every command before publishing it costs.

    .venv/bin/python tests/benchmarks/bench_durability.py [--quick] [--no-write]

Two scenarios (hostbench/group_commit.py, hostbench/stores.py): the local store's
group commit against appending one table at a time, in process; and the same tables
of bots against hosts with no store, the local store and Redis (a redis-server of its
own, appendfsync always). Each figure is given beside the run without durability
measured in the same run. A full run writes its section of docs/benchmarks.md (the
other sections are left as they are); --quick prints only. Loopback only, bounded in
time, every process it starts ended by PID.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # hostbench, beside this script
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # Ray on loopback only

from hostbench import DOC, group_commit, report, stores  # noqa: E402
from hostbench.children import Budget, end_leftovers, raise_nofile_limit  # noqa: E402

SECTION = "## Durability: what the store costs"
SEED = 20261202
COMMAND = "`.venv/bin/python tests/benchmarks/bench_durability.py`"


def section(results: dict[str, Any]) -> str:
    grouped = results["group_commit"]["rows"]
    settings = {row["store"]: row for row in results["stores"]["settings"]}
    none = settings["none"]["bots"]
    lines = [SECTION, "", f"Measured with {COMMAND} ({results['meta']['machine']}; commit {results['meta']['commit']}).",
             "", "Every accepted command is made durable before anyone hears of it (persist, then publish). "
             "A busy room's journal writes every table's command in flight as one group commit: one disk sync "
             "for the whole batch (`syncfs` on the store's file system), not one per move.", "",
             "**Group commit, in process** (the local store; one entry per table per round, beside the same entries "
             "appended one table at a time):", "",
             "| tables per batch | grouped entries/s | syncs per entry | one at a time entries/s | syncs per entry | "
             "grouped / one at a time |", "|---|---|---|---|---|---|"]
    for row in grouped:
        g, a = row["grouped"], row["one_by_one"]
        lines.append(f"| {row['tables']} | {g['entries_per_s']:,.0f} | {g['syncs_per_entry']:.3f} | "
                     f"{a['entries_per_s']:,.0f} | {a['syncs_per_entry']:.3f} | {row['speedup']:.1f}x |")
    plan = results["stores"]["plan"]
    lines += ["", f"**Through the host** ({plan['tables']} tables of random bots, 4 a table, one game each, in "
              "two bots processes; the host's rooms start with it):", "",
              "| store | moves/s | vs no store | p50 ms | p99 ms | p99 vs no store | server CPU ms/move | "
              "redis-server CPU ms/move | errors |", "|---|---|---|---|---|---|---|---|---|"]
    for name in ("none", "local", "redis"):
        row = settings[name]
        bots = row["bots"]
        lines.append(f"| {name} | {bots['moves_per_s']:,.0f} | {bots['moves_per_s'] / none['moves_per_s']:.2f}x | "
                     f"{bots['p50_ms']} | {bots['p99_ms']} | {bots['p99_ms'] / max(none['p99_ms'], 1e-9):.2f}x | "
                     f"{row['server_cpu_ms_per_move']:.3f} | {row['redis_cpu_ms_per_move']:.3f} | {bots['errors']} |")
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, prints only")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/ alone")
    args = parser.parse_args(argv)
    raise_nofile_limit()
    logdir = Path(tempfile.mkdtemp(prefix="bench_durability-"))
    from bench_host import machine_line, tree_line

    results: dict[str, Any] = {"meta": {"machine": machine_line(), **tree_line(), "quick": args.quick}}
    budget = Budget(900.0)
    print("group commit:", flush=True)
    results["group_commit"] = group_commit.run(group_commit.GroupCommitPlan(
        tables=(1, 10, 100) if args.quick else (1, 10, 100, 500), rounds=200 if args.quick else 2000))
    try:
        results["stores"] = stores.run(stores.StoresPlan(tables=10 if args.quick else 100,
                                                         split_above=5 if args.quick else 50),
                                       logdir, budget, SEED)
    finally:
        end_leftovers()
    (logdir / "results.json").write_text(json.dumps(results, indent=1))
    text = section(results)
    print(text)
    if not args.quick and not args.no_write:
        report.write_section(DOC, text, headings={SECTION})
        print(f"wrote the durability section of {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
