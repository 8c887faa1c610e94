"""The main job's narration: bots play any game through the real stack
while a spectator's stream (the public view only) is printed move by move,
in the words of the game's presenter (the generic one for a game without).

Bots play in this process, so the demo knows which seat sent each commit
(by its act_id) and can name the actor even when the public view does not
say whose turn it was; and they make no move before the narrator watches,
so the narration starts at the first move however fast they play."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from tablehost.clients.bots import BotFactory
from tablehost.clients.presentation import Presenter
from tablehost.clients.sdk import LobbyClient, TableSession


@dataclass
class DemoTables:
    """What the demo plays: `tables` tables of `seats` seats of `game`, the
    bots seated in turn from `kinds` (names in `bots`), each player joining
    with `join_data`."""

    game: str
    seats: int
    kinds: Sequence[str]
    bots: Mapping[str, BotFactory]
    tables: int = 1
    variant: str = ""
    join_data: Mapping[str, Any] = field(default_factory=dict)
    # PEM certificates the demo's clients trust when the host serves TLS.
    tls_root_cert: bytes | None = None


async def _bot_player(
    target: str, demo: DemoTables, name: str, kind: str, seed: int, pace_s: float,
    seated: asyncio.Queue[str], watching: asyncio.Event, acted_by: dict[str, int],
) -> None:
    """A bot that thinks for `pace_s` before each move, so a person can
    follow. Each commit's act_id is noted with its seat before it is sent."""
    bot = demo.bots[kind](seed)
    async with LobbyClient(target, tls_root_cert=demo.tls_root_cert) as lobby:
        assignment = await lobby.join_queue(demo.game, name, variant=demo.variant, join_data=dict(demo.join_data),
                                            seats=demo.seats)
        await seated.put(assignment.table_id)
        session = await TableSession.connect(assignment, lobby)
        try:
            await watching.wait()
            while (view := await session.wait_for_request(after_seq=session.seq - 1, timeout=60)) is not None:
                await asyncio.sleep(pace_s)
                act_id = uuid.uuid4().hex
                acted_by[act_id] = assignment.seat
                outcome = await session.commit(bot.choose(view), act_id=act_id)
                if not outcome.accepted:
                    raise RuntimeError(f"{name}'s move was rejected ({outcome.reason_name}): {outcome.message}")
        finally:
            await session.close()


async def _narrate(
    target: str, table_id: str, presenter: Presenter, watching: asyncio.Event, acted_by: Mapping[str, int],
    console: Console, tls_root_cert: bytes | None = None,
) -> dict[str, Any]:
    """Print the table's game from a spectator's stream; `watching` is set
    once every change from here on will be seen (or narration failed)."""
    try:
        async with LobbyClient(target, tls_root_cert=tls_root_cert) as lobby:
            session = await TableSession.connect(await lobby.spectate(table_id), lobby)
            try:
                return await _narrate_session(session, presenter, watching, acted_by, console)
            finally:
                await session.close()
    finally:
        watching.set()


async def _narrate_session(
    session: TableSession, presenter: Presenter, watching: asyncio.Event, acted_by: Mapping[str, int],
    console: Console,
) -> dict[str, Any]:
    """The opening line, a line per change and the final scores; the bots
    may move once the subscription is in place."""
    names = list(session.assignment.display_names)
    console.print(f"[bold]table {session.table_id}[/]: "
                  + escape(", ".join(f"seat {i} {n}" for i, n in enumerate(names))))
    updates = session.subscribe()
    watching.set()
    opening = presenter.opening(session.view, names)
    if opening:
        _say(console, f"#{session.seq:<3} {opening}")
    while True:
        update = await updates.get()
        if update.kind == "game_over":
            break
        if update.kind == "delta" and update.previous is not None:
            actor = acted_by.get(update.act_id) if update.act_id else None
            line = presenter.narrate(update.previous, update.view, names, update.automatic, actor)
            if line:
                _say(console, f"#{update.seq:<3} {line}")
    result = await session.wait_game_over(5)
    scores = escape(", ".join(f"{_name(seat, names)} {score:+d}" for seat, score in enumerate(result.scores)))
    if 0 <= result.winner < len(names):
        outcome = escape(f"seat {result.winner} ({names[result.winner]}) wins")
    else:
        outcome = "nobody wins"
    console.print(f"[bold]game over[/]: {outcome}; scores {scores}")
    return result.result


async def run_demo(target: str, demo: DemoTables, presenter: Presenter, pace_s: float = 0.2) -> int:
    """`demo.tables` tables of bots (their kinds in turn); the first table
    narrated."""
    console = Console(highlight=False)
    seated: asyncio.Queue[str] = asyncio.Queue()
    watching = asyncio.Event()
    acted_by: dict[str, int] = {}
    kinds = [demo.kinds[index % len(demo.kinds)] for index in range(demo.seats * demo.tables)]
    players = [
        asyncio.ensure_future(
            _bot_player(target, demo, f"{kind}-{i}", kind, seed=i, pace_s=pace_s, seated=seated, watching=watching,
                        acted_by=acted_by)
        )
        for i, kind in enumerate(kinds)
    ]
    first_table = await asyncio.wait_for(seated.get(), 60)
    narration = asyncio.ensure_future(
        _narrate(target, first_table, presenter, watching, acted_by, console, demo.tls_root_cert)
    )
    await asyncio.wait_for(asyncio.gather(*players), 300)
    await asyncio.wait_for(narration, 30)
    return 0


def _say(console: Console, line: str) -> None:
    """A presenter's line as it is (no markup): "[timer]" stays visible."""
    console.print(Text(line))


def _name(seat: int, names: Sequence[str]) -> str:
    return names[seat] if seat < len(names) and names[seat] else f"seat {seat}"
