"""One real host per test session: a local Ray (started once, ~4 s), the
lobby actor, room actors and the front door's gRPC server on 127.0.0.1,
running on an event loop in a background thread. Tests talk to it through
the client SDK from their own event loops, as separate clients would."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any, Coroutine, TypeVar

import pytest

from tablehost.host.config import HostConfig
from tablehost.host.server import FrontDoor

T = TypeVar("T")

# The session host's secret (seat tokens, tournament keys, organiser tokens).
TOKEN_SECRET = "integration-tests-secret-of-the-session-host"
# What the session host's players prove themselves with (host/identity.py, `--player-auth hmac`).
PLAYER_AUTH_SECRET = b"integration-tests-player-accounts-secret"
# What the session host's admin tokens are signed with (host/admin_auth.py),
# as every `tablehost serve` a test starts finds in its environment (tests/conftest.py).
ADMIN_SECRET = os.environ["TABLEHOST_ADMIN_SECRET"]


def admin_token(admin: str = "tests") -> str:
    """An admin token of the session host, as `tablehost admin-token` writes one."""
    from tablehost.host.admin_auth import admin_token as signed

    return signed(ADMIN_SECRET.encode(), admin, time.time_ns() // 1_000_000 + 3_600_000)


def admin_call_metadata(admin: str = "tests") -> tuple[tuple[str, str], ...]:
    """What a test's call to the admin listener carries."""
    from tablehost.host.admin_auth import admin_metadata

    return admin_metadata(admin_token(admin))


def player_token(player: str) -> str:
    """A token for `player` as the game's account service would issue it."""
    from tablehost.host.identity import player_token as signed

    return signed(PLAYER_AUTH_SECRET, player, time.time_ns() // 1_000_000 + 3_600_000)


class HostThread:
    def __init__(self, config: HostConfig) -> None:
        self.host = FrontDoor(config)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="tablehost-host", daemon=True)

    def start(self) -> None:
        self._thread.start()
        self.call(self.host.start(), timeout=120)

    def call(self, coroutine: Coroutine[Any, Any, T], timeout: float = 30) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        return future.result(timeout)

    def stop(self) -> None:
        self.call(self.host.stop(), timeout=60)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)

    @property
    def target(self) -> str:
        return self.host.target

    @property
    def admin_target(self) -> str:
        return self.host.admin_target

    def lobby(self, method: str, *args: Any) -> Any:
        """Ask the lobby actor directly (what tests check behind the wire)."""
        import ray

        return ray.get(getattr(self.host.lobby, method).remote(*args), timeout=30)


@pytest.fixture(scope="session")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostThread]:
    config = HostConfig(
        store=f"local:{tmp_path_factory.mktemp('store')}",
        port=0, linger_s=2.0, abandon_after_s=1.0, seed=20261129, commit_rate=200.0, hello_timeout_s=1.0,
        tables_per_room=300, free_slots=32, idle_release_s=5.0,
        game_modules=("tests.testgames.faulty:RULES", "tests.testgames.trio:RULES"), metrics_port=0,
        # Text, as TABLEHOST_TOKEN_SECRET is: the tools a test runs (`tablehost organiser issue`) sign with it too.
        token_secret=TOKEN_SECRET.encode(),
        # Every test's client is on 127.0.0.1, where one address's quotas would hold all of them back:
        # a test of the quotas signs its clients in as players (player_token below).
        quota_exempt=("127.0.0.1",), player_auth="hmac", player_auth_secret=PLAYER_AUTH_SECRET, request_timeout_s=2.0,
        admin_secret=ADMIN_SECRET.encode(), audit_file=str(tmp_path_factory.mktemp("audit") / "audit.jsonl"),
        # The fairness tests read the queues' waiting counts from the status before each join.
        status_interval_s=0.02, console_port=0, web_port=0,
    )
    running = HostThread(config)
    running.start()
    yield running
    running.stop()


class _ClientLoop:
    """The clients' event loop, one for the session in its own thread:
    grpc.aio keeps per-process state bound to the loops it has seen, so
    tests must not close a loop and open another (asyncio.run per test)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, name="tablehost-clients", daemon=True).start()


_client_loop: _ClientLoop | None = None


def run(coroutine: Coroutine[Any, Any, T], timeout: float = 120) -> T:
    """Run a test's client coroutine on the clients' loop, with an overall bound."""
    global _client_loop
    if _client_loop is None:
        _client_loop = _ClientLoop()
    future = asyncio.run_coroutine_threadsafe(asyncio.wait_for(coroutine, timeout), _client_loop.loop)
    return future.result(timeout + 5)
