"""A table resumes only under the rules version it started with."""

from __future__ import annotations

from tablehost.actors.store import TableHeader
from tablehost.actors.versions import code_versions, why_not_resumable
from tablehost.games.bigtwo.game import BigTwo as BigTwoRules
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import MatchHeader
from opened_tables import opened


class BigTwoChanged(BigTwoRules):
    rules_version = 2


def started_under(rules: BigTwoRules | None) -> TableHeader:
    """A table's header; None: written before versions were kept."""
    match = MatchHeader("bigtwo", TableSeed.numbered(1), ("a", "b", "c", "d"), ({},) * 4, {}, 0, None)
    return TableHeader("t", "run", match, opened("t"), code_versions(rules) if rules is not None else None)


def test_a_table_resumes_under_the_rules_it_started_with() -> None:
    header = started_under(BigTwoRules())
    assert header.versions is not None and header.versions.rules == 1 and header.versions.tablehost
    assert why_not_resumable(header, BigTwoRules()) is None
    assert why_not_resumable(started_under(None), BigTwoRules()) is None  # written before versions were kept: version 1


def test_a_table_is_refused_by_rules_that_would_replay_it_differently() -> None:
    refusal = why_not_resumable(started_under(BigTwoRules()), BigTwoChanged())
    assert refusal is not None and "rules version 1" in refusal and "runs rules version 2" in refusal
    assert why_not_resumable(started_under(BigTwoChanged()), BigTwoRules()) is not None
    assert why_not_resumable(started_under(None), BigTwoChanged()) is not None
