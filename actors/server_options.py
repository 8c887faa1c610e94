"""Options for every grpc.aio server the host runs (the front door and each
room), and how each binds its port (TLS or plaintext).

gRPC's C core holds calls that have arrived but that the Python server has
not yet picked up, and by default CANCELs every such call beyond 1,000 (the
client sees CANCELLED, as if it had left a queue). A front door hit by a
burst of thousands of JoinQueue calls must take them all: the bound that
matters there is its own cap on waiting players, so its pending limit is set
at least as high (FRONT_DOOR_PENDING_CALLS). A room's calls are its players'
table streams, which arrive as its tables start or move to it. Each call
held costs memory the process keeps after a flood of them (docs/reliability.md,
"Under attack", measures it), so a room's limit (ROOM_PENDING_CALLS) holds
only a quarter of a full room's seats reconnecting at the same moment; a
call refused past it is retried by the SDK like any dropped stream.

A room also caps the streams one connection may have open at once
(ROOM_STREAMS_PER_CONNECTION, HTTP/2's MAX_CONCURRENT_STREAMS; the front
door has none, as load drivers put many players' calls on one connection).
gRPC counts a stream the client cancelled until the room has let go of it,
and refuses streams past the cap with REFUSED_STREAM before any of the
room's Python sees them: a client opening and cancelling streams as fast as
it can on one connection (HTTP/2's "rapid reset") holds at most that many of
the room's calls. The SDK opens a connection for each seat's stream; a
client playing many seats opens more connections.

Connections are kept honest too: a connection with no call open for
CONNECTION_IDLE_MS is closed (clients reconnect on their next call, as gRPC
channels do by themselves); the server pings a quiet connection every
KEEPALIVE_TIME_MS and closes it when the ping is not answered within
KEEPALIVE_TIMEOUT_MS (a peer that vanished without closing its socket);
and a client that pings more often than MIN_CLIENT_PING_INTERVAL_MS, or at
all while it has no call open, collects strikes and is sent away after
MAX_PING_STRIKES (GOAWAY "too_many_pings")."""

from __future__ import annotations

import grpc
from grpc import aio

FRONT_DOOR_PENDING_CALLS = 100_000
ROOM_PENDING_CALLS = 512
ROOM_STREAMS_PER_CONNECTION = 16
CONNECTION_IDLE_MS = 60_000
KEEPALIVE_TIME_MS = 30_000
KEEPALIVE_TIMEOUT_MS = 10_000
MIN_CLIENT_PING_INTERVAL_MS = 10_000
MAX_PING_STRIKES = 2


def server_options(
    max_receive_bytes: int,
    max_pending_calls: int,
    *,
    connection_idle_ms: int = CONNECTION_IDLE_MS,
    streams_per_connection: int | None = None,
) -> list[tuple[str, int]]:
    """`max_pending_calls`: calls arrived and not yet picked up that gRPC
    holds before it cancels more (FRONT_DOOR_PENDING_CALLS, ROOM_PENDING_CALLS);
    `streams_per_connection`: the most streams one connection may have open
    (None: no cap)."""
    capped = [] if streams_per_connection is None else [
        ("grpc.max_concurrent_streams", streams_per_connection),
        # What a client may send ahead of what the room has read stays at
        # HTTP/2's initial window (64 KiB a stream) instead of growing with
        # gRPC's bandwidth probing: a stream the room no longer reads (ended
        # for flooding, or replaced) cannot make it buffer megabytes.
        ("grpc.http2.bdp_probe", 0),
    ]
    return capped + [
        ("grpc.max_receive_message_length", max_receive_bytes),
        ("grpc.server.max_pending_requests", max_pending_calls),
        ("grpc.server.max_pending_requests_hard_limit", max_pending_calls),
        ("grpc.so_reuseport", 0),
        ("grpc.max_connection_idle_ms", connection_idle_ms),
        ("grpc.keepalive_time_ms", KEEPALIVE_TIME_MS),
        ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
        # Keep pinging a quiet stream (a table waiting on a slow player), not
        # only the first two times.
        ("grpc.http2.max_pings_without_data", 0),
        ("grpc.http2.min_recv_ping_interval_without_data_ms", MIN_CLIENT_PING_INTERVAL_MS),
        ("grpc.http2.max_ping_strikes", MAX_PING_STRIKES),
        ("grpc.keepalive_permit_without_calls", 0),
    ]


def server_credentials(cert_pem: bytes, key_pem: bytes) -> grpc.ServerCredentials | None:
    """TLS credentials from a PEM certificate chain and its private key, or
    None (plaintext) when no certificate is configured."""
    if not cert_pem:
        return None
    return grpc.ssl_server_credentials([(key_pem, cert_pem)])


def bind_port(server: aio.Server, address: str, credentials: grpc.ServerCredentials | None) -> int:
    """Bind `address` with TLS when there are credentials, else in plaintext;
    the port bound (0 when it could not be)."""
    if credentials is None:
        return server.add_insecure_port(address)
    return server.add_secure_port(address, credentials)
