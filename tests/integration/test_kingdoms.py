"""Kingdoms through the real host: a table of eight (every seat asked in and
out of turn: generals chosen together, dodges, peaches, nullifications)
played by the game's rule bot and the random one over gRPC with every hash
verified, identities and hands kept from the other seats, and the CLI's bots
and terminal client playing it."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess

import pytest
from conftest import run
from support import close_all
from test_any_game import room_state_hash, table_log
from test_cli import ROOT, TABLEHOST

from tablehost.clients.bots import PlayStats, RandomBot, play_seat
from tablehost.clients.sdk import LobbyClient, TableSession
from tablehost.games.engine.match import Command, MatchHeader, replay
from tablehost.games.kingdoms import table
from tablehost.games.kingdoms.bots import RuleBot
from tablehost.games.kingdoms.game import RULES as KINGDOMS

pytestmark = pytest.mark.integration

SEATS = 8


def test_a_table_of_eight_plays_to_the_end_with_every_hash_verified_and_nothing_hidden_shown(host) -> None:
    async def scenario():
        async with LobbyClient(host.target) as creator:
            code = await creator.create_private_table("kingdoms", seats=SEATS)
        lobbies = [LobbyClient(host.target) for _ in range(SEATS)]
        sessions: list[TableSession] = []
        try:
            assignments = await asyncio.gather(*(lobby.join_private_table(code, f"k{i}")
                                                 for i, lobby in enumerate(lobbies)))
            sessions = list(await asyncio.gather(*(TableSession.connect(a, l) for a, l in zip(assignments, lobbies))))
            await asyncio.gather(*(session.wait_dealt(timeout=30) for session in sessions))
            stats = PlayStats()
            bots = [RuleBot(seed) if seed % 2 else RandomBot(seed) for seed in range(SEATS)]
            results = await asyncio.gather(*(play_seat(s, bot, stats) for s, bot in zip(sessions, bots)))
            log = await table_log(host, sessions[0].table_id)
            return sessions, results, stats, log, await room_state_hash(host, sessions[0].table_id)
        finally:
            await close_all(lobbies, sessions)

    sessions, results, stats, log, state_hash = run(scenario(), timeout=180)
    assert all(s.desyncs == 0 and s.gaps == 0 for s in sessions) and stats.rejects == 0
    assert len({result.seq for result in results}) == 1 and results[0].winner in (-1, *range(SEATS))
    commands = [Command.from_plain(plain) for plain in log.commands]
    # The generals after the lord's are chosen by every other seat at once.
    chosen_by = [c.seat for c in commands if c.action["type"] == "choose_general"]
    assert sorted(chosen_by) == list(range(SEATS))
    final = replay(KINGDOMS, MatchHeader.from_plain(log.header), commands)
    assert final.state_hash() == state_hash
    for session in sessions:
        shown = json.dumps(session.view)
        for other in range(SEATS):
            if other == session.seat:
                continue
            hidden = table.cards_in(final.state, table.hand_zone(final.state, other))
            assert not [card for card in hidden if json.dumps(card) in shown]


@pytest.mark.slow
def test_the_cli_bots_play_kingdoms_at_a_chosen_table_size(host) -> None:
    bots = subprocess.run(
        TABLEHOST + ["bots", "--target", host.target, "--game", "kingdoms", "--seats", "6", "--bot", "rules",
                     "--tables", "2", "--json"],
        capture_output=True, text=True, timeout=180, cwd=ROOT,
    )
    assert bots.returncode == 0, bots.stderr
    summary = json.loads(bots.stdout.strip().splitlines()[-1])
    assert summary["game"] == "kingdoms" and summary["bots_expected"] == summary["bots_finished"] == 12
    assert summary["games_completed"] == 2 and summary["desyncs"] == 0 and summary["errors"] == 0


@pytest.mark.slow
def test_a_person_plays_kingdoms_in_the_terminal_against_bots(host) -> None:
    moves = "garbage\n" + "1\n" * 600  # one bad line, then always the first legal action
    played = subprocess.run(
        TABLEHOST + ["play", "kingdoms", "--target", host.target, "--seats", "4"],
        input=moves, capture_output=True, text=True, timeout=180,
        env={**os.environ, "COLUMNS": "120"},
    )
    assert played.returncode == 0, played.stderr
    assert "final scores" in played.stdout
