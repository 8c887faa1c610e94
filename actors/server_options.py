"""Options for every grpc.aio server the host runs (the front door and each room).

gRPC's C core holds calls that have arrived but that the Python server has
not yet picked up, and by default CANCELs every such call beyond 1,000 (the
client sees CANCELLED, as if it had left a queue). A front door hit by a
burst of thousands of JoinQueue calls, or a room whose tables' players all
connect at once, must take them all: the bound that matters is the front
door's own cap on waiting players, so the pending limit is set at least as
high."""

from __future__ import annotations

MIN_PENDING_CALLS = 100_000


def server_options(max_receive_bytes: int, max_pending_calls: int = MIN_PENDING_CALLS) -> list[tuple[str, int]]:
    pending = max(max_pending_calls, MIN_PENDING_CALLS)
    return [
        ("grpc.max_receive_message_length", max_receive_bytes),
        ("grpc.server.max_pending_requests", pending),
        ("grpc.server.max_pending_requests_hard_limit", pending),
        ("grpc.so_reuseport", 0),
    ]
