"""Hosted tournaments. The pure core, with no Ray, no gRPC and no I/O:
`Tournament` (tournament.py), a fold of events the actor keeps, with what it
admits (admission.py); the formats (swiss.py, round_robin.py, elimination.py,
table_rounds.py) as pure functions it calls through pairing.py; standings.py
and ratings.py. The actor that runs a tournament is actor.py."""

from tablehost.actors.tournament.records import (FORMATS, GameRecord, Round, Standing, Table, TournamentError,
                                                 TournamentSpec)
from tablehost.actors.tournament.tournament import Tournament

__all__ = ["FORMATS", "GameRecord", "Round", "Standing", "Table", "Tournament", "TournamentError", "TournamentSpec"]
