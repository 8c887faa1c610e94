"""What one client may ask of a front door: a rate for each kind of call and
a cap on what it may hold at once, per client identity, so that no single
client can spend what every client shares (the lobby's time, its private
tables, the calls a front door holds). The global caps (the front door's
waiting players, the lobby's private tables) stay as the last line.

A client is who a call says it is: an authenticated player when the
operator plugs in authentication (host/identity.py), else the address its
connection comes from. Addresses are shared (a household, a campus behind
one NAT), so they get larger allowances than a player; an operator whose
players all sign in gives the address allowance little to do.

The identities remembered are bounded: the least recently seen are
forgotten first (a forgotten identity starts again with a full budget and
holds nothing, as a client that went quiet does)."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum


class Kind(Enum):
    """The kinds of call, each with its own rate per client."""

    JOIN = "join"  # JoinQueue, JoinPrivateTable
    LEAVE = "leave"  # LeaveQueue
    LOOKUP = "lookup"  # LookupTable, Spectate
    CREATE_TABLE = "create table"  # CreatePrivateTable
    TOURNAMENT_WRITE = "tournament change"  # CreateTournament, Register, Withdraw, StartTournament
    TOURNAMENT_READ = "tournament read"  # GetTournament, GetResults, WatchTournament


@dataclass(frozen=True)
class Allowance:
    """One kind of client's budget: calls a second (and at once) per kind,
    and what it may hold at once."""

    rates: dict[Kind, tuple[float, float]]  # kind -> (per second, burst)
    joins_waiting: int  # JoinQueue / JoinPrivateTable calls held at once
    calls_unread: int  # calls whose request message has not arrived yet
    exempt: bool = False  # none of the above applies


PLAYER = Allowance(
    rates={Kind.JOIN: (2.0, 8.0), Kind.LEAVE: (4.0, 8.0), Kind.LOOKUP: (10.0, 30.0), Kind.CREATE_TABLE: (0.2, 5.0),
           Kind.TOURNAMENT_WRITE: (2.0, 6.0), Kind.TOURNAMENT_READ: (5.0, 20.0)},
    joins_waiting=4, calls_unread=16)
ADDRESS = Allowance(
    rates={Kind.JOIN: (100.0, 1000.0), Kind.LEAVE: (100.0, 1000.0), Kind.LOOKUP: (200.0, 1000.0),
           Kind.CREATE_TABLE: (5.0, 50.0), Kind.TOURNAMENT_WRITE: (20.0, 200.0), Kind.TOURNAMENT_READ: (50.0, 500.0)},
    joins_waiting=2000, calls_unread=512)
# An address the operator exempts (its load generators, `--quota-exempt`):
# only the front door's global caps apply to it.
EXEMPT = Allowance(rates={}, joins_waiting=0, calls_unread=0, exempt=True)
# Identities remembered at once by a front door, and how many of the oldest
# are looked at to make room for a new one.
MAX_IDENTITIES = 100_000
_FORGET_SCAN = 64


class OverQuota(Exception):
    """The client asked for more than its allowance; the message says what
    and when to try again (RESOURCE_EXHAUSTED)."""


@dataclass
class _Bucket:
    rate: float
    burst: float
    tokens: float
    stamp: float

    def take(self, now: float) -> float:
        """0 when a call may go ahead (and is counted), else the seconds until one may."""
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate


@dataclass
class ClientUsage:
    """What one client has spent and holds."""

    allowance: Allowance
    buckets: dict[Kind, _Bucket] = field(default_factory=dict)
    joins_waiting: int = 0
    calls_unread: int = 0

    @property
    def idle(self) -> bool:
        return self.joins_waiting == 0 and self.calls_unread == 0


class Quotas:
    """Every client's usage at one front door."""

    def __init__(self, allowance_of: Callable[[str], Allowance], limit: int = MAX_IDENTITIES,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._allowance_of = allowance_of
        self._limit = limit
        self._clock = clock
        self._usage: OrderedDict[str, ClientUsage] = OrderedDict()
        self.refused = 0

    def __len__(self) -> int:
        return len(self._usage)

    def usage(self, client: str) -> ClientUsage:
        usage = self._usage.get(client)
        if usage is None:
            usage = self._usage[client] = ClientUsage(self._allowance_of(client))
            self._forget_beyond_limit()
        else:
            self._usage.move_to_end(client)
        return usage

    def exempt(self, client: str) -> bool:
        """Whether no per-client limit applies to `client` (the lobby's neither)."""
        return self._allowance_of(client).exempt

    def spend(self, client: str, kind: Kind) -> None:
        """Count one call of `kind`, or OverQuota when the client is over its rate."""
        usage = self.usage(client)
        if usage.allowance.exempt:
            return
        bucket = usage.buckets.get(kind)
        now = self._clock()
        if bucket is None:
            rate, burst = usage.allowance.rates[kind]
            bucket = usage.buckets[kind] = _Bucket(rate, burst, burst, now)
        wait = bucket.take(now)
        if wait > 0:
            self.refused += 1
            raise OverQuota(f"too many {kind.value} calls from this client: at most {bucket.rate:g} a second "
                            f"({bucket.burst:g} at once); try again in {wait:.1f} s")

    def hold_join(self, client: str) -> None:
        usage = self.usage(client)
        if usage.allowance.exempt:
            return
        if usage.joins_waiting >= usage.allowance.joins_waiting:
            self.refused += 1
            raise OverQuota(f"this client already waits for {usage.joins_waiting} seats, its most; "
                            "leave a queue or wait to be seated first")
        usage.joins_waiting += 1

    def release_join(self, client: str) -> None:
        usage = self._usage.get(client)
        if usage is not None and usage.joins_waiting > 0:
            usage.joins_waiting -= 1

    def hold_unread(self, client: str) -> None:
        usage = self.usage(client)
        if usage.allowance.exempt:
            return
        if usage.calls_unread >= usage.allowance.calls_unread:
            self.refused += 1
            raise OverQuota(f"this client has {usage.calls_unread} calls open whose request has not arrived, its "
                            "most; send each request as the call opens")
        usage.calls_unread += 1

    def release_unread(self, client: str) -> None:
        usage = self._usage.get(client)
        if usage is not None and usage.calls_unread > 0:
            usage.calls_unread -= 1

    def _forget_beyond_limit(self) -> None:
        """Forget the least recently seen clients that hold nothing; one that
        holds calls is kept (its counts must come back down). Only the
        oldest few are looked at, so a new client costs the same however
        many are remembered (and past the limit by those holding calls,
        which their own caps bound)."""
        for client in [client for client, _ in zip(self._usage, range(_FORGET_SCAN))]:
            if len(self._usage) <= self._limit:
                return
            if self._usage[client].idle:
                del self._usage[client]
