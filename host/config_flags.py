"""The host's flags and their TABLEHOST_* variables: each flag defaults to
its variable, else to the built-in default; reading them checks every value,
naming the flag, and makes the HostConfig (host/config.py)."""

from __future__ import annotations

import argparse
import ipaddress
import os
import secrets
import ssl
import tempfile
from pathlib import Path
from typing import overload

from tablehost.actors.config import DEFAULT_TABLES_PER_ROOM
from tablehost.actors.log_format import LOG_FORMATS
from tablehost.actors.store.redis_url import SCHEMES as REDIS_SCHEMES
from tablehost.host.admin_auth import DEFAULT_TOKEN_FILE
from tablehost.host.config import MAX_DEAL_WAIT_S, MIN_TOKEN_SECRET_BYTES, HostConfig
from tablehost.host.identity import load_verifier


@overload
def _env(name: str, default: str) -> str: ...
@overload
def _env(name: str, default: None = None) -> str | None: ...
def _env(name: str, default: str | None = None) -> str | None:
    return os.environ.get(f"TABLEHOST_{name}", default)


def _env_int(name: str, default: int | None = None) -> int | None:
    """A TABLEHOST_ variable as an integer, or `default` when unset or empty."""
    text = _env(name)
    return int(text) if text else default


def _env_list(name: str) -> list[str]:
    """A comma-separated TABLEHOST_ variable as a list (empty when unset)."""
    return [item.strip() for item in (_env(name) or "").split(",") if item.strip()]


def game_module_paths(flags: list[str]) -> tuple[str, ...]:
    """The games to add (`module:ATTRIBUTE`), from TABLEHOST_GAME_MODULES
    then `--game-module` flags: what a host serves, and what the tools that
    talk to it need to know of the same games."""
    from_env = [path for path in (_env("GAME_MODULES") or "").split(",") if path]
    return tuple(from_env + flags)


def _store_url(given: str | None, *, embedded: bool) -> str | None:
    """The store a host uses. An embedded host (one machine) keeps its tables
    in a new local folder of its own by default; a host on a cluster needs a
    store every node reaches (Redis), so it has none unless told."""
    if given is None:
        if not embedded:
            return None
        return f"local:{Path(tempfile.gettempdir()) / 'tablehost' / secrets.token_hex(8)}"
    if given == "none":
        return None
    if given.startswith(("local:", *REDIS_SCHEMES)):
        return given
    raise SystemExit("--store takes local:DIR, redis://HOST:PORT/DB, redis+sentinel://HOST:PORT,.../SERVICE "
                     f"or none, got {given!r}")



def _token_secret(from_env: str | None) -> bytes:
    """TABLEHOST_TOKEN_SECRET, which must be long enough; a random key when unset."""
    if not from_env:
        return secrets.token_bytes(MIN_TOKEN_SECRET_BYTES)
    secret = from_env.encode()
    if len(secret) < MIN_TOKEN_SECRET_BYTES:
        raise SystemExit(f"TABLEHOST_TOKEN_SECRET is {len(secret)} bytes; it must be at least "
                         f"{MIN_TOKEN_SECRET_BYTES} (e.g. the output of `openssl rand -hex 32`)")
    return secret


def _tls_files(cert_path: str | None, key_path: str | None) -> tuple[bytes, bytes]:
    """The PEM certificate chain and key for --tls-cert/--tls-key (both or
    neither), checked to load and to match here, so a mistake stops the host
    at its start rather than at each client's handshake."""
    if not cert_path and not key_path:
        return b"", b""
    if not (cert_path and key_path):
        raise SystemExit("TLS needs both --tls-cert and --tls-key (or TABLEHOST_TLS_CERT and TABLEHOST_TLS_KEY)")
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(cert_path, key_path)
        return Path(cert_path).read_bytes(), Path(key_path).read_bytes()
    except (OSError, ssl.SSLError) as error:
        raise SystemExit(f"cannot use --tls-cert {cert_path} with --tls-key {key_path}: {error}") from None


def _parse_timeouts(pairs: list[str]) -> dict[str, int]:
    timeouts: dict[str, int] = {}
    for pair in pairs:
        game, _, value = pair.partition("=")
        if not game or not value.isdigit() or int(value) <= 0:
            raise argparse.ArgumentTypeError(f"--turn-timeout takes GAME=MILLISECONDS, got {pair!r}")
        timeouts[game] = int(value)
    return timeouts


