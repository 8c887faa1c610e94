"""`tablehost loadtest`'s one typed configuration: its flags, the bounds
that keep a run finite, and the profile checked against the games' rules
(known game and variant, seats, bots, join data) before anything starts."""

from __future__ import annotations

import argparse
import dataclasses
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tablehost.clients.bots import bot_factories
from tablehost.clients.loadprofile import (
    GameShare,
    LoadProfile,
    ProfileError,
    simple_profile,
    tables_per_game,
)
from tablehost.clients.loadprofile_toml import load_profile
from tablehost.games.engine.rules import InvalidJoin
from tablehost.games.registry import GameCatalog, UnknownGame, UnknownVariant
from tablehost.host import config_flags
from tablehost.host.config import HostConfig
from tablehost.host.config_flags import game_module_paths

# Tables a run may ask for: the front door holds about 5,000 tables' players
# before its open-files limit binds (README, "Limits today"); more is a typo.
MAX_TABLES = 5_000
MAX_GAMES_PER_TABLE = 100
# Four hours: an agent keeps a histogram of round trips per second of the run.
MAX_DURATION_S = 4 * 3600.0
MAX_AGENTS_PER_NODE = 16
DEFAULT_DURATION_S = 300.0


@dataclass(frozen=True)
class LoadTestSettings:
    """One load test: where (`target`, or a host started here with
    `host_config` when empty; `ray_address`, or a local Ray when None), how much (`tables` tables'
    worth of players, each playing `games_per_table` games), how long at
    most (`duration_s`), shaped by `profile` (read from `profile_source`),
    driven by `agents_per_node` agents on every alive node, reported in
    `out`."""

    target: str
    ray_address: str | None
    tables: int
    games_per_table: int
    duration_s: float
    profile: LoadProfile
    profile_source: str
    agents_per_node: int
    out: Path
    show_progress: bool
    seed: int
    game_modules: tuple[str, ...] = ()
    game_path: tuple[str, ...] = ()
    tls_root_cert: bytes | None = None
    host_config: HostConfig | None = None

    @property
    def games_expected(self) -> int:
        return self.tables * self.games_per_table

    def to_json_dict(self) -> dict[str, object]:
        """The configuration as the report records it."""
        return {
            "target": self.target or "(a host started by the load test)",
            "ray_address": self.ray_address or "(a local Ray)",
            "tables": self.tables,
            "games_per_table": self.games_per_table,
            "duration_s": self.duration_s,
            "agents_per_node": self.agents_per_node,
            "seed": self.seed,
            "profile_source": self.profile_source,
            "profile": self.profile.to_json_dict(),
        }


def add_loadtest_arguments(parser: argparse.ArgumentParser) -> None:
    """The load test's own flags (the host's come from HostConfig, for a host started here)."""
    parser.add_argument("--target", default="", metavar="HOST:PORT",
                        help="the host to load (default: start one here, on --address or an embedded Ray)")
    parser.add_argument("--game", default=None, help="the game to play without --profile (default: bigtwo)")
    parser.add_argument("--tables", type=int, required=True, help=f"tables' worth of players (1 to {MAX_TABLES:,})")
    parser.add_argument("--games-per-table", type=int, default=1, metavar="K",
                        help="games each player plays, queueing again after each (default 1)")
    parser.add_argument("--duration", type=float, default=DEFAULT_DURATION_S, metavar="S",
                        help=f"hard bound in seconds: players still playing then count as errors "
                             f"(default {DEFAULT_DURATION_S:g}, at most {MAX_DURATION_S:g})")
    parser.add_argument("--profile", default="", metavar="FILE",
                        help="the day's shape, TOML (see docs/loadtest-profile.example.toml)")
    parser.add_argument("--agents-per-node", type=int, default=1, metavar="M",
                        help="load agents (processes driving players) on each alive Ray node (default 1)")
    parser.add_argument("--out", default="", metavar="DIR",
                        help="where report.json and loadtest.png go (default: a new folder in the temp dir)")
    parser.add_argument("--no-progress", action="store_true", help="no live display (for scripts)")


