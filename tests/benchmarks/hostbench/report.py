"""The host section of docs/benchmarks.md, written from one run's figures.

Every number printed here comes from the results of the run being reported (the JSON a
run saves); nothing is carried over from earlier runs. The section replaces the host
section(s) of the document, from its heading to the next top-level heading, and every
other section (the rules engine's) stays byte for byte as it is.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from hostbench.host import HOST_KINDS, KIND_LABELS
from hostbench.stats import ratio

SECTION = "## The host: rooms at tournament scale"
# Headings of host sections written by earlier versions of this benchmark: replaced too.
OLD_SECTIONS = ("## The host (Ray rooms, gRPC streams)",)
COMMAND = ".venv/bin/python tests/benchmarks/bench_host.py"

TARGET_PSS_MIB_PER_TABLE = 1.0
TARGET_IDLE_MS_PER_S_PER_TABLE = 0.1
TARGET_CONCURRENT_TABLES = 2000
TARGET_TABLES_PER_S = 200.0
TARGET_SEATS_PER_S = 5000.0
TARGET_SERVER_CPU_MS_PER_MOVE = 0.5
# Other processes' load below this many cores (the machine's own daemons) is not itemised.
NOTABLE_FOREIGN_CORES = 0.05


# -- small formatters --------------------------------------------------------------------


def n(value: float) -> str:
    """A count with thousands separators."""
    return f"{value:,.0f}"


def ms(value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:,.0f} ms" if value >= 100 else f"{value:.2f} ms" if value < 10 else f"{value:.1f} ms"


def mib(value: float) -> str:
    return f"{value:,.0f} MiB" if value >= 100 else f"{value:.1f} MiB" if value >= 1 else f"{value:.2f} MiB"


def x(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:.2f}"


def _about(seconds: float) -> str:
    minutes = max(1, round(seconds / 60))
    return f"about {minutes} minute" + ("" if minutes == 1 else "s")


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def tables_word(count: int) -> str:
    return f"{n(count)} table" + ("" if count == 1 else "s")


# -- the section ---------------------------------------------------------------------------


def section(results: dict[str, Any]) -> str:
    meta = results.get("meta", {})
    lines = [SECTION, "", "```",
             f"{COMMAND}      # {_about(meta.get('duration_s', 0))}; --quick, --only SCENARIO ..., --no-write, --help",
             "```", ""]
    lines += _run_line(results)
    lines += _method()
    lines += _targets(results)
    for part in (_held_open, _table_starts, _lobby_burst, _moves, _scaling, _placement, _findings):
        lines += part(results)
    return "\n".join(lines).rstrip() + "\n"


def _run_line(results: dict[str, Any]) -> list[str]:
    meta = results.get("meta", {})
    tree = f"commit {meta.get('commit', '?')}"
    if meta.get("dirty"):
        tree += f" with uncommitted changes in {meta['dirty']}"
    before = meta.get("busy_before", {})
    during = meta.get("foreign_during", {})
    busy = f"Before the run the machine was {before.get('machine_busy_share', 0):.0%} busy"
    if before.get("foreign_top") and before.get("machine_busy_share", 0) >= NOTABLE_FOREIGN_CORES:
        busy += " (" + "; ".join(f"`{name[:60]}`" for name, _cpu in before["foreign_top"]) + ")"
    busy += "."
    foreign = ""
    if during:
        foreign = (f" During the run, processes other than the benchmark's used {during.get('foreign_cpu_s', 0):.0f} "
                   f"CPU-s ({during.get('foreign_cores', 0):.2f} cores on average)")
        if during.get("foreign_top") and during.get("foreign_cores", 0) >= NOTABLE_FOREIGN_CORES:
            foreign += ", most of it " + "; ".join(f"`{name[:60]}` {cpu:.0f} s" for name, cpu in during["foreign_top"])
        foreign += "."
    quick = " (a --quick run: small sizes)" if meta.get("quick") else ""
    return [
        f"Run {meta.get('started_at', '?')}{quick} on {meta.get('machine', '?')}; {tree}. {busy}{foreign} "
        f"The whole run took {meta.get('duration_s', 0) / 60:.1f} min.",
        "",
    ]


def _method() -> list[str]:
    return [
        "Everything on 127.0.0.1. The host is one `tablehost serve` process and all its descendants (Ray's GCS,",
        "raylet and helpers, the lobby actor, the room actors), read from /proc: PSS from smaps_rollup (a",
        "shared page counts once across the tree), CPU from every thread's schedstat, threads and open",
        "file descriptors. The load always runs in client processes of its own (real SDK players,",
        "`tablehost bots`, the echo clients, Colyseus's Node clients) and is never counted in the host's",
        "figures. Each speed stands beside a floor or the peer measured in the same run: compare the ratios",
        "between runs and machines, not the absolute times. Every process the benchmark starts is ended",
        "by its PID; each scenario has its own host.",
        "",
    ]


# -- targets ---------------------------------------------------------------------------------


def _targets(results: dict[str, Any]) -> list[str]:
    rows: list[str] = []
    held = results.get("held_open", {})
    summary = held.get("summary") or {}
    if summary:
        pss = summary["host_pss_mib"]
        rows.append(f"| host PSS per table held open ≤ {TARGET_PSS_MIB_PER_TABLE:g} MiB | {mib(pss['slope'])} "
                    f"(slope over {_levels_text(held)} tables, R² {pss['r2']:.3f}) "
                    f"| {verdict(pss['slope'] <= TARGET_PSS_MIB_PER_TABLE)} |")
        idle = _idle_at_largest(held)
        if idle is not None:
            rows.append(f"| idle host CPU per table beyond the 0-table cost ≤ {TARGET_IDLE_MS_PER_S_PER_TABLE:g} ms/s "
                        f"| {idle['ms_per_s']:.4f} ms/s at {n(idle['tables'])} tables "
                        f"| {verdict(idle['ms_per_s'] <= TARGET_IDLE_MS_PER_S_PER_TABLE)} |")
        largest = held["levels"][-1]
        clean = summary["all_levels_clean"] and largest["tables"] >= TARGET_CONCURRENT_TABLES
        rows.append(f"| {n(TARGET_CONCURRENT_TABLES)} concurrent tables on this machine, no error "
                    f"| {n(largest['tables'])} tables, {n(largest['check']['open'])} streams open, "
                    f"{largest['join_errors'] + largest['check']['errors']} errors, "
                    f"{largest['check']['desyncs']} desyncs | {verdict(clean)} |")
    starts = results.get("table_starts", {}).get("burst")
    if starts:
        rows.append(f"| table starts ≥ {TARGET_TABLES_PER_S:g} tables/s | {starts['tables_per_s']:,.0f} tables/s "
                    f"({n(starts['full_tables'])} tables) | {verdict(starts['tables_per_s'] >= TARGET_TABLES_PER_S)} |")
    crowd = results.get("lobby_burst", {}).get("burst")
    if crowd:
        rows.append(f"| seat assignments ≥ {n(TARGET_SEATS_PER_S)}/s | {crowd['seats_per_s']:,.0f}/s "
                    f"({n(crowd['seated'])} players) | {verdict(crowd['seats_per_s'] >= TARGET_SEATS_PER_S)} |")
    moves = [row for row in results.get("moves", {}).get("levels", []) if "echo" in row]
    for row in moves:
        cpu = row["server_cpu_ms_per_move"]
        rows.append(f"| server CPU per move ≤ {TARGET_SERVER_CPU_MS_PER_MOVE:g} ms, {tables_word(row['tables'])} "
                    f"| {cpu:.3f} ms | {verdict(cpu <= TARGET_SERVER_CPU_MS_PER_MOVE)} |")
    if not rows:
        return []
    lines = ["### Targets", "", "| target | this run | |", "|---|---|---|", *rows, ""]
    first = summary.get("binds_first") if summary else None
    if first is not None:
        lines += [f"What binds first as tables are held open: {first['resource']}, at about {n(first['tables'])} "
                  "tables (see \"Tables held open\").", ""]
    return lines


def _levels_text(held: dict[str, Any]) -> str:
    levels = [row["tables"] for row in held["levels"] if row["tables"]]
    return ", ".join(n(level) for level in levels[:-1]) + f" and {n(levels[-1])}" if len(levels) > 1 else n(levels[0])


def _idle_at_largest(held: dict[str, Any]) -> dict[str, Any] | None:
    beyond = (held.get("summary") or {}).get("idle_beyond_fixed") or []
    return beyond[-1] if beyond else None


# -- held open ---------------------------------------------------------------------------------


def _held_open(results: dict[str, Any]) -> list[str]:
    held = results.get("held_open")
    if not held or not held.get("levels"):
        return _failed(results, "held_open", "Tables held open")
    plan, summary = held["plan"], held.get("summary") or {}
    connections = ("each player with TCP connections of its own (grpc's local subchannel pool, as players on "
                   "their own machines have): one to the front door, kept open as the SDK's example keeps it, and "
                   "one to its room" if plan["own_connections"] else
                   "grpc's default: the channels of one client process share one TCP connection per target")
    lines = [
        "### Tables held open",
        "",
        f"`tablehost serve {' '.join(held['flags'])}` ({held.get('tables_per_room', 500)} tables per room): every "
        "game stays in progress and nothing closes a table. Players are added level by level from "
        f"{plan['client_processes']} client processes, 4 per table, each a real SDK client (JoinQueue, then a "
        f"table stream: hello, first snapshot), {connections}. At each level, after {plan['settle_s']:g} s of "
        f"settling: the host's PSS, threads and open fds, then its CPU over {plan['idle_window_s']:g} s in "
        "which nobody moves. \"Beyond 0 tables\" is the idle CPU at that level minus the same host's idle CPU "
        "with no table, over the tables. Every process the benchmark starts, the host included, runs with its "
        f"open-files limit raised to the hard limit ({n(held.get('host_fd_limit', 0))})"
        + (". With grpc's default subchannel pool instead, the players of one client process would share one TCP "
           "connection per target, and the host would hold a handful of sockets for thousands of players."
           if plan["own_connections"] else "."),
        "",
        "| tables | rooms | host PSS | threads | fds | idle CPU | beyond 0 tables, per table | clients PSS | clients fds | seat + connect |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    base_idle = sum(held["levels"][0]["host_idle_ms_per_s"].values())
    for row in held["levels"]:
        idle = sum(row["host_idle_ms_per_s"].values())
        beyond = f"{(idle - base_idle) / row['tables']:.4f} ms/s" if row["tables"] else ""
        step = (f"{row['seat_and_connect_s']:.1f} s for {n(row['added_players'])} players"
                if row["tables"] else "")
        lines.append(
            f"| {n(row['tables'])} | {row['rooms']} | {mib(sum(row['host']['pss_mib'].values()))} "
            f"| {n(sum(row['host']['threads'].values()))} | {n(sum(row['host']['fds'].values()))} "
            f"| {idle:.1f} ms/s | {beyond} | {mib(sum(row['clients']['pss_mib'].values()))} "
            f"| {n(sum(row['clients']['fds'].values()))} | {step} |"
        )
    lines.append("")
    if not summary:
        return lines
    pss, fds, threads = summary["host_pss_mib"], summary["host_fds"], summary["host_threads"]
    by_pss, by_fds = summary["host_pss_mib_by_kind"], summary["host_fds_by_kind"]
    lines += [
        f"Per table, as least-squares slopes over {_levels_text(held)} tables:",
        "",
        "| per table | host | front door | lobby | rooms | rest of Ray | load generator |",
        "|---|---:|---:|---:|---:|---:|---:|",
        f"| PSS | **{mib(pss['slope'])}** (R² {pss['r2']:.3f}) | "
        + " | ".join(mib(by_pss[k]) for k in HOST_KINDS)
        + f" | {mib(summary['clients_pss_mib']['slope'])} |",
        f"| open fds | {fds['slope']:.2f} (R² {fds['r2']:.3f}) | "
        + " | ".join(f"{by_fds[k]:.2f}" for k in HOST_KINDS)
        + f" | {summary['clients_fds']['slope']:.2f} |",
        f"| threads | {threads['slope']:.3f} (R² {threads['r2']:.3f}) | "
        + " | ".join(f"{summary['host_threads_by_kind'][k]:.3f}" for k in HOST_KINDS)
        + f" | {summary['clients_threads']['slope']:.3f} |",
        "",
    ]
    rooms = [row["rooms"] for row in held["levels"]]
    if rooms[-1] > rooms[0]:
        lines += [f"The rooms' figures include the room processes the lobby started as the tables grew "
                  f"({rooms[0]} -> {rooms[-1]} rooms of {held.get('tables_per_room', 500)} tables).", ""]
    idle = _idle_at_largest(held)
    fit = summary["idle_fit"]
    if idle is not None:
        lines += [
            f"Idle, the host with no table used {summary['idle_base_ms_per_s']:.1f} ms of CPU per second (Ray's "
            f"own timers and polls in every process); at {n(idle['tables'])} tables, "
            f"{idle['ms_per_s']:.4f} ms/s more per table (the slope of idle CPU over the levels: "
            f"{fit['slope']:.4f} ms/s per table, R² {fit['r2']:.2f}; at the small levels the difference is "
            "within the noise of the fixed cost).",
            "",
        ]
    lines += _binds_first(held)
    return lines


def _binds_first(held: dict[str, Any]) -> list[str]:
    summary = held["summary"]
    limits = summary["limits"]
    first = summary.get("binds_first")
    lines = [
        "What runs out first as the tables grow, extrapolating the slopes above on this machine:",
        "",
        "| resource | per table | room on this machine | tables at the limit |",
        "|---|---:|---:|---:|",
    ]
    for entry in sorted(limits, key=lambda e: e["tables"]):
        unit = "MiB" if entry["resource"].startswith("memory") else "ms/s" if "CPU" in entry["resource"] else ""
        digits = 4 if unit == "ms/s" else 2
        per = (f"{entry['per_table']:.{digits}f} {unit}".strip() if entry["per_table"] else "–")
        at = "never (bounded per process)" if math.isinf(entry["tables"]) else f"≈ {n(entry['tables'])}"
        room = f"{n(entry['room_for'])} {unit}".strip()
        lines.append(f"| {entry['resource']} | {per} | {room} ({entry['note']}) | {at} |")
    lines.append("")
    if first is not None:
        largest = held["levels"][-1]["tables"]
        why = ""
        if "front door" in first["resource"] and held["plan"]["own_connections"]:
            why = (" Each seated player keeps its connection to the front door open, as the SDK's example does: "
                   f"{first['per_table']:.2f} fds per table in one process, whatever the number of rooms. A client "
                   "that closed its LobbyClient once seated would leave the front door only the connections of "
                   "players still waiting, and the next limit would bind instead.")
        lines += [
            f"**Binds first: {first['resource']}, at about {n(first['tables'])} tables** "
            f"({n(largest)} were held in this run"
            + ("" if summary["all_levels_clean"] else ", not all of them cleanly: see below")
            + ")." + why,
            "",
        ]
    if held.get("stopped_at"):
        last = held["levels"][-1]
        lines += [f"The run stopped adding tables at {n(held['stopped_at'])}: {n(last['check']['open'])} of "
                  f"{n(last['tables'] * 4)} streams open, errors: {last['join_error_messages'][:2]}.", ""]
    return lines


# -- bursts ----------------------------------------------------------------------------------------


def _cpu_line(used: dict[str, float]) -> str:
    return ", ".join(f"{KIND_LABELS[k]} {used.get(k, 0.0):.2f} s" for k in HOST_KINDS)


def _burst_binding(results: dict[str, Any], result: dict[str, Any]) -> list[str]:
    """Say what the burst was bound by when the machine's cores were all busy."""
    host = result["host_cpu_s"]
    busy = ratio(sum(host.values()) + result.get("clients_cpu_s", 0.0), result["burst"]["span_s"])
    cores = _cores(results)
    if not cores or busy < 0.85 * cores:
        return []
    first, second = sorted(HOST_KINDS, key=lambda k: -host.get(k, 0.0))[:2]
    return [f"Host and client processes kept {busy:.2f} of the machine's {cores} cores busy through the burst: it is "
            f"bound by CPU, the most of it spent by the {KIND_LABELS[first]} ({host[first]:.2f} s) and the "
            f"{KIND_LABELS[second]} ({host[second]:.2f} s).", ""]


