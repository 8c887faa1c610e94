"""An organiser's places: at most the host's cap of tournaments not yet
finished per organiser, whichever front door creates them.

Each organiser has an event log in the host's store (`organiser-ID`) of the
tournaments it was given a place for. A front door takes a place by
appending to that log at the index after what it read, having counted the
places still taken: two front doors taking the last place at once cannot
both succeed (the store refuses the second append, which reads and counts
again), so the cap holds across a cluster.

A place is free again once its tournament is finished (played out, or
expired unstarted): the front door asks the tournament (`still_open`, a
question to its actor, which ends its process a few seconds after it
finishes). Places found free are marked in the log, so later counts ask
only about the tournaments that may still be open.

The log's events:
    {"kind": "opened", "tournament", "at_ms"}
    {"kind": "closed", "tournaments": [...]}  (found finished, or never created)"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from tablehost.actors.store.event_log import EventConflict, EventLog

# Appends tried before giving up when other front doors keep getting there first.
CLAIM_ATTEMPTS = 20

StillOpen = Callable[[str, int], Awaitable[bool]]


class CapReached(Exception):
    def __init__(self, organiser: str, open_tournaments: int, cap: int) -> None:
        super().__init__(f"organiser {organiser!r} has {open_tournaments} tournaments not yet finished, the most "
                         f"this host allows ({cap}); one must finish (or expire unstarted) before another is created")
        self.open_tournaments = open_tournaments


def places_log(organiser_id: str) -> str:
    return f"organiser-{organiser_id}"


def taken_places(events: list[dict[str, Any]]) -> dict[str, int]:
    """The tournaments given a place and not known to be closed, with when
    each place was taken (epoch ms), in that order."""
    taken: dict[str, int] = {}
    for event in events:
        if event["kind"] == "opened":
            taken[event["tournament"]] = event["at_ms"]
        elif event["kind"] == "closed":
            for tournament_id in event["tournaments"]:
                taken.pop(tournament_id, None)
    return taken


class OrganiserPlaces:
    """Takes and frees organisers' places (the log calls run in threads:
    the store's I/O blocks)."""

    def __init__(self, log: EventLog, cap: int, still_open: StillOpen) -> None:
        if cap < 1:
            raise ValueError(f"an organiser may have at least 1 tournament, not {cap}")
        self.log = log
        self.cap = cap
        self._still_open = still_open

    async def take(self, organiser_id: str, organiser: str, tournament_id: str, at_ms: int) -> int:
        """A place for `tournament_id`; returns how many the organiser now
        holds. CapReached when it holds the cap already."""
        name = places_log(organiser_id)
        for _ in range(CLAIM_ATTEMPTS):
            events = await asyncio.to_thread(self.log.read, name)
            taken = taken_places(events)
            answers = await asyncio.gather(*(self._still_open(tid, since) for tid, since in taken.items()))
            still = [tid for tid, is_open in zip(taken, answers) if is_open]
            closed = [tid for tid, is_open in zip(taken, answers) if not is_open]
            if len(still) >= self.cap:
                await self._mark_closed(name, len(events), closed)
                raise CapReached(organiser, len(still), self.cap)
            try:
                await asyncio.to_thread(self.log.append, name, len(events),
                                        {"kind": "opened", "tournament": tournament_id, "at_ms": at_ms})
            except EventConflict:
                continue
            await self._mark_closed(name, len(events) + 1, closed)
            return len(still) + 1
        raise EventConflict(f"{name}: other front doors kept taking places over {CLAIM_ATTEMPTS} attempts")

    async def free(self, organiser_id: str, tournament_id: str) -> None:
        """The tournament was not created after all: its place is free."""
        name = places_log(organiser_id)
        for _ in range(CLAIM_ATTEMPTS):
            events = await asyncio.to_thread(self.log.read, name)
            if await self._mark_closed(name, len(events), [tournament_id]):
                return

    async def _mark_closed(self, name: str, index: int, closed: list[str]) -> bool:
        """Best effort: a mark another writer overtook is made by a later count."""
        if not closed:
            return True
        try:
            await asyncio.to_thread(self.log.append, name, index, {"kind": "closed", "tournaments": closed})
            return True
        except EventConflict:
            return False