def settings_from_args(args: argparse.Namespace, tls_root_cert: bytes | None) -> LoadTestSettings:
    """The settings from parsed flags, every bound and the profile checked;
    SystemExit with the reason otherwise."""

    def refuse(message: str) -> SystemExit:
        return SystemExit(f"tablehost loadtest: {message}")

    if not 1 <= args.tables <= MAX_TABLES:
        raise refuse(f"--tables takes 1 to {MAX_TABLES:,} tables, got {args.tables:,}")
    if not 1 <= args.games_per_table <= MAX_GAMES_PER_TABLE:
        raise refuse(f"--games-per-table takes 1 to {MAX_GAMES_PER_TABLE}, got {args.games_per_table}")
    if not 0 < args.duration <= MAX_DURATION_S:
        raise refuse(f"--duration takes more than 0 and at most {MAX_DURATION_S:g} seconds, got {args.duration:g}")
    if not 1 <= args.agents_per_node <= MAX_AGENTS_PER_NODE:
        raise refuse(f"--agents-per-node takes 1 to {MAX_AGENTS_PER_NODE}, got {args.agents_per_node}")
    if args.profile:
        if args.game is not None:
            raise refuse("--game and --profile both choose the games; the profile's [[games]] do with --profile")
        try:
            profile = load_profile(args.profile)
        except ProfileError as error:
            raise refuse(str(error)) from None
        source = args.profile
    else:
        profile, source = simple_profile(args.game or "bigtwo"), "flags"
    modules = game_module_paths(args.game_module)
    game_path = (os.getcwd(),)
    try:
        catalog = GameCatalog.load(modules, game_path)
    except (ImportError, AttributeError, ValueError) as error:
        raise refuse(f"cannot load the games: {error}") from None
    try:
        profile = resolve_profile(profile, catalog)
    except ProfileError as error:
        raise refuse(f"{source}: {error}") from None
    last_arrival = last_arrival_s(profile, args.tables)
    if last_arrival >= args.duration:
        raise refuse(f"{source}: at its arrival rate the last player arrives {last_arrival:.1f} s into the run, "
                     f"not before --duration {args.duration:g} s ends it: raise --duration or the rate")
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="tablehost-loadtest-"))
    return LoadTestSettings(
        target=args.target, ray_address=args.address, tables=args.tables, games_per_table=args.games_per_table,
        duration_s=args.duration, profile=profile, profile_source=source, agents_per_node=args.agents_per_node,
        out=out, show_progress=not args.no_progress, seed=args.seed if args.seed is not None else 0,
        game_modules=modules, game_path=game_path, tls_root_cert=tls_root_cert,
        host_config=None if args.target else _own_host(args),
    )


def _own_host(args: argparse.Namespace) -> HostConfig:
    """The host a load test starts itself: `serve`'s flags, and on one
    machine (no --address) its own agents' address, 127.0.0.1, exempt from
    the per-client quotas unless the flags say otherwise (every player the
    run makes calls from it)."""
    config = config_flags.config_from_args(args)
    if args.address is None and not config.quota_exempt:
        config = dataclasses.replace(config, quota_exempt=("127.0.0.1",))
    return config


def last_arrival_s(profile: LoadProfile, tables: int) -> float:
    """When the run's last player arrives, in seconds from its start (the
    profile's games resolved)."""
    players = sum(count * game.seats for count, game in zip(tables_per_game(profile, tables), profile.games))
    return profile.arrival.offsets(players)[-1]


def resolve_profile(profile: LoadProfile, catalog: GameCatalog) -> LoadProfile:
    """The profile with every game checked against its rules and its
    defaults filled in: seats (the game's usual table), join data (the
    game's example). ProfileError names the game and what is wrong."""
    return dataclasses.replace(profile, games=tuple(_resolve_game(share, catalog) for share in profile.games))


def _resolve_game(share: GameShare, catalog: GameCatalog) -> GameShare:
    where = f"[[games]] {share.name!r}"
    try:
        catalog.check_variant(share.name, share.variant)
    except (UnknownGame, UnknownVariant) as error:
        raise ProfileError(f"{where}: {error.args[0]}") from None
    rules = catalog.rules(share.name)
    try:
        seats = rules.table_seats(share.seats)
    except ValueError as error:
        raise ProfileError(f"{where}: seats: {error}") from None
    bots = bot_factories(dict(rules.bots()))
    if share.bot not in bots:
        raise ProfileError(f"{where}: no bot {share.bot!r}; choose from {', '.join(sorted(bots))}")
    join_data = dict(share.join_data) if share.join_data is not None else rules.example_join()
    try:
        rules.accepted_join(join_data)
    except InvalidJoin as error:
        raise ProfileError(f"{where}: join_data: {error}") from None
    return dataclasses.replace(share, seats=seats, join_data=join_data)
