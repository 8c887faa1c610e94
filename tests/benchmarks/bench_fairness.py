"""Fairness benchmark: thousands of tables per game through a live host, and
whether anything a player controls decides its seat, role, first move or cards.

    .venv/bin/python tests/benchmarks/bench_fairness.py [--tables 2000] [--seed 7] [--no-write]

A script, not a test (pytest collects only test_*.py). It starts `tablehost
serve` with a fixed seed (so the run can be repeated exactly) and fills
--tables tables of Big Two, Duel and Kingdoms the way
tests/integration/test_deal_fairness_statistics.py does (the same sampling, the
same statistics), each game one table at a time, the three at once. It
prints every independence tested with its p-value, writes the results as
JSON (--save, default a new file in the temp dir) and, unless --no-write,
the "Fairness" section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "integration"))
from fairness_sampling import SAMPLINGS, SIGNIFICANCE, AdminPlane, findings, sample_tables  # noqa: E402
from hostbench.children import Budget  # noqa: E402
from hostbench.host import HostUnderTest  # noqa: E402

DOCS = HERE.parents[1] / "docs" / "benchmarks.md"
SECTION = "## Fairness: thousands of tables over the wire"
COMMAND = ".venv/bin/python tests/benchmarks/bench_fairness.py"


async def sample_all(target: str, admin_plane: AdminPlane, tables: int, seed: int) -> dict[str, list]:
    games = sorted(SAMPLINGS)
    sampled = await asyncio.gather(*(sample_tables(target, admin_plane, SAMPLINGS[game], tables, seed) for game in games))
    return dict(zip(games, sampled))


def machine() -> str:
    model = ""
    try:
        model = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                     if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{os.cpu_count()} cores ({model or platform.machine()}), Python {platform.python_version()}"


def render(results: dict[str, Any]) -> str:
    lines = [SECTION, "",
             f"{results['tables']:,} tables of each game, filled one at a time per game (the three at once) "
             f"through `tablehost serve --seed {results['seed']}`, each player joining in an order, with a display "
             f"name and join data chosen by a fixed PRNG; {results['elapsed_s']:.0f} s on {results['machine']}, "
             f"{results['date']}. Each row is one hypothesis of independence, rejected below p = {SIGNIFICANCE} "
             f"(chi-square; an exact binomial test for two outcomes). `{COMMAND}`.", "",
             "| game | what the deal decided, against | p-value | holds |", "|---|---|---|---|"]
    for game, found in results["findings"].items():
        for finding in found:
            lines.append(f"| {game} | {finding['question']} | {finding['p_value']:.3g} | "
                         f"{'yes' if finding['holds'] else '**no**'} |")
    return "\n".join(lines) + "\n"


def write_docs(section: str) -> None:
    text = DOCS.read_text()
    start = text.find(SECTION)
    if start < 0:
        DOCS.write_text(text.rstrip("\n") + "\n\n" + section)
        return
    following = text.find("\n## ", start + len(SECTION))
    DOCS.write_text(text[:start] + section + (text[following:] if following >= 0 else ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=2000, help="tables of each game")
    parser.add_argument("--seed", type=int, default=7, help="the host's fixed seed")
    parser.add_argument("--save", type=Path, help="where to write the results as JSON")
    parser.add_argument("--no-write", action="store_true", help="do not rewrite docs/benchmarks.md")
    args = parser.parse_args()
    logdir = Path(tempfile.mkdtemp(prefix="bench-fairness-"))
    host = HostUnderTest("fairness", ["--seed", str(args.seed), "--abandon-after", "2", "--status-interval", "0.02"],
                         logdir, Budget(7200))
    started = time.monotonic()
    try:
        admin_plane = AdminPlane(host.admin_target, host.admin_token)
        sampled = asyncio.run(sample_all(host.target, admin_plane, args.tables, args.seed))
    finally:
        host.child.stop(signal.SIGINT, grace_s=30)
    elapsed = time.monotonic() - started
    results: dict[str, Any] = {
        "tables": args.tables, "seed": args.seed, "elapsed_s": round(elapsed, 1), "machine": machine(),
        "date": datetime.date.today().isoformat(), "significance": SIGNIFICANCE,
        "findings": {game: [{"question": f.question, "p_value": f.p_value, "holds": f.holds, "counts": f.counts}
                            for f in findings(SAMPLINGS[game], samples)] for game, samples in sampled.items()},
    }
    save = args.save or logdir / "fairness.json"
    save.write_text(json.dumps(results, indent=1, default=str))
    section = render(results)
    print(section)
    print(f"results: {save}", file=sys.stderr)
    if not args.no_write:
        write_docs(section)
    return 0 if all(f["holds"] for found in results["findings"].values() for f in found) else 1


if __name__ == "__main__":
    sys.exit(main())
