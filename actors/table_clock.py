"""What the clock does to a table: its turn timer, and the wait for its
deal (each seat's entropy from its first hello, until every seat has said
hello or the deal's deadline passes)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class TurnTimer:
    """One timer, on the room's loop, for the earliest deadline of the
    table's open requests; every published change sets it again. It calls
    back with the seq it was set at, so a move that came first wins."""

    def __init__(self, clock: Callable[[], int], on_expiry: Callable[[int], None]) -> None:
        self._clock = clock
        self._on_expiry = on_expiry
        self._handle: asyncio.TimerHandle | None = None
        # The room's loop, looked up once: asyncio.get_running_loop() makes a
        # system call each time, and the timer is set again on every move.
        self._loop = asyncio.get_running_loop()

    def set(self, deadline_ms: int | None, seq: int) -> None:
        self.cancel()
        if deadline_ms is not None:
            self._handle = self._loop.call_later(max(0.0, (deadline_ms - self._clock()) / 1000), self._expired, seq)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _expired(self, seq: int) -> None:
        self._handle = None
        self._on_expiry(seq)


class DealWait:
    """Each seat's entropy from its first hello (later ones cannot change it)."""

    def __init__(self, seats: int) -> None:
        self._entropy: list[bytes | None] = [None] * seats

    def heard(self, seat: int, entropy: bytes) -> bool:
        """Keep a seat's first entropy; True once every seat has said hello."""
        if self._entropy[seat] is None:
            self._entropy[seat] = entropy
        return None not in self._entropy

    @property
    def absent(self) -> tuple[int, ...]:
        """The seats that have not said hello."""
        return tuple(seat for seat, entropy in enumerate(self._entropy) if entropy is None)

    @property
    def entropy(self) -> list[bytes]:
        """What each seat gave (nothing from one that has not said hello)."""
        return [contribution or b"" for contribution in self._entropy]