def add_arguments(parser: argparse.ArgumentParser, *, serving: bool = True) -> None:
    """`serving`: the host is the command's purpose (`serve`): its admin
    listener has a known port and, with no secret, writes a token file.
    A host a command starts for itself (demo, loadtest, simulate) takes
    any free admin port and writes none."""
    parser.add_argument("--host", default=_env("HOST", "127.0.0.1"), help="front door bind address")
    parser.add_argument("--port", type=int, default=int(_env("PORT", "50051")), help="front door port (0: any)")
    parser.add_argument("--address", default=_env("RAY_ADDRESS"), help="join this Ray cluster instead of starting one")
    parser.add_argument("--room-host", default=_env("ROOM_HOST", "127.0.0.1"),
                        help="address rooms bind (and advertise, without --advertise-host)")
    parser.add_argument("--advertise-host", default=_env("ADVERTISE_HOST", ""), metavar="HOST|env:NAME",
                        help="address players are told to reach rooms at: a host or IP, or env:NAME for the "
                             "variable NAME on each room's node (e.g. the node's IP in Kubernetes)")
    parser.add_argument("--room-ports", default=_env("ROOM_PORTS", "0-0"), help="port range for rooms, e.g. 40000-40999")
    parser.add_argument("--tables-per-room", type=int, default=int(_env("TABLES_PER_ROOM", str(DEFAULT_TABLES_PER_ROOM))),
                        help="tables one room process holds (1: a process per table)")
    parser.add_argument("--rooms-per-cpu", type=float, default=float(_env("ROOMS_PER_CPU", "1")),
                        help="rooms kept per CPU of each node before tables are packed further")
    parser.add_argument("--rooms-follow-demand", action="store_true",
                        default=_env("ROOMS_FOLLOW_DEMAND", "") in ("1", "true", "yes"),
                        help="start rooms only for tables waiting and the free-slot reserve, each asking Ray for "
                             "one unit of the tablehost_room resource room nodes declare, so Ray's autoscaler "
                             "adds and removes room nodes; idle rooms are released, the last one too")
    parser.add_argument("--free-slots", type=int, default=_env_int("FREE_SLOTS"),
                        help="free table slots kept ready in started rooms (default: a quarter of a room)")
    parser.add_argument("--idle-release", type=float, default=float(_env("IDLE_RELEASE_S", "300")),
                        help="seconds an empty room beyond the reserve is kept")
    parser.add_argument("--table-retention", type=float, default=float(_env("TABLE_RETENTION_S", "600")),
                        help="seconds the lobby remembers a finished table")
    parser.add_argument("--max-waiting", type=int, default=int(_env("MAX_WAITING", "100000")),
                        help="players one front door holds waiting at once")
    parser.add_argument("--game-module", action="append", default=[], metavar="MODULE:ATTRIBUTE",
                        help="add a game from an importable module (repeatable)")
    parser.add_argument("--linger", type=float, default=float(_env("LINGER_S", "5")), help="seconds a finished table stays open")
    parser.add_argument("--abandon-after", type=float, default=float(_env("ABANDON_AFTER_S", "60")),
                        help="seconds a table with every player away is kept")
    parser.add_argument("--seed", type=int, default=_env_int("SEED"),
                        help="a fixed lobby seed: table ids and every table's secret seed follow from it, so "
                             "deals repeat (tests and reproducible runs only: players could predict them)")
    parser.add_argument("--turn-timeout", action="append", default=[], metavar="GAME=MS", help="turn timer per game")
    parser.add_argument("--commit-rate", type=float, default=float(_env("COMMIT_RATE", "200")), help="commits/s per stream")
    parser.add_argument("--store", default=_env("STORE"),
                        help="where tables are made durable: local:DIR, redis://HOST:PORT/DB, "
                             "redis+sentinel://HOST:PORT,.../SERVICE[?replicas=N], or none "
                             "(default: a new local folder per run for an embedded host, none on a cluster)")
    parser.add_argument("--hello-timeout", type=float, default=float(_env("HELLO_TIMEOUT_S", "5")),
                        help="seconds a table stream may stay open without saying hello")
    parser.add_argument("--request-timeout", type=float, default=float(_env("REQUEST_TIMEOUT_S", "10")),
                        metavar="S", help="seconds a front door call may stay open without sending its request")
    parser.add_argument("--deal-wait", type=float, default=float(_env("DEAL_WAIT_S", "3")), metavar="S",
                        help="seconds a new table waits for every seat's hello (and entropy) before it deals; "
                             "0: deal at once, with no player's entropy")
    parser.add_argument("--player-auth", default=_env("PLAYER_AUTH", ""), metavar="hmac|MODULE:ATTR",
                        help="prove players by a token their game's account service issues: hmac (signed with "
                             "TABLEHOST_PLAYER_AUTH_SECRET) or your own verifier; default: a client is its address")
    parser.add_argument("--quota-exempt", action="append", default=_env_list("QUOTA_EXEMPT"), metavar="CIDR",
                        help="an address or network no per-client quota applies to (your load generators); "
                             "repeatable")
    parser.add_argument("--tls-cert", default=_env("TLS_CERT"), metavar="FILE",
                        help="PEM certificate chain: serve the front door and the rooms over TLS")
    parser.add_argument("--tls-key", default=_env("TLS_KEY"), metavar="FILE", help="PEM private key of --tls-cert")
    parser.add_argument("--room-tls-cert", default=_env("ROOM_TLS_CERT", ""), metavar="FILE|env:NAME",
                        help="each room node's own certificate chain (for its own address), read by the rooms on "
                             "their node: a path, or env:NAME for the path in the variable NAME there; the rooms "
                             "then serve it instead of --tls-cert")
    parser.add_argument("--room-tls-key", default=_env("ROOM_TLS_KEY", ""), metavar="FILE|env:NAME",
                        help="the key of --room-tls-cert, found the same way")
    parser.add_argument("--metrics-port", type=int,
                        default=_env_int("METRICS_PORT"), metavar="PORT",
                        help="serve Prometheus metrics here (/metrics, and /targets listing every room's); "
                             "0: any free port; default: no metrics")
    parser.add_argument("--log-format", choices=LOG_FORMATS, default=_env("LOG_FORMAT", "text"),
                        help="the log of every process: lines for people (text) or one JSON object a line")
    parser.add_argument("--max-tournaments-per-organiser", type=int,
                        default=int(_env("MAX_TOURNAMENTS_PER_ORGANISER", "10")), metavar="N",
                        help="tournaments not yet finished one organiser may have at once (each holds a process)")
    parser.add_argument("--tournament-start-within", type=float,
                        default=float(_env("TOURNAMENT_START_WITHIN_S", str(24 * 3600))), metavar="S",
                        help="seconds a tournament may wait for its start before it expires (default 24 h)")
    parser.add_argument("--admin-host", default=_env("ADMIN_HOST", "127.0.0.1"),
                        help="the admin listener's bind address (keep it private: loopback or an internal "
                             "network)")
    parser.add_argument("--admin-port", type=int, default=int(_env("ADMIN_PORT", "50052" if serving else "0")),
                        help="the admin listener's port (0: any)")
    parser.add_argument("--admin-token-file",
                        default=_env("ADMIN_TOKEN_FILE", str(DEFAULT_TOKEN_FILE) if serving else ""),
                        metavar="FILE", help="without TABLEHOST_ADMIN_SECRET, the host makes a secret for its run "
                                             "and writes an admin token here, readable by its user only")
    parser.add_argument("--audit-file", default=_env("AUDIT_FILE", ""), metavar="FILE",
                        help="also write every admin action here, a JSON object a line (rotated at 16 MiB)")
    parser.add_argument("--console-port", type=int,
                        default=_env_int("CONSOLE_PORT", 50053 if serving else None),
                        metavar="PORT", help="serve the admin console (a web page) on this port of --admin-host; "
                                             "0: any free port" + ("" if serving else "; default: none"))
    parser.add_argument("--web-port", type=int,
                        default=_env_int("WEB_PORT", 50054 if serving else None),
                        metavar="PORT", help="serve the web table and the browsers' gateway (HTTP and WebSocket) "
                                             "on this port of --host; 0: any free port"
                                             + ("" if serving else "; default: none"))
    parser.add_argument("--status-interval", type=float, default=float(_env("STATUS_INTERVAL_S", "1")),
                        metavar="S", help="how old the admin status may be before it is read from the lobby again")


