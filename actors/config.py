"""Settings the actors need, as plain frozen dataclasses the host builds
from its one typed configuration (host/config.py) and passes down."""

from __future__ import annotations

from dataclasses import dataclass, field

# Chosen from measurements (docs/benchmarks.md, "Tables held open" and
# "Rooms per CPU"): a table costs about 0.3 MiB and 4 open files (one per
# player's connection) in its room, so 500 tables are ~150 MiB and ~2,000
# files; a room's one event loop runs about 2,000 bot moves a second, i.e.
# 4 a second per table at 500 tables, far above people playing cards. A
# room holds every game a crash of its process would lose until checkpoints
# exist, which is what keeps the number from being larger.
DEFAULT_TABLES_PER_ROOM = 500


def default_free_slots(tables_per_room: int) -> int:
    """A quarter of a room's tables (125 at the default), and never fewer
    than 2, so `--tables-per-room 1` keeps two started processes waiting,
    not a hundred."""
    return max(2, tables_per_room // 4)


@dataclass(frozen=True)
class RoomConfig:
    bind_host: str = "127.0.0.1"
    # The address players (and Prometheus) are told to reach a room at: ""
    # for bind_host, a host name or IP, or "env:NAME" for the value of the
    # environment variable NAME in the room's own process, which differs per
    # node (in Kubernetes, the node's IP from the downward API).
    advertise_host: str = ""
    # Ports a room may bind on its node, inclusive; 0, 0 means any free port.
    port_min: int = 0
    port_max: int = 0
    token_secret: bytes = b""
    # Tables one room actor (one process, one gRPC server) holds at once.
    tables_per_room: int = DEFAULT_TABLES_PER_ROOM
    # After a game ends, its streams stay open this long for the final messages.
    linger_s: float = 5.0
    # A table whose players have all been away (or never came) this long is closed.
    abandon_after_s: float = 60.0
    commit_rate: float = 200.0
    commit_burst: float = 400.0
    # The largest message a table stream takes from a client. Its hello and
    # commits are small (a seat token, a game's action), so anything near
    # this is an attack, refused by gRPC before it is parsed or buffered.
    max_message_bytes: int = 16 * 1024
    # Games beyond the built-in ones, as "package.module:ATTRIBUTE", and the
    # folders they may be imported from (besides the installed packages).
    game_modules: tuple[str, ...] = ()
    game_path: tuple[str, ...] = ()
    # Closed tables are reported to the lobby in batches at most this often.
    report_interval_s: float = 0.05
    # Where tables are made durable (actors/store): "local:DIR" or a
    # redis:// URL; None keeps them in memory only (a dead room loses them).
    store: str | None = None
    # This run of the host (made once per `tablehost serve`): in every seat
    # token and table id; a room refuses tokens of another run.
    run_id: str = ""
    # A table stream that has not said hello this long after opening is closed.
    hello_timeout_s: float = 5.0
    # Streams a room holds open waiting for their hello; past it, the one
    # that has waited longest is closed (a client says hello at once).
    max_streams_awaiting_hello: int = 128
    # Spectator streams one table serves at once (each seat has one stream).
    max_spectators_per_table: int = 64
    # How long a new table waits for every seat's hello (and entropy) before
    # it deals without the seats still missing; 0 deals at once, with no
    # player's entropy (the deal then rests on the host's seed alone).
    deal_wait_s: float = 3.0
    # PEM certificate chain and private key the room's table server presents;
    # empty: plaintext. Bytes, not paths: the files may not exist on other nodes.
    tls_cert_pem: bytes = b""
    tls_key_pem: bytes = field(default=b"", repr=False)
    # Or each room's node has a certificate of its own (for its own address):
    # the files at these paths on the room's node, each a path or "env:NAME"
    # for the path in the variable NAME of the room's own process. When set,
    # they replace tls_cert_pem and tls_key_pem.
    tls_cert_file: str = ""
    tls_key_file: str = ""
    # Serve Prometheus metrics from each room process (on a free port of
    # bind_host, listed by the front door's /targets).
    metrics: bool = False
    # "text" (a line for people) or "json" (one JSON object a line, with the
    # table id, seq and act_id as fields): see actors/log_format.py.
    log_format: str = "text"


@dataclass(frozen=True)
class LobbyConfig:
    room: RoomConfig = field(default_factory=RoomConfig)
    # Seeds every table's seed; None draws one from the OS (and records it).
    seed: int | None = None
    # Rooms kept per CPU of each live node, so every core has a room to run
    # before tables are packed further into the rooms that exist.
    rooms_per_cpu: float = 1.0
    # Free table slots kept ready in started rooms, so a burst of tables
    # seldom waits for a room to start. A room starts when fewer are free.
    free_slots: int = default_free_slots(DEFAULT_TABLES_PER_ROOM)
    # An empty room beyond the per-CPU rooms and the free-slot reserve is
    # released after this long.
    idle_release_s: float = 300.0
    # Rooms follow demand (actors/placement.py): each asks Ray for one unit
    # of the room resource its nodes declare, so Ray's autoscaler adds room
    # nodes for tables waiting and removes the nodes whose rooms were released.
    rooms_follow_demand: bool = False
    # A finished table's record (for lookups and the operator) is kept this long.
    table_retention_s: float = 600.0
    token_ttl_s: float = 3600.0
    # Per game: options every table of that game gets (e.g. turn_timeout_ms).
    game_options: dict[str, dict[str, int]] = field(default_factory=dict)
    # A proposed table whose front doors have not confirmed every player
    # within this long is dissolved (a front door died in between).
    confirm_timeout_s: float = 5.0
    # A front door that has not polled for this long is gone: its waiting
    # players leave the queues.
    door_timeout_s: float = 30.0
    # Private tables waiting to fill, at most, and how long an unfilled one lives.
    max_private_tables: int = 10_000
    private_table_ttl_s: float = 3600.0
