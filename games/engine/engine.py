"""The rules engine: composes plugins, dispatches actions atomically and
fires trigger timings.

Atomicity is structural: every dispatch runs on a private copy of the state
and only a dispatch that raised nothing returns it, so a rejected action
leaves the caller's state byte-identical."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.plugin import Action, ActionHandler, Event, Plugin, Skill, SkillHandler, Trigger
from tablehost.games.engine.rng import Random, stream_state
from tablehost.games.engine.state import State, copy_state, new_state


@dataclass(slots=True)
class Context:
    """What a handler may touch: the working state, the PRNG, time as a value
    (games never read the clock), and the engine to fire timings or run
    sub-actions within the same atomic dispatch."""

    engine: "Engine"
    state: State
    now_ms: int
    events: list[Event] = field(default_factory=list)

    def random(self, purpose: str) -> Random:
        """A stream of its own for one random purpose: each call opens the
        next stream of `purpose` ("deck.shuffle/0", "deck.shuffle/1", ...)
        under the game's key, so no two shuffles or choices share numbers.
        The state counts the streams opened, so a replay opens the same ones."""
        record = self.state["rng"]
        opened = record["streams"].get(purpose, 0)
        record["streams"][purpose] = opened + 1
        return Random(stream_state(bytes.fromhex(record["key"]), f"{purpose}/{opened}"))

    def emit(self, event_type: str, payload: dict[str, Any], player_id: str | None = None) -> None:
        self.events.append(Event(event_type, payload, player_id))

    def fire(self, timing: str, data: Any) -> bool:
        """Run `timing`'s handlers; True when one of them stopped the event."""
        return self.engine.fire(self, timing, data)

    def run(self, action: Action) -> None:
        """Apply a sub-action (a deal's draws, say) inside this dispatch."""
        self.engine.execute(self, action)


@dataclass(slots=True)
class _TimingHandlers:
    """What listens to one timing: the plugins' triggers in registration
    order, and each skill's handlers by skill name."""

    triggers: list[Trigger]
    skills: dict[str, tuple[SkillHandler, ...]]


class UnknownSkillError(LookupError):
    """A skill name no plugin of the engine declares. It is a mistake in the
    game's code (or a state from another version of the game), not a move
    the rules refuse, so it is not a RuleError."""


