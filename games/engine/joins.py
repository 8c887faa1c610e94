"""What a game accepts as a player's join data, checked before any game code
sees it: a map with string keys whose fields are those of one of the game's
declared shapes, each of its declared type and size. Join data comes from
players, so nothing in it may reach a game's `check_join` as a surprise (a
byte-string key, a nested map, a 10,000-item list): the game then reads
plain, bounded values it has described, and a bug in it costs one player a
refusal, never a batch of joins (games.engine.rules.accept_join)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class InvalidJoin(ValueError):
    """A player's join data the game does not accept (an unknown deck, say)."""


@dataclass(frozen=True, slots=True)
class Text:
    """A string of at most `max_length` characters."""

    max_length: int

    def check(self, name: str, value: Any) -> None:
        if type(value) is not str:
            raise InvalidJoin(f"{name} is a string, not {_kind(value)}")
        if len(value) > self.max_length:
            raise InvalidJoin(f"{name} is at most {self.max_length} characters, not {len(value)}")

    def describe(self) -> str:
        return f"a string of at most {self.max_length} characters"


@dataclass(frozen=True, slots=True)
class TextList:
    """A list of at most `max_items` strings, each of at most `max_length` characters."""

    max_items: int
    max_length: int

    def check(self, name: str, value: Any) -> None:
        if type(value) is not list:
            raise InvalidJoin(f"{name} is a list of strings, not {_kind(value)}")
        if len(value) > self.max_items:
            raise InvalidJoin(f"{name} has at most {self.max_items} items, not {len(value)}")
        for item in value:
            Text(self.max_length).check(f"each of {name}", item)

    def describe(self) -> str:
        return f"a list of at most {self.max_items} strings of at most {self.max_length} characters"


Field = Text | TextList


@dataclass(frozen=True, slots=True)
class JoinShape:
    """One form a game's join data may take: its fields, all required but
    those named `optional`."""

    fields: Mapping[str, Field]
    optional: frozenset[str] = field(default_factory=frozenset)

    def matches_keys(self, keys: set[str]) -> bool:
        return set(self.fields) - self.optional <= keys <= set(self.fields)

    def describe(self) -> str:
        parts = [f"{name}{' (optional)' if name in self.optional else ''}: {spec.describe()}"
                 for name, spec in self.fields.items()]
        return "{" + "; ".join(parts) + "}"


def check_shape(data: Any, shapes: tuple[JoinShape, ...]) -> dict[str, Any]:
    """`data` as a plain dict if it has the fields of one of `shapes` (an
    empty map when there are none), else InvalidJoin saying what is taken."""
    if type(data) is not dict:
        raise InvalidJoin(f"join data is a map, not {_kind(data)}")
    if not all(type(key) is str for key in data):
        raise InvalidJoin("join data's keys are strings")
    if not shapes:
        if data:
            raise InvalidJoin(f"this game takes no join data, got keys {sorted(data)[:5]}")
        return {}
    keys = set(data)
    for shape in shapes:
        if shape.matches_keys(keys):
            for name, value in data.items():
                shape.fields[name].check(name, value)
            return dict(data)
    taken = " or ".join(shape.describe() for shape in shapes)
    raise InvalidJoin(f"join data with keys {sorted(keys)[:8]} is none of what this game takes: {taken}")


def _kind(value: Any) -> str:
    return "a map" if isinstance(value, dict) else "a list" if isinstance(value, list) else type(value).__name__
