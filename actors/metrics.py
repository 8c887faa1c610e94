"""What an operator watches, as Prometheus metrics (prometheus-client).

Every room process and every front door serves its own metrics over HTTP
(`serve_metrics`); a front door also answers `/targets` in the shape of
Prometheus's HTTP service discovery, listing every room's metrics address,
so one scrape configuration finds rooms as they start and go
(docs/operations.md has it, and deploy/ the dashboard).

Labels are a game's name and the name of one of our own enums (a reject
reason, a move's kind): never a table id, a player or anything else a client
chooses, so nothing a client sends can grow the number of series a process
keeps. Counters count since the process started; Prometheus's rate() and
increase() read them across restarts.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

# Commit received → delta queued, in seconds: a move on loopback takes
# ~0.1 ms in the room; a busy room or a store write takes milliseconds.
_LATENCY_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
# One store write (a group commit of many tables' moves): a local disk's
# fsync takes milliseconds, Redis on loopback less, an outage seconds.
_STORE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0, 30.0)

MOVES = Counter("tablehost_moves", "Moves applied and published, by game and kind (player or automatic, "
                "a turn timer's default)", ["game", "kind"])
REJECTS = Counter("tablehost_rejects", "Commits refused, by game and reason (the RejectReason enum)",
                  ["game", "reason"])
DESYNCS = Counter("tablehost_desyncs", "Acks whose view hash differed from the host's (a snapshot follows)",
                  ["game"])
RESYNCS = Counter("tablehost_resyncs", "Snapshots sent to a stream to bring it back in step: after a desync, "
                  "or a reconnect further behind than the table's log replays", ["game"])
FLOODS = Counter("tablehost_streams_flooded", "Table streams ended because they sent far more than their seat's "
                 "budget (the seat is then refused new streams for a moment)", ["game"])
RECONNECTS = Counter("tablehost_reconnects", "Streams opened for a seat that had opened one before", ["game"])
TIMER_EXPIRIES = Counter("tablehost_timer_expiries", "Turn deadlines that passed, each answered with the "
                         "request's default as an automatic move", ["game"])
MOVE_LATENCY = Histogram("tablehost_move_latency_seconds", "From a commit received by the room to its delta "
                         "queued to the players' streams (including the store write when there is one)",
                         ["game"], buckets=_LATENCY_BUCKETS)
TABLES_OPENED = Counter("tablehost_tables_opened", "Tables whose game was set up in this room", ["game"])
GAMES_FINISHED = Counter("tablehost_games_finished", "Games played to their result", ["game"])
TABLES_FAILED = Counter("tablehost_tables_failed", "Tables closed because their rules or their journal failed",
                        ["game"])
STORE_WRITES = Counter("tablehost_store_writes", "Group commits of the room's journal to its store")
CHECKPOINTS = Counter("tablehost_checkpoints", "Checkpoints (a table's whole state) written with the journal")
STORE_WRITE_LATENCY = Histogram("tablehost_store_write_seconds", "One group commit to the store, in seconds",
                                buckets=_STORE_BUCKETS)


@dataclass(slots=True)
class TableStats:
    """One table's counts since its room opened it, for its room's status."""

    moves: int = 0
    automatic_moves: int = 0
    rejects: int = 0
    desyncs: int = 0
    floods: int = 0


@dataclass(frozen=True, slots=True)
class TableMetrics:
    """One table's labelled series, looked up once when it opens: a move
    then costs an increment and an observation, not a label lookup."""

    player_moves: Counter
    automatic_moves: Counter
    desyncs: Counter
    resyncs: Counter
    reconnects: Counter
    floods: Counter
    timer_expiries: Counter
    move_latency: Histogram
    opened: Counter
    finished: Counter
    failed: Counter
    game: str

    @classmethod
    def of(cls, game: str) -> TableMetrics:
        return cls(
            MOVES.labels(game, "player"), MOVES.labels(game, "automatic"), DESYNCS.labels(game),
            RESYNCS.labels(game), RECONNECTS.labels(game), FLOODS.labels(game), TIMER_EXPIRIES.labels(game),
            MOVE_LATENCY.labels(game), TABLES_OPENED.labels(game), GAMES_FINISHED.labels(game), TABLES_FAILED.labels(game), game,
        )

    def rejected(self, reason: str) -> None:
        REJECTS.labels(self.game, reason).inc()


@dataclass(frozen=True, slots=True)
class Gauge:
    """One value of a gauge family, with its labels in the family's order."""

    name: str
    labels: tuple[str, ...]
    value: float


