"""The move path's three goals, as the measures a run of bench_host.py records:

1. server CPU per move beside the grpc.aio echo + acks floor measured in the same run
   (the same nine messages a move: a commit, four deltas, four acks), at most 1.5×;
2. moves/s beside Colyseus on the same workload, at least 0.8×;
3. seat assignments per second with the crowd joining at once, at least 5,000/s.

Two bounds, without targets, say whether a goal is within reach on this machine at all:
beside goal 2, the echo + acks floor's own round trips a second ÷ Colyseus's moves/s (the
most a host on grpc.aio could make with these clients); beside goal 3, the cores 5,000
seats a second would keep busy at the run's CPU per seat, host and clients together.

Each is computed from the scenarios' results only where the run measured both sides.
"""

from __future__ import annotations

from typing import Any

from history import Measure

CPU_X_FLOOR = 1.5
MOVES_X_PEER = 0.8
SEATS_PER_S = 5000.0
CLIENTS = "Python bots against the host, Node clients against Colyseus"
SAME_CLIENTS = "TypeScript SDK clients in Node against the host, Node clients against Colyseus"


def measures(results: dict[str, Any]) -> dict[str, Measure]:
    found: dict[str, Measure] = {}
    levels = results.get("moves", {}).get("levels", [])
    for row in levels:
        floor = row.get("echo_acks")
        if not floor or not floor.get("round_trips"):
            continue
        floor_ms = floor["server_cpu_s"] * 1000 / floor["round_trips"]
        found[f"server CPU per move ÷ echo + acks floor, {row['tables']} tables"] = Measure(
            row["server_cpu_ms_per_move"] / floor_ms, "lower", target=CPU_X_FLOOR,
            note=f"{row['server_cpu_ms_per_move']:.3f} ms against {floor_ms:.3f} ms")
    peers = {level["tables"]: level for level in results.get("peer", {}).get("levels", []) if level.get("moves_per_s")}
    for row in levels:
        theirs = peers.get(row["tables"])
        if theirs is None or not row["bots"].get("moves_per_s"):
            continue
        found[f"moves/s ÷ Colyseus, {row['tables']} tables"] = Measure(
            row["bots"]["moves_per_s"] / theirs["moves_per_s"], "higher", target=MOVES_X_PEER,
            note=f"{row['bots']['moves_per_s']:,.0f} against {theirs['moves_per_s']:,.0f}; {CLIENTS}")
        floor = row.get("echo_acks")
        if floor and floor.get("round_trips_per_s"):
            found[f"echo + acks floor's round trips/s ÷ Colyseus's moves/s, {row['tables']} tables"] = Measure(
                floor["round_trips_per_s"] / theirs["moves_per_s"], "higher",
                note=f"{floor['round_trips_per_s']:,.0f} against {theirs['moves_per_s']:,.0f}; Python clients "
                     "against the floor: what a host costing nothing beyond grpc.aio's nine messages a move "
                     "could reach")
        ts = row.get("ts_clients")
        if ts and ts["bots"].get("moves_per_s"):
            found[f"moves/s ÷ Colyseus, {row['tables']} tables, Node clients on both sides"] = Measure(
                ts["bots"]["moves_per_s"] / theirs["moves_per_s"], "higher", target=MOVES_X_PEER,
                note=f"{ts['bots']['moves_per_s']:,.0f} against {theirs['moves_per_s']:,.0f}; {SAME_CLIENTS}")
    crowd = results.get("lobby_burst", {}).get("burst")
    if crowd and crowd.get("seats_per_s"):
        found[f"seat assignments per second, {crowd['seated']:,} joining at once"] = Measure(
            crowd["seats_per_s"], "higher", unit="/s", target=SEATS_PER_S)
        burst = results["lobby_burst"]
        host_s = sum(burst.get("host_cpu_s", {}).values())
        clients_s = burst.get("clients_cpu_s", 0.0)
        if host_s and clients_s:
            found[f"cores {SEATS_PER_S:,.0f} seats/s would keep busy at this run's CPU per seat"] = Measure(
                (host_s + clients_s) / crowd["seated"] * SEATS_PER_S, "lower", unit="cores",
                note=f"host {host_s * 1000 / crowd['seated']:.2f} ms and clients {clients_s * 1000 / crowd['seated']:.2f} "
                     "ms of CPU per seat")
    return found


def text(found: dict[str, Measure]) -> str:
    """The goals as printed at the end of a run."""
    if not found:
        return "Goals: this run measured none of them (they need moves, peer or lobby_burst)."
    lines = ["Goals of the move path, this run:"]
    for name, measure in found.items():
        value = f"{measure.value:,.0f}" if measure.value >= 100 else f"{measure.value:.2f}"
        note = f"; {measure.note}" if measure.note else ""
        if measure.target is None:
            lines.append(f"  {name}: {value} {measure.unit} ({note.removeprefix('; ')})")
            continue
        bound = "≤" if measure.better == "lower" else "≥"
        verdict = "met" if measure.meets_target() else "NOT met"
        lines.append(f"  {name}: {value} {measure.unit} (target {bound} {measure.target:g}{note}) {verdict}")
    return "\n".join(lines)
