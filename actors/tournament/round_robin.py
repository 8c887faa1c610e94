"""Round robin by Berger tables (the circle method): everyone meets everyone
once. With an odd field a dummy makes it even and whoever meets the dummy
has a bye, so n players need n - 1 rounds (n even) or n (n odd).

Positions 0..M-1 (M = the even field size minus one) turn around the fixed
last position; in round r, i meets j where i + j = r (mod M), and i meets
the fixed position where 2i = r. Seats alternate: i sits first against j
when (j - i) mod M is odd, which flips every round as r moves on, and the
fixed position sits first in the odd rounds. Over the whole schedule every
player sits first within one game of half their games."""

from __future__ import annotations

from collections.abc import Sequence


def schedule_rounds(players: int) -> int:
    """Rounds for everyone to meet everyone once."""
    if players < 2:
        return 0
    return players - 1 if players % 2 == 0 else players


def berger_round(order: Sequence[str], round_number: int) -> tuple[list[tuple[str, str]], list[str]]:
    """Round `round_number` (1-based) of the schedule for `order` (the
    field, seeded): its tables as (seat 0, seat 1) and its bye (odd fields)."""
    slots: list[str | None] = list(order) + ([None] if len(order) % 2 else [])
    fixed = len(slots) - 1
    turning = fixed  # M: the positions that turn
    r = (round_number - 1) % turning
    tables: list[tuple[str, str]] = []
    byes: list[str] = []
    for i in range(turning):
        if (2 * i - r) % turning == 0:
            pair = (slots[fixed], slots[i]) if r % 2 == 0 else (slots[i], slots[fixed])
        else:
            j = (r - i) % turning
            if j < i:
                continue
            pair = (slots[i], slots[j]) if (j - i) % turning % 2 else (slots[j], slots[i])
        first, second = pair
        if first is not None and second is not None:
            tables.append((first, second))
        else:
            byes.extend(player for player in pair if player is not None)
    return tables, byes
