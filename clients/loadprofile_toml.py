"""A load profile read from TOML (docs/loadtest-profile.example.toml
documents every key). Every key, type and range is checked and the
offending key named, so a typo fails at once instead of silently running a
different day. Games are checked here only for shape; whether the host
knows them (and their bots and seats) is for the caller, who has the
games' rules.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablehost.clients.loadprofile import (
    MAX_THINK_MS,
    THINK_DISTRIBUTIONS,
    THINK_FIELDS,
    Arrival,
    GameShare,
    LoadProfile,
    ProfileError,
    Reconnects,
    SlowReaders,
    ThinkTime,
)

# Bounds that keep a profile a description of people, not of an attack or a typo.
MAX_GAMES = 16
MAX_SEATS = 64
MAX_ARRIVAL_RATE = 10_000.0  # players per second
MAX_RAMP_S = 3_600.0
MAX_AWAY_MS = 30_000.0
MAX_READ_DELAY_MS = 1_000.0
MAX_AFTER_MOVES = 1_000


def load_profile(path: str | Path) -> LoadProfile:
    """Read and check a profile file."""
    source = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ProfileError(f"{source}: cannot read the profile: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ProfileError(f"{source}: not UTF-8 text: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ProfileError(f"{source}: not valid TOML: {error}") from None
    return parse_profile(data, source)


def parse_profile(data: Mapping[str, Any], source: str = "profile") -> LoadProfile:
    """A profile from parsed TOML; ProfileError naming `source` and the key
    for anything unknown, of the wrong type or out of range."""
    reader = _Reader(source)
    reader.known_keys("", data, ("games", "arrival", "think", "reconnects", "slow_readers"))
    return LoadProfile(
        games=reader.games(data.get("games")),
        arrival=reader.arrival(reader.table(data, "arrival")),
        think=reader.think(reader.table(data, "think")),
        reconnects=reader.reconnects(reader.table(data, "reconnects")),
        slow_readers=reader.slow_readers(reader.table(data, "slow_readers")),
    )


@dataclass(frozen=True)
class _Reader:
    """Checks one profile's values, naming `source` and the key in each error."""

    source: str

    def fail(self, where: str, message: str) -> ProfileError:
        return ProfileError(f"{self.source}: {where}: {message}" if where else f"{self.source}: {message}")

    def known_keys(self, where: str, table: Mapping[str, Any], known: Sequence[str]) -> None:
        unknown = sorted(set(table) - set(known))
        if unknown:
            raise self.fail(where, f"unknown key {unknown[0]!r}; the keys here are {', '.join(known)}")

    def table(self, data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
        value = data.get(name, {})
        if not isinstance(value, dict):
            raise self.fail(f"[{name}]", f"is a table of keys, got {_kind(value)}")
        return value

    def number(self, where: str, table: Mapping[str, Any], key: str, default: float, low: float, high: float,
               *, above_low: bool = False) -> float:
        value = table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
            raise self.fail(where, f"{key} is a number, got {_kind(value)}")
        if value > high or value < low or (above_low and value == low):
            bound = f"above {low:g}" if above_low else f"at least {low:g}"
            raise self.fail(where, f"{key} must be {bound} and at most {high:g}, got {value:g}")
        return float(value)

    def integer(self, where: str, table: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
        value = table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(where, f"{key} is a whole number, got {_kind(value)}")
        if not low <= value <= high:
            raise self.fail(where, f"{key} must be {low} to {high}, got {value}")
        return value

    def text(self, where: str, table: Mapping[str, Any], key: str, default: str) -> str:
        value = table.get(key, default)
        if not isinstance(value, str):
            raise self.fail(where, f"{key} is a string, got {_kind(value)}")
        return value

    def span(self, where: str, table: Mapping[str, Any], key: str, default: tuple[float, float], low: float,
             high: float, *, whole: bool) -> tuple[float, float]:
        """A [low, high] pair within bounds, low first."""
        value = table.get(key, list(default))
        if not isinstance(value, list) or len(value) != 2:
            raise self.fail(where, f"{key} is a pair [low, high], got {_kind(value)}")
        pair = {"first": value[0], "second": value[1]}
        for name in pair:
            if whole:
                self.integer(where, pair, name, 0, int(low), int(high))
            else:
                self.number(where, pair, name, 0.0, low, high)
        if value[0] > value[1]:
            raise self.fail(where, f"{key} is [low, high], got [{value[0]}, {value[1]}]")
        return value[0], value[1]

    def fraction(self, where: str, table: Mapping[str, Any]) -> float:
        return self.number(where, table, "fraction", 0.0, 0.0, 1.0)

    def games(self, value: Any) -> tuple[GameShare, ...]:
        if value is None:
            raise self.fail("", "names no game: add at least one [[games]] table with a name")
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            raise self.fail("games", "is an array of tables, written [[games]]")
        if not 1 <= len(value) <= MAX_GAMES:
            raise self.fail("[[games]]", f"has {len(value)} entries; a profile has 1 to {MAX_GAMES}")
        shares: list[GameShare] = []
        for number, entry in enumerate(value, start=1):
            where = f"[[games]] entry {number}"
            self.known_keys(where, entry, ("name", "weight", "seats", "bot", "variant", "join_data"))
            name = self.text(where, entry, "name", "")
            if not name:
                raise self.fail(where, "has no name (the game to play, e.g. name = \"bigtwo\")")
            where = f"[[games]] {name!r}"
            if any(share.name == name and share.variant == entry.get("variant", "") for share in shares):
                raise self.fail(where, "appears twice; give one entry a different variant or merge their weights")
            join_data = entry.get("join_data")
            if join_data is not None and not isinstance(join_data, dict):
                raise self.fail(where, f"join_data is a table of the game's join options, got {_kind(join_data)}")
            shares.append(GameShare(
                name=name,
                weight=self.number(where, entry, "weight", 1.0, 0.0, 1e9, above_low=True),
                seats=self.integer(where, entry, "seats", 0, 0, MAX_SEATS),
                bot=self.text(where, entry, "bot", "random"),
                variant=self.text(where, entry, "variant", ""),
                join_data=join_data,
            ))
        return tuple(shares)

    def arrival(self, table: Mapping[str, Any]) -> Arrival:
        self.known_keys("[arrival]", table, ("rate", "ramp_s"))
        rate = self.number("[arrival]", table, "rate", 0.0, 0.0, MAX_ARRIVAL_RATE)
        ramp_s = self.number("[arrival]", table, "ramp_s", 0.0, 0.0, MAX_RAMP_S)
        if ramp_s and not rate:
            raise self.fail("[arrival]", "ramp_s needs a rate to ramp up to (rate = 0 means all at once)")
        return Arrival(rate, ramp_s)

    def think(self, table: Mapping[str, Any]) -> ThinkTime:
        where = "[think]"
        distribution = self.text(where, table, "distribution", "none")
        if distribution not in THINK_FIELDS:
            raise self.fail(where, f"distribution must be one of {', '.join(THINK_DISTRIBUTIONS)}, "
                                   f"got {distribution!r}")
        fields = THINK_FIELDS[distribution]
        self.known_keys(where, table, ("distribution", *fields))
        for needed in fields:
            if needed != "max_ms" and needed not in table:
                raise self.fail(where, f"a {distribution} think time needs {needed}")
        values = {key: self.number(where, table, key, MAX_THINK_MS, 0.0, MAX_THINK_MS) for key in fields}
        if distribution in ("exponential", "lognormal") and not values[fields[0]]:
            raise self.fail(where, f"{fields[0]} must be above 0 for a {distribution} think time")
        if distribution == "lognormal" and not values["sigma"] <= 5:
            raise self.fail(where, f"sigma must be at most 5 (a spread of e^5 around the median), "
                                   f"got {values['sigma']:g}")
        if distribution == "uniform" and values["low_ms"] > values["high_ms"]:
            raise self.fail(where, f"low_ms ({values['low_ms']:g}) is above high_ms ({values['high_ms']:g})")
        return ThinkTime(distribution, **values)

    def reconnects(self, table: Mapping[str, Any]) -> Reconnects:
        where = "[reconnects]"
        self.known_keys(where, table, ("fraction", "after_moves", "away_ms"))
        fraction = self.fraction(where, table)
        if fraction and not {"after_moves", "away_ms"} <= set(table):
            raise self.fail(where, "players who leave need after_moves = [low, high] and away_ms = [low, high]")
        after = self.span(where, table, "after_moves", (1, 1), 0, MAX_AFTER_MOVES, whole=True)
        away = self.span(where, table, "away_ms", (0.0, 0.0), 0.0, MAX_AWAY_MS, whole=False)
        return Reconnects(fraction, (int(after[0]), int(after[1])), (float(away[0]), float(away[1])))

    def slow_readers(self, table: Mapping[str, Any]) -> SlowReaders:
        where = "[slow_readers]"
        self.known_keys(where, table, ("fraction", "read_delay_ms"))
        fraction = self.fraction(where, table)
        if fraction and "read_delay_ms" not in table:
            raise self.fail(where, "slow readers need read_delay_ms (their pause before each message)")
        delay = self.number(where, table, "read_delay_ms", 0.0, 0.0, MAX_READ_DELAY_MS)
        return SlowReaders(fraction, delay)


def _kind(value: Any) -> str:
    """A value's TOML kind, for error messages."""
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, (int, float)):
        return f"the number {value:g}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return f"an array of {len(value)}"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__
