"""A load test's report, from what its agents returned: totals, commit
round-trip percentiles from their HDR histograms added up exactly (never
an average of percentiles), a per-second series of moves, finished games
and round trips, a per-node breakdown, and the host's own view of the
tables when it could be read. Plain data in, plain data out: nothing
here talks to Ray or the host."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hdrh.histogram import HdrHistogram

from tablehost.clients.bots import round_trip_histogram

# Counts summed over agents, as clients.loaddriver names them.
SUMMED = ("players", "players_finished", "games_played", "moves", "rejects", "desyncs", "gaps", "reconnects",
          "stream_rejections", "hashes_checked", "leaves", "errors")
PERCENTILES = {"p50": 50.0, "p90": 90.0, "p99": 99.0, "p99_9": 99.9}


def merged_histogram(encoded: Iterable[str]) -> HdrHistogram:
    """One histogram holding every value of the encoded ones (empty strings skipped)."""
    total = round_trip_histogram()
    for text in encoded:
        if text:
            total.add(HdrHistogram.decode(text.encode()))
    return total


def latency_ms(histogram: HdrHistogram) -> dict[str, float]:
    """Percentiles, mean and max of a round-trip histogram, in milliseconds
    (zeros when it is empty), and how many round trips it holds."""
    count = histogram.get_total_count()
    if not count:
        return {**dict.fromkeys(PERCENTILES, 0.0), "mean": 0.0, "max": 0.0, "count": 0}
    figures = {name: round(histogram.get_value_at_percentile(q) / 1000, 3) for name, q in PERCENTILES.items()}
    return {**figures, "mean": round(histogram.get_mean_value() / 1000, 3),
            "max": round(histogram.get_max_value() / 1000, 3), "count": count}


def finished_tables(agents: Sequence[Mapping[str, Any]]) -> dict[str, list[Any]]:
    """Every table the run's players finished, once, by id: [second, endpoint,
    game, node] of its first finish (a table's players may be in several
    agents, each of which saw it end)."""
    tables: dict[str, list[Any]] = {}
    for agent in agents:
        for table_id, second, endpoint, game in agent.get("tables", []):
            known = tables.get(table_id)
            if known is None or second < known[0]:
                tables[table_id] = [second, endpoint, game, agent.get("node_id", "")]
    return tables


def merged_series(agents: Sequence[Mapping[str, Any]], tables: Mapping[str, list[Any]]) -> list[dict[str, Any]]:
    """The run second by second over every agent: moves, games finished
    (each table at its first finish) and round-trip p50/p99 from the
    second's histograms added up; seconds with nothing are zeros."""
    moves: Counter[int] = Counter()
    histograms: defaultdict[int, list[str]] = defaultdict(list)
    for agent in agents:
        for entry in agent.get("series", []):
            moves[entry["second"]] += entry["moves"]
            histograms[entry["second"]].append(entry["histogram"])
    games = Counter(second for second, *_rest in tables.values())
    last = max([*moves, *games, -1])
    series = []
    for second in range(last + 1):
        figures = latency_ms(merged_histogram(histograms.get(second, ())))
        series.append({"second": second, "moves": moves[second], "games": games[second],
                       "p50_ms": figures["p50"], "p99_ms": figures["p99"], "round_trips": figures["count"]})
    return series


def node_breakdown(agents: Sequence[Mapping[str, Any]], tables: Mapping[str, list[Any]]) -> list[dict[str, Any]]:
    """Per node: its agents and their pids, what their players did, their
    round-trip percentiles (histograms added), the agents' CPU seconds."""
    by_node: defaultdict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for agent in agents:
        by_node[agent.get("node_id", "")].append(agent)
    games = Counter(node for *_rest, node in tables.values())
    nodes = []
    for node_id, members in sorted(by_node.items()):
        figures = latency_ms(merged_histogram(agent.get("histogram", "") for agent in members))
        nodes.append({
            "node_id": node_id,
            "agents": len(members),
            "pids": sorted(agent["pid"] for agent in members if "pid" in agent),
            **{name: sum(agent.get(name, 0) for agent in members) for name in SUMMED},
            "games_finished_first_here": games[node_id],
            "p50_ms": figures["p50"],
            "p99_ms": figures["p99"],
            "cpu_s": round(sum(agent.get("cpu_s", 0.0) for agent in members), 3),
        })
    return nodes


