"""What the lobby allows one client (the identity its front door names it by,
host/identity.py): private tables waiting to fill, and seats left empty.

- A client may keep a few private tables waiting for players at once (a
  player 3, an address 32); the lobby's global cap stays the last line, so
  one client can no longer fill every private table there is.
- A client whose seats were left without a stream when their table was to
  be dealt (it queued, was seated, never came) is a ghost: past a few such
  seats in a window of time (a player 3, an address 20, in 10 minutes) its
  joins are refused until the oldest falls out of the window.

Clients are the front doors' names: "player:ID" or "address:IP"; "" (a
tournament's own seating, or a join with no client named) has no limits.
What is remembered is bounded: at most MAX_CLIENTS clients, the least
recently seen forgotten first."""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from tablehost.actors.matchmaking import LobbyRefused, Refusal

PLAYER_PREFIX = "player:"
PRIVATE_TABLES = {"player": 3, "address": 32}
GHOST_SEATS = {"player": 3, "address": 20}
GHOST_WINDOW_S = 600.0
MAX_CLIENTS = 100_000


def _kind(client: str) -> str:
    return "player" if client.startswith(PLAYER_PREFIX) else "address"


@dataclass
class _Client:
    private_codes: set[str] = field(default_factory=set)
    ghost_seats: deque[float] = field(default_factory=deque)


class ClientLimits:
    def __init__(self, clock: Callable[[], float] = time.monotonic, max_clients: int = MAX_CLIENTS) -> None:
        self._clock = clock
        self._max_clients = max_clients
        self._clients: OrderedDict[str, _Client] = OrderedDict()

    def __len__(self) -> int:
        return len(self._clients)

    def admit_private_table(self, client: str, code: str, still_open: Callable[[str], bool]) -> None:
        """Count `code` as `client`'s, or refuse (RESOURCE_EXHAUSTED) when the
        client already has its most waiting to fill; `still_open(code)` says
        whether one of its earlier tables still waits."""
        if not client:
            return
        record = self._record(client)
        record.private_codes = {other for other in record.private_codes if still_open(other)}
        most = PRIVATE_TABLES[_kind(client)]
        if len(record.private_codes) >= most:
            raise LobbyRefused(Refusal.RESOURCE_EXHAUSTED,
                               f"this client has {len(record.private_codes)} private tables waiting for players, its "
                               f"most ({most}); fill or let one expire first")
        record.private_codes.add(code)

    def record_ghost_seat(self, client: str) -> None:
        """`client` was seated and never opened its table stream."""
        if client:
            self._record(client).ghost_seats.append(self._clock())

    def check_join(self, client: str) -> None:
        """Refuse (RESOURCE_EXHAUSTED) a client that left too many seats empty lately."""
        record = self._clients.get(client) if client else None
        if record is None:
            return
        now = self._clock()
        while record.ghost_seats and record.ghost_seats[0] <= now - GHOST_WINDOW_S:
            record.ghost_seats.popleft()
        most = GHOST_SEATS[_kind(client)]
        if len(record.ghost_seats) >= most:
            wait_s = record.ghost_seats[0] + GHOST_WINDOW_S - now
            raise LobbyRefused(Refusal.RESOURCE_EXHAUSTED,
                               f"this client was seated {len(record.ghost_seats)} times in the last "
                               f"{GHOST_WINDOW_S / 60:.0f} minutes and never came to the table; join again in "
                               f"{wait_s:.0f} s")

    def tidy(self, still_open: Callable[[str], bool]) -> None:
        """Forget clients that hold nothing and have no ghost seat left in the window."""
        now = self._clock()
        for client in list(self._clients):
            record = self._clients[client]
            record.private_codes = {code for code in record.private_codes if still_open(code)}
            while record.ghost_seats and record.ghost_seats[0] <= now - GHOST_WINDOW_S:
                record.ghost_seats.popleft()
            if not record.private_codes and not record.ghost_seats:
                del self._clients[client]

    def _record(self, client: str) -> _Client:
        record = self._clients.get(client)
        if record is None:
            record = self._clients[client] = _Client()
            while len(self._clients) > self._max_clients:
                self._clients.popitem(last=False)
        else:
            self._clients.move_to_end(client)
        return record
