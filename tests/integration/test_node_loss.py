"""Nodes of a cluster lost with their rooms, and the Redis store itself
killed, while bots play (scripts/node_loss.py, in a process of its own with
a simulated cluster and a redis-server of its own): every table resumes
elsewhere and nothing acknowledged is lost."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SCRIPT = Path(__file__).parent / "scripts" / "node_loss.py"


def test_five_node_losses_and_a_killed_redis_lose_nothing_acknowledged(tmp_path: Path) -> None:
    written = tmp_path / "report.json"
    finished = subprocess.run([sys.executable, str(SCRIPT), "--losses", "5", "--tables", "6", "--report", str(written)],
                              capture_output=True, text=True, timeout=600)
    assert written.exists(), finished.stderr[-3000:]
    report = json.loads(written.read_text())
    print(report)
    assert report["kills_by_way"] == {"node removed": 5, "redis-server killed": 1}
    assert report["tables_in_killed_rooms"] >= 5 and report["games_checked"] >= 6
    assert report["commits_acknowledged"] > 0 and report["redis_outage"]["tables"] > 0
    assert report["redis_outage"]["seq_went_back"] == 0
    assert (report["acknowledged_lost"], report["applied_twice"], report["gaps"], report["desyncs"],
            report["not_a_prefix"], report["games_unfinished"]) == (0, 0, 0, 0, 0, 0), report
    assert finished.returncode == 0
