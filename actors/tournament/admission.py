"""What a tournament admits: a player id, a registration while registration
is open, a result that fits its table. Each check raises TournamentError
(or names why registration is closed) before the tournament changes."""

from __future__ import annotations

import math

from tablehost.actors.tournament.records import MAX_PLAYER_ID, GameRecord, Round, Table, TournamentError, TournamentSpec


def check_player_id(player: str) -> None:
    if not isinstance(player, str) or not player.strip() or not player.isprintable():
        raise TournamentError(f"a player id is printable text, not {player!r}")
    if len(player) > MAX_PLAYER_ID:
        raise TournamentError(f"a player id has at most {MAX_PLAYER_ID} characters, not {len(player)}")


def registration_closed(spec: TournamentSpec, finish_reason: str | None, started: int,
                        planned: int | None) -> str | None:
    """Why registration is closed (None: it is open), given how the
    tournament finished (None: it has not), the rounds started and planned."""
    if finish_reason is not None:
        return f"the tournament has finished: {finish_reason}"
    if started and spec.format in ("elimination", "round_robin"):
        return f"the {spec.format.replace('_', ' ')} took its field when round 1 started"
    if not started or planned is None:
        return None
    cutoff = spec.late_join_rounds if spec.late_join_rounds >= 0 else planned // 2
    if started > cutoff:
        return f"late registration ends once {cutoff} round(s) have started, and {started} have"
    return None


def check_result(result: GameRecord, table: Table | None, current: Round | None) -> None:
    """The result is of a table of the round being played, in its seat
    order, with one finite value per seat and field."""
    if table is None:
        raise TournamentError(f"no table {result.table_id} in this tournament")
    assert current is not None  # a table exists, so a round does
    if table.round != current.number or result.round != table.round:
        raise TournamentError(f"table {table.table_id} is of round {table.round}; the result says round "
                              f"{result.round} and round {current.number} is being played")
    if result.players != table.players:
        raise TournamentError(f"the result's players {list(result.players)} are not table {table.table_id}'s "
                              f"{list(table.players)} in seat order")
    seats = len(table.players)
    if {len(result.points), len(result.ranks), len(result.scores), len(result.forfeited)} != {seats}:
        raise TournamentError(f"a result of table {table.table_id} has {seats} points, ranks, scores and "
                              "forfeited flags, one per seat")
    if not all(math.isfinite(value) for value in result.points + result.scores):
        raise TournamentError("points and scores must be finite numbers")
    if not all(0 <= rank < seats for rank in result.ranks):
        raise TournamentError(f"a rank is a place from 0 (first) to {seats - 1}, not in {list(result.ranks)}")
    if any(gone and points != 0 for gone, points in zip(result.forfeited, result.points)):
        raise TournamentError("a seat that forfeited scores 0 points")
