"""Bots that play a seat through the SDK, for load tests, tournaments and
opponents in the terminal client.

A bot knows no rules: when the game asks its seat to act, it picks one of
the actions the host listed in the view's request ("request"
→ "legal_actions"), or sends the request's default when the choice is too
large to list. That keeps bots valid for every game the host runs, and
makes any rejection they receive a host-side finding. Bots that prefer some
legal actions to others know their game, so they live beside it and are
offered by its rules (`GameRules.bots()`); the caller passes them in.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from hdrh.histogram import HdrHistogram

from tablehost.clients.codec import View
from tablehost.clients.sdk import GameResult, TableSession
from tablehost.v1 import table_pb2

ActionMap = dict[str, Any]

# Commit round trips are recorded in microseconds, from 1 µs to 60 s, to
# three significant digits: enough resolution for a p99 on loopback.
_LOWEST_US = 1
_HIGHEST_US = 60_000_000
_SIGNIFICANT_DIGITS = 3

# After RATE_LIMITED the view is still ours: wait a little before retrying.
_RATE_LIMITED_PAUSE_S = 0.2


class NoLegalAction(ValueError):
    """A bot was asked to choose from a view whose request lists no legal
    action and names no default."""


class Bot(Protocol):
    name: str

    def choose(self, view: View) -> ActionMap: ...


BotFactory = Callable[[int], Bot]
"""Makes a bot from a seed (a class such as RandomBot is one)."""

BeforeMove = Callable[[TableSession], Awaitable[None]]
"""What a player does between being asked and choosing (think, leave and
come back): awaited by play_seat before each move."""


def choices(view: View) -> list[ActionMap]:
    """What a bot may send for the view's request: its legal actions, or
    its default alone when the request describes a choice too large to list
    (the default is always a valid answer)."""
    request = view.get("request")
    request = request if isinstance(request, dict) else {}
    actions = request.get("legal_actions")
    if actions:
        return list(actions)
    if request.get("default") is not None:
        return [request["default"]]
    raise NoLegalAction(f"the view of seat {view.get('seat')} lists no legal actions and no default")


class RandomBot:
    """Uniformly random among the legal actions, from its own seeded PRNG so
    a run can be repeated. It needs nothing from the game, so it plays every
    game the host runs."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def choose(self, view: View) -> ActionMap:
        return self._random.choice(choices(view))


def bot_factories(game_bots: Mapping[str, BotFactory] | None = None) -> dict[str, BotFactory]:
    """The bots that can play a game, by name: the generic random bot and
    the game's own (its rules' `bots()`), which may replace it."""
    return {RandomBot.name: RandomBot, **(game_bots or {})}


def make_bot(kind: str, factories: Mapping[str, BotFactory], seed: int = 0) -> Bot:
    """The bot named `kind` from `factories` (see bot_factories), seeded with
    `seed`; ValueError naming the choices for an unknown name."""
    try:
        factory = factories[kind]
    except KeyError:
        raise ValueError(f"unknown bot {kind!r}; choose from {', '.join(sorted(factories))}") from None
    return factory(seed)


def round_trip_histogram() -> HdrHistogram:
    """An empty histogram of commit round trips in microseconds, as every
    PlayStats keeps them: histograms made here add up exactly."""
    return HdrHistogram(_LOWEST_US, _HIGHEST_US, _SIGNIFICANT_DIGITS)


def round_trip_us(seconds: float) -> int:
    """A round trip as the value a round-trip histogram records (clamped to its range)."""
    return min(max(round(seconds * 1_000_000), _LOWEST_US), _HIGHEST_US)


@dataclass
class PlayStats:
    """What bots measured while playing. One instance may be shared by every
    bot of a run: they all run on one event loop."""

    moves: int = 0
    rejects: int = 0
    round_trips_us: HdrHistogram = field(default_factory=round_trip_histogram)

    def record_round_trip(self, seconds: float) -> None:
        self.round_trips_us.record_value(round_trip_us(seconds))

    def percentile_ms(self, percentile: float) -> float:
        """A commit round trip percentile in milliseconds (0.0 before any)."""
        if self.round_trips_us.get_total_count() == 0:
            return 0.0
        return self.round_trips_us.get_value_at_percentile(percentile) / 1000


async def play_seat(session: TableSession, bot: Bot, stats: PlayStats, commit_timeout: float = 10.0,
                    before_move: BeforeMove | None = None) -> GameResult:
    """Play the session's seat until the game is over and return its result.

    Each commit's round trip (written to outcome) goes into `stats`. After a
    rejection the bot waits for the table to move on (a turn timer's move, a
    snapshot) before choosing again, so a view the host disagrees with cannot
    make it spin; after RATE_LIMITED it pauses and retries the same view.
    `before_move` is awaited each time the seat is asked, before the bot
    chooses (a load test's players think there, or leave and come back);
    the bot then chooses from the view as it is after that, and only if the
    seat is still asked (its turn timer may have played meanwhile)."""
    after_seq = -1
    while True:
        view = await session.wait_for_request(after_seq=after_seq)
        if view is None:
            return await session.wait_game_over()
        if before_move is not None:
            await before_move(session)
            view = session.view
            if session.game_over or not isinstance(view.get("request"), dict):
                after_seq = -1
                continue
        seq_of_view = session.seq
        outcome = await session.commit(bot.choose(view), timeout=commit_timeout)
        stats.record_round_trip(outcome.round_trip_s)
        if outcome.accepted:
            stats.moves += 1
            after_seq = -1
        elif outcome.reason == table_pb2.REJECT_REASON_RATE_LIMITED:
            stats.rejects += 1
            await asyncio.sleep(_RATE_LIMITED_PAUSE_S)
            after_seq = -1
        else:
            stats.rejects += 1
            after_seq = seq_of_view
