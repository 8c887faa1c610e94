"""Settings for the long-running processes of a host (the front door, the
lobby, each room), applied where each process starts, never on import."""

from __future__ import annotations

import gc
import logging
import resource

log = logging.getLogger("tablehost.process")


def tune_garbage_collection() -> None:
    """These processes allocate on every message (a room's rules copy their
    state per move; a front door holds thousands of waiting calls) and keep
    many long-lived objects. What the process holds when it starts serving is
    frozen out of the collector, and young collections run a tenth as often:
    most of a message's objects are freed by reference counting before any
    collection would look at them, and a full collection walks every object
    that is left."""
    gc.freeze()
    young, middle, old = gc.get_threshold()
    gc.set_threshold(young * 10, middle, old)


def raise_open_files_limit() -> int:
    """Raise this process's open-files limit to the hard limit: every player
    holds a connection to a front door and one to a room, so the soft limit
    (often 1,024) would bind long before memory or CPU. Ray's processes
    started from here inherit it. Returns the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as error:
            log.warning("could not raise the open-files limit from %d to %d: %s", soft, target, error)
    return soft
