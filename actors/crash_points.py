"""Armed crash points: a room's process kills itself with SIGKILL, as a
crash would, the n-th time it reaches a named point. Chaos tests arm them
(a Ray call to the room, never reachable from a client) to crash a room at
the moments durability must survive: between making a command durable and
publishing it, just after publishing it, and halfway through a checkpoint.

Unarmed, a point costs one falsy dict test."""

from __future__ import annotations

import asyncio
import os
import signal

# Where a room can be made to crash.
AFTER_APPEND = "after-append"  # the command is in the store; nobody has heard of it
AFTER_PUBLISH = "after-publish"  # its players have been sent the change
MID_CHECKPOINT = "mid-checkpoint"  # the checkpoint is written, the journal it covers not yet dropped
POINTS = (AFTER_APPEND, AFTER_PUBLISH, MID_CHECKPOINT)

# Long enough for a published change to leave the room's sockets.
_PUBLISH_FLUSH_S = 0.05

_armed: dict[str, int] = {}


def arm(point: str, after: int = 1) -> None:
    """Crash the `after`-th time `point` is reached from now."""
    if point not in POINTS:
        raise ValueError(f"no crash point {point!r}; the points are {', '.join(POINTS)}")
    if after < 1:
        raise ValueError(f"a crash point is armed for the 1st time it is reached or later, not {after}")
    _armed[point] = after


def reached(point: str) -> None:
    if not _armed or point not in _armed:
        return
    _armed[point] -= 1
    if _armed[point] > 0:
        return
    if point == AFTER_PUBLISH:
        asyncio.get_running_loop().call_later(_PUBLISH_FLUSH_S, _crash)
        _armed.clear()
    else:
        _crash()


def _crash() -> None:
    os.kill(os.getpid(), signal.SIGKILL)
