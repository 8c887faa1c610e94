"""Which code a table was started under, kept in its stored header, and
whether a room may resume it: a game's commands replayed under rules that
changed would rebuild another state than the one its players saw, so a
table resumes only under the rules version it started with. The
tablehost version is kept beside it, for the operator (an upgrade that
keeps the rules moves tables between versions freely)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import TYPE_CHECKING, Any

from tablehost.games.engine.rules import GameRules

if TYPE_CHECKING:  # the store's header holds CodeVersions
    from tablehost.actors.store import TableHeader


@dataclass(frozen=True, slots=True)
class CodeVersions:
    """What a table's stored header records of the code it started under."""

    tablehost: str
    rules: int

    def to_plain(self) -> dict[str, Any]:
        return {"tablehost": self.tablehost, "rules": self.rules}

    @classmethod
    def from_plain(cls, plain: Mapping[str, Any]) -> CodeVersions:
        return cls(plain["tablehost"], int(plain["rules"]))


@functools.cache
def running_version() -> str:
    """The tablehost version this process was started with: read once, as the
    code it runs cannot change under it, and reading the package's metadata
    parses files: not a cost for every table opened."""
    return metadata.version("tablehost")


def code_versions(rules: GameRules) -> CodeVersions:
    """The code this process runs `rules` under."""
    return CodeVersions(running_version(), rules.rules_version)


def why_not_resumable(header: TableHeader, rules: GameRules) -> str | None:
    """None when this code may resume the stored table; else why not. A
    header written before versions were kept started under rules version 1."""
    started = header.versions or CodeVersions("unknown", 1)
    if started.rules != rules.rules_version:
        return (f"table started under {rules.name} rules version {started.rules} (tablehost "
                f"{started.tablehost}); this room runs rules version {rules.rules_version} "
                f"(tablehost {running_version()}): its commands would replay to another state")
    return None
