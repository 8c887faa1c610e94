"""Reaching Redis from a store URL, and what makes a write count as durable.

Two kinds of URL:

    redis://HOST:PORT/DB, rediss://..., unix://PATH
        one server. A write is durable once that server has it (run it with
        `appendonly yes`).

    redis+sentinel://HOST:PORT[,HOST:PORT...]/SERVICE[/DB]
        the primary that Redis Sentinel names SERVICE, asked of the sentinels
        listed. When the primary dies, Sentinel promotes a replica and the
        store follows it: a write that fails meanwhile is tried again by its
        caller, as for a server restarting.

Replication in Redis is asynchronous: a primary answers a write before any
replica has it, and a replica promoted after the primary died lacks what it
had not received. So a write is acknowledged only once `replicas` replicas
hold it (Redis's WAIT): `?replicas=N`, 1 by default behind Sentinel, 0 for
one server. A write the replicas do not confirm within `wait_ms` (default
1000) is reported unavailable and tried again; the stores take a repeated
write once, so nothing is applied twice. With one replica confirming every
acknowledged write, the promise is: a command acknowledged to a player
survives the loss of the primary, as long as Sentinel promotes a replica
that confirmed it. With one replica that is the only one it can promote;
with more, Sentinel promotes the replica with the most data, which holds
every write WAIT confirmed unless that replica was lost too. While no
replica confirms (the last one down), writes wait and then fail: tables stop
taking commands rather than acknowledge what one more failure would lose."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import SplitResult, parse_qs, urlsplit, urlunsplit

import redis
from redis.sentinel import Sentinel

SCHEMES = ("redis://", "rediss://", "unix://", "redis+sentinel://")
SENTINEL_SCHEME = "redis+sentinel"
# Seconds a connection or a reply may take before the call counts as failed
# (and is tried again): short, so a primary that vanished is noticed quickly.
SOCKET_TIMEOUT_S = 2.0
_OUR_OPTIONS = ("replicas", "wait_ms")


class BadStoreUrl(ValueError):
    """A store URL this module cannot read; the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class RedisTarget:
    """A client of the primary, and how many replicas confirm a write before
    it is acknowledged (0: the primary alone)."""

    # redis-py types every command's answer as `Awaitable | Any`, for its
    # sync and async clients alike: the sync client is used untyped.
    client: Any
    replicas: int
    wait_ms: int

    def confirmed(self, replicas_holding: int) -> bool:
        return replicas_holding >= self.replicas


def connect(url: str) -> RedisTarget:
    """A client for `url` (see the module's docstring), not yet connected."""
    parts = urlsplit(url)
    options = parse_qs(parts.query)
    replicas = _number(options, "replicas", default=1 if parts.scheme == SENTINEL_SCHEME else 0)
    wait_ms = _number(options, "wait_ms", default=1000)
    if wait_ms < 1:
        raise BadStoreUrl(f"wait_ms must be at least 1 in {url!r}")
    if parts.scheme == SENTINEL_SCHEME:
        client = _sentinel_primary(url, parts)
    else:
        others = "&".join(f"{k}={v}" for k, values in options.items() if k not in _OUR_OPTIONS for v in values)
        client = redis.Redis.from_url(urlunsplit(parts._replace(query=others)), socket_timeout=SOCKET_TIMEOUT_S,
                                      socket_connect_timeout=SOCKET_TIMEOUT_S)
    return RedisTarget(client, replicas, wait_ms)


def _sentinel_primary(url: str, parts: SplitResult) -> redis.Redis:
    path = [piece for piece in parts.path.split("/") if piece]
    if not path or len(path) > 2 or (len(path) == 2 and not path[1].isdigit()):
        raise BadStoreUrl(f"{url!r}: the path is /SERVICE or /SERVICE/DB (the name Sentinel monitors)")
    sentinels = []
    for address in parts.netloc.split(","):
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            raise BadStoreUrl(f"{url!r}: sentinels are HOST:PORT, comma-separated; got {address!r}")
        sentinels.append((host.strip("[]"), int(port)))
    sentinel = Sentinel(sentinels, socket_timeout=SOCKET_TIMEOUT_S, socket_connect_timeout=SOCKET_TIMEOUT_S)
    return sentinel.master_for(path[0], db=int(path[1]) if len(path) == 2 else 0,
                               socket_timeout=SOCKET_TIMEOUT_S, socket_connect_timeout=SOCKET_TIMEOUT_S)


def _number(options: dict[str, list[str]], name: str, default: int) -> int:
    values = options.get(name)
    if not values:
        return default
    if len(values) > 1 or not values[0].isdigit():
        raise BadStoreUrl(f"{name} takes one whole number, got {values}")
    return int(values[0])
