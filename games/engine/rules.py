"""What a game provides to the host: `GameRules`, a base class whose defaults
cover a game where one seat acts at a time, so a new game writes only what
differs (as python-chess's variants override a few hooks); and `Request`, one
seat asked to act now.

A game says who may act as a set of requests, so several seats can choose at
once (a mulligan, every general chosen together) and any seat can be asked
out of turn (a Dodge against a Slash, a Peach for a dying player). Each
request lists its legal actions (or describes a choice they cannot list),
has a deadline, and names the action taken for the seat when it passes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

from tablehost.games.engine.engine import Engine
from tablehost.games.engine.joins import InvalidJoin, JoinShape, check_shape
from tablehost.games.engine.plugin import Plugin
from tablehost.games.engine.state import State
from tablehost.games.engine.views import View

# An action as a seat sends it: a map with a "type" (the engine's parsed form is plugin.Action).
ActionMap = dict[str, Any]
__all__ = ["ActionMap", "GameRules", "InvalidJoin", "JoinShape", "Placing", "Request"]


@dataclass(frozen=True, slots=True)
class Request:
    """One seat asked to act now. `legal_actions` lists what it may send
    (empty when `choice` describes a choice too large to list, e.g. which 2
    of 8 cards to discard); `default` is the action the host takes for the
    seat at `deadline_ms` (None: no deadline)."""

    seat: int
    legal_actions: list[ActionMap]
    deadline_ms: int | None = None
    default: ActionMap | None = None
    choice: dict[str, Any] | None = field(default=None)

    def to_view(self) -> dict[str, Any]:
        """What the asked seat's view carries under "request": what it may
        send, by when, and what the host sends for it if it does not."""
        shown: dict[str, Any] = {
            "legal_actions": self.legal_actions,
            "deadline_ms": self.deadline_ms,
            "default": self.default,
        }
        if self.choice is not None:
            shown["choice"] = self.choice
        return shown


@dataclass(frozen=True, slots=True)
class Placing:
    """One seat's outcome of a game as a tournament counts it."""

    place: int  # 0 = first; tied seats share a place
    points: float
    score: float  # the game's own score, for the score-difference tie-break


