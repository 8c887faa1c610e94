"""Nested events that wait for players: a stack of frames kept in the state,
for a game whose events nest and may stop for an answer at any depth
(Kingdoms: a turn holds phases, a play phase a Slash, the Slash a request
for a Dodge, the damage a dying player's request for a Peach). Python's
call stack cannot be checkpointed, so each running event is a frame, plain
data on a stack in the state: `{"kind": "turn", "at": "phase", ...its data}`.

A frame's kind names a table of steps (`FrameSteps`: step name → function).
`FrameMachine.run` repeatedly runs the top frame's step `at`; the step
returns the name of the next step, or None when the frame is done. A step may:

- push child frames (`push`): they run, in the order pushed, before the
  parent's next step; a child pushed with `into="key"` hands its `result`
  to the parent's `key` when it finishes;
- wait for players (`ask`): `run` stops until the game's answer closes the
  ask, then carries on at the step the frame named;
- `unwind` to an enclosing frame (the current player died: the rest of the
  turn is abandoned up to its clean-up).

Timing handlers run inside steps, so a skill may push frames too. When the
game ends (the machine's `finished`) the stack is cleared and `run` stops."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tablehost.games.engine.engine import Context
from tablehost.games.engine.state import State

Frame = dict[str, Any]
Step = Callable[[Context, Frame], str | None]
FrameSteps = Mapping[str, Step]

START = "start"
_FINISHED = "finished"  # a frame done but waiting for the children it pushed last


class FrameMachine:
    """The frames of one game: its stack and bookkeeping kept in the state's
    variables under the game's `namespace`, stopped when `finished` says the
    game has ended."""

    __slots__ = ("finished", "_stack_var", "_pending_var", "_running_var", "_unwind_var")

    def __init__(self, namespace: str, finished: Callable[[State], bool]) -> None:
        self.finished = finished
        self._stack_var = f"{namespace}.stack"
        self._pending_var = f"{namespace}.pending"  # frames pushed by the running step
        self._running_var = f"{namespace}.running"  # the depth of the frame whose step runs
        self._unwind_var = f"{namespace}.unwind"  # {"kind", "at"} asked by the running step

    def initial_variables(self) -> dict[str, Any]:
        return {self._stack_var: [], self._pending_var: [], self._running_var: None, self._unwind_var: None}

    def stack(self, state: State) -> list[Frame]:
        return state["variables"][self._stack_var]

    def push(self, ctx: Context, kind: str, into: str | None = None, **data: Any) -> None:
        """Start a `kind` event after the running step (see the module docstring)."""
        variables = ctx.state["variables"]
        frame: Frame = {"kind": kind, "at": START, "parent": variables[self._running_var], **data}
        if into is not None:
            frame["into"] = into
        variables[self._pending_var].append(frame)

    def start(self, ctx: Context, kind: str, **data: Any) -> None:
        """Put the outermost frame (the game) on an empty stack."""
        self.stack(ctx.state).append({"kind": kind, "at": START, "parent": None, **data})

    def ask(self, ctx: Context, frame: Frame, kind: str, seats: Iterable[int], timeout_ms: int, **details: Any) -> None:
        """Make `frame` wait until the asked seats have answered (the game closes the ask)."""
        frame["ask"] = {"kind": kind, "seats": list(seats), "deadline_ms": ctx.now_ms + timeout_ms, **details}

    def waiting(self, state: State) -> Frame | None:
        """The frame waiting for an answer, if the game waits for one."""
        frames = self.stack(state)
        return frames[-1] if frames and "ask" in frames[-1] else None

    def unwind(self, ctx: Context, kind: str, at: str) -> None:
        """After the running step, drop every frame above the innermost `kind`
        frame, which carries on at step `at`."""
        ctx.state["variables"][self._unwind_var] = {"kind": kind, "at": at}

    def run(self, ctx: Context, kinds: Mapping[str, FrameSteps]) -> None:
        """Run steps until the game waits for a player, ends, or has nothing left."""
        state = ctx.state
        variables = state["variables"]
        frames = self.stack(state)
        while frames and not self.finished(state):
            depth = len(frames) - 1
            frame = frames[depth]
            if "ask" in frame:
                return
            variables[self._running_var] = depth
            following = None if frame["at"] == _FINISHED else kinds[frame["kind"]][frame["at"]](ctx, frame)
            children, variables[self._pending_var] = variables[self._pending_var], []
            variables[self._running_var] = None
            if variables[self._unwind_var] is not None:
                self._unwind_to(frames, variables)
                continue
            if following is None and not children:
                frames.pop()
                if "into" in frame and "result" in frame:
                    frames[frame["parent"]][frame["into"]] = frame["result"]
                continue
            frame["at"] = _FINISHED if following is None else following
            frames.extend(reversed(children))
        if self.finished(state):
            frames.clear()

    def _unwind_to(self, frames: list[Frame], variables: dict[str, Any]) -> None:
        target = variables[self._unwind_var]
        variables[self._unwind_var] = None
        while frames and frames[-1]["kind"] != target["kind"]:
            frames.pop()
        if frames:
            frames[-1]["at"] = target["at"]
