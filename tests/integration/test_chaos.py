"""Rooms SIGKILLed from outside and at armed crash points while bots play:
nothing acknowledged is lost or applied twice, no client sees a gap, every
stream is a prefix of the final log and every game finishes (chaos.py has
the checks; its command runs the long version for docs/reliability.md)."""

from __future__ import annotations

import pytest
from chaos import Chaos
from conftest import run
from support import wait_for_quiet_lobby

from tablehost.actors.store.local import LocalStore

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_rooms_killed_at_random_and_at_crash_points_lose_nothing_acknowledged(host) -> None:
    run(wait_for_quiet_lobby(host))
    store = LocalStore(host.host.config.store.removeprefix("local:"))
    chaos = Chaos(host, store, kills=12, tables=6, seed=20261201)
    report = run(chaos.run(timeout_s=240), timeout=300)
    print(report)
    assert report["kills"] == 12 and set(report["kills_by_way"]) == {"sigkill", "after-append", "after-publish",
                                                                      "mid-checkpoint"}
    assert report["games_checked"] >= 6 and report["commits_acknowledged"] > 0
    assert report["tables_in_killed_rooms"] >= 12
    assert chaos.findings.clean, report
