"""Shared fixtures. Ray must stay on loopback: the variable is set before
anything imports ray.

Every property test is derandomized: each run tries the same examples, so
the suite passes or fails the same way on every run (a property broken for
other examples is found by widening max_examples, not by chance in CI).

`redis_server` starts a real redis-server on 127.0.0.1 for the tests that
need one (scripts/install_services.sh installs it), with every write
fsync'ed, and stops it by its pid."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings
from redis_server import RedisServer

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
# Every host a test starts (a `tablehost serve` in a subprocess too) takes any
# free admin (and console) port and signs admin tokens with the tests' secret: none writes
# a token file in the home folder, and none fights another for a port.
TESTS_ADMIN_SECRET = "integration-tests-admin-secret-of-the-host"
os.environ.setdefault("TABLEHOST_ADMIN_PORT", "0")
os.environ.setdefault("TABLEHOST_CONSOLE_PORT", "0")
os.environ.setdefault("TABLEHOST_WEB_PORT", "0")
os.environ.setdefault("TABLEHOST_ADMIN_SECRET", TESTS_ADMIN_SECRET)
settings.register_profile("deterministic", derandomize=True, database=None)
settings.load_profile("deterministic")


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()
