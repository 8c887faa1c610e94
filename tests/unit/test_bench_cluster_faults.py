"""bench_cluster_faults' table: the figures of many rounds summed and summarised per
fault, a fault that never passed still counted in the tests' outcomes, and
docs/reliability.md rewritten between its markers only."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

_BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(_BENCHMARKS))
_SPEC = importlib.util.spec_from_file_location("bench_cluster_faults", _BENCHMARKS / "bench_cluster_faults.py")
faults = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(faults)


def line(fault: str, p50: float, worst: float, lost: int = 0, **timings: float) -> dict:
    return {"fault": fault, "tables_across_the_fault": 2, "recovery_p50_s": p50, "recovery_max_s": worst,
            "acknowledged": 100, "lost": lost, **timings}


def test_rounds_are_summed_per_fault_with_medians_and_the_worst_recovery() -> None:
    lines = [line("Redis primary killed", 2.5, 2.6, promoted_s=2.0), line("Redis primary killed", 3.5, 9.0, lost=1,
                                                                             promoted_s=4.0),
             line("Redis primary killed", 2.7, 2.8, promoted_s=2.2)]
    rows, tests = faults.summarise(lines, [{"t_redis": "passed", "t_head": "failed"}, {"t_redis": "passed"}])
    assert rows == [{"fault": "Redis primary killed", "passed": 3, "acknowledged": 300, "lost": 1, "tables": 6,
                     "recovery_p50_s": 2.7, "recovery_max_s": 9.0, "promoted_s": 2.2}]
    assert tests == {"t_redis": Counter(passed=2), "t_head": Counter(failed=1)}
    table = faults.markdown(rows, tests, 3, "0123456789", 120.0)
    assert "| Redis primary killed | 3 of 3 | 6 | 300 | 1 | 2.70 | 9.00 | Sentinel promoted a replica: 2.2 s |" in table
    assert "| `t_head` | 0 | 1 | 0 |" in table  # a test that never passed has no figures, but is counted


def test_the_table_replaces_only_what_is_between_the_markers(tmp_path: Path, monkeypatch) -> None:
    doc = tmp_path / "reliability.md"
    doc.write_text(f"before\n{faults.BEGIN_MARK}\nold\n{faults.END_MARK}\nafter\n", encoding="utf-8")
    monkeypatch.setattr(faults, "DOC", doc)
    faults.write_doc(f"{faults.BEGIN_MARK}\nnew\n{faults.END_MARK}")
    assert doc.read_text(encoding="utf-8") == f"before\n{faults.BEGIN_MARK}\nnew\n{faults.END_MARK}\nafter\n"
