"""The benchmarks' tracked history: every run's ratios, with its commit, date and machine,
so a regression is seen, and docs/benchmarks.md's figures come from a recorded run.

    .venv/bin/python tests/benchmarks/history.py list [--bench NAME]
    .venv/bin/python tests/benchmarks/history.py compare [--bench NAME] [--threshold 0.10]
    .venv/bin/python tests/benchmarks/history.py render      # docs/benchmarks.md's summary

Each benchmark appends one line per run to docs/bench-history/NAME.jsonl (`record`). A
line holds measures, each a value, the direction that is better ("lower" for a cost
ratio, "higher" for a rate) and, where the project has one, its target. Ratios against a
floor or peer measured in the same run carry across runs far better than microseconds,
so that is what the benchmarks record; a raw rate is recorded only where the target is
one (seats per second).

`compare` sets the latest run of each benchmark beside the runs before it on the same
machine kind (core count and CPU model: figures from another kind of machine are not
comparable), up to BASELINE_RUNS of them, and flags every measure more than the threshold
worse than their median and worse than the worst of them; it exits 1 when it flags one,
so it can gate a change. One earlier run alone is its own baseline. The median and the
range are there because the same commit measures 10-20% apart from one run to the next
on a shared two-core machine: a single earlier run as the baseline flagged noise. `render` rewrites the part of docs/benchmarks.md
between its markers from the latest run of each benchmark, with that run's machine, date
and commit: the document's figures are never carried over from an older run by hand.

A script and a module: the benchmarks import `record`; pytest collects only test_*.py.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HISTORY_DIR = ROOT / "docs" / "bench-history"
DOC = ROOT / "docs" / "benchmarks.md"
BEGIN_MARK = "<!-- history:begin (written by tests/benchmarks/history.py render; do not edit) -->"
END_MARK = "<!-- history:end -->"
DEFAULT_THRESHOLD = 0.10
# The earlier runs (same machine kind) a run is compared with: their median, and their range.
BASELINE_RUNS = 5
DIRECTIONS = ("lower", "higher")


@dataclass(frozen=True)
class Measure:
    """One recorded figure of a run: what it is, which way is better, and its target."""

    value: float
    better: str
    unit: str = "×"
    target: float | None = None
    note: str = ""

    def __post_init__(self) -> None:
        if self.better not in DIRECTIONS:
            raise ValueError(f"better must be one of {DIRECTIONS}, not {self.better!r}")

    def meets_target(self) -> bool | None:
        if self.target is None:
            return None
        return self.value <= self.target if self.better == "lower" else self.value >= self.target

    def worse_by(self, earlier: Measure) -> float:
        """How much worse this is than `earlier`, as a share of `earlier` (negative: better)."""
        if earlier.value == 0:
            return 0.0
        change = (self.value - earlier.value) / abs(earlier.value)
        return change if self.better == "lower" else -change


@dataclass(frozen=True)
class Run:
    """One benchmark run as recorded: where and when it ran and what it measured."""

    bench: str
    commit: str
    dirty: bool
    date: str
    machine_kind: str
    machine: str
    command: str
    measures: dict[str, Measure] = field(default_factory=dict)

    def to_json(self) -> str:
        body = {key: value for key, value in self.__dict__.items() if key != "measures"}
        body["measures"] = {name: {k: v for k, v in measure.__dict__.items() if v not in (None, "")}
                            for name, measure in self.measures.items()}
        return json.dumps(body, ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, line: str) -> Run:
        body = json.loads(line)
        measures = {name: Measure(**fields) for name, fields in body.pop("measures").items()}
        return cls(**body, measures=measures)


@dataclass(frozen=True)
class Regression:
    bench: str
    measure: str
    baseline: list[Run]
    latest: Run
    median: float
    worse_by: float

    def line(self) -> str:
        now = self.latest.measures[self.measure]
        earlier = [run.measures[self.measure].value for run in self.baseline]
        first, last = self.baseline[0], self.baseline[-1]
        return (f"{self.bench}: {self.measure} {now.value:.4g} {now.unit}, {self.worse_by:+.0%} worse than the "
                f"median {self.median:.4g} of {len(earlier)} earlier run(s) ({min(earlier):.4g} to "
                f"{max(earlier):.4g}; {first.commit} on {first.date} to {last.commit} on {last.date}); "
                f"{self.latest.commit} on {self.latest.date}")


# -- where and what ---------------------------------------------------------------------------


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo ("" where there is none)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def machine_kind() -> str:
    """Core count, CPU model and architecture: what decides whether two runs compare."""
    return f"{os.cpu_count()} cores, {cpu_model() or 'unknown CPU'}, {platform.machine()}"


def machine_description() -> str:
    memory_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{machine_kind()}, {memory_gib:.0f} GiB, Python {platform.python_version()}"


def tree_state() -> tuple[str, bool]:
    """The commit checked out, and whether the product's code differs from it. A benchmark
    reads this as it starts: a commit made while it runs is not what it measured."""
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout
        except (OSError, subprocess.TimeoutExpired):
            return ""

    changed = git("status", "--porcelain", "--", "actors", "host", "clients", "games", "protos")
    return git("rev-parse", "--short", "HEAD").strip() or "unknown", bool(changed.strip())


# -- the history files -------------------------------------------------------------------------


def history_file(bench: str, directory: Path = HISTORY_DIR) -> Path:
    if not bench.replace("_", "").isalnum():
        raise ValueError(f"a benchmark name is letters, digits and underscores: {bench!r}")
    return directory / f"{bench}.jsonl"


def record(bench: str, measures: dict[str, Measure], command: str | None = None,
           directory: Path = HISTORY_DIR, tree: tuple[str, bool] | None = None) -> Run:
    """Append this run to the benchmark's history and return it as recorded; `tree` is
    tree_state() as the run started (read now when not given)."""
    commit, dirty = tree or tree_state()
    run = Run(bench=bench, commit=commit, dirty=dirty,
              date=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              machine_kind=machine_kind(), machine=machine_description(),
              command=command or " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]), measures=measures)
    path = history_file(bench, directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write(run.to_json() + "\n")
    print(f"recorded in {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return run


def runs_of(bench: str, directory: Path = HISTORY_DIR) -> list[Run]:
    path = history_file(bench, directory)
    if not path.exists():
        return []
    return [Run.from_json(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def benches(directory: Path = HISTORY_DIR) -> list[str]:
    return sorted(path.stem for path in directory.glob("*.jsonl"))


# -- compare and render ------------------------------------------------------------------------


def regressions(runs: list[Run], threshold: float = DEFAULT_THRESHOLD,
                baseline_runs: int = BASELINE_RUNS) -> tuple[Run | None, Run | None, list[Regression]]:
    """The latest run, the previous run on the same machine kind, and every measure of the
    latest more than `threshold` worse than the median of up to `baseline_runs` earlier
    runs on that machine kind and worse than each of them."""
    if not runs:
        return None, None, []
    latest = runs[-1]
    same_kind = [run for run in runs[:-1] if run.machine_kind == latest.machine_kind][-baseline_runs:]
    if not same_kind:
        return latest, None, []
    found = []
    for name, measure in latest.measures.items():
        baseline = [run for run in same_kind
                    if name in run.measures and run.measures[name].better == measure.better]
        if not baseline:
            continue
        earlier = [run.measures[name] for run in baseline]
        median = Measure(statistics.median(m.value for m in earlier), measure.better)
        worse = measure.worse_by(median)
        if worse > threshold and all(measure.worse_by(m) > 0 for m in earlier):
            found.append(Regression(latest.bench, name, baseline, latest, median.value, worse))
    return latest, same_kind[-1], found


def summary_markdown(directory: Path = HISTORY_DIR) -> str:
    """The latest run of every benchmark as Markdown tables, each saying where and when."""
    lines: list[str] = []
    for bench in benches(directory):
        runs = runs_of(bench, directory)
        if not runs:
            continue
        latest = runs[-1]
        same_kind = sum(run.machine_kind == latest.machine_kind for run in runs)
        dirty = " (with uncommitted changes)" if latest.dirty else ""
        lines += [f"**{bench}**: `{latest.command}` on {latest.date}, commit {latest.commit}{dirty}; "
                  f"{latest.machine}. {len(runs)} recorded runs, {same_kind} on this machine kind.", "",
                  "| measure | this run | target | met | previous run (same machine kind) |",
                  "|---|---:|---:|---|---:|"]
        _, earlier, _ = regressions(runs)
        for name, measure in latest.measures.items():
            target = "" if measure.target is None else f"{'≤' if measure.better == 'lower' else '≥'} {measure.target:g}"
            met = {True: "yes", False: "**no**", None: ""}[measure.meets_target()]
            before = earlier.measures.get(name) if earlier else None
            note = f" ({measure.note})" if measure.note else ""
            lines.append(f"| {name}{note} | {measure.value:.4g} {measure.unit} | {target} | {met} "
                         f"| {'' if before is None else f'{before.value:.4g}'} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def render(doc: Path = DOC, directory: Path = HISTORY_DIR) -> None:
    """Replace the text between the markers in `doc` with the latest runs' summary."""
    text = doc.read_text(encoding="utf-8")
    if BEGIN_MARK not in text or END_MARK not in text:
        raise SystemExit(f"{doc} has no history markers; add\n{BEGIN_MARK}\n{END_MARK}\nwhere the summary goes")
    head, rest = text.split(BEGIN_MARK, 1)
    _, tail = rest.split(END_MARK, 1)
    doc.write_text(f"{head}{BEGIN_MARK}\n\n{summary_markdown(directory)}\n{END_MARK}{tail}", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=HISTORY_DIR, help="the history folder (default: %(default)s)")
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="every recorded run, oldest first")
    listing.add_argument("--bench", action="append", help="only this benchmark (repeatable)")
    comparing = commands.add_parser("compare", help="latest run beside the previous on the same machine kind")
    comparing.add_argument("--bench", action="append", help="only this benchmark (repeatable)")
    comparing.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD,
                           help="flag a measure this share worse (default: %(default)s)")
    rendering = commands.add_parser("render", help="rewrite docs/benchmarks.md's summary from the latest runs")
    rendering.add_argument("--doc", type=Path, default=DOC)
    args = parser.parse_args(argv)

    if args.command == "render":
        render(args.doc, args.dir)
        print(f"wrote the history summary in {args.doc}")
        return 0
    selected = args.bench or benches(args.dir)
    unknown = [bench for bench in selected if not runs_of(bench, args.dir)]
    if unknown:
        print(f"no recorded runs for: {', '.join(unknown)} (recorded: {', '.join(benches(args.dir)) or 'none'})",
              file=sys.stderr)
        return 2
    if args.command == "list":
        for bench in selected:
            for run in runs_of(bench, args.dir):
                figures = ", ".join(f"{name} {m.value:.4g}" for name, m in run.measures.items())
                print(f"{bench}  {run.date}  {run.commit}{'+' if run.dirty else ''}  [{run.machine_kind}]  {figures}")
        return 0
    flagged = 0
    for bench in selected:
        latest, earlier, found = regressions(runs_of(bench, args.dir), args.threshold)
        assert latest is not None
        if earlier is None:
            print(f"{bench}: only one run on {latest.machine_kind}; nothing to compare with yet")
            continue
        print(f"{bench}: {latest.commit} ({latest.date}) beside {earlier.commit} ({earlier.date}) on "
              f"{latest.machine_kind}: " + (f"{len(found)} measure(s) more than {args.threshold:.0%} worse"
                                            if found else f"no measure more than {args.threshold:.0%} worse"))
        for regression in found:
            print(f"  WORSE  {regression.line()}")
        flagged += len(found)
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
