"""The main job's narration: bots play through the real stack while a
spectator's stream (the public view only) is printed move by move."""

from __future__ import annotations

import asyncio
from typing import Any

from rich.console import Console

from tablehost.clients.bots import make_bot
from tablehost.clients.sdk import LobbyClient, TableSession, ViewUpdate
from tablehost.games.bigtwo.cards import format_cards

def describe(update: ViewUpdate, names: list[str]) -> str | None:
    """One line for one public change, read off the spectator's views."""
    before, after = update.previous or {}, update.view
    actor = before.get("to_act")
    if actor is None:
        return None
    who = f"seat {actor} ({names[actor]})"
    timer = " [timer]" if update.automatic else ""
    last_play = after.get("last_play")
    if last_play is not None and last_play != before.get("last_play") and last_play["seat"] == actor:
        left = after["hand_counts"][actor]
        return f"#{update.seq:<3} {who} plays {format_cards(last_play['cards'])} ({last_play['kind']}), {left} left{timer}"
    line = f"#{update.seq:<3} {who} passes{timer}"
    if after.get("last_play") is None and after.get("to_act") is not None:
        line += f"; seat {after['to_act']} leads"
    return line


async def _bot_player(
    target: str, name: str, kind: str, seed: int, pace_s: float, seated: asyncio.Queue[str]
) -> None:
    """A bot that thinks for `pace_s` before each move, so a person can follow."""
    bot = make_bot(kind, seed)
    async with LobbyClient(target) as lobby:
        assignment = await lobby.join_queue("bigtwo", name)
        await seated.put(assignment.table_id)
        session = await TableSession.connect(assignment, lobby)
        try:
            while (view := await session.wait_for_turn(after_seq=session.seq - 1, timeout=60)) is not None:
                await asyncio.sleep(pace_s)
                outcome = await session.commit(bot.choose(view))
                if not outcome.accepted:
                    raise RuntimeError(f"{name}'s move was rejected: {outcome.message}")
        finally:
            await session.close()


async def _narrate(target: str, table_id: str, console: Console) -> dict[str, Any]:
    async with LobbyClient(target) as lobby:
        session = await TableSession.connect(await lobby.spectate(table_id), lobby)
        try:
            names = list(session.assignment.display_names)
            console.print(f"[bold]table {table_id}[/]: " + ", ".join(f"seat {i} {n}" for i, n in enumerate(names)))
            updates = session.subscribe()
            console.print(f"#{session.seq:<3} seat {session.view['to_act']} holds 3♣ and leads")
            while True:
                update = await updates.get()
                if update.kind == "game_over":
                    break
                if update.kind == "delta":
                    line = describe(update, names)
                    if line:
                        console.print(line)
            result = await session.wait_game_over(5)
            console.print(
                f"[bold]game over[/]: seat {result.winner} ({names[result.winner]}) wins; scores "
                + ", ".join(f"{names[seat]} {score:+d}" for seat, score in enumerate(result.scores))
            )
            return result.result
        finally:
            await session.close()


async def run_demo(target: str, tables: int = 1, pace_s: float = 0.2) -> int:
    """Four bots per table (greedy and random mixed); the first table narrated."""
    console = Console(highlight=False)
    seated: asyncio.Queue[str] = asyncio.Queue()
    players = [
        asyncio.ensure_future(
            _bot_player(target, f"{kind}-{i}", kind, seed=i, pace_s=pace_s, seated=seated)
        )
        for i, kind in enumerate(["greedy", "random"] * (2 * tables))
    ]
    first_table = await asyncio.wait_for(seated.get(), 60)
    narration = asyncio.ensure_future(_narrate(target, first_table, console))
    await asyncio.wait_for(asyncio.gather(*players), 300)
    await asyncio.wait_for(narration, 30)
    return 0
