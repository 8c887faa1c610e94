"""Kingdoms' nested events as frames: the engine's frame machine
(games/engine/frames.py) with its stack in the game's variables, stopped by
the game's result. A waiting frame's ask is answered in game.py."""

from __future__ import annotations

from tablehost.games.engine.frames import START, Frame, FrameMachine, FrameSteps
from tablehost.games.kingdoms import table

MACHINE = FrameMachine("kingdoms", finished=lambda state: table.result(state) is not None)

initial_variables = MACHINE.initial_variables
stack = MACHINE.stack
push = MACHINE.push
start = MACHINE.start
ask = MACHINE.ask
waiting = MACHINE.waiting
unwind = MACHINE.unwind
run = MACHINE.run

__all__ = ["START", "Frame", "FrameSteps", "ask", "initial_variables", "push", "run", "stack", "start", "unwind",
           "waiting"]