class Engine:
    """Plugins composed: their actions, rules, triggers and skills.

    Everything that varies during a game is in the state, never on the
    engine, so one engine may run any number of games and a state is all a
    checkpoint or a replay needs. In particular a skill a player gains
    mid-game is recorded in the state by name (skills.grant_skill), and the
    engine looks its handlers up by that name whenever a timing fires."""

    def __init__(self, plugins: Sequence[Plugin]) -> None:
        self.plugins = tuple(plugins)
        self._handlers: dict[str, ActionHandler] = {}
        self._skills: dict[str, Skill] = {}
        # Everything that listens to a timing, found with one lookup: timings
        # fire many times in every move, most of them to nobody.
        self._timings: dict[str, _TimingHandlers] = {}
        for plugin in self.plugins:
            for handler in plugin.actions:
                if handler.type in self._handlers:
                    raise ValueError(f"action {handler.type} is handled twice (plugin {plugin.id})")
                self._handlers[handler.type] = handler
            for trigger in plugin.triggers:
                self.add_trigger(trigger)
            for skill in plugin.skills:
                self._add_skill(plugin, skill)

    def add_trigger(self, trigger: Trigger) -> None:
        """Register a trigger for every game this engine runs, as a plugin's
        triggers are: meant for the engine's construction (a test harness's
        logger, a tool observing games). It is not part of any state, so a
        checkpoint or a replay would not know of it: a handler a player gains
        mid-game is a Skill, declared in a plugin and granted in the state."""
        self._listeners(trigger.timing).triggers.append(trigger)

    def skill(self, name: str) -> Skill:
        """The skill declared under `name`; UnknownSkillError if none is."""
        skill = self._skills.get(name)
        if skill is None:
            declared = ", ".join(sorted(self._skills)) or "none"
            raise UnknownSkillError(f"no plugin declares a skill named {name!r} (declared: {declared})")
        return skill

    def _add_skill(self, plugin: Plugin, skill: Skill) -> None:
        if skill.name in self._skills:
            raise ValueError(f"skill {skill.name} is declared twice (plugin {plugin.id})")
        self._skills[skill.name] = skill
        for timing, handler in skill.triggers:
            by_name = self._listeners(timing).skills
            by_name[skill.name] = by_name.get(skill.name, ()) + (handler,)

    def _listeners(self, timing: str) -> _TimingHandlers:
        listeners = self._timings.get(timing)
        if listeners is None:
            listeners = self._timings[timing] = _TimingHandlers([], {})
        return listeners

    def create_game(
        self,
        game_id: str,
        players: Iterable[dict[str, Any]],
        random_key: bytes,
        now_ms: int = 0,
        initial_variables: dict[str, Any] | None = None,
    ) -> tuple[State, list[Event]]:
        """Build a state and run every plugin's setup, in plugin order. Each
        player gets a "skills" list (empty unless the caller gave one), so
        setup may grant skills (a general chosen before the game). Every
        random draw of the game comes from streams under `random_key`."""
        state = new_state(
            game_id,
            [{**player, "skills": list(player.get("skills", []))} for player in players],
            random_key,
        )
        self._check_held_skills(state)
        state["variables"].update(initial_variables or {})
        ctx = Context(self, copy_state(state), now_ms)
        for plugin in self.plugins:
            if plugin.setup is not None:
                plugin.setup(ctx)
        return ctx.state, ctx.events

    def dispatch(self, state: State, action: Action, now_ms: int = 0) -> tuple[State, list[Event]]:
        """Apply `action` and return the new state and its events, or raise
        RuleError and leave `state` untouched. A state naming a skill this
        engine does not declare (a checkpoint from another version of the
        game) raises UnknownSkillError rather than play on without it."""
        self._check_held_skills(state)
        ctx = Context(self, copy_state(state), now_ms)
        self.execute(ctx, action)
        return ctx.state, ctx.events

    def execute(self, ctx: Context, action: Action) -> None:
        handler = self._handlers.get(action.type)
        if handler is None:
            raise RuleError(Reason.UNKNOWN_ACTION, f"no plugin handles action {action.type!r}")
        handler.execute(action, ctx)

    def fire(self, ctx: Context, timing: str, data: Any) -> bool:
        """Run `timing`'s handlers; True when one of them stopped the event.

        Seat-owned handlers run in seat order from the current player, then
        the game's own (seat-less) rules; a seat's plugin triggers run
        before the skills it holds, each group in the order it was
        registered or granted. A player's seat is its index in "players".
        The handlers are chosen when the timing fires: a skill granted or
        revoked by one of them counts from the next timing."""
        listeners = self._timings.get(timing)
        if listeners is None:
            return False
        return self._run_listeners(ctx, listeners, data)

    def _run_listeners(self, ctx: Context, listeners: _TimingHandlers, data: Any) -> bool:
        triggers, skills = listeners.triggers, listeners.skills
        players = ctx.state["players"]
        seats = len(players) or 1
        current = ctx.state["position"]["current"]

        def place(trigger: Trigger) -> int:
            return seats if trigger.seat is None else (trigger.seat - current) % seats

        # (place in the running order, the holder's seat, handler)
        held: list[tuple[int, int | None, Any]] = []
        if skills:
            for seat, player in enumerate(players):
                names = player.get("skills")
                if names:
                    for name in names:
                        for handler in skills.get(name, ()):
                            held.append(((seat - current) % seats, seat, handler))
        if not held:
            # The common case: no skill held listens to this timing.
            for trigger in sorted(triggers, key=place):
                if trigger.handler(ctx, data):
                    return True
            return False
        # Plugin triggers first within a place: a stable sort keeps them ahead
        # of the skills, and each group in registration or grant order.
        runs: list[tuple[int, int | None, Any]] = [
            (place(trigger), None, trigger.handler) for trigger in triggers
        ]
        runs.extend(held)
        runs.sort(key=_running_place)
        for _, holder, handler in runs:
            stopped = handler(ctx, data) if holder is None else handler(ctx, holder, data)
            if stopped:
                return True
        return False

    def _check_held_skills(self, state: State) -> None:
        for player in state["players"]:
            for name in player.get("skills", ()):
                self.skill(name)


def _running_place(run: tuple[int, int | None, Any]) -> int:
    return run[0]
