"""The SDK stands alone: `pip install ./clients` into a fresh virtual
environment (no system site packages, so nothing of the checkout's
environment leaks in) gives a client that has no Ray and no rules, yet joins
the lobby of a real host and plays a game of Big Two to its end with the
SDK's bots, every view hash checked. The README's example runs there too.

pip fetches hatchling, grpcio, protobuf, msgpack and hdrhistogram from the
package index (its cache makes later runs quick)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import HostThread
from support import waiting_in_queue

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.integration]

INSTALL_TIMEOUT_S = 300
GAME_TIMEOUT_S = 120

# Run by the fresh environment's python: four bots join the public Big Two
# queue, play to the end, and report. Besides the session's own hash checks
# (desyncs), it replays every message the host sent each seat (record=True)
# and checks each snapshot's and delta's hash again with the SDK's codec.
PLAY_A_GAME = """
import asyncio, json, sys

import tablehost.clients
from tablehost.clients.bots import PlayStats, RandomBot, play_seat
from tablehost.clients.codec import apply_delta, decode, view_hash
from tablehost.clients.sdk import LobbyClient, TableSession
from tablehost.v1 import table_pb2


def rechecked_hashes(session):
    view, checked = None, 0
    for raw in session.received:
        message = table_pb2.ServerMessage.FromString(raw)
        kind = message.WhichOneof("kind")
        if kind == "snapshot":
            view = decode(message.snapshot.view)
            assert view_hash(view) == message.snapshot.view_hash, "snapshot hash"
            checked += 1
        elif kind == "delta":
            view = apply_delta(view, decode(message.delta.delta))
            assert view_hash(view) == message.delta.view_hash, f"delta {message.delta.seq} hash"
            checked += 1
    assert view == session.view, "the replayed view is the session's"
    return checked


async def seat(target, index):
    lobby = LobbyClient(target)
    assignment = await lobby.join_queue("bigtwo", display_name=f"standalone-{index}")
    session = await TableSession.connect(assignment, lobby, record=True)
    result = await play_seat(session, RandomBot(index), PlayStats())
    report = {
        "table_id": session.table_id, "seat": session.seat, "desyncs": session.desyncs, "gaps": session.gaps,
        "seq": session.seq, "game_over_seq": result.seq, "winner": result.winner, "scores": result.scores,
        "hashes_checked": rechecked_hashes(session),
    }
    await session.close()
    await lobby.close()
    return report


async def main(target):
    reports = await asyncio.wait_for(asyncio.gather(*(seat(target, i) for i in range(4))), %(timeout)d)
    print(json.dumps({"sdk_file": tablehost.clients.__file__, "seats": reports}))


asyncio.run(main(sys.argv[1]))
"""


def isolated_env() -> dict[str, str]:
    """This process's environment without what would let the fresh venv see
    the checkout's packages."""
    return {key: value for key, value in os.environ.items()
            if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")}


@pytest.fixture(scope="module")
def client_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a new venv with the client distribution installed from a
    copy of the checkout's clients/, protos/ and scripts/ (its build hook)."""
    source = tmp_path_factory.mktemp("checkout")
    for folder in ("clients", "protos", "scripts"):
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__"))
    venv = tmp_path_factory.mktemp("client-venv")
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True, timeout=120,
                   env=isolated_env(), capture_output=True)
    python = venv / "bin" / "python"
    installed = subprocess.run([str(python), "-m", "pip", "install", "-q", str(source / "clients")],
                               capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, env=isolated_env(),
                               cwd=venv)
    assert installed.returncode == 0, installed.stderr[-4000:]
    return python


def run_in(python: Path, args: list[str], cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(python), *args], capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env=isolated_env())


@pytest.mark.parametrize("module", ["ray", "tablehost.games", "tablehost.actors", "tablehost.host", "rich"])
def test_the_client_environment_has_no_host_no_rules_and_no_terminal_extra(
    client_python: Path, module: str, tmp_path: Path
) -> None:
    ran = run_in(client_python, ["-c", f"import {module}"], tmp_path)
    assert ran.returncode != 0
    assert "ModuleNotFoundError" in ran.stderr


def test_the_sdk_imports_from_the_client_environment_not_the_checkout(client_python: Path, tmp_path: Path) -> None:
    probe = ("import tablehost.clients.sdk, tablehost.clients.bots, tablehost.clients.codec, tablehost.v1.table_pb2; "
             "import tablehost.clients as c; print(c.__file__)")
    ran = run_in(client_python, ["-c", probe], tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip().startswith(str(client_python.parent.parent))


def test_a_standalone_client_plays_big_two_to_the_end_with_every_hash_checked(
    host: HostThread, client_python: Path, tmp_path: Path
) -> None:
    assert waiting_in_queue(host, "bigtwo") == 0, "players from another test are waiting in the Big Two queue"
    script = tmp_path / "play.py"
    script.write_text(PLAY_A_GAME % {"timeout": GAME_TIMEOUT_S}, encoding="utf-8")
    ran = run_in(client_python, [str(script), host.target], tmp_path, timeout=GAME_TIMEOUT_S + 30)
    assert ran.returncode == 0, ran.stderr[-4000:]
    report = json.loads(ran.stdout.strip().splitlines()[-1])
    assert report["sdk_file"].startswith(str(client_python.parent.parent))
    seats = sorted(report["seats"], key=lambda seat: seat["seat"])
    assert [seat["seat"] for seat in seats] == [0, 1, 2, 3]
    assert len({seat["table_id"] for seat in seats}) == 1
    for seat in seats:
        assert seat["desyncs"] == 0 and seat["gaps"] == 0, seat
        # Every move is a delta to every seat, so a whole game is dozens.
        assert seat["hashes_checked"] > 10, seat
        # GameOver carries the seq of the game's last delta.
        assert seat["game_over_seq"] == seat["seq"] == seats[0]["seq"], seat
    assert len({(seat["winner"], tuple(seat["scores"])) for seat in seats}) == 1
    assert 0 <= seats[0]["winner"] <= 3


def test_the_readme_example_runs_in_the_client_environment(
    host: HostThread, client_python: Path, tmp_path: Path
) -> None:
    readme = (ROOT / "clients" / "README.md").read_text(encoding="utf-8")
    example = re.search(r"```python\n(.*?)```", readme, re.DOTALL)
    assert example is not None and "asyncio.run(main(" in example.group(1)
    assert waiting_in_queue(host, "bigtwo") == 0, "players from another test are waiting in the Big Two queue"
    script = tmp_path / "example.py"
    script.write_text(example.group(1), encoding="utf-8")
    ran = run_in(client_python, [str(script), host.target], tmp_path, timeout=GAME_TIMEOUT_S)
    assert ran.returncode == 0, ran.stderr[-4000:]
    lines = sorted(ran.stdout.strip().splitlines())
    assert [line.split(":")[0] for line in lines] == ["seat 0", "seat 1", "seat 2", "seat 3"], ran.stdout
    assert len({line.split(":", 1)[1] for line in lines}) == 1, "every seat saw the same result"
