"""A tournament as a fold of events: players registered and withdrawn,
rounds paired, results recorded, the end. Every command checks itself
first (a refusal raises TournamentError and changes nothing), then applies
the event it returns; the actor keeps that event, and `replay` of the kept
events rebuilds the same tournament, standings and ratings included.

Events are plain dicts (str, int, float, bool, list, None), so msgpack
keeps them as they are:
    {"type": "registered", "player", "rating": [mu, sigma] | None}
    {"type": "withdrawn", "player"}
    {"type": "round_started", "round", "tables": [{"table_id", "players"}], "byes",
     and what the format keeps: "planned_rounds" (round 1), "schedule", "seeds", "bracket"}
    {"type": "recorded", "result": GameRecord.to_dict()}
    {"type": "finished", "reason"}  (also "expired": never started in time)
A round's tables are in its event, so a replay never pairs again (a later
change to the pairing code cannot rewrite a tournament's past); pairing
itself is reproducible too, every random choice coming from a generator
seeded by the tournament's seed and the round.

No I/O, no Ray and no clock here."""

from __future__ import annotations

from collections.abc import Iterable
from random import Random
from typing import Any

from tablehost.actors.tournament.admission import check_player_id, check_result, registration_closed
from tablehost.actors.tournament.ledger import Ledger
from tablehost.actors.tournament.pairing import Plan, RoundContext, natural_rounds, pair_next
from tablehost.actors.tournament.ratings import Rating, Ratings, check_rating
from tablehost.actors.tournament.records import (GameRecord, Round, Standing, Table, TournamentError,
                                                 TournamentSpec, table_id)
from tablehost.actors.tournament.standings import compute, tiebreak_names

__all__ = ["GameRecord", "Round", "Standing", "Table", "Tournament", "TournamentError", "TournamentSpec"]


