"""One game in progress: the authoritative object a room holds, and what a
replay rebuilds. It turns a seat's wire action (a msgpack map such as
{"type": "play", "cards": ["3C"]}) into an engine action, keeps the command
log, and answers views. Time is handed in as `now_ms`; nothing here reads a
clock, so a log replays to the same hash.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence

from tablehost.games.engine.engine import Engine
from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.plugin import Action, Event
from tablehost.games.engine.state import State
from tablehost.games.engine.views import View, canonical_bytes, view_hash


class GameRules(Protocol):
    """What a game provides to the host. Views and legal actions come from
    the rules so that clients need none (R-P5, R-P7)."""

    name: str
    min_seats: int
    max_seats: int
    # Variant names a queue may ask for, with a line each for people; ""
    # is the game's standard rules.
    variants: Mapping[str, str]
    player_actions: frozenset[str]
    default_turn_timeout_ms: int

    def engine(self) -> Engine: ...

    def initial_variables(self, options: dict[str, Any]) -> dict[str, Any]: ...

    def view(self, state: State, seat: int | None) -> View: ...

    def views(self, state: State, seats: Sequence[int | None]) -> dict[int | None, View]:
        """Several seats' views at once (None: a spectator's), equal to
        calling view() for each; values they share may be the same objects."""
        ...

    def to_act(self, state: State) -> int | None: ...

    def deadline_ms(self, state: State) -> int | None: ...

    def automatic_action(self, state: State) -> dict[str, Any]: ...

    def result(self, state: State) -> dict[str, Any] | None: ...


@dataclass(frozen=True, slots=True)
class Command:
    """One accepted command, as the log stores it."""

    seat: int
    action: dict[str, Any]
    now_ms: int
    automatic: bool = False

    def to_plain(self) -> dict[str, Any]:
        return {"seat": self.seat, "action": self.action, "now_ms": self.now_ms, "automatic": self.automatic}

    @classmethod
    def from_plain(cls, plain: dict[str, Any]) -> "Command":
        return cls(plain["seat"], plain["action"], plain["now_ms"], plain.get("automatic", False))


@dataclass(slots=True)
class Match:
    rules: GameRules
    seed: int
    players: list[str]
    options: dict[str, Any]
    started_ms: int
    state: State = field(init=False)
    events: list[Event] = field(init=False)
    commands: list[Command] = field(init=False, default_factory=list)
    _engine: Engine = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.rules.min_seats <= len(self.players) <= self.rules.max_seats:
            raise ValueError(
                f"{self.rules.name} seats {self.rules.min_seats}-{self.rules.max_seats} players, "
                f"got {len(self.players)}"
            )
        self._engine = self.rules.engine()
        seats = [
            {"id": player_id, "name": player_id, "seat": seat, "status": "active", "data": {}}
            for seat, player_id in enumerate(self.players)
        ]
        self.state, self.events = self._engine.create_game(
            f"{self.rules.name}:{self.seed}",
            seats,
            self.seed,
            self.started_ms,
            self.rules.initial_variables(self.options),
        )

    @property
    def to_act(self) -> int | None:
        return self.rules.to_act(self.state)

    @property
    def deadline_ms(self) -> int | None:
        return self.rules.deadline_ms(self.state)

    @property
    def result(self) -> dict[str, Any] | None:
        return self.rules.result(self.state)

    def act(self, seat: int, action: Any, now_ms: int, automatic: bool = False) -> list[Event]:
        """Apply a seat's action or raise RuleError with the state unchanged."""
        engine_action = self._validate_envelope(seat, action)
        self.state, events = self._engine.dispatch(self.state, engine_action, now_ms)
        self.commands.append(Command(seat, action, now_ms, automatic))
        self.events.extend(events)
        return events

    def act_automatically(self, now_ms: int) -> list[Event]:
        """The game's own move for the seat to act, when its timer expires."""
        seat = self.to_act
        if seat is None:
            raise RuleError(Reason.GAME_OVER, "the game is over")
        return self.act(seat, self.rules.automatic_action(self.state), now_ms, automatic=True)

    def view(self, seat: int | None) -> View:
        return self.rules.view(self.state, seat)

    def views(self, seats: Sequence[int | None]) -> dict[int | None, View]:
        return self.rules.views(self.state, seats)

    def state_hash(self) -> str:
        return view_hash(self.state)

    def state_bytes(self) -> bytes:
        return canonical_bytes(self.state)

    def header(self) -> dict[str, Any]:
        """Everything besides the commands that a replay needs."""
        return {
            "game": self.rules.name,
            "seed": self.seed,
            "players": list(self.players),
            "options": dict(self.options),
            "started_ms": self.started_ms,
        }

    def _validate_envelope(self, seat: int, action: Any) -> Action:
        if self.result is not None:
            raise RuleError(Reason.GAME_OVER, "the game is over")
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise RuleError(Reason.MALFORMED, "an action is a map with a string 'type'")
        if action["type"] not in self.rules.player_actions:
            raise RuleError(Reason.UNKNOWN_ACTION, f"{self.rules.name} has no action {action['type']!r}")
        if not 0 <= seat < len(self.players):
            raise RuleError(Reason.MALFORMED, f"no seat {seat} at this table")
        if self.to_act != seat:
            raise RuleError(Reason.NOT_YOUR_TURN, f"it is seat {self.to_act}'s turn, not seat {seat}'s")
        payload = {key: value for key, value in action.items() if key != "type"}
        return Action(action["type"], self.players[seat], payload)


def replay(rules: GameRules, header: dict[str, Any], commands: Sequence[Command]) -> Match:
    """Rebuild a game from its header and accepted commands (R-E3)."""
    match = Match(rules, header["seed"], list(header["players"]), dict(header["options"]), header["started_ms"])
    for command in commands:
        match.act(command.seat, command.action, command.now_ms, command.automatic)
    return match
