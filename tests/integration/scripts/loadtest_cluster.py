"""Run by test_loadtest.py in its own process (a simulated cluster cannot
share the session's Ray): a three-node Ray cluster (ray.cluster_utils.Cluster,
every node on 127.0.0.1 with one CPU, so one room each), a host joined to it
(`tablehost serve --address`, a process of its own), and `tablehost loadtest
--address ... --target ...` (another), whose agents spread over the nodes.
Then what the host counted itself, read behind the wire (`host_snapshot`).

Prints one JSON object on its last line: the cluster's alive nodes, the
load test's exit code, its report, and the host's snapshot. Everything it
started is stopped by pid or by cluster.shutdown().

    .venv/bin/python tests/integration/scripts/loadtest_cluster.py --tables 20 [--out DIR]"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

import ray  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

from tablehost.actors.lobby import LOBBY_NAME, NAMESPACE  # noqa: E402

TABLEHOST = [sys.executable, "-m", "tablehost.host.cli"]
NODES = 3
SERVE_START_TIMEOUT_S = 180.0
LOADTEST_TIMEOUT_S = 400.0


def wait_for_line(process: subprocess.Popen[str], prefix: str, timeout_s: float) -> str:
    """The first line of the process's stdout that starts with `prefix`;
    RuntimeError if it exits or says nothing of the kind in time."""
    deadline = time.monotonic() + timeout_s
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while time.monotonic() < deadline:
            if not selector.select(timeout=max(0.0, deadline - time.monotonic())):
                break
            line = process.stdout.readline()
            if not line:
                raise RuntimeError(f"{process.args} exited ({process.wait()}) before printing {prefix!r}")
            if line.startswith(prefix):
                return line.strip()
    raise RuntimeError(f"{process.args} did not print {prefix!r} within {timeout_s:g} s")


def scraped_totals(metrics_address: str) -> dict[str, float]:
    """Every room's Prometheus counters added up, by sample name and labels,
    the rooms found the way Prometheus finds them (the front door's /targets)."""
    def fetch(url: str) -> str:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.read().decode()

    totals: dict[str, float] = {}
    for endpoint in json.loads(fetch(f"http://{metrics_address}/targets"))[0]["targets"]:
        for family in text_string_to_metric_families(fetch(f"http://{endpoint}/metrics")):
            for sample in family.samples:
                if sample.name.startswith("tablehost_") and sample.name.endswith(("_total", "_count")):
                    labels = ",".join(f"{key}={value}" for key, value in sorted(sample.labels.items()))
                    key = f"{sample.name}{{{labels}}}"
                    totals[key] = totals.get(key, 0.0) + sample.value
    return totals


def host_snapshot(metrics_address: str) -> dict[str, Any]:
    """The host's own counters after the run, one source per key: the
    lobby's status over Ray (`lobby`), every room's status over Ray (`rooms`)
    and the rooms' Prometheus metrics (`metrics`)."""
    lobby = ray.get_actor(LOBBY_NAME, namespace=NAMESPACE)
    status = ray.get(lobby.status.remote(), timeout=30)
    handles = ray.get(lobby.room_handles.remote(), timeout=30)
    rooms = ray.get([handle.status.remote() for handle in handles.values()], timeout=30)
    return {
        "lobby": {key: getattr(status, key) for key in ("tables_started", "tables", "rooms")},
        "rooms": [{key: getattr(room, key) for key in ("room_id", "node_id", "endpoint", "pid", "games_hosted",
                                                      "tables_failed")} for room in rooms],
        "metrics": scraped_totals(metrics_address),
    }


def stop(process: subprocess.Popen[str]) -> None:
    """SIGTERM by pid (serve closes its streams and leaves Ray), SIGKILL if it lingers."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="loadtest_cluster-"))
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    serve: subprocess.Popen[str] | None = None
    try:
        for _ in range(NODES - 1):
            cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        with open(out / "serve.log", "w") as serve_log:
            serve = subprocess.Popen([*TABLEHOST, "serve", "--address", cluster.address, "--port", "0",
                                      "--metrics-port", "0"], stdout=subprocess.PIPE, stderr=serve_log, text=True)
            target = wait_for_line(serve, "listening on ", SERVE_START_TIMEOUT_S).removeprefix("listening on ")
            # Printed at once after the line above (already in the pipe's buffer, so read, not selected).
            metrics_line = serve.stdout.readline() if serve.stdout is not None else ""
            assert metrics_line.startswith("metrics on http://"), metrics_line
            metrics_address = metrics_line.split("//")[1].split("/")[0]
            loadtest = subprocess.run(
                [*TABLEHOST, "loadtest", "--address", cluster.address, "--target", target, "--tables",
                 str(args.tables), "--duration", "240", "--no-progress", "--out", str(out / "loadtest")],
                capture_output=True, text=True, timeout=LOADTEST_TIMEOUT_S, check=False)
            sys.stderr.write(loadtest.stderr[-3000:])
            report = json.loads((out / "loadtest" / "report.json").read_text())
            ray.init(address=cluster.address, namespace=NAMESPACE, logging_level="ERROR")
            outcome = {
                "cluster_nodes": len([node for node in ray.nodes() if node["Alive"]]),
                "loadtest_exit_code": loadtest.returncode,
                "report": report,
                "host": host_snapshot(metrics_address),
            }
    finally:
        ray.shutdown()
        if serve is not None:
            stop(serve)
        cluster.shutdown()
    print(json.dumps(outcome), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
