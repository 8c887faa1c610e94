"""What an operator scrapes: the front door lists every room's metrics
address on /targets, and after a game the rooms' counters moved by exactly
what the game did (its moves, its rejection, its reconnect, its end)."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections import Counter as Tally

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.integration.conftest import HostThread, run
from tests.integration.support import (close_all, lobby_status, play_randomly, seat_table, wait_for_quiet_lobby,
                                       wait_until)

pytestmark = pytest.mark.integration


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.read().decode()


def scrape(endpoint: str) -> Tally[tuple[str, tuple[tuple[str, str], ...]]]:
    """Every sample of one process, by name and labels."""
    samples: Tally[tuple[str, tuple[tuple[str, str], ...]]] = Tally()
    for family in text_string_to_metric_families(fetch(f"http://{endpoint}/metrics")):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] += sample.value
    return samples


def rooms_scraped(host: HostThread) -> Tally[tuple[str, tuple[tuple[str, str], ...]]]:
    """Every room's samples added together, found the way Prometheus finds them."""
    groups = json.loads(fetch(f"http://{host.host.metrics.address}/targets"))
    total: Tally[tuple[str, tuple[tuple[str, str], ...]]] = Tally()
    for endpoint in groups[0]["targets"]:
        total.update(scrape(endpoint))
    return total


def value(samples: Tally, name: str, **labels: str) -> float:
    return samples[(name, tuple(sorted(labels.items())))]


def room_metrics_endpoints(host: HostThread) -> set[str]:
    return {room["metrics_endpoint"] for node in lobby_status(host)["nodes"] for room in node["rooms"]
            if room["state"] == "ready"}


def test_targets_list_every_room_and_nothing_else(host: HostThread) -> None:
    def listed() -> set[str]:
        groups = json.loads(fetch(f"http://{host.host.metrics.address}/targets"))
        assert len(groups) == 1 and groups[0]["labels"] == {"job": "tablehost-room"}
        return set(groups[0]["targets"])

    # The front door reads the lobby every few seconds: rooms started since appear then.
    run(wait_until(lambda: bool(room_metrics_endpoints(host)) and listed() == room_metrics_endpoints(host),
                   timeout=30))
    assert all(endpoint.startswith("127.0.0.1:") for endpoint in listed())


def test_a_games_counters_are_what_the_game_did(host: HostThread) -> None:
    run(wait_for_quiet_lobby(host))
    before = rooms_scraped(host)

    async def play() -> tuple[int, Tally]:
        lobbies, sessions = await seat_table(host.target, names=[f"metrics-{i}" for i in range(4)])
        try:
            during = rooms_scraped(host)
            # One move nobody may make (a seat acting out of turn): a rejection.
            idle = next(s for s in sessions if not (s.view or {}).get("request"))
            assert not (await idle.commit({"type": "pass"})).accepted
            await idle.drop()
            await idle.reconnect()
            moves = sum(await asyncio.gather(
                *(play_randomly(session, seed=index) for index, session in enumerate(sessions))))
            for session in sessions:
                await session.wait_game_over()
                assert session.desyncs == 0
            return moves, during
        finally:
            await close_all(lobbies, sessions)

    moves, during = run(play())
    after = rooms_scraped(host)
    delta = after.copy()
    delta.subtract(before)
    assert value(delta, "tablehost_moves_total", game="bigtwo", kind="player") == moves
    assert value(delta, "tablehost_move_latency_seconds_count", game="bigtwo") == moves
    assert value(delta, "tablehost_games_finished_total", game="bigtwo") == 1
    assert value(delta, "tablehost_tables_opened_total", game="bigtwo") == 1
    assert value(delta, "tablehost_rejects_total", game="bigtwo", reason="NOT_YOUR_TURN") == 1
    assert value(delta, "tablehost_reconnects_total", game="bigtwo") == 1
    assert value(delta, "tablehost_desyncs_total", game="bigtwo") == 0
    assert value(during, "tablehost_tables", game="bigtwo") >= 1
    assert value(during, "tablehost_seated_players", game="bigtwo") >= 4

    def door_agrees_with_the_lobby() -> bool:
        door = scrape(host.host.metrics.address)
        return (value(door, "tablehost_lobby_up") == 1
                and value(door, "tablehost_tables_started") == lobby_status(host)["tables_started"])

    run(wait_until(door_agrees_with_the_lobby, timeout=15))


def test_the_metrics_server_answers_only_its_paths(host: HostThread) -> None:
    with pytest.raises(urllib.error.HTTPError) as refused:
        fetch(f"http://{host.host.metrics.address}/anything-else")
    assert refused.value.code == 404
