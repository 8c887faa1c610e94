"""Which tournament rounds run past their deadline, for the lobby to report.

A tournament actor forfeits a round's unfinished tables at the round's
deadline, so a round still open a grace period after it means the actor is
stuck or gone: the operator is told (the front door's
tablehost_tournament_rounds_overdue gauge, and its alert). Each actor says
when a round starts (with its deadline) and when none is being played; at
most one entry per tournament, and a tournament holds a process while it
has one, so the watch is bounded by the processes the host runs."""

from __future__ import annotations

from dataclasses import dataclass

# How long past its deadline a round may still be open before it counts:
# the actor forfeits the round's tables at the deadline, a few calls.
OVERDUE_GRACE_S = 60.0


@dataclass(frozen=True, slots=True)
class RoundInPlay:
    number: int
    deadline_s: float  # epoch seconds


@dataclass(frozen=True, slots=True)
class RoundStatus:
    """A tournament's round in play, for the operator: its number, its
    deadline (epoch seconds) and whether it is open past it and the grace."""

    tournament_id: str
    round: int
    deadline_s: float
    overdue: bool


class RoundWatch:
    def __init__(self, grace_s: float = OVERDUE_GRACE_S) -> None:
        self.grace_s = grace_s
        self._rounds: dict[str, RoundInPlay] = {}

    def started(self, tournament_id: str, number: int, deadline_s: float) -> None:
        self._rounds[tournament_id] = RoundInPlay(number, deadline_s)

    def ended(self, tournament_id: str) -> None:
        self._rounds.pop(tournament_id, None)

    def in_play(self, now_s: float) -> list[RoundStatus]:
        return [RoundStatus(tournament_id, round_in_play.number, round_in_play.deadline_s,
                            now_s > round_in_play.deadline_s + self.grace_s)
                for tournament_id, round_in_play in sorted(self._rounds.items())]

    def overdue(self, now_s: float) -> list[str]:
        """The tournaments whose round is open past its deadline and the grace."""
        return [entry.tournament_id for entry in self.in_play(now_s) if entry.overdue]
