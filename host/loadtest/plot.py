"""The load test's picture: moves and games finished per second over the
run, above the commit round trip's p50 and p99 per second, drawn with
matplotlib's Agg backend (no display needed, on any node or CI)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any


def plot_report(report: Mapping[str, Any], path: Path) -> None:
    """Draw the report's series into `path` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = report["series"]
    # Each entry covers [second, second + 1): lines at its middle, bars across it.
    seconds = [entry["second"] for entry in series]
    middles = [second + 0.5 for second in seconds]
    figure, (throughput, latency) = plt.subplots(2, 1, figsize=(10, 6), sharex=True, constrained_layout=True)
    throughput.plot(middles, [entry["moves"] for entry in series], color="#1f5fa8", label="moves/s")
    throughput.set_ylabel("moves per second")
    throughput.set_ylim(bottom=0)
    throughput.grid(True, alpha=0.3)
    games = throughput.twinx()
    games.bar(seconds, [entry["games"] for entry in series], color="#8fbc8f", alpha=0.5, width=1.0, align="edge",
              label="games finished/s")
    games.set_ylabel("games finished per second")
    games.set_ylim(bottom=0)
    throughput.set_zorder(games.get_zorder() + 1)
    throughput.patch.set_visible(False)
    lines, labels = throughput.get_legend_handles_labels()
    bars, bar_labels = games.get_legend_handles_labels()
    throughput.legend(lines + bars, labels + bar_labels, loc="upper right", fontsize=8)

    timed = [entry for entry in series if entry["round_trips"]]
    latency.plot([e["second"] + 0.5 for e in timed], [e["p50_ms"] for e in timed], color="#1f5fa8", label="p50")
    latency.plot([e["second"] + 0.5 for e in timed], [e["p99_ms"] for e in timed], color="#c0392b", label="p99")
    latency.set_yscale("log")
    latency.set_ylabel("commit round trip (ms)")
    latency.set_xlabel("seconds since the run started")
    latency.grid(True, which="both", alpha=0.3)
    latency.legend(loc="upper right", fontsize=8)

    config, totals = report["config"], report["totals"]
    figure.suptitle(
        f"tablehost loadtest: {config['tables']} tables x {config['games_per_table']} games, "
        f"{totals['agents']} agent(s) on {totals['nodes']} node(s); {totals['moves']:,} moves, "
        f"{totals['moves_per_s']:,.0f}/s, p50 {totals['p50_ms']:.1f} ms, p99 {totals['p99_ms']:.1f} ms",
        fontsize=9)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)
