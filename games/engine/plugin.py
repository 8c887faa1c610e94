"""What a plugin is made of: actions, an optional setup, trigger handlers,
and the skills players may gain during a game. An action's legality is its
handler's to check: it raises RuleError, and the engine throws away the copy
of the state it was changing. A game is a list of plugins; the engine
composes them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Protocol

if TYPE_CHECKING:
    from tablehost.games.engine.engine import Context


@dataclass(frozen=True, slots=True)
class Action:
    """A command: `player_id` None means the system acts (a deal, a reshuffle).
    A player's action also carries its `seat`, the one identity a game needs
    to know who acts (the player id is the state's own key for that player)."""

    type: str
    player_id: str | None = None
    payload: dict[str, Any] = field(default_factory=dict)
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, in the order it happened; payloads are plain data."""

    type: str
    payload: dict[str, Any]
    player_id: str | None = None


class ActionExecute(Protocol):
    """Applies the action to `ctx.state` in place and emits its events
    (`ctx.emit`); raises RuleError to refuse it."""

    def __call__(self, action: Action, ctx: "Context") -> None: ...


@dataclass(frozen=True, slots=True)
class ActionHandler:
    """Handles one action type. `execute` works on `ctx.state`, a private copy
    of the state that the engine discards if anything raises, so a handler may
    validate as it goes without leaving half-applied changes behind.

    `by_player` marks an action a player may send (a play, a pass); the
    others are the game's own steps (a deal's draws), which no player's
    command can name."""

    type: str
    execute: ActionExecute
    by_player: bool = False


TriggerHandler = Callable[["Context", Any], bool | None]
"""handler(ctx, data): edits the timing's data, or returns True to stop the event."""

SkillHandler = Callable[["Context", int, Any], bool | None]
"""handler(ctx, seat, data): a skill's handler, told the seat of the player
holding the skill, since one skill may be held by several players."""


@dataclass(frozen=True, slots=True)
class Trigger:
    """A handler for a named timing, part of every game the engine runs.
    `seat` None marks a rule of the game itself, which runs after every
    seat's handlers, like FreeKill's low-priority rule skills. A handler
    returns True to stop the event."""

    timing: str
    handler: TriggerHandler
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Skill:
    """Trigger handlers a player gains or loses during a game (a skill a
    general grants). The game declares each skill once, by name, in a
    plugin; the state records only which players hold which names. Handlers
    are code and cannot go into the state, but names can: that is how a
    checkpoint or a replay keeps every skill gained, and how a refused
    action leaves none behind. `triggers` pairs a timing with its handler."""

    name: str
    triggers: tuple[tuple[str, SkillHandler], ...] = ()


@dataclass(frozen=True, slots=True)
class Plugin:
    id: str
    name: str
    version: str
    actions: tuple[ActionHandler, ...] = ()
    setup: Callable[["Context"], None] | None = None
    triggers: tuple[Trigger, ...] = ()
    skills: tuple[Skill, ...] = ()
