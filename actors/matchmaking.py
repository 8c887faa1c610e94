"""Matching waiting players into tables: the lobby's queues and private
tables, as plain data with no Ray and no clock of its own (time is handed
in), so every rule here is tested in process.

A waiting player is held by the front door it connected to; the lobby only
knows its ticket. When a gathering (a public queue, or a private table) has
enough players, they are *proposed* as a group, and each player's front
door confirms it still holds that player (or declines: the caller hung up).
Only a fully confirmed group becomes a table, so a table never starts with
a player who had already gone. A decline dissolves the group: the players
still there go back to the head of their queue, in their order, and are
matched again; a group not confirmed in time (its front door died) is
dissolved the same way, without the unconfirmed players."""

from __future__ import annotations

import enum
import itertools
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any


class Refusal(enum.Enum):
    """Why the lobby refused a request; the front door maps each to one gRPC status."""

    NOT_FOUND = "not_found"  # no such private table, table or ticket
    ALREADY_EXISTS = "already_exists"  # the ticket is already waiting
    INVALID_ARGUMENT = "invalid_argument"  # a request the lobby cannot take as given
    FAILED_PRECONDITION = "failed_precondition"  # a request the table's state no longer allows
    RESOURCE_EXHAUSTED = "resource_exhausted"  # a bound on what the lobby keeps
    UNAVAILABLE = "unavailable"  # no room could take the table now
    CANCELLED = "cancelled"  # the ticket left the queue (LeaveQueue)
    INTERNAL = "internal"  # the game failed to set up its table


class LobbyRefused(Exception):
    """A lobby request refused for a reason the caller can act on."""

    def __init__(self, refusal: Refusal, message: str) -> None:
        super().__init__(refusal, message)  # both in args, so it survives pickling through Ray
        self.refusal = refusal
        self.message = message

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True, slots=True)
class GatheringKey:
    """A public queue is (game, variant, partition): players the game calls
    compatible (by their join data) share a partition. A private table is its code."""

    game: str
    variant: str = ""
    code: str = ""
    partition: str = ""
    seats: int = 0

    @property
    def label(self) -> str:
        if self.code:
            return f"private table {self.code}"
        label = self.game + (f"/{self.variant}" if self.variant else "")
        label += f" at {self.seats} seats" if self.seats else ""
        return label + (f" ({self.partition})" if self.partition else "")


@dataclass(eq=False, slots=True)
class Entrant:
    ticket: str
    name: str
    door: str
    key: GatheringKey
    join: dict[str, Any] = field(default_factory=dict)  # the game's checked join data
    group: int | None = None
    client: str = ""  # who its front door says it is (actors/client_limits.py); "" for none


@dataclass(eq=False)
class Gathering:
    key: GatheringKey
    seats: int
    options: dict[str, Any]
    created_at: float
    waiting: OrderedDict[str, Entrant] = field(default_factory=OrderedDict)
    proposed: int = 0  # groups of this gathering awaiting confirmation
    # A private table takes the join-data partition of its first player;
    # a public queue's is in its key.
    partition: str | None = None

    @property
    def private(self) -> bool:
        return bool(self.key.code)


@dataclass(eq=False)
class Group:
    group_id: int
    gathering: Gathering
    entrants: list[Entrant]
    proposed_at: float
    confirmed: set[str] = field(default_factory=set)

    @property
    def complete(self) -> bool:
        return len(self.confirmed) == len(self.entrants)


@dataclass(frozen=True, slots=True)
class Dropped:
    """A player the lobby let go of without seating, and why."""

    entrant: Entrant
    refusal: Refusal
    message: str


