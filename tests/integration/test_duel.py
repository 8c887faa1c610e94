"""Duel through the real host: decks chosen at join and checked by the
game, a mulligan one player leaves to its deadline, a whole game played by
the game's greedy bot against the random one over gRPC with every hash
verified, nothing of a hand in the other seat's view, and the CLI's bots and
terminal client playing it."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess

import grpc
import pytest
from conftest import run
from support import close_all, wait_until
from test_any_game import room_state_hash, table_log
from test_cli import ROOT, TABLEHOST

from tablehost.clients.bots import PlayStats, RandomBot, play_seat
from tablehost.clients.sdk import LobbyClient, LobbyError, TableSession
from tablehost.games.duel import board
from tablehost.games.duel.bots import GreedyBot
from tablehost.games.duel.game import RULES as DUEL
from tablehost.games.engine.match import Command, MatchHeader, replay

pytestmark = pytest.mark.integration

DECKS = ({"deck": "mage-basic"}, {"deck": "paladin-basic"})


async def seat_duel(host, code: str) -> tuple[list[LobbyClient], list[TableSession]]:
    lobbies = [LobbyClient(host.target) for _ in DECKS]
    assignments = await asyncio.gather(*(lobby.join_private_table(code, f"d{i}", join_data=deck)
                                         for i, (lobby, deck) in enumerate(zip(lobbies, DECKS))))
    sessions = await asyncio.gather(*(TableSession.connect(a, l) for a, l in zip(assignments, lobbies)))
    await asyncio.gather(*(session.wait_dealt(timeout=30) for session in sessions))
    order = sorted(range(2), key=lambda i: sessions[i].seat)
    return [lobbies[i] for i in order], [sessions[i] for i in order]


def test_a_duel_with_a_mulligan_left_to_its_deadline_plays_to_the_end_with_every_hash_verified(host) -> None:
    async def scenario():
        async with LobbyClient(host.target) as creator:
            code = await creator.create_private_table("duel", turn_timeout_ms=1500)
        lobbies, sessions = await seat_duel(host, code)
        try:
            quick, slow = sessions
            updates = slow.subscribe()
            opening = {s.seat: list(s.view["hand"]) for s in sessions}
            stats = PlayStats()
            # One player chooses at once; the other lets the mulligan's deadline pass.
            first = asyncio.ensure_future(play_seat(quick, GreedyBot(1), stats))
            await wait_until(lambda: slow.view["stage"] != "mulligan", timeout=10)  # it moved on without it
            kept_hand = list(slow.view["hand"])
            results = [await play_seat(slow, RandomBot(2), stats), await first]
            seen = []
            while not updates.empty():
                seen.append(updates.get_nowait())
            log = await table_log(host, quick.table_id)
            return sessions, opening, kept_hand, results, stats, seen, log, await room_state_hash(host, quick.table_id)
        finally:
            await close_all(lobbies, sessions)

    sessions, opening, kept_hand, results, stats, seen, log, state_hash = run(scenario(), timeout=120)
    slow = sessions[1]
    assert all(s.desyncs == 0 and s.gaps == 0 for s in sessions) and stats.rejects == 0
    assert results[0] == results[1] and results[0].winner in (-1, 0, 1)
    commands = [Command.from_plain(plain) for plain in log.commands]
    expired = [c for c in commands if c.seat == slow.seat and c.action["type"] == "mulligan"]
    assert len(expired) == 1 and expired[0].automatic and expired[0].action["cards"] == []
    assert [card["id"] for card in opening[slow.seat]] == [card["id"] for card in kept_hand[:len(opening[slow.seat])]]
    assert any(u.kind == "delta" and u.automatic for u in seen)
    # The decks each player chose are in the match header, as the game checked them.
    assert sorted(data["deck"] for data in log.header["join"]) == sorted(d["deck"] for d in DECKS)
    final = replay(DUEL, MatchHeader.from_plain(log.header), commands)
    assert final.state_hash() == state_hash
    # Neither player's final view names a card in the other's hand or deck.
    for session in sessions:
        other = 1 - session.seat
        hidden = board.hand(final.state, other) + board.deck(final.state, other)
        shown = json.dumps(session.view)
        assert hidden and not [card for card in hidden if json.dumps(card) in shown]
        assert session.view["heroes"][other]["hand_count"] == len(board.hand(final.state, other))


def test_a_deck_the_game_refuses_is_refused_at_join_with_the_reason(host) -> None:
    async def scenario():
        refused = []
        async with LobbyClient(host.target) as lobby:
            for data in ({"deck": "dragon-control"}, {"class": "mage", "cards": ["Fireball"] * 30}, {}):
                try:
                    await lobby.join_queue("duel", "x", join_data=data)
                except LobbyError as error:
                    refused.append((error.code, error.details))
        return refused

    refused = run(scenario())
    assert [code for code, _ in refused] == [grpc.StatusCode.INVALID_ARGUMENT] * 3
    assert "dragon-control" in refused[0][1] and "copies" in refused[1][1] and "deck" in refused[2][1]


@pytest.mark.slow
def test_the_cli_bots_play_duel_with_the_games_example_deck(host) -> None:
    bots = subprocess.run(
        TABLEHOST + ["bots", "--target", host.target, "--game", "duel", "--bot", "greedy", "--tables", "2", "--json"],
        capture_output=True, text=True, timeout=180, cwd=ROOT,
    )
    assert bots.returncode == 0, bots.stderr
    summary = json.loads(bots.stdout.strip().splitlines()[-1])
    assert summary["game"] == "duel" and summary["bots_expected"] == summary["bots_finished"] == 4
    assert summary["games_completed"] == 2 and summary["desyncs"] == 0 and summary["errors"] == 0


@pytest.mark.slow
def test_a_person_plays_duel_in_the_terminal_against_a_bot(host) -> None:
    moves = "garbage\n" + "1\n" * 400  # one bad line, then always the first legal action
    played = subprocess.run(
        TABLEHOST + ["play", "duel", "--target", host.target],
        input=moves, capture_output=True, text=True, timeout=180,
        env={**os.environ, "COLUMNS": "120"},
    )
    assert played.returncode == 0, played.stderr
    assert "final scores" in played.stdout and "mana" in played.stdout