def _cpu_rows(result: dict[str, Any]) -> list[str]:
    """The host's CPU by kind over a burst, and how many cores host and clients kept busy."""
    host = sum(result["host_cpu_s"].values())
    clients = result.get("clients_cpu_s", 0.0)
    span = result["burst"]["span_s"]
    return [
        f"| host CPU over the burst | {host:.2f} s: {_cpu_line(result['host_cpu_s'])} |",
        f"| client processes' CPU over the burst | {clients:.2f} s |",
        f"| cores busy (host + clients) over the burst | {ratio(host + clients, span):.2f} |",
    ]


def _table_starts(results: dict[str, Any]) -> list[str]:
    starts = results.get("table_starts")
    if not starts or "burst" not in starts:
        return _failed(results, "table_starts", "Table starts")
    burst, plan = starts["burst"], starts["plan"]
    return [
        f"### Table starts: a burst of {n(plan['tables'])} tables",
        "",
        f"`tablehost serve {' '.join(starts['flags'])}`: the host starts, with itself, rooms enough for the burst and "
        f"its free-slot reserve after it ({starts['status_before']['rooms']} rooms, running before the burst), so the "
        f"burst neither waits for a room nor shares the machine with new ones. {n(4 * plan['tables'])} players "
        f"in {plan['client_processes']} client processes, each with its own connected LobbyClient, send JoinQueue at "
        "once; times are CLOCK_MONOTONIC, which every process of the machine shares.",
        "",
        "| what | figure |",
        "|---|---:|",
        f"| tables seated (4 players each) | {n(burst['full_tables'])} ({n(burst['seated'])} of {n(burst['players'])} players) |",
        f"| first JoinQueue sent -> last TableAssignment received | {burst['span_s']:.3f} s |",
        f"| **tables seated per second** | **{burst['tables_per_s']:,.0f}** |",
        f"| the last player's wait (JoinQueue -> its assignment) | {ms(burst['last_wait_ms'])} |",
        f"| every player's wait: p50 / p99 | {ms(burst['wait_p50_ms'])} / {ms(burst['wait_p99_ms'])} |",
        f"| the clients took this long to send every JoinQueue | {burst['send_spread_s'] * 1000:,.0f} ms |",
        *_cpu_rows(starts),
        f"| errors | {burst['errors']} |",
        "",
        *_burst_binding(results, starts),
    ]


