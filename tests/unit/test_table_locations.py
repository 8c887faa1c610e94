"""The front door's table lookups: a flood of them costs the lobby a few
calls, callers share answers, unknown tables are remembered too, what is
kept and what waits is bounded, and a caller hanging up costs nobody else
its answer."""

from __future__ import annotations

import asyncio

import pytest

from tablehost.actors.matchmaking import LobbyRefused, Refusal
from tablehost.actors.table_directory import TableDescription
from tablehost.host.table_locations import TableLocations

T1 = TableDescription("t-1", "room:1", False, "bigtwo", ("a", "b", "c", "d"), "c" * 64, "token")


class Lobby:
    """A scripted lobby: describes the tables it knows, counting its calls."""

    def __init__(self, known: set[str], gate: asyncio.Event | None = None) -> None:
        self.known = known
        self.calls: list[list[str]] = []
        self.gate = gate

    async def describe(self, table_ids: list[str]) -> dict:
        self.calls.append(list(table_ids))
        if self.gate is not None:
            await self.gate.wait()
        return {t: T1 if t in self.known else None for t in table_ids}


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_thousand_lookups_at_once_cost_the_lobby_two_calls_and_share_their_answers() -> None:
    async def scenario():
        lobby = Lobby({"t-1"})
        locations = TableLocations(lobby.describe)
        answers = await asyncio.gather(*(locations.describe("t-1") for _ in range(500)),
                                       *(locations.describe(f"unknown-{n}") for n in range(500)),
                                       return_exceptions=True)
        return lobby, answers

    lobby, answers = asyncio.run(scenario())
    assert len(lobby.calls) <= 2 and sum(len(call) for call in lobby.calls) == 501
    assert all(answer == T1 for answer in answers[:500])
    assert all(isinstance(a, LobbyRefused) and a.refusal is Refusal.NOT_FOUND for a in answers[500:])


def test_a_table_not_running_is_kept_for_its_time_and_a_running_one_always_asked_afresh() -> None:
    """Where a running table is is asked each time (a player asks when its
    room went away: a kept answer would be the wrong one)."""
    async def scenario():
        lobby, clock = Lobby({"t-1"}), Clock()
        locations = TableLocations(lobby.describe, ttl_s=1.0, clock=clock)
        for _ in range(3):
            await locations.describe("t-1")
            with pytest.raises(LobbyRefused):
                await locations.describe("nope")
        clock.now = 1.5
        with pytest.raises(LobbyRefused):
            await locations.describe("nope")
        return lobby

    lobby = asyncio.run(scenario())
    assert lobby.calls == [["t-1"], ["nope"], ["t-1"], ["t-1"], ["nope"]]


def test_lookups_waiting_for_the_lobby_are_bounded() -> None:
    async def scenario():
        gate = asyncio.Event()
        lobby = Lobby(set(), gate)
        locations = TableLocations(lobby.describe, max_waiting=10)
        first = asyncio.ensure_future(locations.describe("first"))
        await asyncio.sleep(0)  # its call is on its way, held by the gate
        waiting = [asyncio.ensure_future(locations.describe(f"t-{n}")) for n in range(10)]
        await asyncio.sleep(0)
        with pytest.raises(LobbyRefused) as refused:
            await locations.describe("one-too-many")
        gate.set()
        await asyncio.gather(first, *waiting, return_exceptions=True)
        return refused.value

    refused = asyncio.run(scenario())
    assert refused.refusal is Refusal.RESOURCE_EXHAUSTED and "waiting for the lobby" in refused.message


def test_what_is_kept_is_bounded_the_oldest_forgotten_first() -> None:
    async def scenario():
        lobby = Lobby(set())
        locations = TableLocations(lobby.describe, max_kept=5)
        for n in range(20):
            with pytest.raises(LobbyRefused):
                await locations.describe(f"t-{n}")
        calls_before = len(lobby.calls)
        for table_id in ("t-19", "t-0"):  # the newest is kept; the oldest was forgotten, and is asked again
            with pytest.raises(LobbyRefused):
                await locations.describe(table_id)
        return len(lobby.calls) - calls_before

    assert asyncio.run(scenario()) == 1


def test_a_caller_hanging_up_leaves_the_answer_to_the_others() -> None:
    async def scenario():
        gate = asyncio.Event()
        lobby = Lobby({"t-1"}, gate)
        locations = TableLocations(lobby.describe)
        leaving = asyncio.ensure_future(locations.describe("t-1"))
        staying = asyncio.ensure_future(locations.describe("t-1"))
        await asyncio.sleep(0)
        leaving.cancel()
        gate.set()
        return await staying

    assert asyncio.run(scenario()).endpoint == "room:1"


def test_a_lobby_that_fails_fails_its_waiting_callers_and_the_next_lookup_asks_again() -> None:
    async def scenario():
        calls = []

        async def failing(table_ids: list[str]) -> dict:
            calls.append(table_ids)
            if len(calls) == 1:
                raise ConnectionError("the lobby is restarting")
            return {t: {"table_id": t} for t in table_ids}

        locations = TableLocations(failing)
        with pytest.raises(ConnectionError):
            await locations.describe("t-1")
        return await locations.describe("t-1")

    assert asyncio.run(scenario()) == {"table_id": "t-1"}
