"""The benchmark history: a regression of more than the threshold is flagged, in either
direction of "better", only against a run on the same machine kind, and the summary in
docs/benchmarks.md is rewritten between its markers only."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import replace
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "history.py"
_SPEC = importlib.util.spec_from_file_location("bench_history", _PATH)
history = importlib.util.module_from_spec(_SPEC)
sys.modules["bench_history"] = history
_SPEC.loader.exec_module(history)

KIND = "2 cores, AMD EPYC, x86_64"


def run(commit: str, kind: str = KIND, **measures: history.Measure) -> history.Run:
    return history.Run(bench="host", commit=commit, dirty=False, date="2026-12-03 10:00 UTC", machine_kind=kind,
                       machine=f"{kind}, 24 GiB", command="bench_host.py", measures=measures)


def cost(value: float) -> history.Measure:
    return history.Measure(value=value, better="lower", target=1.5)


def rate(value: float) -> history.Measure:
    return history.Measure(value=value, better="higher", unit="/s", target=5000)


def test_a_cost_ratio_more_than_ten_percent_higher_is_flagged_and_one_within_is_not():
    _, _, found = history.regressions([run("a", cpu=cost(2.0)), run("b", cpu=cost(2.21))])
    assert [r.measure for r in found] == ["cpu"]
    assert found[0].worse_by == pytest.approx(0.105)
    _, _, found = history.regressions([run("a", cpu=cost(2.0)), run("b", cpu=cost(2.19))])
    assert found == []


def test_a_rate_is_worse_when_it_falls():
    _, _, found = history.regressions([run("a", seats=rate(2600)), run("b", seats=rate(2300))])
    assert [r.measure for r in found] == ["seats"]
    _, _, found = history.regressions([run("a", seats=rate(2600)), run("b", seats=rate(3300))])
    assert found == []


def test_a_run_within_the_range_of_the_runs_before_it_is_noise_not_a_regression():
    """The same commit measures 10-20% apart from run to run here: the latest is set
    beside the median of up to five earlier runs, and must be worse than all of them."""
    noisy = [run(f"a{i}", cpu=cost(value)) for i, value in enumerate([2.2, 2.7, 2.4, 2.3])]
    _, earlier, found = history.regressions([*noisy, run("b", cpu=cost(2.65))])
    assert earlier.commit == "a3" and found == [], "20% above the last run, but within the range"
    _, _, found = history.regressions([*noisy, run("b", cpu=cost(2.9))])
    assert [r.measure for r in found] == ["cpu"] and found[0].median == pytest.approx(2.35)
    assert "median 2.35 of 4 earlier run(s) (2.2 to 2.7" in found[0].line()


def test_only_the_last_five_earlier_runs_make_the_baseline():
    old_and_slow = [run(f"old{i}", cpu=cost(4.0)) for i in range(3)]
    recent = [run(f"r{i}", cpu=cost(2.0)) for i in range(5)]
    _, _, found = history.regressions([*old_and_slow, *recent, run("b", cpu=cost(3.0))])
    assert [len(r.baseline) for r in found] == [5]


def test_only_a_run_on_the_same_machine_kind_is_compared():
    other = run("a", kind="8 cores, Intel Xeon, x86_64", cpu=cost(1.0))
    latest, earlier, found = history.regressions([other, run("b", cpu=cost(3.0))])
    assert earlier is None and found == []
    same = run("a0", cpu=cost(2.0))
    latest, earlier, found = history.regressions([same, other, run("b", cpu=cost(3.0))])
    assert earlier.commit == "a0" and [r.measure for r in found] == ["cpu"]


def test_a_measure_new_in_the_latest_run_is_not_a_regression():
    _, _, found = history.regressions([run("a", cpu=cost(2.0)), run("b", cpu=cost(2.0), views=cost(9.0))])
    assert found == []


def test_record_appends_and_compare_exits_one_on_a_regression(tmp_path, capsys):
    history.record("host", {"cpu": cost(2.0)}, command="first", directory=tmp_path)
    history.record("host", {"cpu": cost(2.0)}, command="second", directory=tmp_path)
    assert history.main(["--dir", str(tmp_path), "compare"]) == 0
    history.record("host", {"cpu": cost(2.5)}, command="third", directory=tmp_path)
    assert [r.command for r in history.runs_of("host", tmp_path)] == ["first", "second", "third"]
    assert history.main(["--dir", str(tmp_path), "compare"]) == 1
    assert "WORSE" in capsys.readouterr().out
    assert history.main(["--dir", str(tmp_path), "compare", "--bench", "nosuch"]) == 2


def test_a_run_survives_its_json_line_unchanged():
    original = run("abc", cpu=cost(1.25), seats=replace(rate(2595.0), note="10,000 joining"))
    assert history.Run.from_json(original.to_json()) == original


def test_a_measure_refuses_an_unknown_direction():
    with pytest.raises(ValueError, match="better must be one of"):
        history.Measure(value=1.0, better="sideways")


def test_render_rewrites_only_between_the_markers(tmp_path):
    history.record("rules", {"kingdoms views": cost(2.4)}, command="bench_rules.py", directory=tmp_path)
    doc = tmp_path / "benchmarks.md"
    doc.write_text(f"# Benchmarks\nbefore\n{history.BEGIN_MARK}\nstale figures\n{history.END_MARK}\nafter\n")
    history.render(doc, tmp_path)
    text = doc.read_text()
    assert text.startswith("# Benchmarks\nbefore\n") and text.endswith(f"{history.END_MARK}\nafter\n")
    assert "stale figures" not in text and "| kingdoms views | 2.4 × | ≤ 1.5 | **no** |" in text


def test_every_recorded_history_in_the_repository_reads():
    for bench in history.benches():
        runs = history.runs_of(bench)
        assert runs, bench
        assert all(run.measures for run in runs), bench
