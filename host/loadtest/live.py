"""The live display of a load test on the terminal (stderr, so stdout keeps
the summary for scripts): players, games done, moves/s, round-trip
p50/p99 so far (the agents' histograms added up), rejects, desyncs and
errors, in total and per node, redrawn from the agents' progress."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from tablehost.host.loadtest.report import latency_ms, merged_histogram


class LiveView:
    """A rich Live display, updated with each poll of the agents'
    progress. `nodes` are the agents' node ids, in agent order."""

    def __init__(self, console: Console, nodes: Sequence[str], games_expected: int, duration_s: float) -> None:
        self._nodes = list(nodes)
        self._games_expected = games_expected
        self._duration_s = duration_s
        self._live = Live(console=console, refresh_per_second=4, transient=False)
        self._started = time.monotonic()
        self._last: tuple[float, dict[str, int]] = (self._started, {})

    def __enter__(self) -> LiveView:
        self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._live.__exit__(None, None, None)

    def update(self, progress: Sequence[Mapping[str, Any] | None], games_done: int) -> None:
        """Redraw from each agent's latest progress (None: not heard from
        yet) and the distinct tables the run's players finished."""
        now = time.monotonic()
        by_node: dict[str, list[Mapping[str, Any]]] = {node: [] for node in self._nodes}
        for node, report in zip(self._nodes, progress):
            if report is not None:
                by_node[node].append(report)
        previous_at, previous_moves = self._last
        # The last frame is drawn from the agents' results: one that failed has no moves.
        moves = {node: sum(r.get("moves", 0) for r in reports) for node, reports in by_node.items()}
        interval = max(now - previous_at, 1e-6)
        rates = {node: (moves[node] - previous_moves.get(node, 0)) / interval for node in moves}
        self._last = (now, moves)

        table = Table("node", "agents", "playing", "done", "moves/s", "p50 ms", "p99 ms", "rejects", "desyncs",
                      "errors", "CPU s", title="per node (players playing, players done)")
        everyone = [r for reports in by_node.values() for r in reports]
        for node, reports in by_node.items():
            table.add_row(node[:8], str(self._nodes.count(node)), *self._cells(reports, rates[node]))
        table.add_row("all", str(len(self._nodes)), *self._cells(everyone, sum(rates.values())), style="bold")

        def total(name: str) -> int:
            return sum(int(report.get(name, 0)) for report in everyone)

        headline = Text(
            f"{now - self._started:.0f} s of at most {self._duration_s:g} s: games done {games_done:,} of "
            f"{self._games_expected:,}; players {total('arrived'):,} arrived of {total('players'):,}, "
            f"{total('waiting'):,} waiting, {total('playing'):,} playing, {total('players_finished'):,} done; "
            f"{total('moves'):,} moves")
        self._live.update(Group(headline, table))

    @staticmethod
    def _cells(reports: Sequence[Mapping[str, Any]], rate: float) -> list[str]:
        def total(name: str) -> str:
            return f"{sum(int(report.get(name, 0)) for report in reports):,}"

        figures = latency_ms(merged_histogram(report.get("histogram", "") for report in reports))
        return [
            total("playing"), total("players_finished"), f"{rate:,.0f}", f"{figures['p50']:.1f}",
            f"{figures['p99']:.1f}", total("rejects"), total("desyncs"), total("errors"),
            f"{sum(float(report.get('cpu_s', 0.0)) for report in reports):.1f}",
        ]