def config_from_args(args: argparse.Namespace) -> HostConfig:
    """The HostConfig of parsed host flags; a value no host can run with
    ends the command (SystemExit) naming its flag or variable."""
    low, _, high = args.room_ports.partition("-")
    if not (low.isdigit() and high.isdigit()) or int(low) > int(high):
        raise SystemExit(f"--room-ports takes LOW-HIGH, got {args.room_ports!r}")
    env_timeouts = [pair for pair in (_env("TURN_TIMEOUTS") or "").split(",") if pair]
    if args.tables_per_room < 1:
        raise SystemExit(f"--tables-per-room takes a positive count, got {args.tables_per_room}")
    if args.rooms_per_cpu <= 0 or (args.free_slots or 0) < 0 or args.max_waiting < 1:
        raise SystemExit("--rooms-per-cpu must be positive, --free-slots at least 0, --max-waiting at least 1")
    if args.hello_timeout <= 0:
        raise SystemExit(f"--hello-timeout takes a positive number of seconds, got {args.hello_timeout}")
    if args.request_timeout <= 0:
        raise SystemExit(f"--request-timeout takes a positive number of seconds, got {args.request_timeout}")
    if not 0 <= args.deal_wait <= MAX_DEAL_WAIT_S:
        raise SystemExit(f"--deal-wait takes 0 to {MAX_DEAL_WAIT_S:g} seconds, got {args.deal_wait}")
    for network in args.quota_exempt:
        try:
            ipaddress.ip_network(network, strict=False)
        except ValueError:
            raise SystemExit(f"--quota-exempt takes an address or CIDR network, got {network!r}") from None
    try:
        load_verifier(args.player_auth, (_env("PLAYER_AUTH_SECRET") or "").encode(), lambda: 0)
    except (ValueError, ImportError, AttributeError) as error:
        raise SystemExit(f"--player-auth: {error}") from None
    tls_cert, tls_key = _tls_files(args.tls_cert, args.tls_key)
    if bool(args.room_tls_cert) != bool(args.room_tls_key):
        raise SystemExit("--room-tls-cert and --room-tls-key go together")
    if args.room_tls_cert and not tls_cert:
        raise SystemExit("--room-tls-cert needs the front door on TLS too: --tls-cert and --tls-key")
    if args.metrics_port is not None and not 0 <= args.metrics_port <= 65535:
        raise SystemExit(f"--metrics-port takes a port 0-65535, got {args.metrics_port}")
    if args.log_format not in LOG_FORMATS:  # TABLEHOST_LOG_FORMAT bypasses argparse's choices
        raise SystemExit(f"--log-format takes {' or '.join(LOG_FORMATS)}, got {args.log_format!r}")
    if args.max_tournaments_per_organiser < 1 or args.tournament_start_within <= 0:
        raise SystemExit("--max-tournaments-per-organiser takes at least 1, --tournament-start-within a positive "
                         "number of seconds")
    if not 0 <= args.admin_port <= 65535 or args.status_interval <= 0:
        raise SystemExit("--admin-port takes a port 0-65535, --status-interval a positive number of seconds")
    if args.console_port is not None and not 0 <= args.console_port <= 65535:
        raise SystemExit(f"--console-port takes a port 0-65535, got {args.console_port}")
    if args.web_port is not None and not 0 <= args.web_port <= 65535:
        raise SystemExit(f"--web-port takes a port 0-65535, got {args.web_port}")
    admin_secret_text = _env("ADMIN_SECRET")
    if admin_secret_text and len(admin_secret_text.encode()) < MIN_TOKEN_SECRET_BYTES:
        raise SystemExit(f"TABLEHOST_ADMIN_SECRET is {len(admin_secret_text.encode())} bytes; it must be at least "
                         f"{MIN_TOKEN_SECRET_BYTES} (e.g. the output of `openssl rand -hex 32`)")
    return HostConfig(
        host=args.host,
        port=args.port,
        admin_host=args.admin_host,
        admin_port=args.admin_port,
        admin_secret=admin_secret_text.encode() if admin_secret_text else secrets.token_bytes(32),
        admin_token_file="" if admin_secret_text else args.admin_token_file,
        audit_file=args.audit_file,
        status_interval_s=args.status_interval,
        console_port=args.console_port,
        web_port=args.web_port,
        rooms_follow_demand=args.rooms_follow_demand,
        ray_address=args.address,
        room_host=args.room_host,
        advertise_host=args.advertise_host,
        room_port_min=int(low),
        room_port_max=int(high),
        token_secret=_token_secret(_env("TOKEN_SECRET")),
        tables_per_room=args.tables_per_room,
        rooms_per_cpu=args.rooms_per_cpu,
        free_slots=args.free_slots,
        idle_release_s=args.idle_release,
        table_retention_s=args.table_retention,
        max_waiting=args.max_waiting,
        game_modules=game_module_paths(args.game_module),
        game_path=(os.getcwd(),),
        linger_s=args.linger,
        abandon_after_s=args.abandon_after,
        seed=args.seed,
        turn_timeouts_ms=_parse_timeouts(env_timeouts + args.turn_timeout),
        commit_rate=args.commit_rate,
        store=_store_url(args.store, embedded=args.address is None),
        store_is_temporary=args.store is None and args.address is None,
        hello_timeout_s=args.hello_timeout,
        deal_wait_s=args.deal_wait,
        request_timeout_s=args.request_timeout,
        player_auth=args.player_auth,
        quota_exempt=tuple(args.quota_exempt),
        player_auth_secret=(_env("PLAYER_AUTH_SECRET") or "").encode(),
        tls_cert_pem=tls_cert,
        tls_key_pem=tls_key,
        room_tls_cert=args.room_tls_cert,
        room_tls_key=args.room_tls_key,
        metrics_port=args.metrics_port,
        log_format=args.log_format,
        max_tournaments_per_organiser=args.max_tournaments_per_organiser,
        tournament_start_within_s=args.tournament_start_within,
    )
