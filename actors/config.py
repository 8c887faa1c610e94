"""Settings the actors need, as plain frozen dataclasses the host builds
from its one typed configuration (host/config.py) and passes down."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class RoomConfig:
    bind_host: str = "127.0.0.1"
    # Ports a room may bind on its node, inclusive; 0, 0 means any free port.
    port_min: int = 0
    port_max: int = 0
    token_secret: bytes = b""
    # After a game ends, streams stay open this long for the final messages.
    linger_s: float = 5.0
    # A table whose players have all been away this long is closed (R-P9).
    abandon_after_s: float = 60.0
    commit_rate: float = 200.0
    commit_burst: float = 400.0
    max_message_bytes: int = 64 * 1024


@dataclass(frozen=True)
class LobbyConfig:
    room: RoomConfig = field(default_factory=RoomConfig)
    # Seeds every table's seed; None draws one from the OS (and records it).
    seed: int | None = None
    warm_pool_size: int = 2
    # Idle warm rooms beyond warm_pool_size are released after this long.
    idle_release_s: float = 300.0
    token_ttl_s: float = 3600.0
    # Per game: options every table of that game gets (e.g. turn_timeout_ms).
    game_options: dict[str, dict[str, int]] = field(default_factory=dict)
    # Ray namespace-wide actor names; the lobby is detached on a shared cluster.
    detached: bool = False
