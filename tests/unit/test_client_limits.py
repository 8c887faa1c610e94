"""What the lobby allows one client: a few private tables waiting at once,
and joins refused for a while after leaving too many seats empty."""

from __future__ import annotations

import pytest

from tablehost.actors.client_limits import GHOST_SEATS, GHOST_WINDOW_S, PRIVATE_TABLES, ClientLimits
from tablehost.actors.matchmaking import LobbyRefused, Refusal


class Clock:
    now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_a_player_keeps_a_few_private_tables_waiting_and_gets_a_place_back_when_one_fills() -> None:
    limits, open_codes = ClientLimits(), set()
    for number in range(PRIVATE_TABLES["player"]):
        limits.admit_private_table("player:ann", f"C{number}", open_codes.__contains__)
        open_codes.add(f"C{number}")
    with pytest.raises(LobbyRefused) as refused:
        limits.admit_private_table("player:ann", "CX", open_codes.__contains__)
    assert refused.value.refusal is Refusal.RESOURCE_EXHAUSTED and "its most (3)" in refused.value.message
    limits.admit_private_table("player:bo", "CY", open_codes.__contains__)  # another client is not held back
    open_codes.discard("C0")  # filled
    limits.admit_private_table("player:ann", "CX", open_codes.__contains__)


def test_an_address_keeps_more_and_a_join_with_no_client_has_no_limit() -> None:
    limits = ClientLimits()
    for number in range(PRIVATE_TABLES["address"]):
        limits.admit_private_table("address:10.0.0.1", f"A{number}", lambda code: True)
    with pytest.raises(LobbyRefused):
        limits.admit_private_table("address:10.0.0.1", "more", lambda code: True)
    for number in range(100):
        limits.admit_private_table("", f"T{number}", lambda code: True)
    assert len(limits) == 1


def test_a_client_that_leaves_seats_empty_is_refused_joins_until_the_oldest_leaves_the_window() -> None:
    clock = Clock()
    limits = ClientLimits(clock)
    for _ in range(GHOST_SEATS["player"]):
        limits.check_join("player:ghost")
        limits.record_ghost_seat("player:ghost")
        clock.now += 10
    with pytest.raises(LobbyRefused) as refused:
        limits.check_join("player:ghost")
    assert "never came to the table" in refused.value.message
    limits.check_join("player:honest")
    clock.now += GHOST_WINDOW_S - 10 * GHOST_SEATS["player"] + 1  # the oldest empty seat has left the window
    limits.check_join("player:ghost")


def test_clients_remembered_are_bounded_and_tidied_once_they_hold_nothing() -> None:
    clock = Clock()
    limits = ClientLimits(clock, max_clients=50)
    for number in range(500):
        limits.record_ghost_seat(f"address:10.0.{number // 250}.{number % 250}")
    assert len(limits) == 50
    clock.now += GHOST_WINDOW_S + 1
    limits.tidy(lambda code: False)
    assert len(limits) == 0