class Matchmaker:
    def __init__(self) -> None:
        self.gatherings: dict[GatheringKey, Gathering] = {}
        self.entrants: dict[str, Entrant] = {}
        self.groups: dict[int, Group] = {}
        self._private_keys: dict[str, GatheringKey] = {}
        # Gatherings that gained players since the last propose(): only they
        # can have filled, so a lobby with thousands of private tables does
        # not look at every one of them per batch.
        self._dirty: set[GatheringKey] = set()
        self._group_ids = itertools.count(1)

    # -- gatherings -------------------------------------------------------------

    def queue(self, game: str, variant: str, seats: int, options: dict[str, Any], now: float,
              partition: str = "") -> Gathering:
        key = GatheringKey(game, variant, partition=partition, seats=seats)
        gathering = self.gatherings.get(key)
        if gathering is None:
            gathering = self.gatherings[key] = Gathering(key, seats, options, now)
        return gathering

    def open_private(self, code: str, game: str, seats: int, options: dict[str, Any], now: float) -> Gathering:
        if code in self._private_keys:
            raise LobbyRefused(Refusal.ALREADY_EXISTS, f"private table {code} exists already")
        key = self._private_keys[code] = GatheringKey(game, code=code)
        gathering = self.gatherings[key] = Gathering(key, seats, options, now)
        return gathering

    def private_gathering(self, code: str) -> Gathering | None:
        key = self._private_keys.get(code)
        return None if key is None else self.gatherings.get(key)

    @property
    def private_count(self) -> int:
        return len(self._private_keys)

    def private_codes_older_than(self, cutoff: float) -> list[str]:
        return [code for code, key in self._private_keys.items() if self.gatherings[key].created_at < cutoff]

    # -- players ---------------------------------------------------------------

    def join(self, gathering: Gathering, ticket: str, name: str, door: str,
             join: dict[str, Any] | None = None, client: str = "") -> Entrant:
        if ticket in self.entrants:
            raise LobbyRefused(Refusal.ALREADY_EXISTS, f"ticket {ticket} is already waiting")
        if gathering.private and len(gathering.waiting) + gathering.proposed * gathering.seats >= gathering.seats:
            # A private table forms one table and is then forgotten: a player
            # beyond its seats would wait for a table that never comes.
            raise LobbyRefused(Refusal.RESOURCE_EXHAUSTED, f"private table {gathering.key.code} is full")
        entrant = Entrant(ticket, name, door, gathering.key, join or {}, client=client)
        gathering.waiting[ticket] = entrant
        self.entrants[ticket] = entrant
        self._dirty.add(gathering.key)
        return entrant

    def leave(self, ticket: str) -> Entrant | None:
        """Take a player out wherever they are: waiting, or proposed (their
        group is dissolved). None if the ticket is not known here (already
        seated, or never came)."""
        entrant = self.entrants.get(ticket)
        if entrant is None:
            return None
        if entrant.group is not None:
            self._dissolve(self.groups[entrant.group], without={ticket})
        gathering = self.gatherings.get(entrant.key)
        if gathering is not None:
            gathering.waiting.pop(ticket, None)
        del self.entrants[ticket]
        return entrant

    def waiting_count(self, key: GatheringKey) -> int:
        gathering = self.gatherings.get(key)
        return 0 if gathering is None else len(gathering.waiting)

    # -- groups ----------------------------------------------------------------

    def propose(self, now: float) -> list[Group]:
        """Form a group from every gathering that has enough players waiting
        (in arrival order). A private table proposes once at a time."""
        groups: list[Group] = []
        dirty, self._dirty = self._dirty, set()
        for key in dirty:
            gathering = self.gatherings.get(key)
            if gathering is None:
                continue
            while len(gathering.waiting) >= gathering.seats and not (gathering.private and gathering.proposed):
                entrants = [gathering.waiting.popitem(last=False)[1] for _ in range(gathering.seats)]
                group = Group(next(self._group_ids), gathering, entrants, now)
                for entrant in entrants:
                    entrant.group = group.group_id
                gathering.proposed += 1
                self.groups[group.group_id] = group
                groups.append(group)
        return groups

    def confirm(self, group_id: int, ticket: str) -> Group | None:
        """A front door still holds this player. Returns the group once every
        player is confirmed: it has left the matchmaker and is to be seated."""
        group = self.groups.get(group_id)
        if group is None or ticket not in {e.ticket for e in group.entrants}:
            return None  # dissolved meanwhile: the player is waiting again
        group.confirmed.add(ticket)
        if not group.complete:
            return None
        del self.groups[group_id]
        group.gathering.proposed -= 1
        for entrant in group.entrants:
            del self.entrants[entrant.ticket]
        if group.gathering.private:
            self._forget_private(group.gathering.key)  # one table per code
        return group

    def decline(self, group_id: int, ticket: str) -> Entrant | None:
        """The front door no longer holds this player: they leave, and their group dissolves."""
        entrant = self.entrants.get(ticket)
        if entrant is None or entrant.group != group_id:
            return None
        return self.leave(ticket)

    def expire(self, now: float, confirm_timeout_s: float) -> list[Dropped]:
        """Dissolve groups not confirmed in time; their unconfirmed players
        (whose front door did not answer) are dropped."""
        dropped: list[Dropped] = []
        for group in [g for g in self.groups.values() if now - g.proposed_at >= confirm_timeout_s]:
            silent = {e.ticket for e in group.entrants} - group.confirmed
            self._dissolve(group, without=silent)
            for ticket in silent:
                entrant = self.leave(ticket)
                if entrant is not None:
                    dropped.append(Dropped(entrant, Refusal.UNAVAILABLE, "your front door did not confirm your seat in time"))
        return dropped

    def drop_door(self, door: str) -> list[Entrant]:
        """A front door is gone: so are the players it held."""
        gone = [entrant for entrant in self.entrants.values() if entrant.door == door]
        for entrant in gone:
            self.leave(entrant.ticket)
        return gone

    def close_private(self, code: str) -> list[Entrant]:
        """Close a private table nobody filled; returns who was waiting at it."""
        gathering = self.private_gathering(code)
        if gathering is None:
            return []
        left: list[Entrant] = []
        for group in [g for g in self.groups.values() if g.gathering is gathering]:
            self._dissolve(group, without=set())
        for ticket in list(gathering.waiting):
            entrant = self.leave(ticket)
            if entrant is not None:
                left.append(entrant)
        self._forget_private(gathering.key)
        return left

    def _forget_private(self, key: GatheringKey) -> None:
        self.gatherings.pop(key, None)
        self._private_keys.pop(key.code, None)

    def _dissolve(self, group: Group, without: set[str]) -> None:
        """Put the group's other players back at the head of their queue, in order."""
        if self.groups.pop(group.group_id, None) is None:
            return
        gathering = group.gathering
        gathering.proposed -= 1
        self._dirty.add(gathering.key)
        for entrant in reversed(group.entrants):
            entrant.group = None
            if entrant.ticket in without:
                continue
            gathering.waiting[entrant.ticket] = entrant
            gathering.waiting.move_to_end(entrant.ticket, last=False)

    def prune_empty_queues(self) -> None:
        """Public queues with nobody waiting or proposed are forgotten."""
        for key in [k for k, g in self.gatherings.items() if not k.code and not g.waiting and not g.proposed]:
            del self.gatherings[key]
