"""A tournament as the CLI shows and exports it: a status line, the
standings as a table or CSV, the results as CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from tablehost.v1 import tournament_pb2 as pb


def status_dict(status: pb.TournamentStatus) -> dict[str, Any]:
    return {
        "tournament_id": status.tournament_id, "name": status.name, "game": status.game,
        "format": pb.TournamentFormat.Name(status.format).lower(), "state": status.state, "round": status.round,
        "rounds": status.rounds, "players": status.players, "tables_pending": status.tables_pending,
        "finish_reason": status.finish_reason, "games_played": status.games_played, "tiebreak_names": list(status.tiebreak_names),
        "organiser": status.organiser, "start_by_ms": status.start_by_ms, "standings_total": status.standings_total,
        "standings": [{"place": s.place, "player": s.player, "points": s.points, "tiebreaks": list(s.tiebreaks),
                       "games": s.games, "wins": s.wins, "byes": s.byes, "rating": round(s.rating, 3),
                       "withdrawn": s.withdrawn} for s in status.standings],
    }


def describe(status: pb.TournamentStatus) -> str:
    from tablehost.host.organisers import when

    line = (f"{status.tournament_id} {status.name!r}: {status.game}, {pb.TournamentFormat.Name(status.format).lower()}, "
            f"{status.state}, round {status.round} of {status.rounds}, {status.players} players, "
            f"{status.tables_pending} tables pending")
    if status.state == "registering" and status.start_by_ms:
        line += f", expires unless started by {when(status.start_by_ms)}"
    return line + (f" ({status.finish_reason})" if status.finish_reason else "")


def standings_table(status: pb.TournamentStatus, limit: int = 0) -> str:
    # The rating tie-break is the rating column already.
    shown = [i for i, name in enumerate(status.tiebreak_names) if name != "rating"]
    rows = [["place", "player", "points", *(status.tiebreak_names[i] for i in shown), "games", "wins", "byes",
             "rating"]]
    for standing in status.standings[:limit or None]:
        rows.append([str(standing.place), standing.player + (" (withdrawn)" if standing.withdrawn else ""),
                     f"{standing.points:g}", *(f"{standing.tiebreaks[i]:g}" for i in shown), str(standing.games),
                     str(standing.wins), str(standing.byes), f"{standing.rating:.2f}"])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows)


def results_rows(results: pb.TournamentResults) -> list[dict[str, Any]]:
    """One row per player per table (and per bye): what a spreadsheet wants."""
    rows = []
    for result in results.results:
        for seat, player in enumerate(result.players):
            rows.append({"round": result.round, "table_id": result.table_id, "seat": seat, "player": player,
                         "points": result.points[seat], "place": result.places[seat], "score": result.scores[seat],
                         "forfeited": result.forfeited[seat]})
    for number, player in zip(results.byes_round, results.byes_player):
        rows.append({"round": number, "table_id": "", "seat": -1, "player": player, "points": "", "place": "",
                     "score": "", "forfeited": False})
    return rows


def export_csv(results: pb.TournamentResults) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=["round", "table_id", "seat", "player", "points", "place", "score",
                                             "forfeited"])
    writer.writeheader()
    writer.writerows(results_rows(results))
    return out.getvalue()


def standings_csv(status: pb.TournamentStatus) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["place", "player", "points", *status.tiebreak_names, "games", "wins", "byes", "rating",
                     "withdrawn"])
    for s in status.standings:
        writer.writerow([s.place, s.player, s.points, *s.tiebreaks, s.games, s.wins, s.byes, s.rating, s.withdrawn])
    return out.getvalue()


def export_json(status: pb.TournamentStatus, results: pb.TournamentResults) -> str:
    return json.dumps({"tournament": status_dict(status), "results": [
        {"table_id": r.table_id, "round": r.round, "players": list(r.players), "points": list(r.points),
         "places": list(r.places), "scores": list(r.scores), "forfeited": list(r.forfeited)}
        for r in results.results],
        "byes": [{"round": n, "player": p} for n, p in zip(results.byes_round, results.byes_player)]}, indent=1) + "\n"
