"""A request the host refuses ends a `tablehost` command with one line on
stderr, `tablehost <command>: <STATUS>: <the host's reason>`, and exit
status 1, never a traceback: every command that calls the lobby, tournament
or admin services, against a real grpc.aio server that refuses each of
their calls (no Ray: the refusal is all it serves), and against a port
where nothing listens. Refusals by a real host are in test_cli.py."""

from __future__ import annotations

import asyncio
import os
import subprocess
import threading
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from grpc import aio
from test_cli import ROOT, TABLEHOST

from grpc_health.v1 import health_pb2_grpc

from tablehost.v1 import admin_pb2_grpc, lobby_pb2_grpc, tournament_pb2_grpc

pytestmark = [pytest.mark.integration]

CODE = grpc.StatusCode.PERMISSION_DENIED
# Sent over two lines; the command prints one.
DETAILS = "this door is closed\nfor the test"
SAID = "PERMISSION_DENIED: this door is closed for the test"
TOURNAMENT = "t-0123456789abcdef"
NOBODY_LISTENS = "127.0.0.1:1"


def refusing(servicer: type) -> Any:
    """An instance of `servicer` whose every RPC refuses with CODE and DETAILS."""

    async def refuse(self: Any, request: Any, context: aio.ServicerContext) -> None:
        await context.abort(CODE, DETAILS)

    methods = {name: refuse for name in vars(servicer) if name[0].isupper()}
    return type(f"Refusing{servicer.__name__}", (servicer,), methods)()


@pytest.fixture(scope="module")
def refusing_host() -> Iterator[str]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="refusing host", daemon=True)
    thread.start()

    async def start() -> tuple[aio.Server, int]:
        server = aio.server()
        lobby_pb2_grpc.add_LobbyServicer_to_server(refusing(lobby_pb2_grpc.LobbyServicer), server)
        tournament_pb2_grpc.add_TournamentsServicer_to_server(refusing(tournament_pb2_grpc.TournamentsServicer), server)
        admin_pb2_grpc.add_AdminServicer_to_server(refusing(admin_pb2_grpc.AdminServicer), server)
        health_pb2_grpc.add_HealthServicer_to_server(refusing(health_pb2_grpc.HealthServicer), server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        return server, port

    server, port = asyncio.run_coroutine_threadsafe(start(), loop).result(10)
    yield f"127.0.0.1:{port}"
    asyncio.run_coroutine_threadsafe(server.stop(None), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)


def tablehost(*arguments: str) -> subprocess.CompletedProcess[str]:
    # The admin commands send a token (this host refuses every call anyway).
    return subprocess.run([*TABLEHOST, *arguments], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          stdin=subprocess.DEVNULL, env={**os.environ, "TABLEHOST_ADMIN_TOKEN": "any-token"})


COMMANDS = [
    ("status", ["status"]),
    ("play", ["play", "bigtwo"]),
    ("play", ["play", "duel", "--join-data", '{"deck": "paladin-basic"}']),
    ("tournament create", ["tournament", "create", "--game", "bigtwo"]),
    ("tournament join", ["tournament", "join", TOURNAMENT, "--player", "ann"]),
    ("tournament start", ["tournament", "start", TOURNAMENT, "--key", "not-the-key"]),
    ("tournament status", ["tournament", "status", TOURNAMENT]),
    ("tournament standings", ["tournament", "standings", TOURNAMENT, "--json"]),
    ("tournament export", ["tournament", "export", TOURNAMENT, "--format", "csv"]),
    ("tournament simulate", ["tournament", "simulate", "--players", "4", "--no-progress"]),
    ("loadtest", ["loadtest", "--tables", "1"]),
    ("admin tables", ["admin", "tables"]),
    ("admin close-table", ["admin", "close-table", "bigtwo-1", "--reason", "a test"]),
    ("admin pause", ["admin", "pause", TOURNAMENT, "--reason", "a test"]),
    ("admin drain", ["admin", "drain", "--room", "room-1", "--reason", "a test"]),
]


@pytest.mark.parametrize(("command", "arguments"), COMMANDS, ids=[" ".join(a[:2]) for _, a in COMMANDS])
def test_a_refused_request_ends_the_command_with_one_line(refusing_host: str, command: str,
                                                          arguments: list[str]) -> None:
    ran = tablehost(*arguments, "--target", refusing_host)
    assert ran.returncode == 1, ran.stderr
    assert ran.stderr.splitlines() == [f"tablehost {command}: {SAID}"]


@pytest.mark.parametrize(("command", "arguments"), [COMMANDS[1], COMMANDS[3], COMMANDS[9]],
                         ids=["play", "tournament create", "tournament simulate"])
def test_a_host_that_is_not_there_ends_the_command_with_one_line(command: str, arguments: list[str]) -> None:
    ran = tablehost(*arguments, "--target", NOBODY_LISTENS)
    assert ran.returncode == 1, ran.stderr
    (line,) = ran.stderr.splitlines()
    assert line.startswith(f"tablehost {command}: UNAVAILABLE: ")


def test_bots_all_refused_at_the_queue_end_with_the_refusal_in_one_line(refusing_host: str) -> None:
    """No bot was seated: the lobby's refusal is the run's one finding."""
    ran = tablehost("bots", "--target", refusing_host, "--game", "bigtwo")
    assert ran.returncode == 1
    assert "Traceback" not in ran.stdout + ran.stderr
    assert ran.stderr.splitlines() == [f"tablehost bots: {SAID}"]