GaugeFamily = tuple[str, str, tuple[str, ...]]  # name, help, label names


class GaugeCollector(Collector):
    """Gauges read when Prometheus scrapes, from `read` (which must be safe
    to call from the HTTP server's thread): what a room or lobby holds now,
    counted where it is kept rather than mirrored on every change."""

    def __init__(self, families: Iterable[GaugeFamily], read: Callable[[], Iterable[Gauge]]) -> None:
        self._families = {name: (help_text, labels) for name, help_text, labels in families}
        self._read = read

    def describe(self) -> Iterable[GaugeMetricFamily]:
        """The families without reading them: what the registry checks for
        clashing names when the collector is registered (on the thread that
        `read` may need free)."""
        return self._empty().values()

    def collect(self) -> Iterable[GaugeMetricFamily]:
        families = self._empty()
        for gauge in self._read():
            families[gauge.name].add_metric(list(gauge.labels), gauge.value)
        return families.values()

    def _empty(self) -> dict[str, GaugeMetricFamily]:
        return {name: GaugeMetricFamily(name, help_text, labels=list(labels))
                for name, (help_text, labels) in self._families.items()}


def serve_process_metrics(host: str, gauges: Iterable[GaugeFamily], read: Callable[[], Iterable[Gauge]]) -> MetricsServer:
    """This process's metrics (the counters above, Python's process metrics
    and the gauges `read` counts) on a free port of `host`. Once per
    process: a room is one."""
    REGISTRY.register(GaugeCollector(gauges, read))
    return MetricsServer(host, 0).start()


# A health check: whether all is well, and a line saying why.
Check = Callable[[], tuple[bool, str]]


class MetricsServer:
    """A small HTTP server on its own threads: `/metrics` in Prometheus's text
    format, and, when `targets` is given, `/targets` for Prometheus's HTTP
    service discovery (the addresses it returns, as one target group); each
    of `checks` (a path, e.g. /livez, and a function saying whether all is
    well and why) answers 200 or 503, for probes that speak plain HTTP."""

    def __init__(self, host: str, port: int, registry: CollectorRegistry = REGISTRY,
                 targets: Callable[[], list[str]] | None = None, job_label: str = "tablehost-room",
                 checks: Mapping[str, Check] | None = None) -> None:
        handler = _handler(registry, targets, job_label, dict(checks or {}))
        self._host = host
        self._server = ThreadingHTTPServer((host, port), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="metrics", daemon=True)

    @property
    def port(self) -> int:
        return self._server.server_port

    @property
    def address(self) -> str:
        return f"{self._host}:{self.port}"

    def start(self) -> MetricsServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread.is_alive():  # shutdown() waits for a serving loop that never started
            self._server.shutdown()
        self._server.server_close()


def _handler(registry: CollectorRegistry, targets: Callable[[], list[str]] | None,
             job_label: str, checks: dict[str, Check]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            path = self.path.split("?", 1)[0]
            if path == "/metrics":
                self._answer(200, CONTENT_TYPE_LATEST, generate_latest(registry))
            elif path == "/targets" and targets is not None:
                groups = [{"targets": sorted(targets()), "labels": {"job": job_label}}]
                self._answer(200, "application/json", json.dumps(groups).encode())
            elif path in checks:
                well, why = checks[path]()
                self._answer(200 if well else 503, "text/plain; charset=utf-8", f"{why}\n".encode())
            else:
                known = ", ".join(["/metrics", *(["/targets"] if targets is not None else []), *sorted(checks)])
                self._answer(404, "text/plain; charset=utf-8", f"not found: this server answers {known}\n".encode())

        def _answer(self, status: int, content_type: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            """Scrapes every few seconds are not worth a log line each."""

    return Handler