class GameRules:
    """A game as the host sees it. Subclasses set the class attributes and
    override what differs; `view` and `result` have no default."""

    name: ClassVar[str]
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    # A queue or private table that does not say how many seats gets this.
    default_seats: ClassVar[int | None] = None  # None: max_seats
    # Variant names a queue may ask for, with a line each for people; "" is
    # the game's standard rules.
    variants: ClassVar[Mapping[str, str]] = {"": "standard rules"}
    default_turn_timeout_ms: ClassVar[int] = 30_000
    # Raised whenever a change of the rules would replay a game's commands to
    # another state: a table started under one version never resumes under
    # another (its room refuses it), so change it only with an upgrade that
    # lets running games finish where they are.
    rules_version: ClassVar[int] = 1
    plugins: ClassVar[tuple[Plugin, ...]]
    # The forms a player's join data may take (games/engine/joins.py); none:
    # the game takes no join data.
    join_shapes: ClassVar[tuple[JoinShape, ...]] = ()

    # -- setting a game up ------------------------------------------------------

    @cached_property
    def player_actions(self) -> frozenset[str]:
        """The action types a player may send: those the plugins declare
        `by_player`; the engine may run others itself (a deal's draws)."""
        return frozenset(handler.type for plugin in self.plugins for handler in plugin.actions if handler.by_player)

    def table_seats(self, asked: int = 0) -> int:
        """How many seats a table asked for with `asked` (0: the default) has;
        ValueError when the game cannot be played with that many."""
        seats = asked or self.default_seats or self.max_seats
        if not self.min_seats <= seats <= self.max_seats:
            span = str(self.min_seats) if self.min_seats == self.max_seats else f"{self.min_seats} to {self.max_seats}"
            raise ValueError(f"{self.name} is played by {span} players, not {seats}")
        return seats

    def engine(self) -> Engine:
        return Engine(self.plugins)

    def initial_variables(self, options: dict[str, Any]) -> dict[str, Any]:
        """Variables from the table's options (e.g. a turn timeout); none by default."""
        return {}

    def accepted_join(self, join: Any) -> dict[str, Any]:
        """A player's join data as the game keeps it, or InvalidJoin: the one
        door join data passes through. Its shape is checked before any of
        the game's own code sees it, and anything else the game raises on it
        (the game's bug, kept as the refusal's cause) is refused too, so that
        one player's data can cost nobody else anything."""
        shaped = check_shape(join, self.join_shapes)
        try:
            return self.check_join(shaped)
        except InvalidJoin:
            raise
        except Exception as error:
            raise InvalidJoin(f"{self.name} could not read this join data ({type(error).__name__})") from error

    def check_join(self, join: Mapping[str, Any]) -> dict[str, Any]:
        """A player's join data, already of one of `join_shapes`, as the game
        will keep it, or InvalidJoin with the reason. By default the data
        as it came (a game with no shapes gets only an empty map)."""
        return dict(join)

    def example_join(self) -> dict[str, Any]:
        """Join data for a player who brings none (the CLI's bots, demo and
        terminal client, when not given --join-data): valid for check_join.
        A game that needs a choice from each player (a deck) names one here."""
        return {}

    def join_partition(self, join: Mapping[str, Any]) -> str:
        """Players whose partitions are equal may share a table (a queue is
        split by it); by default everyone may."""
        return ""

    # -- who acts ---------------------------------------------------------------

    def requests(self, state: State) -> list[Request]:
        """Who may act now. The default: the one seat `to_act` names, with its
        `legal_actions`, the turn's `deadline_ms` and its `automatic_action`."""
        seat = self.to_act(state)
        if seat is None:
            return []
        return [Request(seat, self.legal_actions(state, seat), self.deadline_ms(state), self.automatic_action(state))]

    def to_act(self, state: State) -> int | None:
        return None

    def legal_actions(self, state: State, seat: int) -> list[ActionMap]:
        return []

    def deadline_ms(self, state: State) -> int | None:
        return None

    def automatic_action(self, state: State) -> ActionMap | None:
        return None

    # -- what seats see, and the end --------------------------------------------

    def view(self, state: State, seat: int | None) -> View:
        """What `seat` may see (None: a spectator)."""
        raise NotImplementedError(f"{type(self).__name__} must say what each seat sees")

    def views(self, state: State, seats: Sequence[int | None]) -> dict[int | None, View]:
        """Several seats' views at once; a game may share the values they have
        in common (the host then encodes them once)."""
        return {seat: self.view(state, seat) for seat in seats}

    def result(self, state: State) -> dict[str, Any] | None:
        """The game's result once it is over ({"winner", "scores", ...}), else None."""
        raise NotImplementedError(f"{type(self).__name__} must say when the game is over")

    def placings(self, result: Mapping[str, Any]) -> list[Placing]:
        """Each seat's place in a finished game, for a tournament's standings:
        by the result's "scores" (higher is better; equal scores share a
        place). Points are the players beaten plus half the ones tied, so a
        2-seat game scores 1 / 0.5 / 0 and a 4-seat table 3 to 0. A game
        whose scores mean something else says so by overriding this."""
        scores = [float(score) for score in result.get("scores", ())]
        if not scores:
            raise ValueError(f"{self.name}'s result has no scores to place the seats by")
        placings = []
        for score in scores:
            beaten = sum(1 for other in scores if other < score)
            tied = sum(1 for other in scores if other == score) - 1
            place = sum(1 for other in scores if other > score)
            placings.append(Placing(place, beaten + tied / 2, score))
        return placings

    # -- what the tools may use ---------------------------------------------------

    def presenter(self) -> Any:
        """How the terminal client and the demo show this game to people (an
        object with the methods of tablehost.clients.presentation.Presenter),
        or None for the generic one, which prints views and legal actions."""
        return None

    def bots(self) -> Mapping[str, Callable[[int], Any]]:
        """Bots that know this game, by name: each a factory taking a seed and
        returning an object with a `name` and `choose(view) -> action`. The
        generic random bot needs none of this and plays every game."""
        return {}
