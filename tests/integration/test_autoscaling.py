"""Capacity follows demand: with --rooms-follow-demand every room asks Ray
for a slot of the tablehost_room resource that room nodes declare, so a
burst of tables is rooms Ray cannot place yet, for which Ray's autoscaler
(its fake multi-node provider: nodes are raylets of this machine, on
127.0.0.1) adds room nodes; the games are played there, the idle rooms are
released and the autoscaler removes the idle nodes. Runs
scripts/autoscale_burst.py in its own process (its Ray is not the
session's)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SCRIPT = Path(__file__).resolve().parent / "scripts" / "autoscale_burst.py"


def test_a_burst_of_tables_adds_room_nodes_and_they_go_once_idle(tmp_path: Path) -> None:
    report_path = tmp_path / "report.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "--tables", "4", "--report", str(report_path)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    report = json.loads(report_path.read_text())
    assert report["bots_exit"] == 0 and report["games_completed"] == 4, report["bots_stderr"]
    # The head alone before (it has no room slot, so every room needed a node
    # Ray's autoscaler added: one or two, as the games and the nodes' starts
    # overlap, never more than its maximum of two); the head alone after.
    assert report["nodes_before"] == 1 and 2 <= report["nodes_peak"] <= 3 and report["nodes_after"] == 1
    assert report["samples"][0][1] == 1  # the front door and its lobby started no room: no demand yet
    assert report["processes"] > 3 and not report["beyond_loopback"]
