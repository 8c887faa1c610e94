"""Rules-engine benchmark: complete in-process games between random legal bots.

    .venv/bin/python tests/benchmarks/bench_rules.py [--games 600] [--view-games 150] [--seed 1]

A script, not a test (pytest collects only test_*.py): it pins itself to one core and
measures, on that core,

- rules only: whole games (deal to result) through `Match.act`, each bot reading its
  moves from `RULES.legal_actions(state, seat)`; no views at all;
- with views: the same, plus what a room publishes after every move, the way its table
  does it: every seat's and the spectator's view from one `Match.views` call, each
  encoded with the values the views share encoded once, its hash, and its delta's bytes
  (until 2026-12-04 this built each viewer's view alone and diffed it from scratch, which
  a room never does: Kingdoms, whose views share five players' public state, paid that
  five times);
- legal-move enumeration for a seat that leads and for one that follows;
- the average delta beside the average view, in canonical bytes;
- Duel (two seats, decks chosen at join) and Kingdoms (five seats) the same way,
  rules only and with views, beside Big Two per move.

Every time is also given as a ratio to a baseline measured in the same run: one msgpack
pack + unpack of the game state. That is the copy `Engine.dispatch` makes to stay
atomic, so it is work every move must do anyway, it is done in C by the msgpack
extension so Python-level noise barely moves it, and it scales with the state the rules
work on. A ratio of 20 reads "this costs twenty state copies", which travels between
machines far better than microseconds do.

Each measurement is the best of --repeat runs (timeit's convention: the fastest run is
the one least disturbed by the rest of the machine). Prints a Markdown table, the form
docs/benchmarks.md keeps. A run at the default sizes records its ratios in the tracked
history (tests/benchmarks/history.py; --no-record to skip): runs at other sizes do not
compare with it.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgpack
from history import Measure, record as record_in_history, tree_state

from tablehost.games.bigtwo.game import RULES
from tablehost.games.duel.game import RULES as DUEL_RULES
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Match
from tablehost.games.engine.rules import GameRules
from tablehost.games.kingdoms.game import RULES as KINGDOMS_RULES
from tablehost.games.engine.state import State
from tablehost.games.engine.views import EncodedView, canonical_bytes, delta_bytes, diff, encode_view

PLAYERS = ["north", "east", "south", "west"]
VIEWERS: tuple[int | None, ...] = (0, 1, 2, 3, None)
TARGET_GAMES_PER_SECOND = 200
TARGET_RULES_X_BASELINE = 3.0  # Big Two's rules alone, in state copies per move
TARGET_X_BIGTWO_WITH_VIEWS = 3.0  # another game's move with views, beside Big Two's


@dataclass
class Sample:
    """States met in recorded games, for the baseline and the enumeration timings."""

    states: list[State]
    leading: list[tuple[State, int]]
    following: list[tuple[State, int]]
    view_bytes: list[int]
    delta_bytes: list[int]
    moves: int


def pin_to_one_core() -> str:
    try:
        core = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})
        return f"pinned to core {core}"
    except (AttributeError, OSError):  # not Linux: one thread is still one core
        return "single thread (affinity not available)"


@dataclass(frozen=True)
class Game:
    """A game as the benchmark sets it up: its rules, players and join data."""

    rules: GameRules
    players: tuple[str, ...]
    join: tuple[dict[str, Any], ...] | None = None

    @property
    def viewers(self) -> tuple[int | None, ...]:
        return (*range(len(self.players)), None)

    def new_match(self, seed: int) -> Match:
        join = [dict(data) for data in self.join] if self.join is not None else None
        return Match(self.rules, TableSeed.numbered(seed), list(self.players), {}, 0, join)


BIGTWO = Game(RULES, tuple(PLAYERS))
DUEL = Game(DUEL_RULES, ("red", "blue"), ({"deck": "mage-basic"}, {"deck": "paladin-basic"}))
KINGDOMS = Game(KINGDOMS_RULES, ("wei", "shu", "wu", "qun", "jin"))


def play_game(game: Game, seed: int, bot: random.Random, with_views: bool) -> int:
    """One complete game; returns its number of moves. The bot answers the
    first open request (Duel's mulligan asks both seats at once); a choice
    too large to list (which cards to discard) gets the request's default."""
    match = game.new_match(seed)
    previous = publish(match, game.viewers, {}) if with_views else {}
    moves = 0
    while match.result is None:
        request = match.requests[0]  # computed once per state, as a room does
        action = bot.choice(request.legal_actions) if request.legal_actions else request.default
        match.act(request.seat, action, moves)
        moves += 1
        if with_views:
            previous = publish(match, game.viewers, previous)
    return moves


def publish(match: Match, viewers: tuple[int | None, ...], previous: dict[int | None, EncodedView]
            ) -> dict[int | None, EncodedView]:
    """What a room's table does after a move (actors/table_views.py, TableViews.publish): every
    viewer's view in one call, each encoded with the values the views share encoded once,
    and its delta from that viewer's previous view; the hash comes with the encoding."""
    shared: dict[int, bytes] = {}
    encoded = {}
    for viewer, view in match.views(viewers).items():
        encoded[viewer] = encode_view(view, shared)
        if viewer in previous:
            delta_bytes(previous[viewer], encoded[viewer])
    return encoded


def time_games(games: int, seed: int, with_views: bool, repeat: int, game: Game = BIGTWO) -> tuple[float, int]:
    """Best wall time over `repeat` runs of `games` games, and the moves in one run."""
    best, moves = float("inf"), 0
    for _ in range(repeat):
        bot = random.Random(seed)
        start = time.perf_counter()
        moves = sum(play_game(game, seed + n, bot, with_views) for n in range(games))
        best = min(best, time.perf_counter() - start)
    return best, moves


def record(games: int, seed: int) -> Sample:
    """Untimed games that keep every state met, and the size of every view and delta."""
    bot = random.Random(seed)
    sample = Sample([], [], [], [], [], 0)
    for n in range(games):
        match = Match(RULES, TableSeed.numbered(seed + n), list(PLAYERS), {}, 0)
        previous = {viewer: match.view(viewer) for viewer in VIEWERS}
        while match.result is None:
            seat = RULES.to_act(match.state)
            # Dispatch never mutates a state it returned, so keeping references is safe.
            sample.states.append(match.state)
            leads = match.state["variables"]["bigtwo.last_play"] is None
            (sample.leading if leads else sample.following).append((match.state, seat))
            match.act(seat, bot.choice(RULES.legal_actions(match.state, seat)), 0)
            sample.moves += 1
            for viewer in VIEWERS:
                view = match.view(viewer)
                sample.view_bytes.append(len(canonical_bytes(view)))
                sample.delta_bytes.append(len(canonical_bytes(diff(previous[viewer], view))))
                previous[viewer] = view
    return sample


def best_per_call_us(calls: list[Callable[[], Any]], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for call in calls:
            call()
        best = min(best, time.perf_counter() - start)
    return best / len(calls) * 1e6


def state_round_trip(state: State) -> Callable[[], Any]:
    return lambda: msgpack.unpackb(msgpack.packb(state, use_bin_type=True), raw=False)


def legal_actions_of(state: State, seat: int) -> Callable[[], Any]:
    return lambda: RULES.legal_actions(state, seat)


def mean(values: list[int] | list[float]) -> float:
    return sum(values) / len(values)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600, help="games per rules-only run")
    parser.add_argument("--view-games", type=int, default=150, help="games per run with views")
    parser.add_argument(
        "--sample-games", type=int, default=100, help="recorded games for the baseline and enumeration"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is kept")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-record", action="store_true", help="leave the tracked history alone")
    args = parser.parse_args(argv)
    defaults = parser.parse_args([])
    tree = tree_state()

    affinity = pin_to_one_core()
    time_games(20, args.seed, with_views=True, repeat=1)  # warm-up

    sample = record(args.sample_games, args.seed)
    baseline_us = best_per_call_us([state_round_trip(state) for state in sample.states], args.repeat)

    rules_s, rules_moves = time_games(args.games, args.seed, with_views=False, repeat=args.repeat)
    views_s, views_moves = time_games(args.view_games, args.seed, with_views=True, repeat=args.repeat)
    rules_move_us = rules_s / rules_moves * 1e6
    views_move_us = views_s / views_moves * 1e6

    lead_us = best_per_call_us([legal_actions_of(*entry) for entry in sample.leading], args.repeat)
    follow_us = best_per_call_us([legal_actions_of(*entry) for entry in sample.following], args.repeat)
    lead_count = mean([len(RULES.legal_actions(state, seat)) for state, seat in sample.leading])
    follow_count = mean([len(RULES.legal_actions(state, seat)) for state, seat in sample.following])

    view_size, delta_size = mean(sample.view_bytes), mean(sample.delta_bytes)
    rules_gps = args.games / rules_s
    rows = [
        ("baseline: msgpack pack+unpack of the state", f"{baseline_us:.2f} µs", "1.0"),
        (
            f"rules only: {rules_gps:,.0f} games/s ({rules_moves / args.games:.1f} moves/game)",
            f"{rules_move_us:.1f} µs/move",
            f"{rules_move_us / baseline_us:.1f}",
        ),
        (
            f"with 5 views + deltas + hashes per move: {args.view_games / views_s:,.0f} games/s",
            f"{views_move_us:.1f} µs/move",
            f"{views_move_us / baseline_us:.1f}",
        ),
        (
            f"legal moves, leading (avg {lead_count:.1f} actions)",
            f"{lead_us:.1f} µs",
            f"{lead_us / baseline_us:.1f}",
        ),
        (
            f"legal moves, following (avg {follow_count:.1f} actions)",
            f"{follow_us:.1f} µs",
            f"{follow_us / baseline_us:.1f}",
        ),
        ("average view (canonical bytes)", f"{view_size:.0f} B", f"delta/view = {delta_size / view_size:.2f}"),
        ("average delta (canonical bytes)", f"{delta_size:.0f} B", ""),
    ]

    print(f"Python {platform.python_version()} on {platform.machine()}, {affinity}; "
          f"{sample.moves} recorded moves, best of {args.repeat}")
    print()
    print("| measure | time or size | × baseline |")
    print("|---|---:|---:|")
    for measure, value, ratio in rows:
        print(f"| {measure} | {value} | {ratio} |")
    print()
    met = "met" if rules_gps >= TARGET_GAMES_PER_SECOND else "NOT met"
    print(f"target >= {TARGET_GAMES_PER_SECOND} complete games/s on one core (rules only): {met}")

    print()
    print("Other games, random legal moves (Duel: mage-basic against paladin-basic; Kingdoms: 5 seats), "
          "a quarter of Big Two's games, beside Big Two:")
    print()
    print("| game | rules only: games/s | µs/move | × Big Two per move | with views: µs/move "
          "| × Big Two per move |")
    print("|---|---:|---:|---:|---:|---:|")
    measures = {
        "Big Two rules only ÷ state copy": Measure(rules_move_us / baseline_us, "lower", target=TARGET_RULES_X_BASELINE),
        "Big Two with views ÷ state copy": Measure(views_move_us / baseline_us, "lower"),
    }
    for name, game in (("Duel", DUEL), ("Kingdoms", KINGDOMS)):
        games, view_games = max(1, args.games // 4), max(1, args.view_games // 4)
        game_s, game_moves = time_games(games, args.seed, with_views=False, repeat=args.repeat, game=game)
        viewed_s, viewed_moves = time_games(view_games, args.seed, with_views=True, repeat=args.repeat, game=game)
        move_us, viewed_move_us = game_s / game_moves * 1e6, viewed_s / viewed_moves * 1e6
        print(f"| {name} ({len(game.players)} seats, {game_moves / games:.0f} moves/game) | {games / game_s:,.0f} | "
              f"{move_us:.1f} | {move_us / rules_move_us:.2f} | {viewed_move_us:.1f} | "
              f"{viewed_move_us / views_move_us:.2f} |")
        measures[f"{name} with views ÷ Big Two with views"] = Measure(
            viewed_move_us / views_move_us, "lower", target=TARGET_X_BIGTWO_WITH_VIEWS)
    sizes = ("games", "view_games", "sample_games", "repeat", "seed")
    if args.no_record or any(getattr(args, size) != getattr(defaults, size) for size in sizes):
        print("\nnot recorded in the history (--no-record, or sizes other than the defaults)")
    else:
        print()
        record_in_history("rules", measures, tree=tree)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