def _lobby_burst(results: dict[str, Any]) -> list[str]:
    crowd = results.get("lobby_burst")
    if not crowd or "burst" not in crowd:
        return _failed(results, "lobby_burst", "The lobby under a crowd")
    burst, plan, peaks = crowd["burst"], crowd["plan"], crowd["peaks"]
    before, after = crowd["memory_before"], crowd["memory_after"]
    return [
        f"### The lobby under a crowd: {n(plan['players'])} players joining at once",
        "",
        f"Same set-up as the table starts (`tablehost serve {' '.join(crowd['flags'])}`, {crowd['rooms']} rooms "
        f"running), {n(plan['players'])} players from {plan['client_processes']} client processes. While they wait, "
        "the benchmark polls the front door's Admin.Status every 50 ms (players waiting at the front door, "
        "`waiting_here`; in the lobby's queues, `waiting`; tables waiting for a room) and reads the lobby's and the "
        "front door's PSS every 250 ms.",
        "",
        "| what | figure |",
        "|---|---:|",
        f"| players seated | {n(burst['seated'])} of {n(burst['players'])}, at {n(burst['full_tables'])} full tables |",
        f"| first JoinQueue sent -> last TableAssignment received | {burst['span_s']:.3f} s |",
        f"| **seat assignments per second** | **{burst['seats_per_s']:,.0f}** |",
        f"| the last player's wait / p50 / p99 | {ms(burst['last_wait_ms'])} / {ms(burst['wait_p50_ms'])} / "
        f"{ms(burst['wait_p99_ms'])} |",
        f"| peak waiting at the front door | {n(peaks['waiting_at_front_door'])} |",
        f"| peak waiting in the lobby's queues | {n(peaks['waiting_in_lobby_queues'])} |",
        f"| peak tables waiting for a room | {n(peaks['tables_awaiting_room'])} |",
        f"| lobby actor PSS: before / peak / after | {mib(before['lobby_pss_mib'])} / {mib(peaks['lobby_pss_mib'])} / "
        f"{mib(after['lobby_pss_mib'])} |",
        f"| front door PSS: before / peak / after | {mib(before['front_door_pss_mib'])} / "
        f"{mib(peaks['front_door_pss_mib'])} / {mib(after['front_door_pss_mib'])} |",
        f"| Admin.Status polls answered (failed) | {n(crowd['status_polls'])} ({crowd['status_poll_errors']}) |",
        *_cpu_rows(crowd),
        f"| errors | {burst['errors']} |",
        "",
        *_burst_binding(results, crowd),
    ]


