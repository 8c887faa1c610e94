"""A room's record of a table it opened, for tests that store or resume one."""

from __future__ import annotations

from tablehost.actors.room_calls import OpenedTable

PLAYERS = ("ann", "bob", "cy", "dee")


def opened(table_id: str, game: str = "bigtwo", players: tuple[str, ...] = PLAYERS) -> OpenedTable:
    return OpenedTable(table_id, game, "", "c0" * 32, players, tuple(f"ticket-{name}" for name in players),
                       ("",) * len(players), ({},) * len(players), tuple(f"ticket-{name}" for name in players), {},
                       1_700_000_000_000)
