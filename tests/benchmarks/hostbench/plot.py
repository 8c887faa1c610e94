"""docs/scaling.png: the scaling curve of the moves scenario (tables -> moves/s, p99
round trip, host PSS) in three panels, drawn with matplotlib's Agg backend (no display).
matplotlib is the optional `bench` dependency; without it the plot is skipped, said so."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Drawn:
    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


def scaling_plot(results: dict[str, Any], path: Path) -> Drawn:
    levels = (results.get("moves") or {}).get("levels") or []
    if len(levels) < 2:
        return Drawn(False, "the run has fewer than two levels of the scaling curve")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tables = [row["tables"] for row in levels]
    panels = [
        ("moves/s", [row["bots"]["moves_per_s"] for row in levels], "moves per second"),
        ("p99 commit round trip (ms)", [row["bots"]["p99_ms"] for row in levels], "p99 round trip"),
        ("host PSS (MiB)", [row["host_pss_peak_mib"] for row in levels], "host PSS, peak"),
    ]
    peers = [level for level in (results.get("peer") or {}).get("levels", []) if "moves_per_s" in level]
    meta = results.get("meta", {})
    figure, axes = plt.subplots(1, 3, figsize=(13, 4), constrained_layout=True)
    for axis, (label, values, title) in zip(axes, panels):
        axis.plot(tables, values, marker="o", color="#1f5fa8", label="tablehost (Python bots)")
    if peers:
        for axis, key in ((axes[0], "moves_per_s"), (axes[1], "p99_ms")):
            axis.plot([p["tables"] for p in peers], [p[key] for p in peers], marker="s", linestyle="none",
                      color="#c0392b", label="Colyseus 0.18 (Node clients), same run")
    for axis, (label, _values, title) in zip(axes, panels):
        axis.set_xscale("log")
        axis.set_xticks(tables)
        axis.set_xticklabels([str(t) for t in tables])
        axis.minorticks_off()
        axis.set_xlabel("tables (4 bots each)")
        axis.set_ylabel(label)
        axis.set_title(title)
        axis.set_ylim(bottom=0, top=axis.get_ylim()[1] * 1.05)
        axis.grid(True, alpha=0.3)
    axes[0].legend(loc="best", fontsize=8)
    figure.suptitle(f"tablehost moves scaling on {meta.get('machine', '').split(',')[0]}, commit "
                    f"{meta.get('commit', '?')}, {meta.get('started_at', '')}", fontsize=9)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return Drawn(True)
