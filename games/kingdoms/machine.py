"""Nested events that wait for players: a stack of frames kept in the state.

Sanguosha's events nest (a turn holds phases, a play phase a Slash, the
Slash a request for a Dodge, the damage a dying player's request for a
Peach) and any of them may have to wait for a player's answer, which comes
in a later command. Python's call stack cannot be checkpointed, so each
running event is a frame, plain data on a stack in the state:
`{"kind": "turn", "at": "phase", ...its data}`.

A frame's kind names a table of steps (`FrameSteps`: step name → function).
`run` repeatedly runs the top frame's step `at`; the step returns the name
of the next step, or None when the frame is done. A step may:

- push child frames (`push`): they run, in the order pushed, before the
  parent's next step; a child pushed with `into="key"` hands its `result`
  to the parent's `key` when it finishes;
- wait for players (`ask`): `run` stops until the answer closes the ask
  (game.py), then carries on at the step the frame named;
- `unwind` to an enclosing frame (the current player died: the rest of the
  turn is abandoned up to its clean-up).

Timing handlers run inside steps, so a skill may push frames too (a
retrial asks its holder for a card). When the game ends the stack is
cleared and `run` stops."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tablehost.games.engine.engine import Context
from tablehost.games.engine.state import State
from tablehost.games.kingdoms import table

Frame = dict[str, Any]
Step = Callable[[Context, Frame], str | None]
FrameSteps = Mapping[str, Step]

VAR_STACK = "kingdoms.stack"
VAR_PENDING = "kingdoms.pending"  # frames pushed by the running step
VAR_RUNNING = "kingdoms.running"  # the depth of the frame whose step runs
VAR_UNWIND = "kingdoms.unwind"  # {"kind", "at"} asked by the running step

START = "start"
_FINISHED = "finished"  # a frame done but waiting for the children it pushed last


def initial_variables() -> dict[str, Any]:
    return {VAR_STACK: [], VAR_PENDING: [], VAR_RUNNING: None, VAR_UNWIND: None}


def stack(state: State) -> list[Frame]:
    return state["variables"][VAR_STACK]


def push(ctx: Context, kind: str, into: str | None = None, **data: Any) -> None:
    """Start a `kind` event after the running step (see the module docstring)."""
    variables = ctx.state["variables"]
    frame: Frame = {"kind": kind, "at": START, "parent": variables[VAR_RUNNING], **data}
    if into is not None:
        frame["into"] = into
    variables[VAR_PENDING].append(frame)


def start(ctx: Context, kind: str, **data: Any) -> None:
    """Put the outermost frame (the game) on an empty stack."""
    stack(ctx.state).append({"kind": kind, "at": START, "parent": None, **data})


def ask(ctx: Context, frame: Frame, kind: str, seats: Iterable[int], timeout_ms: int, **details: Any) -> None:
    """Make `frame` wait until the asked seats have answered (game.py)."""
    frame["ask"] = {"kind": kind, "seats": list(seats), "deadline_ms": ctx.now_ms + timeout_ms, **details}


def waiting(state: State) -> Frame | None:
    """The frame waiting for an answer, if the game waits for one."""
    frames = stack(state)
    return frames[-1] if frames and "ask" in frames[-1] else None


def unwind(ctx: Context, kind: str, at: str) -> None:
    """After the running step, drop every frame above the innermost `kind`
    frame, which carries on at step `at`."""
    ctx.state["variables"][VAR_UNWIND] = {"kind": kind, "at": at}


def run(ctx: Context, kinds: Mapping[str, FrameSteps]) -> None:
    """Run steps until the game waits for a player, ends, or has nothing left."""
    state = ctx.state
    variables = state["variables"]
    frames = stack(state)
    while frames and table.result(state) is None:
        depth = len(frames) - 1
        frame = frames[depth]
        if "ask" in frame:
            return
        variables[VAR_RUNNING] = depth
        following = None if frame["at"] == _FINISHED else kinds[frame["kind"]][frame["at"]](ctx, frame)
        children, variables[VAR_PENDING] = variables[VAR_PENDING], []
        variables[VAR_RUNNING] = None
        if variables[VAR_UNWIND] is not None:
            _unwind(frames, variables)
            continue
        if following is None and not children:
            frames.pop()
            if "into" in frame and "result" in frame:
                frames[frame["parent"]][frame["into"]] = frame["result"]
            continue
        frame["at"] = _FINISHED if following is None else following
        frames.extend(reversed(children))
    if table.result(state) is not None:
        frames.clear()


def _unwind(frames: list[Frame], variables: dict[str, Any]) -> None:
    target = variables[VAR_UNWIND]
    variables[VAR_UNWIND] = None
    while frames and frames[-1]["kind"] != target["kind"]:
        frames.pop()
    if frames:
        frames[-1]["at"] = target["at"]
