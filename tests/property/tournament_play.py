"""Playing a seeded tournament out in process, for the property tests: every
round paired, every table given a result drawn from the seed, until the
tournament finishes. Returns the tournament and every event it made (what
its log would hold)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from tablehost.actors.tournament import GameRecord, Table, Tournament, TournamentSpec


def play(spec: TournamentSpec, players: int, seed: int,
         result_of: Callable[[Table, random.Random], GameRecord]) -> tuple[Tournament, list[dict[str, Any]]]:
    tournament = Tournament(spec)
    events = [tournament.register(f"p{index:02d}") for index in range(players)]
    rng = random.Random(seed)
    while True:
        event = tournament.start_round()
        events.append(event)
        if event["type"] == "finished":
            return tournament, events
        for table in tournament.pending_tables():
            events.append(tournament.record(result_of(table, rng)))
