"""The shape of a load test's day: which games people play and how often,
how fast they arrive, how long they think, who leaves mid-game and comes
back, who reads their stream slowly. Read from a TOML file
(docs/loadtest-profile.example.toml documents every key) or made from a
command line's flags (`simple_profile`), then turned into one plan per
player (`plan_players`) that a load driver follows.

The size of a run (tables, games per table) and its time bound are not
part of a profile: one day's shape is run at any size. Parsing checks
every key, type and range and names the offending key, so a typo fails at
once instead of silently running a different day. Games are checked here
only for shape; whether the host knows them (and their bots and seats) is
for the caller, who has the games' rules.
"""

from __future__ import annotations

import math
import random
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Bounds that keep a profile a description of people, not of an attack or a typo.
MAX_GAMES = 16
MAX_SEATS = 64
MAX_ARRIVAL_RATE = 10_000.0  # players per second
MAX_RAMP_S = 3_600.0
MAX_THINK_MS = 60_000.0
MAX_AWAY_MS = 30_000.0
MAX_READ_DELAY_MS = 1_000.0
MAX_AFTER_MOVES = 1_000

THINK_DISTRIBUTIONS = ("none", "constant", "uniform", "exponential", "lognormal")


class ProfileError(ValueError):
    """A profile that cannot be run; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class GameShare:
    """One game of the day: its share of the tables (`weight`), the seats of
    its tables (0: the game's usual table), the bot its players use, its
    variant, and what each player joins with (None: the game's example)."""

    name: str
    weight: float = 1.0
    seats: int = 0
    bot: str = "random"
    variant: str = ""
    join_data: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Arrival:
    """Players join queues at `rate` a second, climbing linearly from 0 over
    `ramp_s`; a rate of 0 means everyone arrives at once."""

    rate: float = 0.0
    ramp_s: float = 0.0

    def offsets(self, players: int) -> list[float]:
        """When each of `players` players arrives, in seconds from the start:
        evenly spaced along the ramp and the rate, so a run repeats exactly."""
        if self.rate <= 0:
            return [0.0] * players
        ramped = self.rate * self.ramp_s / 2  # players who arrive during the ramp
        times = []
        for index in range(players):
            if index < ramped:
                times.append(math.sqrt(2 * index * self.ramp_s / self.rate))
            else:
                times.append(self.ramp_s + (index - ramped) / self.rate)
        return times


@dataclass(frozen=True, slots=True)
class ThinkTime:
    """How long a player thinks before each move, in milliseconds: `none`,
    `constant` (ms), `uniform` (low..high), `exponential` (mean) or
    `lognormal` (median, sigma), never more than `max_ms`."""

    distribution: str = "none"
    ms: float = 0.0
    low_ms: float = 0.0
    high_ms: float = 0.0
    mean_ms: float = 0.0
    median_ms: float = 0.0
    sigma: float = 0.0
    max_ms: float = MAX_THINK_MS

    def sample_s(self, rng: random.Random) -> float:
        """One think time, in seconds."""
        if self.distribution == "constant":
            ms = self.ms
        elif self.distribution == "uniform":
            ms = rng.uniform(self.low_ms, self.high_ms)
        elif self.distribution == "exponential":
            ms = rng.expovariate(1 / self.mean_ms)
        elif self.distribution == "lognormal":
            ms = rng.lognormvariate(math.log(self.median_ms), self.sigma)
        else:
            return 0.0
        return min(ms, self.max_ms) / 1000


@dataclass(frozen=True, slots=True)
class Reconnects:
    """A `fraction` of players leave once in each game, when asked for a move
    after `after_moves` (a range) of their own, stay away for `away_ms` (a
    range) and come back with their last seq."""

    fraction: float = 0.0
    after_moves: tuple[int, int] = (1, 1)
    away_ms: tuple[float, float] = (0.0, 0.0)

    def draw(self, rng: random.Random) -> tuple[int, float]:
        """For one game of a leaving player: after how many of its moves it
        leaves, and for how many seconds."""
        return rng.randint(*self.after_moves), rng.uniform(*self.away_ms) / 1000


@dataclass(frozen=True, slots=True)
class SlowReaders:
    """A `fraction` of players pause `read_delay_ms` before reading each
    message of their table stream."""

    fraction: float = 0.0
    read_delay_ms: float = 0.0


@dataclass(frozen=True, slots=True)
class LoadProfile:
    games: tuple[GameShare, ...]
    arrival: Arrival = Arrival()
    think: ThinkTime = ThinkTime()
    reconnects: Reconnects = Reconnects()
    slow_readers: SlowReaders = SlowReaders()

    def to_json_dict(self) -> dict[str, Any]:
        """The profile as the report records it."""
        return {
            "games": [{"name": g.name, "weight": g.weight, "seats": g.seats, "bot": g.bot, "variant": g.variant,
                       "join_data": dict(g.join_data) if g.join_data is not None else None} for g in self.games],
            "arrival": {"rate": self.arrival.rate, "ramp_s": self.arrival.ramp_s},
            "think": {key: getattr(self.think, key) for key in _THINK_FIELDS[self.think.distribution]}
            | {"distribution": self.think.distribution},
            "reconnects": {"fraction": self.reconnects.fraction, "after_moves": list(self.reconnects.after_moves),
                           "away_ms": list(self.reconnects.away_ms)},
            "slow_readers": {"fraction": self.slow_readers.fraction,
                             "read_delay_ms": self.slow_readers.read_delay_ms},
        }


def simple_profile(game: str, seats: int = 0, bot: str = "random", variant: str = "",
                   join_data: Mapping[str, Any] | None = None) -> LoadProfile:
    """The profile of a run given by flags alone: one game, every player
    arriving at once, no think time, nobody leaving, nobody slow."""
    return LoadProfile(games=(GameShare(game, 1.0, seats, bot, variant, join_data),))


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


@dataclass(frozen=True, slots=True)
class PlayerPlan:
    """What one player of a run does: which game (an index into the
    profile's games), when it arrives (seconds from the start), its seed
    (its bots, think times and absences derive from it), whether it leaves
    mid-game, and its read delay (0: reads at once)."""

    index: int
    game: int
    arrive_s: float
    seed: int
    leaves: bool = False
    read_delay_s: float = 0.0


def tables_per_game(profile: LoadProfile, tables: int) -> list[int]:
    """`tables` shared among the profile's games by weight (largest
    remainder), so the counts add up to `tables` exactly."""
    total = sum(game.weight for game in profile.games)
    exact = [tables * game.weight / total for game in profile.games]
    counts = [math.floor(share) for share in exact]
    by_remainder = sorted(range(len(exact)), key=lambda i: (counts[i] - exact[i], i))
    for index in by_remainder[: tables - sum(counts)]:
        counts[index] += 1
    return counts


def plan_players(profile: LoadProfile, tables: int, seed: int = 0) -> list[PlayerPlan]:
    """Every player of a run of `tables` tables of the profile's games: a
    table's seats' worth of players per table, in a seeded random order of
    arrival (so the games' queues fill side by side), each with its traits
    drawn from the same seed. Every game's seats must be resolved (not 0)."""
    unresolved = [game.name for game in profile.games if game.seats < 1]
    if unresolved:
        raise ValueError(f"the seats of {', '.join(unresolved)} are not resolved (0 means the game's usual table)")
    rng = random.Random(seed)
    games = [index for index, count in enumerate(tables_per_game(profile, tables))
             for _ in range(count * profile.games[index].seats)]
    rng.shuffle(games)
    arrivals = profile.arrival.offsets(len(games))
    slow_delay = profile.slow_readers.read_delay_ms / 1000
    return [
        PlayerPlan(
            index=index,
            game=game,
            arrive_s=arrive_s,
            seed=rng.getrandbits(32),
            leaves=rng.random() < profile.reconnects.fraction,
            read_delay_s=slow_delay if rng.random() < profile.slow_readers.fraction else 0.0,
        )
        for index, (game, arrive_s) in enumerate(zip(games, arrivals))
    ]


# -- reading TOML ----------------------------------------------------------------

_THINK_FIELDS: dict[str, tuple[str, ...]] = {
    "none": (),
    "constant": ("ms",),
    "uniform": ("low_ms", "high_ms", "max_ms"),
    "exponential": ("mean_ms", "max_ms"),
    "lognormal": ("median_ms", "sigma", "max_ms"),
}


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
        if distribution not in _THINK_FIELDS:
            raise self.fail(where, f"distribution must be one of {', '.join(THINK_DISTRIBUTIONS)}, "
                                   f"got {distribution!r}")
        fields = _THINK_FIELDS[distribution]
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
