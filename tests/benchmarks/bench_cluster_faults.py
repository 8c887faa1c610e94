"""Every fault of the network test bed, run many times over: how often the history
checker passed, how many acknowledged commands were lost, and how long tables took to
take commands again. Writes the table to docs/reliability.md and records the run in the
benchmarks' history.

Each round runs tests/integration/test_bed_faults.py once (every fault, on beds built
for the round: a Redis primary killed, a room node frozen or cut off past failure detection, cut off
from the store or the players and mended, the head killed and restarted); the tests
append their figures to a file this script reads. Needs root (network namespaces).

    .venv/bin/python tests/benchmarks/bench_cluster_faults.py --runs 10     # about 50 minutes
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from history import Measure, machine_description, record, tree_state  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TESTS = "tests/integration/test_bed_faults.py"
DOC = ROOT / "docs" / "reliability.md"
BEGIN_MARK = "<!-- faults:begin (written by tests/benchmarks/bench_cluster_faults.py; do not edit) -->"
END_MARK = "<!-- faults:end -->"
# The seconds each kind of fault reports besides recovery, and what they mean.
TIMINGS = {"promoted_s": "Sentinel promoted a replica", "moved_s": "tables served on the other node",
           "head_back_s": "head and front door serving again", "seated_again_s": "first table seated after"}


def run_round(figures_file: Path, junit: Path) -> dict[str, str]:
    """One run of every fault; each test's outcome ("passed", "failed", "error")."""
    env = {**os.environ, "TABLEHOST_BED_FIGURES": str(figures_file)}
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", TESTS, f"--junitxml={junit}"],
                   cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    outcomes = {}
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        failed = case.find("failure") is not None
        errored = case.find("error") is not None
        outcomes[case.get("name", "?")] = "failed" if failed else "error" if errored else "passed"
    return outcomes


def summarise(lines: list[dict], outcomes: list[dict[str, str]]) -> tuple[list[dict], dict[str, Counter]]:
    by_fault: dict[str, list[dict]] = defaultdict(list)
    for line in lines:
        by_fault[line["fault"]].append(line)
    rows = []
    for fault, runs in sorted(by_fault.items()):
        row = {"fault": fault, "passed": len(runs),
               "acknowledged": sum(r["acknowledged"] for r in runs), "lost": sum(r["lost"] for r in runs),
               "tables": sum(r["tables_across_the_fault"] for r in runs),
               "recovery_p50_s": statistics.median(r["recovery_p50_s"] for r in runs),
               "recovery_max_s": max(r["recovery_max_s"] for r in runs)}
        for timing in TIMINGS:
            measured = [r[timing] for r in runs if timing in r]  # a run may lack one (nothing to time)
            if measured:
                row[timing] = statistics.median(measured)
        rows.append(row)
    tests: dict[str, Counter] = defaultdict(Counter)
    for round_outcomes in outcomes:
        for name, outcome in round_outcomes.items():
            tests[name][outcome] += 1
    return rows, tests


def markdown(rows: list[dict], tests: dict[str, Counter], rounds: int, commit: str, elapsed_s: float) -> str:
    out = [BEGIN_MARK, "",
           f"{rounds} rounds of every fault, {time.strftime('%Y-%m-%d', time.gmtime())}, commit {commit[:7]}, "
           f"{machine_description()}; {elapsed_s / 60:.0f} minutes.", "",
           "| fault | runs passed (checker and test) | tables across it | commands acknowledged | lost | recovery p50 (s) "
           "| recovery max (s) | also (median) |",
           "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        also = "; ".join(f"{TIMINGS[t]}: {row[t]:.1f} s" for t in TIMINGS if t in row)
        out.append(f"| {row['fault']} | {row['passed']} of {rounds} | {row['tables']} | {row['acknowledged']} "
                   f"| {row['lost']} | {row['recovery_p50_s']:.2f} | {row['recovery_max_s']:.2f} | {also} |")
    out += ["", "Every test's outcomes over the rounds:", "", "| test | passed | failed | error |", "|---|---|---|---|"]
    for name, counts in sorted(tests.items()):
        out.append(f"| `{name}` | {counts['passed']} | {counts['failed']} | {counts['error']} |")
    out += ["", END_MARK]
    return "\n".join(out)


def write_doc(table: str) -> None:
    text = DOC.read_text(encoding="utf-8")
    if BEGIN_MARK not in text or END_MARK not in text:
        raise SystemExit(f"{DOC} lacks the markers {BEGIN_MARK!r} and {END_MARK!r}")
    before, rest = text.split(BEGIN_MARK, 1)
    after = rest.split(END_MARK, 1)[1]
    DOC.write_text(before + table + after, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="rounds of every fault")
    parser.add_argument("--no-record", action="store_true", help="neither write docs/reliability.md nor the history")
    args = parser.parse_args()
    tree = tree_state()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-faults-") as folder:
        figures_file = Path(folder) / "figures.jsonl"
        outcomes = []
        for number in range(1, args.runs + 1):
            outcomes.append(run_round(figures_file, Path(folder) / f"round-{number}.xml"))
            print(f"round {number}: {dict(Counter(outcomes[-1].values()))}", flush=True)
        lines = [json.loads(line) for line in figures_file.read_text().splitlines()] if figures_file.exists() else []
    rows, tests = summarise(lines, outcomes)
    table = markdown(rows, tests, args.runs, tree[0], time.monotonic() - started)
    print(table)
    if args.no_record:
        return
    write_doc(table)
    measures = {}
    for row in rows:
        measures[f"{row['fault']}: checker passed"] = Measure(row["passed"] / args.runs, "higher", "of runs", 1.0)
        measures[f"{row['fault']}: commands lost"] = Measure(row["lost"], "lower", "commands", 0.0)
        measures[f"{row['fault']}: recovery p50"] = Measure(row["recovery_p50_s"], "lower", "s")
    record("cluster_faults", measures, tree=tree)


if __name__ == "__main__":
    main()
