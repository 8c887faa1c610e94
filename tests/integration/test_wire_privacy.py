"""Hidden information over the wire: every byte each client receives
in a whole game, searched for cards it may not see."""

from __future__ import annotations

import asyncio

import pytest
from conftest import run
from support import close_all, play_randomly, seat_table

from tablehost.clients.sdk import LobbyClient, TableSession
from tablehost.games.bigtwo.cards import FULL_DECK

pytestmark = pytest.mark.integration


def encoded(card: str) -> bytes:
    """A card code as msgpack writes it (fixstr of two bytes)."""
    return b"\xa2" + card.encode()


def test_no_client_ever_receives_a_card_it_may_not_see(host) -> None:
    async def scenario():
        lobbies, sessions = await seat_table(host.target, record=True)
        watcher_lobby = LobbyClient(host.target)
        spectator = await TableSession.connect(
            await watcher_lobby.spectate(sessions[0].table_id), watcher_lobby, record=True
        )
        try:
            dealt = {s.seat: list(s.view["hand"]) for s in sessions}
            played_by_seat = {seat: set() for seat in dealt}
            updates = spectator.subscribe()
            await asyncio.gather(*(play_randomly(s, 7 + i) for i, s in enumerate(sessions)))
            await spectator.wait_game_over(10)
            while not updates.empty():
                update = updates.get_nowait()
                last_play = update.view.get("last_play")
                if last_play:
                    played_by_seat[last_play["seat"]].update(last_play["cards"])
            return dealt, played_by_seat, sessions, spectator
        finally:
            await spectator.close()
            await close_all(lobbies + [watcher_lobby], sessions)

    dealt, played, sessions, spectator = run(scenario())
    assert sorted(card for hand in dealt.values() for card in hand) == sorted(FULL_DECK)
    for session in sessions:
        wire = b"".join(session.received)
        assert wire, "nothing was recorded"
        for seat, hand in dealt.items():
            if seat == session.seat:
                continue
            never_played = set(hand) - played[seat]
            leaked = [card for card in never_played if encoded(card) in wire]
            assert not leaked, f"seat {session.seat} received seat {seat}'s hidden cards {leaked}"
    spectator_wire = b"".join(spectator.received)
    for seat, hand in dealt.items():
        leaked = [card for card in set(hand) - played[seat] if encoded(card) in spectator_wire]
        assert not leaked, f"the spectator received seat {seat}'s hidden cards {leaked}"
