"""The host's one typed configuration, built from CLI flags over
environment variables (TABLEHOST_*) over defaults (host/config_flags.py),
and passed down."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from tablehost.actors.config import DEFAULT_TABLES_PER_ROOM, LobbyConfig, RoomConfig, default_free_slots
from tablehost.actors.log_format import LOG_FORMATS


# An HMAC key shorter than its hash's output weakens every seat token.
MIN_TOKEN_SECRET_BYTES = 32
# A table waits for its seats' hellos at most this long (players wait on it).
MAX_DEAL_WAIT_S = 60.0


@dataclass(frozen=True)
class HostConfig:
    host: str = "127.0.0.1"
    port: int = 50051
    # A Ray address to join; None starts an embedded local Ray.
    ray_address: str | None = None
    room_host: str = "127.0.0.1"
    # What rooms tell players their address is ("" for room_host; see RoomConfig).
    advertise_host: str = ""
    room_port_min: int = 0
    room_port_max: int = 0
    token_secret: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)
    tables_per_room: int = DEFAULT_TABLES_PER_ROOM
    rooms_per_cpu: float = 1.0
    # None: a quarter of a room (actors.config.default_free_slots).
    free_slots: int | None = None
    idle_release_s: float = 300.0
    table_retention_s: float = 600.0
    max_waiting: int = 100_000
    game_modules: tuple[str, ...] = ()
    # Folders the game modules may be imported from: the one tablehost was started in.
    game_path: tuple[str, ...] = ()
    linger_s: float = 5.0
    abandon_after_s: float = 60.0
    seed: int | None = None
    turn_timeouts_ms: dict[str, int] = field(default_factory=dict)
    commit_rate: float = 200.0
    # Where tables are made durable: "local:DIR" or a redis:// URL; None
    # keeps them in memory only (a dead room loses its games).
    store: str | None = None
    # The store is this run's own folder (the default of an embedded host):
    # deleted when the host stops, as nothing after the run can use it.
    store_is_temporary: bool = False
    # A table stream must say hello this soon after it opens, and a front
    # door call must send its request this soon after it opens.
    hello_timeout_s: float = 5.0
    request_timeout_s: float = 10.0
    # A new table waits this long at most for every seat's hello (each bringing
    # the player's entropy for the deal); 0 deals at once, without any.
    deal_wait_s: float = 3.0
    # Who a call comes from (host/identity.py): "" (its address), "hmac"
    # (player tokens signed with player_auth_secret) or module:ATTRIBUTE.
    player_auth: str = ""
    player_auth_secret: bytes = field(default=b"", repr=False)
    # Addresses (or CIDR networks) no per-client quota applies to: the
    # operator's own load generators (host/quotas.py).
    quota_exempt: tuple[str, ...] = ()
    # PEM certificate chain and key for the front door and every room's table
    # server; empty: plaintext.
    tls_cert_pem: bytes = b""
    tls_key_pem: bytes = field(default=b"", repr=False)
    # Or each room node's own certificate, read by the room on its node: a
    # path or "env:NAME" for each (RoomConfig.tls_cert_file); "" for the one above.
    room_tls_cert: str = ""
    room_tls_key: str = ""
    # The front door's Prometheus metrics (and /targets, every room's) on
    # this port of `host`, 0 for any free one; None serves no metrics, from
    # the front door or the rooms.
    metrics_port: int | None = None
    # "text" or "json" (one object a line), for every process of the host.
    log_format: str = "text"
    # Tournaments not yet finished one organiser may have at once: each holds
    # a process until it finishes (docs/operations.md, "Sizing").
    max_tournaments_per_organiser: int = 10
    # A tournament not started this long after its creation expires (an
    # organiser may ask for less).
    tournament_start_within_s: float = 24 * 3600.0
    # The admin listener (host/admin_service.py): where it binds (port 0:
    # any free one), the secret its tokens are signed with, and where a
    # token for this run is written when the secret was made up for it.
    admin_host: str = "127.0.0.1"
    admin_port: int = 0  # any free one (the CLI's default is 50052)
    admin_secret: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)
    admin_token_file: str = ""
    # JSON lines of every admin action, besides the host's log ("" for none).
    audit_file: str = ""
    # How old the admin status snapshot may be before a Status call refreshes it.
    status_interval_s: float = 1.0
    # Rooms follow demand (actors/placement.py): room nodes declare the
    # tablehost_room resource and Ray's autoscaler sizes them.
    rooms_follow_demand: bool = False
    # The admin console's HTTP port on admin_host (host/console.py); 0: any
    # free one; None: no console.
    console_port: int | None = None
    # The web gateway and web table (host/web_gateway.py) on this port of
    # `host`, the players' address; 0: any free one; None: none.
    web_port: int | None = None

    def __post_init__(self) -> None:
        if len(self.token_secret) < MIN_TOKEN_SECRET_BYTES:
            raise ValueError(f"the token secret is {len(self.token_secret)} bytes; at least "
                             f"{MIN_TOKEN_SECRET_BYTES} are required")
        if self.hello_timeout_s <= 0:
            raise ValueError(f"the hello timeout must be positive, got {self.hello_timeout_s}")
        if not 0 <= self.deal_wait_s <= MAX_DEAL_WAIT_S:
            raise ValueError(f"the deal wait is 0 to {MAX_DEAL_WAIT_S:g} s, got {self.deal_wait_s}")
        if bool(self.tls_cert_pem) != bool(self.tls_key_pem):
            raise ValueError("TLS needs both a certificate and its key")
        if bool(self.room_tls_cert) != bool(self.room_tls_key):
            raise ValueError("the rooms' own certificates need both a certificate and a key")
        if self.room_tls_cert and not self.tls_cert_pem:
            raise ValueError("rooms with certificates of their own need the front door on TLS too (--tls-cert)")
        if self.metrics_port is not None and not 0 <= self.metrics_port <= 65535:
            raise ValueError(f"the metrics port must be 0-65535, got {self.metrics_port}")
        if self.log_format not in LOG_FORMATS:
            raise ValueError(f"the log format must be one of {', '.join(LOG_FORMATS)}, got {self.log_format!r}")
        if self.max_tournaments_per_organiser < 1 or self.tournament_start_within_s <= 0:
            raise ValueError("an organiser may have at least 1 tournament, and a tournament some time to start")
        if len(self.admin_secret) < MIN_TOKEN_SECRET_BYTES:
            raise ValueError(f"the admin secret is {len(self.admin_secret)} bytes; at least "
                             f"{MIN_TOKEN_SECRET_BYTES} are required")
        if not 0 <= self.admin_port <= 65535 or self.status_interval_s <= 0:
            raise ValueError("the admin port is 0-65535 and the status interval positive")
        if self.console_port is not None and not 0 <= self.console_port <= 65535:
            raise ValueError(f"the console port must be 0-65535, got {self.console_port}")
        if self.web_port is not None and not 0 <= self.web_port <= 65535:
            raise ValueError(f"the web port must be 0-65535, got {self.web_port}")

    def lobby_config(self, run_id: str = "") -> LobbyConfig:
        """The lobby's settings and its rooms'; `run_id` is this run of the
        host (the FrontDoor makes one per start), kept in the config so a lobby
        that Ray restarts keeps it."""
        room = RoomConfig(
            bind_host=self.room_host,
            advertise_host=self.advertise_host,
            port_min=self.room_port_min,
            port_max=self.room_port_max,
            token_secret=self.token_secret,
            linger_s=self.linger_s,
            abandon_after_s=self.abandon_after_s,
            commit_rate=self.commit_rate,
            commit_burst=self.commit_rate * 2,
            tables_per_room=self.tables_per_room,
            game_modules=self.game_modules,
            game_path=self.game_path,
            store=self.store,
            run_id=run_id,
            hello_timeout_s=self.hello_timeout_s,
            deal_wait_s=self.deal_wait_s,
            tls_cert_pem=self.tls_cert_pem,
            tls_key_pem=self.tls_key_pem,
            tls_cert_file=self.room_tls_cert,
            tls_key_file=self.room_tls_key,
            metrics=self.metrics_port is not None,
            log_format=self.log_format,
        )
        return LobbyConfig(
            room=room,
            seed=self.seed,
            rooms_per_cpu=self.rooms_per_cpu,
            free_slots=default_free_slots(self.tables_per_room) if self.free_slots is None else self.free_slots,
            idle_release_s=self.idle_release_s,
            rooms_follow_demand=self.rooms_follow_demand,
            table_retention_s=self.table_retention_s,
            game_options={game: {"turn_timeout_ms": ms} for game, ms in self.turn_timeouts_ms.items()},
        )
