"""`tablehost loadtest`: a load generator that spans a Ray cluster.

Ray: `--address` joins that cluster; without it a local Ray is started on
127.0.0.1. Host: `--target` loads that host; without it one is started
here, on the same Ray (as `tablehost tournament simulate` does), so
`tablehost loadtest --tables 20` needs nothing running. Then load agents
(host/loadtest/agent.py) are placed on every alive node, each given its
share of the players and a common second 0; the command watches their
progress (live display), bounds the run by `--duration`, and writes
report.json and loadtest.png in `--out`, printing the summary as the last
line. Exit code 1 if any desync or error happened or a player did not
finish its games."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from contextlib import nullcontext
from typing import Any

import ray
from rich.console import Console

from tablehost.clients.loaddriver import DriverPlan
from tablehost.clients.loadprofile import PlayerPlan, plan_players
from tablehost.host.config import HostConfig
from tablehost.host.loadtest.agent import alive_nodes, start_agents
from tablehost.host.loadtest.live import LiveView
from tablehost.host.loadtest.plot import plot_report
from tablehost.host.loadtest.report import build_report, finished_tables, summary
from tablehost.host.loadtest.settings import LoadTestSettings
from tablehost.host.server import FrontDoor, start_ray

PROGRESS_INTERVAL_S = 0.5
AGENT_START_TIMEOUT_S = 120.0
# The plan reaches every agent before second 0, so they all start together.
START_MARGIN_S = 1.0
# After the duration, agents cancel their players and answer: this long at most.
RESULT_GRACE_S = 60.0
REPORT_FILE = "report.json"
PLOT_FILE = "loadtest.png"


async def run_loadtest(settings: LoadTestSettings) -> int:
    """The whole command: Ray and the host as the settings say, the run, its
    report and plot in `settings.out`, the summary on stdout; the exit code."""
    console = Console(stderr=True, highlight=False)
    host: FrontDoor | None = None
    try:
        if settings.host_config is None:
            start_ray(HostConfig(ray_address=settings.ray_address))
            target = settings.target
        else:
            host = FrontDoor(settings.host_config)
            await host.start()
            target = host.target
            console.print(f"started a host at {target}")
        report = await drive_agents(settings, target, console)
    finally:
        if host is not None:
            await host.stop()
        elif ray.is_initialized():
            ray.shutdown()
    settings.out.mkdir(parents=True, exist_ok=True)
    report["report_path"] = str(settings.out / REPORT_FILE)
    report["plot_path"] = str(settings.out / PLOT_FILE)
    plot_report(report, settings.out / PLOT_FILE)
    (settings.out / REPORT_FILE).write_text(json.dumps(report, indent=1) + "\n")
    for message in report["error_messages"][:10]:
        console.print(f"error: {message}", markup=False)
    print(json.dumps(summary(report)), flush=True)
    return 0 if report["ok"] else 1


async def drive_agents(settings: LoadTestSettings, target: str, console: Console | None = None) -> dict[str, Any]:
    """One run against `target` on the Ray this process is connected to:
    agents on every alive node, the players shared among them, progress
    shown on `console` (if given and the settings want it); the report.
    The agents are killed before it returns."""
    players = plan_players(settings.profile, settings.tables, settings.seed)
    nodes = alive_nodes()
    agent_nodes = [node for _ in range(settings.agents_per_node) for node in nodes][: len(players)]
    agents = start_agents(agent_nodes, settings.game_modules, settings.game_path)
    try:
        try:
            places = await asyncio.wait_for(asyncio.gather(*(agent.where.remote() for agent in agents)),
                                            AGENT_START_TIMEOUT_S)
        except TimeoutError:
            raise SystemExit(f"tablehost loadtest: {len(agents)} load agents on {len(nodes)} nodes did not start "
                             f"within {AGENT_START_TIMEOUT_S:g} s") from None
        before = await _host_view()
        start_at = time.time() + START_MARGIN_S
        shares = [tuple(players[index::len(agents)]) for index in range(len(agents))]
        runs = [asyncio.ensure_future(agent.run.remote(DriverPlan(
            target, settings.profile, share, settings.games_per_table, start_at, settings.duration_s,
            settings.tls_root_cert))) for agent, share in zip(agents, shares)]
        deadline = start_at + settings.duration_s + RESULT_GRACE_S
        view = (LiveView(console, [place["node_id"] for place in places], settings.games_expected,
                         settings.duration_s)
                if console is not None and settings.show_progress else None)
        with view if view is not None else nullcontext():
            await _watch(agents, runs, deadline, view)
            results = [_result_of(run, place, share) for run, place, share in zip(runs, places, shares)]
            if view is not None:  # the last frame shows the end, not the last poll
                view.update(results, len(finished_tables(results)))
        ended = max((result.get("ended_at", 0.0) for result in results), default=0.0) or time.time()
        after = await _host_view()
    finally:
        for agent in agents:
            ray.kill(agent)
    return build_report(settings.to_json_dict(), results, ended - start_at, _host_section(before, after))


async def _watch(agents: Sequence[Any], runs: Sequence[asyncio.Future[Any]], deadline: float,
                 view: LiveView | None) -> None:
    """Wait for every agent's run (until `deadline` on the wall clock), and
    meanwhile keep `view` fed with their progress: one progress call in
    flight per agent, each asking only for the tables it has not told yet."""
    latest: list[dict[str, Any] | None] = [None] * len(agents)
    told = [0] * len(agents)
    tables: set[str] = set()
    polls: list[asyncio.Future[Any] | None] = [None] * len(agents)
    while not all(run.done() for run in runs) and time.time() < deadline:
        await asyncio.wait(runs, timeout=min(PROGRESS_INTERVAL_S, max(0.0, deadline - time.time())))
        if view is None:
            continue
        for index, agent in enumerate(agents):
            poll = polls[index]
            if poll is not None and poll.done():
                polls[index] = None
                progress = None if poll.exception() else poll.result()
                if progress is not None:
                    latest[index] = progress
                    told[index] += len(progress["tables"])
                    tables.update(entry[0] for entry in progress["tables"])
            if polls[index] is None and not runs[index].done():
                polls[index] = asyncio.ensure_future(agent.progress.remote(told[index]))
        view.update(latest, len(tables))
    for poll in polls:
        if poll is not None:
            poll.cancel()


def _result_of(run: asyncio.Future[Any], place: dict[str, Any], share: Sequence[PlayerPlan]) -> dict[str, Any]:
    """An agent's result, or for an agent that failed or did not answer in
    time, a record counting each of its players as an error."""
    if run.done() and run.exception() is None:
        return dict(run.result())
    if run.done():
        failure = f"{type(run.exception()).__name__}: {run.exception()}"
    else:
        run.cancel()
        failure = "did not answer within the duration and its grace"
    return {**place, "players": len(share), "errors": len(share), "failure": failure}


async def _host_view() -> dict[str, Any]:
    """What the host's lobby says of it, asked over Ray (the load test runs
    on the host's cluster, so it needs no admin token): tables started so
    far and where its rooms serve; `error` when it cannot be read."""
    from tablehost.actors.lobby import LOBBY_NAME, NAMESPACE

    try:
        status = await ray.get_actor(LOBBY_NAME, namespace=NAMESPACE).status.remote()
    except (ValueError, ray.exceptions.RayError) as error:
        return {"error": f"the lobby cannot be read: {type(error).__name__}: {error}"}
    rooms = [{"room_id": room.room_id, "node_id": node.node_id, "endpoint": room.endpoint, "pid": room.pid}
             for node in status.nodes for room in node.rooms]
    return {"tables_started": status.tables_started, "rooms": rooms}


def _host_section(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The report's view of the host: tables it started over the run (all
    of them, this run's and anyone else's) and every room seen before or after."""
    if "error" in before or "error" in after:
        return {"error": before.get("error") or after.get("error")}
    rooms = {room["room_id"]: room for room in [*before["rooms"], *after["rooms"]]}
    return {"tables_started_before": before["tables_started"], "tables_started_after": after["tables_started"],
            "rooms": sorted(rooms.values(), key=lambda room: room["room_id"])}
