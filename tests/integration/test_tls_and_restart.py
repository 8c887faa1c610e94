"""A host of its own, started as a user would (`tablehost serve`) with a
certificate made in the test: games are played through TLS (the SDK, and
`tablehost bots/status --tls-ca`), plaintext clients are refused at the
front door and at the rooms; and after a restart with the same seed and
token secret, the first table's id differs from the last run's only by the
run, and a seat token of the last run is refused."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import signal
import ssl
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import grpc
import pytest
import trustme
from conftest import admin_token, run
from support import close_all, play_randomly
from test_cli import ROOT, TABLEHOST, wait_for_line

from tablehost.clients.sdk import LobbyClient, LobbyError, TableSession
from tablehost.v1 import lobby_pb2, table_pb2

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SECRET = "a-token-secret-of-at-least-32-bytes!"


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("tls")
    authority = trustme.CA()
    served = authority.issue_cert("127.0.0.1")
    paths = {"ca": folder / "ca.pem", "cert": folder / "cert.pem", "key": folder / "key.pem"}
    authority.cert_pem.write_to_path(str(paths["ca"]))
    served.private_key_pem.write_to_path(str(paths["key"]))
    with paths["cert"].open("wb") as chain:
        for pem in served.cert_chain_pems:
            chain.write(pem.bytes())
    return paths


class ServedHost:
    """`tablehost serve` with TLS, a fixed seed and a fixed token secret."""

    def __init__(self, certificates: dict[str, Path]) -> None:
        self.process = subprocess.Popen(
            TABLEHOST + ["serve", "--port", "0", "--seed", "77", "--tls-cert", str(certificates["cert"]),
                         "--tls-key", str(certificates["key"]), "--abandon-after", "30"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT,
            env={**os.environ, "TABLEHOST_TOKEN_SECRET": SECRET},
        )
        self.target = wait_for_line(self.process, "listening on ", 90).removeprefix("listening on ")
        self.web = wait_for_line(self.process, "web table on ", 10).removeprefix("web table on ").rstrip("/")
        self.admin_target = wait_for_line(self.process, "admin on ", 10).removeprefix("admin on ")

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(60)
        finally:
            if self.process.poll() is None:
                self.process.kill()


def web_lookup(web: str, ca: Path | None) -> tuple[int, dict]:
    """A LookupTable through the web gateway: its HTTP status and JSON status."""
    request = urllib.request.Request(f"{web}/v1/rpc/tablehost.v1.Lobby/LookupTable", method="POST",
                                     data=lobby_pb2.LookupTableRequest(table_id="bigtwo-none-1-000000").SerializeToString())
    context = ssl.create_default_context(cafile=str(ca)) if ca else None
    try:
        with urllib.request.urlopen(request, timeout=10, context=context) as answer:
            return answer.status, {}
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


async def seat_over_tls(target: str, ca: bytes) -> tuple[list[LobbyClient], list[TableSession]]:
    lobbies = [LobbyClient(target, tls_root_cert=ca) for _ in range(4)]
    assignments = await asyncio.gather(*(lobby.join_queue("bigtwo", f"p{i}") for i, lobby in enumerate(lobbies)))
    sessions = await asyncio.gather(*(TableSession.connect(a, l) for a, l in zip(assignments, lobbies)))
    await asyncio.gather(*(session.wait_dealt(timeout=30) for session in sessions))
    order = sorted(range(4), key=lambda i: sessions[i].seat)
    return [lobbies[i] for i in order], [sessions[i] for i in order]


async def plaintext_refusals(front_door: str, room: str, table_id: str) -> tuple[grpc.StatusCode, grpc.StatusCode]:
    plain_lobby = LobbyClient(front_door, call_timeout=5)
    try:
        await plain_lobby.lookup_table(table_id)
        front = grpc.StatusCode.OK
    except LobbyError as error:
        front = error.code
    finally:
        await plain_lobby.close()
    async with grpc.aio.insecure_channel(room) as channel:
        call = channel.stream_stream("/tablehost.v1.Table/Play")(timeout=5)
        try:
            await call.write(table_pb2.ClientMessage(hello=table_pb2.Hello(seat_token="x")).SerializeToString())
            await call.read()
        except grpc.aio.AioRpcError:
            pass
        room_code = await call.code()
    return front, room_code


async def old_token_at(endpoint: str, token: str, ca: bytes) -> tuple[list[table_pb2.ServerMessage], grpc.StatusCode, str]:
    credentials = grpc.ssl_channel_credentials(root_certificates=ca)
    async with grpc.aio.secure_channel(endpoint, credentials) as channel:
        call = channel.stream_stream("/tablehost.v1.Table/Play")(timeout=10)
        await call.write(table_pb2.ClientMessage(hello=table_pb2.Hello(seat_token=token)).SerializeToString())
        replies = []
        try:
            while (raw := await call.read()) is not grpc.aio.EOF:
                replies.append(table_pb2.ServerMessage.FromString(raw))
        except grpc.aio.AioRpcError:
            pass
        return replies, await call.code(), await call.details()


def test_games_through_tls_plaintext_refused_and_no_token_outlives_a_restart(certificates) -> None:
    ca = certificates["ca"].read_bytes()
    first_run = ServedHost(certificates)
    try:
        async def play_first_run():
            lobbies, sessions = await seat_over_tls(first_run.target, ca)
            try:
                refusals = await plaintext_refusals(first_run.target, sessions[0].endpoint, sessions[0].table_id)
                await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
                return sessions[0].table_id, sessions[0].assignment.seat_token, refusals, sessions
            finally:
                await close_all(lobbies, sessions)

        old_table, old_token, (front, room), sessions = run(play_first_run())
        with_token = {**os.environ, "TABLEHOST_ADMIN_TOKEN": admin_token()}
        status = subprocess.run(TABLEHOST + ["status", "--target", first_run.admin_target, "--tls-ca",
                                             str(certificates["ca"]), "--json"],
                                capture_output=True, text=True, timeout=60, env=with_token)
        plain_status = subprocess.run(TABLEHOST + ["status", "--target", first_run.admin_target],
                                      capture_output=True, text=True, timeout=60, env=with_token)
        bots = subprocess.run(TABLEHOST + ["bots", "--target", first_run.target, "--tls-ca", str(certificates["ca"]),
                                           "--tables", "1", "--json"], capture_output=True, text=True, timeout=120)
        # The web gateway serves HTTPS only, and relays to the front door over TLS.
        web_over_tls = web_lookup(first_run.web, certificates["ca"])
        with pytest.raises((urllib.error.URLError, OSError, http.client.HTTPException)):
            web_lookup(first_run.web.replace("https://", "http://"), None)
    finally:
        assert first_run.stop() == 0

    assert all(s.result is not None and s.desyncs == 0 for s in sessions)
    assert front == grpc.StatusCode.UNAVAILABLE and room == grpc.StatusCode.UNAVAILABLE
    assert status.returncode == 0 and int(json.loads(status.stdout)["tables_started"]) >= 1
    assert plain_status.returncode == 1 and "UNAVAILABLE" in plain_status.stderr
    assert bots.returncode == 0, bots.stderr
    assert json.loads(bots.stdout.strip().splitlines()[-1])["games_completed"] == 1
    assert first_run.web.startswith("https://") and web_over_tls[0] == 404 and web_over_tls[1]["code"] == 5

    second_run = ServedHost(certificates)
    try:
        async def try_the_old_token():
            lobbies, sessions = await seat_over_tls(second_run.target, ca)
            try:
                return sessions[0].table_id, await old_token_at(sessions[0].endpoint, old_token, ca)
            finally:
                await close_all(lobbies, sessions)

        new_table, (replies, code, details) = run(try_the_old_token())
    finally:
        assert second_run.stop() == 0

    # Same seed: the same counter and suffix; only the run differs.
    assert new_table != old_table and new_table.split("-")[2:] == old_table.split("-")[2:]
    assert replies[0].rejection.reason == table_pb2.REJECT_REASON_BAD_TOKEN
    assert code == grpc.StatusCode.UNAUTHENTICATED and "another run of the host" in details
