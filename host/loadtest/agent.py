"""A load agent: one Ray actor, pinned to one node, that drives its share of
a load test's players (clients.loaddriver.LoadDriver) on its own event
loop. The players run in the agents, never in the command's process, so a
cluster's nodes share the load of being the clients and the command only
watches and reports."""

from __future__ import annotations

import os
import resource
import time
from typing import Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from tablehost.actors.process_tuning import raise_open_files_limit
from tablehost.actors.ray_classes import actor_class
from tablehost.clients.bots import bot_factories
from tablehost.clients.loaddriver import DriverPlan, LoadDriver
from tablehost.games.registry import GameCatalog


def _cpu_s() -> float:
    """This process's CPU seconds so far (every thread: the players' loop and Ray's own)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# No CPU reserved: an agent must start on every node, whatever the rooms
# there hold, and what it costs is measured and reported, not booked.
@ray.remote(num_cpus=0)
class LoadAgent:
    def __init__(self, game_modules: tuple[str, ...], game_path: tuple[str, ...]) -> None:
        # Each player holds a connection to the front door and one to its room.
        raise_open_files_limit()
        self._catalog = GameCatalog.load(game_modules, game_path)
        self._driver: LoadDriver | None = None
        self._cpu_at_start = 0.0

    def where(self) -> dict[str, Any]:
        """The node and process this agent runs in (and that it has started)."""
        return {"node_id": ray.get_runtime_context().get_node_id(), "pid": os.getpid()}

    async def run(self, plan: DriverPlan) -> dict[str, Any]:
        """Play the plan's players to the end (or its duration); every count,
        the per-second series, this process's CPU seconds over the run and
        when it ended (wall clock, to measure the run from its second 0)."""
        bots = [bot_factories(dict(self._catalog.rules(game.name).bots()))[game.bot] for game in plan.profile.games]
        self._driver = LoadDriver(plan, bots)
        self._cpu_at_start = _cpu_s()
        result = await self._driver.run()
        return {**result, **self.where(), "cpu_s": round(_cpu_s() - self._cpu_at_start, 3), "ended_at": time.time()}

    async def progress(self, tables_since: int) -> dict[str, Any] | None:
        """The driver's counts so far (None before it started)."""
        if self._driver is None:
            return None
        return {**self._driver.progress(tables_since), "cpu_s": round(_cpu_s() - self._cpu_at_start, 3)}


def start_agents(nodes: list[str], game_modules: tuple[str, ...], game_path: tuple[str, ...]) -> list[Any]:
    """One agent on each node of `nodes` (a node listed twice gets two),
    each pinned there: not soft, as an agent that drifted to another node
    would misreport where the load came from."""
    return [
        actor_class(LoadAgent).options(scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False)).remote(
            game_modules, game_path)
        for node in nodes
    ]


def alive_nodes() -> list[str]:
    """The cluster's alive nodes, head first as Ray lists them."""
    return [node["NodeID"] for node in ray.nodes() if node["Alive"]]