class Tournament:
    def __init__(self, spec: TournamentSpec) -> None:
        self.spec = spec
        self.finished = False
        self.finish_reason: str | None = None
        # Events applied so far: names this state (a replay of the same events
        # reaches the same number), so a page of standings can say which
        # standings it belongs to.
        self.version = 0
        self._model = Ratings()
        self._ratings: dict[str, Rating] = {}  # every registered player, in registration order
        self._withdrawn: set[str] = set()
        self._rounds: list[Round] = []
        self._tables: dict[str, Table] = {}
        self._results: dict[str, GameRecord] = {}  # in the order recorded
        self._ledger = Ledger()
        self._planned: int | None = None
        self._kept: dict[str, Any] = {}  # what the format keeps between rounds (schedule, seeds, bracket)

    @classmethod
    def replay(cls, spec: TournamentSpec, events: Iterable[dict[str, Any]]) -> Tournament:
        tournament = cls(spec)
        for event in events:
            tournament.apply(event)
        return tournament

    # -- queries ----------------------------------------------------------------------

    @property
    def current_round(self) -> Round | None:
        """The round started last (complete or not); None before round 1."""
        return self._rounds[-1] if self._rounds else None

    @property
    def rounds(self) -> list[Round]:
        return list(self._rounds)

    @property
    def rounds_played(self) -> int:
        """Rounds with every table's result in."""
        return len(self._rounds) - (0 if self.round_complete() else 1)

    @property
    def planned_rounds(self) -> int | None:
        """Fixed when round 1 starts (the spec's, or the format's natural count)."""
        return self._planned if self._planned is not None else (self.spec.rounds or None)

    def pending_tables(self) -> list[Table]:
        """The current round's tables still without a result."""
        current = self.current_round
        return [] if current is None else [t for t in current.tables if t.table_id not in self._results]

    def round_complete(self) -> bool:
        """No table waits for a result (also true before round 1)."""
        return not self.pending_tables()

    def players(self) -> list[str]:
        """Every registered player, withdrawn ones too, in registration order."""
        return list(self._ratings)

    def active_players(self) -> list[str]:
        return [player for player in self._ratings if player not in self._withdrawn]

    def ratings(self) -> dict[str, Rating]:
        return dict(self._ratings)

    def history(self) -> list[GameRecord]:
        """Every result, in the order recorded."""
        return list(self._results.values())

    def tiebreak_names(self) -> tuple[str, ...]:
        return tiebreak_names(self.spec.seats)

    def standings(self) -> list[Standing]:
        return compute(self._ratings, self._ledger, self._ordinal, self._withdrawn, self.spec.seats,
                       self.spec.points_for_bye)

    # -- commands: check, apply, return the event ---------------------------------------

    def register(self, player: str, rating: tuple[float, float] | None = None) -> dict[str, Any]:
        check_player_id(player)
        if player in self._ratings:
            raise TournamentError(f"{player} is registered already")
        closed = registration_closed(self.spec, self.finish_reason, len(self._rounds), self.planned_rounds)
        if closed:
            raise TournamentError(f"registration is closed: {closed}")
        try:
            checked = list(check_rating(rating)) if rating is not None else None
        except ValueError as error:
            raise TournamentError(str(error)) from None
        return self._applied({"type": "registered", "player": player, "rating": checked})

    def withdraw(self, player: str) -> dict[str, Any]:
        """The player is not paired again; their results so far stand (a table
        of theirs still being played still needs its result)."""
        if self.finished:
            raise TournamentError(f"the tournament has finished: {self.finish_reason}")
        if player not in self._ratings:
            raise TournamentError(f"{player} is not registered")
        if player in self._withdrawn:
            raise TournamentError(f"{player} has withdrawn already")
        return self._applied({"type": "withdrawn", "player": player})

    def start_round(self) -> dict[str, Any]:
        """Pairs the next round; when there is none (the planned rounds were
        played, too few players, no pairing without a rematch) the event
        is the end of the tournament instead, with the reason."""
        if self.finished:
            raise TournamentError(f"the tournament has finished: {self.finish_reason}")
        pending = self.pending_tables()
        if pending:
            current = self.current_round
            assert current is not None
            raise TournamentError(f"round {current.number} is still being played: "
                                  f"{len(pending)} table(s) without a result")
        return self._applied(self._next_round())

    def record(self, result: GameRecord) -> dict[str, Any] | None:
        """None when this table's result is in already (a duplicate changes nothing)."""
        result = GameRecord.from_dict(result.to_dict())  # lists, ints: as a replay will see it
        recorded = self._results.get(result.table_id)
        if recorded is not None:
            if recorded != result:
                raise TournamentError(f"table {result.table_id} already has a different result")
            return None
        check_result(result, self._tables.get(result.table_id), self.current_round)
        return self._applied({"type": "recorded", "result": result.to_dict()})

    def end(self, reason: str) -> dict[str, Any]:
        """Ends a tournament no round of which has started (one that was
        never started in time expires this way)."""
        if self.finished:
            raise TournamentError(f"the tournament has finished: {self.finish_reason}")
        if self._rounds:
            raise TournamentError("the tournament is being played; it ends after its rounds")
        return self._applied({"type": "finished", "reason": reason})

    def cancel(self, reason: str) -> dict[str, Any]:
        """Ends the tournament at once, whatever round it is in (an
        administrator cancelled it): the standings so far are its last."""
        if self.finished:
            raise TournamentError(f"the tournament has finished: {self.finish_reason}")
        return self._applied({"type": "finished", "reason": reason})

    # -- events ---------------------------------------------------------------------------

    def apply(self, event: dict[str, Any]) -> None:
        self._apply_event(event)
        self.version += 1

    def _apply_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "registered":
            rating = event["rating"]
            self._ratings[event["player"]] = (float(rating[0]), float(rating[1])) if rating else self._model.default
        elif kind == "withdrawn":
            self._withdrawn.add(event["player"])
        elif kind == "round_started":
            self._apply_round(event)
        elif kind == "recorded":
            self._apply_result(GameRecord.from_dict(event["result"]))
        elif kind == "finished":
            self.finished, self.finish_reason = True, str(event["reason"])
        else:
            raise TournamentError(f"not a tournament event: {kind!r}")

    def _applied(self, event: dict[str, Any]) -> dict[str, Any]:
        self.apply(event)
        return event

    def _apply_round(self, event: dict[str, Any]) -> None:
        number = int(event["round"])
        if "planned_rounds" in event:
            self._planned = int(event["planned_rounds"])
        for key in ("schedule", "seeds", "bracket"):
            if key in event:
                self._kept[key] = list(event[key])
        tables = tuple(Table(plain["table_id"], number, tuple(plain["players"])) for plain in event["tables"])
        played = Round(number, tables, tuple(event["byes"]))
        self._rounds.append(played)
        for table in tables:
            self._tables[table.table_id] = table
            self._ledger.seat(table)
        for player in played.byes:
            self._ledger.bye(player, self.spec.points_for_bye)

    def _apply_result(self, record: GameRecord) -> None:
        self._results[record.table_id] = record
        self._ledger.result(record)
        # Tables of a round share no player, so rating each as it comes gives
        # the same ratings in whatever order a round's results arrive.
        self._ratings.update(self._model.rate(self._ratings, record))

    # -- pairing ---------------------------------------------------------------------------

    def _ordinal(self, player: str) -> float:
        return self._model.ordinal(self._ratings[player])

    def _next_round(self) -> dict[str, Any]:
        number = len(self._rounds) + 1
        rng = Random(self.spec.seed * 1_000_003 + number)
        active = self.active_players()
        planned = self._planned if self._planned is not None else natural_rounds(self.spec, len(active))
        # An elimination may end before its planned rounds (one player left):
        # it is paired first, so that end is the reason given.
        if number > planned and self.spec.format != "elimination":
            return {"type": "finished", "reason": f"all {planned} planned rounds were played"}
        plan = pair_next(RoundContext(
            spec=self.spec, round_number=number, ranked=self._ranked(active, rng), ledger=self._ledger,
            withdrawn=frozenset(self._withdrawn), ordinal=self._ordinal, rng=rng,
            schedule=self._kept.get("schedule", []), seeds=self._kept.get("seeds", []),
            bracket=self._kept.get("bracket", []), last_results=self._last_results()))
        if isinstance(plan, str):
            return {"type": "finished", "reason": plan}
        if number > planned:
            return {"type": "finished", "reason": f"all {planned} planned rounds were played"}
        return self._round_event(number, planned, plan)

    def _round_event(self, number: int, planned: int, plan: Plan) -> dict[str, Any]:
        event: dict[str, Any] = {"type": "round_started", "round": number, "tables": [
            {"table_id": table_id(self.spec.tournament_id, number, index), "players": list(players)}
            for index, players in enumerate(plan.tables)], "byes": list(plan.byes)}
        if number == 1:
            event["planned_rounds"] = planned
        event.update(plan.keep)
        return event

    def _ranked(self, players: list[str], rng: Random) -> list[str]:
        """Points, then rating; equal players in a seeded random order."""
        ties = {player: rng.random() for player in sorted(players)}
        return sorted(players, key=lambda p: (-self._ledger[p].points, -self._ordinal(p), ties[p]))

    def _last_results(self) -> list[GameRecord]:
        current = self.current_round
        return [] if current is None else [self._results[table.table_id] for table in current.tables]
