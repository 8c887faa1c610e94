"""The rules engine: composes plugins, dispatches actions atomically and
fires trigger timings.

Atomicity is structural: every dispatch runs on a private copy of the state
and only a dispatch that raised nothing returns it, so a rejected action
leaves the caller's state byte-identical (R-P4)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.plugin import Action, ActionHandler, Event, Plugin, Trigger
from tablehost.games.engine.rng import Random, seed_state
from tablehost.games.engine.state import State, copy_state, new_state


class _StateRandom(Random):
    """A Random whose state lives in the game state, so every draw is recorded."""

    __slots__ = ("_game",)

    def __init__(self, game: State) -> None:
        super().__init__(game["rng"])
        self._game = game

    def next_u64(self) -> int:
        value = super().next_u64()
        self._game["rng"] = self.state
        return value


@dataclass(slots=True)
class Context:
    """What a handler may touch: the working state, the PRNG, time as a value
    (games never read the clock), and the engine to fire timings or run
    sub-actions within the same atomic dispatch."""

    engine: "Engine"
    state: State
    now_ms: int
    events: list[Event] = field(default_factory=list)

    @property
    def random(self) -> Random:
        return _StateRandom(self.state)

    def emit(self, event_type: str, payload: dict[str, Any], player_id: str | None = None) -> None:
        self.events.append(Event(event_type, payload, player_id))

    def fire(self, timing: str, data: Any) -> bool:
        """Run `timing`'s handlers; True when one of them stopped the event."""
        return self.engine.fire(self, timing, data)

    def run(self, action: Action) -> None:
        """Apply a sub-action (a deal's draws, say) inside this dispatch."""
        self.engine.execute(self, action)


class Engine:
    def __init__(self, plugins: Sequence[Plugin]) -> None:
        self.plugins = tuple(plugins)
        self._handlers: dict[str, ActionHandler] = {}
        self._triggers: dict[str, list[Trigger]] = {}
        for plugin in self.plugins:
            for handler in plugin.actions:
                if handler.type in self._handlers:
                    raise ValueError(f"action {handler.type} is handled twice (plugin {plugin.id})")
                self._handlers[handler.type] = handler
            for trigger in plugin.triggers:
                self.add_trigger(trigger)

    def add_trigger(self, trigger: Trigger) -> None:
        """Register a handler outside a plugin (a general's skill chosen mid-game)."""
        self._triggers.setdefault(trigger.timing, []).append(trigger)

    def create_game(
        self,
        game_id: str,
        players: Iterable[dict[str, Any]],
        seed: int,
        now_ms: int = 0,
        initial_variables: dict[str, Any] | None = None,
    ) -> tuple[State, list[Event]]:
        """Build a state and run every plugin's setup, in plugin order."""
        state = new_state(game_id, [dict(p) for p in players], seed_state(seed))
        state["variables"].update(initial_variables or {})
        ctx = Context(self, copy_state(state), now_ms)
        for plugin in self.plugins:
            if plugin.setup is not None:
                plugin.setup(ctx)
        return ctx.state, ctx.events

    def dispatch(self, state: State, action: Action, now_ms: int = 0) -> tuple[State, list[Event]]:
        """Apply `action` and return the new state and its events, or raise
        RuleError and leave `state` untouched."""
        ctx = Context(self, copy_state(state), now_ms)
        self.execute(ctx, action)
        return ctx.state, ctx.events

    def execute(self, ctx: Context, action: Action) -> None:
        handler = self._handlers.get(action.type)
        if handler is None:
            raise RuleError(Reason.UNKNOWN_ACTION, f"no plugin handles action {action.type!r}")
        for plugin in self.plugins:
            for rule in plugin.rules:
                rule(ctx.state, action)
        result = handler.execute(action, ctx)
        ctx.state = result.state
        ctx.events.extend(result.events)

    def fire(self, ctx: Context, timing: str, data: Any) -> bool:
        """Seat-owned handlers run in seat order from the current player, then
        the game's own rules; a handler returning True stops the event."""
        triggers = self._triggers.get(timing)
        if not triggers:
            return False
        seats = len(ctx.state["players"]) or 1
        current = ctx.state["position"]["current"]

        def order(trigger: Trigger) -> int:
            return seats if trigger.seat is None else (trigger.seat - current) % seats

        for trigger in sorted(triggers, key=order):
            if trigger.handler(ctx, data):
                return True
        return False
