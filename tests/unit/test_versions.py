"""A table resumes only under the rules version it started with."""

from __future__ import annotations

from tablehost.actors.versions import code_versions, why_not_resumable
from tablehost.games.bigtwo.game import BigTwo as BigTwoRules


class BigTwoChanged(BigTwoRules):
    rules_version = 2


def test_a_table_resumes_under_the_rules_it_started_with() -> None:
    header = {"versions": code_versions(BigTwoRules())}
    assert header["versions"]["rules"] == 1 and header["versions"]["tablehost"]
    assert why_not_resumable(header, BigTwoRules()) is None
    assert why_not_resumable({}, BigTwoRules()) is None  # written before versions were kept: version 1


def test_a_table_is_refused_by_rules_that_would_replay_it_differently() -> None:
    started = {"versions": code_versions(BigTwoRules())}
    refusal = why_not_resumable(started, BigTwoChanged())
    assert refusal is not None and "rules version 1" in refusal and "runs rules version 2" in refusal
    assert why_not_resumable({"versions": code_versions(BigTwoChanged())}, BigTwoRules()) is not None
    assert why_not_resumable({}, BigTwoChanged()) is not None
