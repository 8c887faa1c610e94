"""Rooms and tables are spread over the nodes of a cluster. A real
two-node cluster cannot share this session's Ray, so it runs in a process
of its own (simulated nodes, all on 127.0.0.1)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SCRIPT = Path(__file__).parent / "scripts" / "spread_rooms.py"


def test_rooms_and_tables_are_spread_evenly_over_the_nodes_of_a_two_node_cluster() -> None:
    finished = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=240)
    assert finished.returncode == 0, finished.stderr[-3000:]
    report = json.loads(finished.stdout.strip().splitlines()[-1])
    assert report["cluster_nodes"] == 2 and report["tables"] == 40
    # One room per CPU, on each node; the tables shared evenly between them.
    assert report["rooms_per_node"] == [2, 2]
    assert report["tables_per_node"] == [20, 20]
    assert report["tables_per_room"] == [10, 10, 10, 10]
