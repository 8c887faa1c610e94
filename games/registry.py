"""The games a host can run, by name: the built-in games plus any an operator
adds by import path (`package.module:ATTRIBUTE`, e.g. a house variant or a
test game), so adding a game needs no change to the host.

Every process that needs the rules (the front door checks names and
variants, the lobby counts seats, each room plays) builds the same catalog
from the same list of paths, passed down in the host's configuration."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable, Mapping, Sequence

from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.duel.game import RULES as DUEL
from tablehost.games.engine.rules import GameRules
from tablehost.games.kingdoms.game import RULES as KINGDOMS

BUILT_IN: tuple[GameRules, ...] = (BIGTWO, DUEL, KINGDOMS)


class UnknownGame(LookupError):
    """No game of that name is registered on this host."""


class UnknownVariant(LookupError):
    """The game does not declare that variant."""


class GameCatalog:
    """Registered games by name. Immutable once built."""

    def __init__(self, games: Iterable[GameRules]) -> None:
        self._games: dict[str, GameRules] = {}
        for rules in games:
            if rules.name in self._games:
                raise ValueError(f"two games are registered as {rules.name!r}")
            self._games[rules.name] = rules

    @classmethod
    def load(cls, extra_modules: Iterable[str] = (), search_path: Sequence[str] = ()) -> GameCatalog:
        """The built-in games and one game per `module:attribute` path,
        imported from the installed packages or the `search_path` folders (the
        folder the host was started in, as `python -m` would; every process of
        the host is given the same folders)."""
        for folder in search_path:
            if folder not in sys.path:
                sys.path.append(folder)
        return cls([*BUILT_IN, *(import_game(path) for path in extra_modules)])

    @property
    def names(self) -> list[str]:
        return sorted(self._games)

    def __contains__(self, name: object) -> bool:
        return name in self._games

    def rules(self, name: str) -> GameRules:
        try:
            return self._games[name]
        except KeyError:
            raise UnknownGame(f"unknown game {name!r}; this host runs {', '.join(self.names)}") from None

    def check_variant(self, name: str, variant: str) -> None:
        """Raise UnknownGame or UnknownVariant unless `variant` is one the game declares."""
        declared: Mapping[str, str] = self.rules(name).variants
        if variant not in declared:
            listed = ", ".join(repr(v) for v in sorted(declared))
            raise UnknownVariant(f"{name} has no variant {variant!r}; it declares {listed}")


def import_game(path: str) -> GameRules:
    """`package.module:ATTRIBUTE` → that module's GameRules object."""
    module_name, _, attribute = path.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"a game module is given as package.module:ATTRIBUTE, got {path!r}")
    rules = getattr(importlib.import_module(module_name), attribute)
    for needed in ("name", "min_seats", "max_seats", "variants", "engine", "view"):
        if not hasattr(rules, needed):
            raise ValueError(f"{path} is not a game: it has no {needed!r}")
    return rules
