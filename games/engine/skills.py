"""Skills players gain and lose during a game, kept in the state.

A skill's handlers are code, declared once by name in a plugin (`Skill`);
what a player holds is a list of names in its player record,
`state["players"][seat]["skills"]`. These functions change that list in
`ctx.state`, the working copy of a dispatch, so:

- a refused action (a RuleError) discards the grant with the rest of the
  working copy and leaves no skill behind;
- a checkpoint (the state as msgpack) or a replay of the command log has
  every skill gained, and the engine fires its handlers from the names.

A player holds a skill at most once; granting one it holds, or revoking one
it does not hold, changes nothing and says so by returning False. A name no
plugin declares raises UnknownSkillError, whichever the call.
"""

from __future__ import annotations

from typing import Any

from tablehost.games.engine.engine import Context, UnknownSkillError
from tablehost.games.engine.state import State

__all__ = ["UnknownSkillError", "grant_skill", "held_skills", "revoke_skill"]


def grant_skill(ctx: Context, seat: int, name: str) -> bool:
    """Give `seat` the skill `name` from the next timing on; False when the
    seat held it already."""
    ctx.engine.skill(name)
    held = _player(ctx.state, seat).setdefault("skills", [])
    if name in held:
        return False
    held.append(name)
    return True


def revoke_skill(ctx: Context, seat: int, name: str) -> bool:
    """Take the skill `name` from `seat` from the next timing on; False when
    the seat did not hold it."""
    ctx.engine.skill(name)
    held = _player(ctx.state, seat).setdefault("skills", [])
    if name not in held:
        return False
    held.remove(name)
    return True


def held_skills(state: State, seat: int) -> tuple[str, ...]:
    """The names of the skills `seat` holds, in the order they were granted
    (the order their handlers run in)."""
    return tuple(_player(state, seat).get("skills", ()))


def _player(state: State, seat: int) -> dict[str, Any]:
    players = state["players"]
    # Checked rather than indexed: a negative seat would name another player.
    if not 0 <= seat < len(players):
        raise ValueError(f"no seat {seat} in a game of {len(players)} players")
    return players[seat]
