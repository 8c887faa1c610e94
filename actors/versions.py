"""Which code a table was started under, kept in its stored header, and
whether a room may resume it: a game's commands replayed under rules that
changed would rebuild another state than the one its players saw, so a
table resumes only under the rules version it started with. The
tablehost version is kept beside it, for the operator (an upgrade that
keeps the rules moves tables between versions freely)."""

from __future__ import annotations

from importlib import metadata
from typing import Any

from tablehost.games.engine.rules import GameRules


def code_versions(rules: GameRules) -> dict[str, Any]:
    """What a table's stored header records of the code it started under."""
    return {"tablehost": metadata.version("tablehost"), "rules": rules.rules_version}


def why_not_resumable(header: dict[str, Any], rules: GameRules) -> str | None:
    """None when this code may resume the stored table; else why not. A
    header written before versions were kept started under rules version 1."""
    started = header.get("versions", {})
    started_rules = int(started.get("rules", 1))
    if started_rules != rules.rules_version:
        return (f"table started under {rules.name} rules version {started_rules} (tablehost "
                f"{started.get('tablehost', 'unknown')}); this room runs rules version {rules.rules_version} "
                f"(tablehost {metadata.version('tablehost')}): its commands would replay to another state")
    return None
