"""The shape of a load test's day: which games people play and how often,
how fast they arrive, how long they think, who leaves mid-game and comes
back, who reads their stream slowly. Read from a TOML file
(clients/loadprofile_toml.py) or made from a command line's flags
(`simple_profile`), then turned into one plan per player (`plan_players`)
that a load driver follows.

The size of a run (tables, games per table) and its time bound are not
part of a profile: one day's shape is run at any size.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# A think time is at most this, whatever its distribution draws.
MAX_THINK_MS = 60_000.0

THINK_DISTRIBUTIONS = ("none", "constant", "uniform", "exponential", "lognormal")
# What each think time distribution takes (the keys of its [think] table).
THINK_FIELDS: dict[str, tuple[str, ...]] = {
    "none": (),
    "constant": ("ms",),
    "uniform": ("low_ms", "high_ms", "max_ms"),
    "exponential": ("mean_ms", "max_ms"),
    "lognormal": ("median_ms", "sigma", "max_ms"),
}


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
            "think": {key: getattr(self.think, key) for key in THINK_FIELDS[self.think.distribution]}
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
