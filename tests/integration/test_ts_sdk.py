"""The TypeScript SDK (clients/ts) built and tested through npm against the
session's live host: `npm ci` installs exactly its package-lock.json, and
`npm test` compiles it and runs its suite, which passes every conformance
vector and plays Big Two, Duel, Kingdoms, a spectated game with a reconnect,
and a tournament to the end, over gRPC and over the web gateway, checking
every hash and every deal. The web table's script the front door serves
(host/web/table.js) must be what `npm run bundle` makes of the sources. Node's test runner reports each test; this test
fails unless every one of them ran and passed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_tournaments import issue

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PACKAGE = Path(__file__).resolve().parents[2] / "clients" / "ts"
NPM_TIMEOUT_S = 240
# What the suite holds: 7 codec tests over the conformance kit, 4 of the session's
# recovery against a scripted room, and 5 live
# tests each over 2 transports.
EXPECTED_TESTS = 7 + 4 + 5 * 2


def npm(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    npm_path = shutil.which("npm")
    assert npm_path, "npm comes with scripts/install_services.sh"
    return subprocess.run([npm_path, *args], cwd=PACKAGE, env=env, capture_output=True, text=True,
                          timeout=NPM_TIMEOUT_S)


def test_the_typescript_sdk_plays_every_game_against_the_live_host(host) -> None:
    installed = npm("ci", "--no-audit", "--no-fund")
    assert installed.returncode == 0, installed.stderr[-4000:]
    bundle = npm("run", "bundle", "--", "--check")
    assert bundle.returncode == 0, "host/web/table.js is stale: run `npm run bundle` in clients/ts\n" + bundle.stderr
    organiser_token, _ = issue(host, "typescript sdk")
    env = {**os.environ, "TABLEHOST_TARGET": host.target, "TABLEHOST_WEB": f"http://{host.host.web.address}",
           "TABLEHOST_ORGANISER_TOKEN": organiser_token}
    tested = npm("test", env=env)
    report = tested.stdout + tested.stderr
    assert tested.returncode == 0, report[-6000:]
    counts = {name: int(value) for name, value in re.findall(r"^ℹ (\w+) (\d+)$", report, re.MULTILINE)}
    assert counts.get("tests") == EXPECTED_TESTS, report[-3000:]
    assert counts.get("pass") == EXPECTED_TESTS and counts.get("fail") == 0 and counts.get("skipped") == 0, counts
