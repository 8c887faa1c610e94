"""What a plugin is made of (R-E2): actions, optional setup and rules, and
trigger handlers. A game is a list of plugins; the engine composes them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Protocol

if TYPE_CHECKING:
    from tablehost.games.engine.engine import Context
    from tablehost.games.engine.state import State


@dataclass(frozen=True, slots=True)
class Action:
    """A command: `player_id` None means the system acts (a deal, a reshuffle)."""

    type: str
    player_id: str | None = None
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, in the order it happened; payloads are plain data."""

    type: str
    payload: dict[str, Any]
    player_id: str | None = None


@dataclass(frozen=True, slots=True)
class HandlerResult:
    state: "State"
    events: list[Event]


class ActionExecute(Protocol):
    def __call__(self, action: Action, ctx: "Context") -> HandlerResult: ...


@dataclass(frozen=True, slots=True)
class ActionHandler:
    """Handles one action type. `execute` works on `ctx.state`, a private copy
    of the state that the engine discards if anything raises, so a handler may
    validate as it goes without leaving half-applied changes behind."""

    type: str
    execute: ActionExecute


@dataclass(frozen=True, slots=True)
class Trigger:
    """A handler for a named timing (R-E5). `seat` None marks a rule of the
    game itself, which runs after every seat's handlers, like FreeKill's
    low-priority rule skills. A handler returns True to stop the event."""

    timing: str
    handler: Callable[["Context", Any], bool | None]
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Plugin:
    id: str
    name: str
    version: str
    actions: tuple[ActionHandler, ...] = ()
    setup: Callable[["Context"], None] | None = None
    rules: tuple[Callable[["State", Action], None], ...] = ()
    triggers: tuple[Trigger, ...] = ()
