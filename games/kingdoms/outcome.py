"""Who wins, by identity: the game ends when the lord dies (the renegade
wins if they alone are left; otherwise the rebels) or when every rebel and
the renegade are dead (the lord and the loyalists win). A resting player
is not dead: they still count for their side."""

from __future__ import annotations

from tablehost.games.engine.engine import Context
from tablehost.games.kingdoms import table


def _with_identity(ctx: Context, *identities: str) -> list[int]:
    return [seat for seat in range(table.seats(ctx.state)) if table.player(ctx.state, seat)["identity"] in identities]


def check(ctx: Context) -> bool:
    """End the game if a death just decided it; True when it is over."""
    state = ctx.state
    if table.result(state) is not None:
        return True
    living = [seat for seat in range(table.seats(state)) if not table.dead(state, seat)]
    identities = {table.player(state, seat)["identity"] for seat in living}
    if table.LORD not in identities:
        if len(living) == 1 and identities == {table.RENEGADE}:
            table.finish(ctx, living, table.RENEGADE, "the renegade outlived everyone")
        else:
            table.finish(ctx, _with_identity(ctx, table.REBEL), table.REBEL, "the lord died")
        return True
    if not identities & {table.REBEL, table.RENEGADE}:
        table.finish(ctx, _with_identity(ctx, table.LORD, table.LOYALIST), table.LORD,
                     "every rebel and the renegade died")
        return True
    return False
