"""What a room tells its lobby of its tables, in batches: the games over
(with their results, before the tables linger and close) and the tables
closed (their slots free again). A busy room ends many tables a second;
one Ray call per table would cost the lobby more than the tables do."""

from __future__ import annotations

import asyncio
from typing import Any

from tablehost.actors.room_calls import TableClosed, TableOver


class RoomReports:
    def __init__(self, room_id: str, interval_s: float, lobby: Any = None) -> None:
        self.room_id = room_id
        self.interval_s = interval_s
        # The lobby's actor handle; None for a room nobody placed (tests).
        # A lobby taking the room back after a restart replaces it.
        self.lobby = lobby
        self._over: list[TableOver] = []
        self._closed: list[TableClosed] = []
        self._scheduled = False

    def over(self, table: TableOver) -> None:
        self._over.append(table)
        self._schedule()

    def closed(self, table: TableClosed) -> None:
        self._closed.append(table)
        self._schedule()

    def _schedule(self) -> None:
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_later(self.interval_s, self._send)

    def _send(self) -> None:
        """Tell the lobby, in one batch each, the games over and the tables closed."""
        self._scheduled = False
        over, self._over = self._over, []
        closed, self._closed = self._closed, []
        if self.lobby is None:
            return
        if over:
            self.lobby.tables_over.remote(self.room_id, over)
        if closed:
            self.lobby.tables_closed.remote(self.room_id, closed)