def tables_by_node(tables: Mapping[str, list[Any]], rooms: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """How many of the run's tables the rooms of each node served, matching
    each table's endpoint to the room serving there (the host's status)."""
    node_of = {room["endpoint"]: room["node_id"] for room in rooms}
    return dict(sorted(Counter(node_of.get(endpoint, "(unknown)") for _s, endpoint, *_r in tables.values()).items()))


def build_report(config: Mapping[str, Any], agents: Sequence[Mapping[str, Any]], elapsed_s: float,
                 host: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The whole report. `agents` are the agents' results (an agent that
    failed carries `failure` and counts each of its players as an error);
    `host` is what the host said of itself before and after the run
    (`tables_started_before`, `tables_started_after`, `rooms`), if it could
    be read."""
    tables = finished_tables(agents)
    totals: dict[str, Any] = {name: sum(agent.get(name, 0) for agent in agents) for name in SUMMED}
    figures = latency_ms(merged_histogram(agent.get("histogram", "") for agent in agents))
    cpu_s = sum(agent.get("cpu_s", 0.0) for agent in agents)
    totals.update({
        "games_expected": config["tables"] * config["games_per_table"],
        "games_completed": len(tables),
        "elapsed_s": round(elapsed_s, 3),
        "moves_per_s": round(totals["moves"] / elapsed_s, 1) if elapsed_s > 0 else 0.0,
        "p50_ms": figures["p50"],
        "p99_ms": figures["p99"],
        "agents": len(agents),
        "nodes": len({agent.get("node_id") for agent in agents}),
        "agent_cpu_s": round(cpu_s, 3),
        "agent_cpu_ms_per_move": round(1000 * cpu_s / totals["moves"], 4) if totals["moves"] else 0.0,
    })
    failures = [f"agent {agent.get('pid', '?')} on node {agent.get('node_id', '?')}: {agent['failure']}"
                for agent in agents if agent.get("failure")]
    report: dict[str, Any] = {
        "ok": totals["players_finished"] == totals["players"] and not totals["desyncs"] and not totals["errors"],
        "config": dict(config),
        "totals": totals,
        "latency_ms": figures,
        "series": merged_series(agents, tables),
        "nodes": node_breakdown(agents, tables),
        "tables": {
            "by_game": dict(sorted(Counter(game for _s, _e, game, _n in tables.values()).items())),
            "by_endpoint": dict(sorted(Counter(endpoint for _s, endpoint, _g, _n in tables.values()).items())),
        },
        "error_messages": failures + [message for agent in agents for message in agent.get("error_messages", [])],
    }
    if host is not None:
        report["host"] = dict(host)
        if "rooms" in host:
            report["tables"]["by_room_node"] = tables_by_node(tables, host["rooms"])
        if "tables_started_after" in host:
            report["host"]["tables_started"] = host["tables_started_after"] - host["tables_started_before"]
    return report


def summary(report: Mapping[str, Any]) -> dict[str, Any]:
    """The few figures a script reads from the last line the command prints."""
    totals = report["totals"]
    return {
        "ok": report["ok"],
        **{name: totals[name] for name in (
            "games_expected", "games_completed", "players", "players_finished", "moves", "moves_per_s", "p50_ms",
            "p99_ms", "rejects", "desyncs", "errors", "agents", "nodes", "elapsed_s", "agent_cpu_ms_per_move")},
        "report": report.get("report_path", ""),
        "plot": report.get("plot_path", ""),
    }