# -- moves -----------------------------------------------------------------------------------------


def _cores(results: dict[str, Any]) -> int:
    machine = results.get("meta", {}).get("machine", "")
    first = machine.split(" ", 1)[0]
    return int(first) if first.isdigit() else 0


def _peer_at(results: dict[str, Any], tables: int) -> dict[str, Any] | None:
    for level in results.get("peer", {}).get("levels", []):
        if level.get("tables") == tables:
            return level
    return None


def _moves(results: dict[str, Any]) -> list[str]:
    moves = results.get("moves")
    if not moves or not moves.get("levels"):
        return _failed(results, "moves", "Moves")
    floors = [row for row in moves["levels"] if "echo" in row]
    peer = results.get("peer", {})
    plan = moves["plan"]
    lines = [
        "### Moves beside the grpc.aio echo floors and Colyseus",
        "",
        f"`tablehost serve {' '.join(moves['flags'])}` ({moves.get('rooms', '?')} rooms, started with the host) and "
        "random bots, 4 per table, one whole game per table, after a 1-table warm-up game through `tablehost bots "
        "--json`. Each level runs what that command runs (clients.loadrun.run_tables) in bots processes that import "
        f"first and start together; above {plan['split_above']} tables in two of them. A move's round trip is commit "
        "written -> the delta carrying its act_id read and applied; moves/s counts the bots' whole run (queueing and "
        "table start included). Server CPU per move: every process of the host from /proc over the run, over the "
        "moves.",
        "",
        "Floors, with the same streams in as many client processes: a grpc.aio bidirectional echo in groups of 4 "
        "streams; one stream of a group sends at a time (40 B, a commit), the server sends 200 B (a delta) to all "
        "4, the round trip is send -> the sender's own reply, as many rounds per group as the bots made moves per "
        "table. \"Echo + acks\" adds what the SDK also does: every stream acks every reply (72 B) before it reads "
        "on. The peer: Colyseus 0.18 (`shared/peers/colyseus/run.sh TABLES "
        f"{peer.get('moves_per_table', 75)}`), Node server and Node clients, same table workload (4 seats, only "
        "the seat to act moves, every accepted move patches all 4) but no rules, per-seat views or hashes; its "
        "server CPU is its Node process's from /proc while its clients ran.",
        "",
        "| run | moves / round trips | p50 | p99 | per second | server CPU per move | host ÷ this: p50 | p99 | per second | server CPU |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in floors:
        bots = row["bots"]
        split = f" ({bots['processes']} bots processes; p50/p99 the higher of the two)" if bots["processes"] > 1 else ""
        host_cpu = row["server_cpu_ms_per_move"]
        lines.append(f"| **{tables_word(row['tables'])}: host**{split} | {n(bots['moves'])} | {ms(bots['p50_ms'])} "
                     f"| {ms(bots['p99_ms'])} | {bots['moves_per_s']:,.0f} moves/s | {host_cpu:.3f} ms | | | | |")
        for key, name in (("echo", "echo floor"), ("echo_acks", "echo + acks")):
            floor = row[key]
            floor_cpu = floor["server_cpu_s"] * 1000 / max(1, floor["round_trips"])
            lines.append(
                f"| {tables_word(row['tables'])}: {name} | {n(floor['round_trips'])} | {ms(floor['p50_ms'])} "
                f"| {ms(floor['p99_ms'])} | {floor['round_trips_per_s']:,.0f} /s | {floor_cpu:.3f} ms "
                f"| {x(ratio(bots['p50_ms'], floor['p50_ms']))} | {x(ratio(bots['p99_ms'], floor['p99_ms']))} "
                f"| {x(ratio(bots['moves_per_s'], floor['round_trips_per_s']))} | {x(ratio(host_cpu, floor_cpu))} |"
            )
        theirs = _peer_at(results, row["tables"])
        if theirs is not None:
            peer_cpu = theirs.get("server_cpu_ms_per_move", float("nan"))
            lines.append(
                f"| {tables_word(row['tables'])}: Colyseus 0.18 | {n(theirs['moves'])} | {ms(theirs['p50_ms'])} "
                f"| {ms(theirs['p99_ms'])} | {theirs['moves_per_s']:,.0f} moves/s | {peer_cpu:.3f} ms "
                f"| {x(ratio(bots['p50_ms'], theirs['p50_ms']))} | {x(ratio(bots['p99_ms'], theirs['p99_ms']))} "
                f"| {x(ratio(bots['moves_per_s'], theirs['moves_per_s']))} | {x(ratio(host_cpu, peer_cpu))} |"
            )
        ts = row.get("ts_clients")
        if ts is not None:
            played = ts["bots"]
            peer_cells = "| | | | |"
            if theirs is not None:
                peer_cpu = theirs.get("server_cpu_ms_per_move", float("nan"))
                peer_cells = (f"| {x(ratio(played['p50_ms'], theirs['p50_ms']))} "
                              f"| {x(ratio(played['p99_ms'], theirs['p99_ms']))} "
                              f"| {x(ratio(played['moves_per_s'], theirs['moves_per_s']))} "
                              f"| {x(ratio(ts['server_cpu_ms_per_move'], peer_cpu))} (÷ Colyseus) |")
            lines.append(
                f"| {tables_word(row['tables'])}: host, TypeScript SDK clients | {n(played['moves'])} "
                f"| {ms(played['p50_ms'])} | {ms(played['p99_ms'])} | {played['moves_per_s']:,.0f} moves/s "
                f"| {ts['server_cpu_ms_per_move']:.3f} ms {peer_cells}"
            )
    lines.append("")
    extra_peer = [level for level in peer.get("levels", []) if level.get("tables") not in {r["tables"] for r in floors}]
    for level in extra_peer:
        lines.append(f"Colyseus at {tables_word(level['tables'])}: {n(level['moves'])} moves, "
                     f"{level['moves_per_s']:,.0f} moves/s, p50 {ms(level['p50_ms'])}, p99 {ms(level['p99_ms'])}, "
                     f"server CPU {level.get('server_cpu_ms_per_move', float('nan')):.3f} ms per move.")
    if extra_peer:
        lines.append("")
    lines += [
        "Where the CPU went, in CPU ms per move (per round trip for the floors): the host's processes by kind, "
        "the clients' as each client process measured itself while playing, the echo server's and the peer's "
        "Node server's from /proc. \"Cores busy\" is all of it over the run's wall time.",
        "",
        "| run | clients | rooms | front door | lobby | rest of Ray | host | cores busy |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in floors:
        cpu, count, elapsed = row["cpu_s"], max(1, row["bots"]["moves"]), row["bots"]["elapsed_s"]
        host = sum(cpu[k] for k in HOST_KINDS)
        per = {k: cpu[k] * 1000 / count for k in cpu}
        lines.append(f"| {tables_word(row['tables'])}: host | {per['clients']:.2f} | {per['rooms']:.2f} "
                     f"| {per['front_door']:.2f} | {per['lobby']:.2f} | {per['ray']:.2f} | {host * 1000 / count:.2f} "
                     f"| {ratio(host + cpu['clients'], elapsed):.2f} |")
        for key, name in (("echo", "echo floor"), ("echo_acks", "echo + acks")):
            floor = row[key]
            trips = max(1, floor["round_trips"])
            lines.append(f"| {tables_word(row['tables'])}: {name} | {floor['client_cpu_s'] * 1000 / trips:.2f} "
                         f"| | | | | {floor['server_cpu_s'] * 1000 / trips:.2f} (its server) "
                         f"| {ratio(floor['client_cpu_s'] + floor['server_cpu_s'], floor['elapsed_s']):.2f} |")
        ts = row.get("ts_clients")
        if ts is not None:
            ts_cpu, ts_count = ts["cpu_s"], max(1, ts["bots"]["moves"])
            ts_per = {k: ts_cpu[k] * 1000 / ts_count for k in ts_cpu}
            lines.append(f"| {tables_word(row['tables'])}: host, TypeScript SDK clients | {ts_per['clients']:.2f} "
                         f"| {ts_per['rooms']:.2f} | {ts_per['front_door']:.2f} | {ts_per['lobby']:.2f} "
                         f"| {ts_per['ray']:.2f} | {sum(ts_cpu[k] for k in HOST_KINDS) * 1000 / ts_count:.2f} "
                         f"| {ratio(sum(ts_cpu.values()), ts['bots']['elapsed_s']):.2f} |")
        theirs = _peer_at(results, row["tables"])
        if theirs is not None and "server_cpu_s" in theirs:
            count = max(1, theirs["moves"])
            lines.append(f"| {tables_word(row['tables'])}: Colyseus 0.18 | {theirs['clients_cpu_s'] * 1000 / count:.2f} "
                         "(Node's start included) | | | | | "
                         f"{theirs['server_cpu_s'] * 1000 / count:.2f} (its Node server) "
                         f"| {ratio(theirs['server_cpu_s'] + theirs['clients_cpu_s'], theirs['seconds']):.2f} |")
    lines.append("")
    if floors:
        largest = floors[-1]
        cpu = largest["cpu_s"]
        busy = ratio(sum(cpu.values()), largest["bots"]["elapsed_s"])
        cores = _cores(results)
        lines += [f"At {tables_word(largest['tables'])} the host and its bots kept {busy:.2f} of the machine's {cores} "
                  "cores busy" + (": the move rate is bounded by the CPU they share." if busy >= 0.85 * cores else "."),
                  ""]
    compared = [(row, _peer_at(results, row["tables"])) for row in floors]
    compared = [(row, theirs) for row, theirs in compared if theirs is not None and "server_cpu_ms_per_move" in theirs]
    if compared:
        parts = [
            f"at {tables_word(row['tables'])} the host made {ratio(row['bots']['moves_per_s'], theirs['moves_per_s']):.2f} "
            f"of the peer's moves/s ({row['bots']['moves_per_s']:,.0f} against {theirs['moves_per_s']:,.0f}) at "
            f"{ratio(row['server_cpu_ms_per_move'], theirs['server_cpu_ms_per_move']):.1f} times its server CPU per move"
            for row, theirs in compared
        ]
        lines += ["Against the peer, which runs no rules, builds no per-seat views and hashes nothing: "
                  + "; ".join(parts) + ". Our bots are Python and its clients Node, on the same 2 cores; each side's "
                  "clients' CPU per move is in the table above.", ""]
    same = [(row["tables"], row["ts_clients"], theirs) for row, theirs in compared if "ts_clients" in row]
    if same:
        lines += ["With Node clients on both sides (the TypeScript SDK against the host, Colyseus's own against "
                  "Colyseus): " + "; ".join(
                      f"at {tables_word(tables)} the host made {ratio(ts['bots']['moves_per_s'], theirs['moves_per_s']):.2f} "
                      f"of the peer's moves/s ({ts['bots']['moves_per_s']:,.0f} against {theirs['moves_per_s']:,.0f}), "
                      f"its clients spending {ts['cpu_s']['clients'] * 1000 / max(1, ts['bots']['moves']):.2f} ms of CPU "
                      f"per move against the peer's clients' {theirs['clients_cpu_s'] * 1000 / max(1, theirs['moves']):.2f} ms"
                      for tables, ts, theirs in same) + ".", ""]
    for row in moves["levels"]:
        bots = row["bots"]
        if bots["errors"] or bots["desyncs"] or bots["rejects"] or row["tables_started"] != row["tables"]:
            lines.append(f"- {tables_word(row['tables'])}: {row['tables_started']} tables started, rejects "
                         f"{bots['rejects']}, desyncs {bots['desyncs']}, errors {bots['errors']}: "
                         f"{bots['error_messages'][:2]}")
        ts = row.get("ts_clients", {}).get("bots")
        if ts and (ts["errors"] or ts["desyncs"] or ts["rejects"]):
            lines.append(f"- {tables_word(row['tables'])}, TypeScript SDK clients: rejects {ts['rejects']}, desyncs "
                         f"{ts['desyncs']}, errors {ts['errors']}: {ts['error_messages'][:2]}")
    return lines


def _floor_levels(moves: dict[str, Any]) -> str:
    levels = [f"{row['tables']}-table" for row in moves["levels"] if "echo" in row]
    return ", ".join(levels[:-1]) + f" and {levels[-1]}" if len(levels) > 1 else "".join(levels)


def _scaling(results: dict[str, Any]) -> list[str]:
    moves = results.get("moves")
    if not moves or not moves.get("levels"):
        return []
    lines = [
        "### The scaling curve",
        "",
        f"The same host and bots, one run per row (the {_floor_levels(moves)} rows are the runs above). Host PSS "
        "is the tree's, read during the run (after 0.3 s, then every second), the highest reading.",
        "",
        "| tables | bots processes | moves | moves/s | p50 | p99 | server CPU per move | host PSS (peak) | rooms | games clean |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in moves["levels"]:
        bots = row["bots"]
        clean = "yes" if not (bots["errors"] or bots["desyncs"]) and row["tables_started"] == row["tables"] else "**no**"
        lines.append(f"| {n(row['tables'])} | {bots['processes']} | {n(bots['moves'])} | {bots['moves_per_s']:,.0f} "
                     f"| {ms(bots['p50_ms'])} | {ms(bots['p99_ms'])} | {row['server_cpu_ms_per_move']:.3f} ms "
                     f"| {mib(row['host_pss_peak_mib'])} | {row['rooms']} | {clean} |")
    lines += ["", "![moves/s, p99 round trip and host PSS against tables](scaling.png)", ""]
    return lines


def _placement(results: dict[str, Any]) -> list[str]:
    placement = results.get("placement")
    if not placement or not placement.get("settings"):
        return _failed(results, "placement", "Rooms per CPU")
    plan = placement["plan"]
    lines = [
        "### Rooms per CPU",
        "",
        f"{n(plan['tables'])} tables of bots (in {2 if plan['tables'] > plan['split_above'] else 1} bots processes) "
        f"against a host started with `--rooms-per-cpu` set as below, every room running before the bots start; "
        f"one run per row, on this {_cores(results)}-core machine that the bots share.",
        "",
        "| rooms per CPU | rooms | moves/s | p50 | p99 | server CPU per move | errors |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in placement["settings"]:
        bots = row["bots"]
        lines.append(f"| {row['rooms_per_cpu']:g} | {row['rooms']} | {bots['moves_per_s']:,.0f} | {ms(bots['p50_ms'])} "
                     f"| {ms(bots['p99_ms'])} | {row['server_cpu_ms_per_move']:.3f} ms | {bots['errors']} |")
    lines.append("")
    return lines


# -- what else the run noticed -----------------------------------------------------------------------


def _failed(results: dict[str, Any], name: str, title: str) -> list[str]:
    failure = results.get("failures", {}).get(name)
    if failure is None:
        return []
    return [f"### {title}", "", f"Did not complete in this run: {failure}", ""]


def _findings(results: dict[str, Any]) -> list[str]:
    notes: list[str] = []
    for name in ("held_open", "table_starts", "lobby_burst", "moves"):
        end = (results.get(name) or {}).get("host_end") or {}
        if end.get("leftovers"):
            notes.append(f"{name}: `tablehost serve` left {end['leftovers']} process(es) after SIGINT; ended by PID.")
        logs = {k: v for k, v in (end.get("logs") or {}).items() if v}
        if logs:
            notes.append(f"{name}: the host's logs counted {logs}.")
    for name in ("held_open", "moves"):
        if (results.get(name) or {}).get("error"):
            notes.append(f"{name} stopped early: {results[name]['error']}")
    for name, failure in results.get("failures", {}).items():
        notes.append(f"{name} failed: {failure}")
    for level in results.get("moves", {}).get("levels", []):
        for key in ("echo", "echo_acks"):
            floor = level.get(key)
            if floor and floor["errors"]:
                notes.append(f"{key} at {level['tables']} tables: {floor['errors']} errors: {floor['error_messages'][:2]}")
    if not notes:
        return []
    return ["### Noted during the run", "", *[f"- {note}" for note in notes], ""]


def write_section(doc: Path, text: str, headings: set[str] | None = None) -> None:
    """Replace the section(s) of the document under `headings` (the host's by default)
    with `text` (append it when there is none); every other section stays as it is."""
    content = doc.read_text() if doc.exists() else "# Benchmarks\n"
    lines = content.splitlines(keepends=True)
    headings = headings or {SECTION, *OLD_SECTIONS}
    kept: list[str] = []
    inserted = False
    index = 0
    while index < len(lines):
        if lines[index].rstrip("\n") in headings:
            end = next((i for i in range(index + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
            if not inserted:
                kept.append(text + ("\n" if end < len(lines) else ""))
                inserted = True
            index = end
            continue
        kept.append(lines[index])
        index += 1
    if not inserted:
        body = "".join(kept)
        kept = [body if body.endswith("\n") else body + "\n", "\n", text]
    doc.write_text("".join(kept))

