"""The Tournaments service's edge: a request's fields checked and turned
into domain values (CreateTournament's created event, a player id, a page
size), and a tournament's status and results turned into the replies."""

from __future__ import annotations

import re
import secrets
from typing import Any

import grpc

from tablehost.actors.tournament.answers import ResultsPage, TournamentStatus
from tablehost.actors.tournament.log_events import CreatedEvent, TournamentOrganiser
from tablehost.actors.tournament.kept import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE
from tablehost.actors.tournament.records import TWO_SEAT_FORMATS, GameRecord, Standing, TournamentSpec
from tablehost.games.registry import GameCatalog, UnknownGame
from tablehost.host.lobby_service import MAX_DISPLAY_NAME, BadRequest, check_text
from tablehost.host.organisers import Organiser
from tablehost.v1 import tournament_pb2 as pb

FORMATS = {pb.SWISS: "swiss", pb.ROUND_ROBIN: "round_robin", pb.ELIMINATION: "elimination",
           pb.TABLE_ROUNDS: "table_rounds"}
FORMAT_OF_NAME = {name: value for value, name in FORMATS.items()}
PLAYER_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
MAX_ROUNDS = 64
# How long after its table opens a player may take to connect before it
# forfeits the game as a no-show, unless the organiser says otherwise.
DEFAULT_NO_SHOW_AFTER_S = 60
MAX_NO_SHOW_AFTER_S = 3600


class ServiceRefused(Exception):
    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code


def created_event(request: pb.CreateTournamentRequest, organiser: Organiser, catalog: GameCatalog,
                  max_players: int, start_within_s: float, now_ms: int) -> CreatedEvent:
    """The tournament's first event (actors/tournament/log_events.py), from the
    request within the host's limits (`max_players`, `start_within_s`);
    ServiceRefused says what in the request is wrong."""
    invalid = grpc.StatusCode.INVALID_ARGUMENT
    try:
        name = check_text("name", request.name, MAX_DISPLAY_NAME)
        rules = catalog.rules(request.game)
    except (BadRequest, UnknownGame) as error:
        raise ServiceRefused(invalid, str(error.args[0])) from None
    if request.format not in FORMATS:
        raise ServiceRefused(invalid, f"format must be one of {', '.join(FORMATS.values())}")
    form = FORMATS[request.format]
    asked = 2 if form in TWO_SEAT_FORMATS and not request.seats else request.seats
    try:
        seats = rules.table_seats(asked)
    except ValueError as error:
        raise ServiceRefused(invalid, f"{request.game}: {error}") from None
    if form in TWO_SEAT_FORMATS and seats != 2:
        raise ServiceRefused(invalid, f"{form} pairs 2-seat tables; {request.game} has {seats} seats "
                                      "(table_rounds seats more)")
    if request.rounds > MAX_ROUNDS:
        raise ServiceRefused(invalid, f"at most {MAX_ROUNDS} rounds, not {request.rounds}")
    if request.no_show_after_s > MAX_NO_SHOW_AFTER_S:
        raise ServiceRefused(invalid, f"no_show_after_s is at most {MAX_NO_SHOW_AFTER_S}, "
                                      f"not {request.no_show_after_s}")
    if request.start_within_s > start_within_s:
        raise ServiceRefused(invalid, f"start_within_s is at most this host's {start_within_s:g} s, "
                                      f"not {request.start_within_s}")
    tournament_id = f"t-{secrets.token_hex(8)}"
    spec = TournamentSpec(tournament_id=tournament_id, game=request.game, format=form, seats=seats,
                          rounds=request.rounds, seed=secrets.randbits(63),
                          min_seats=_smallest_table(rules, seats) if form == "table_rounds" else 0)
    options = {"turn_timeout_ms": request.turn_timeout_ms} if request.turn_timeout_ms else {}
    return CreatedEvent(spec, name, max_players=min(request.max_players or max_players, max_players),
                        no_show_after_s=request.no_show_after_s or DEFAULT_NO_SHOW_AFTER_S, options=options,
                        organiser=TournamentOrganiser(organiser.organiser_id, organiser.name),
                        start_by_ms=now_ms + int((request.start_within_s or start_within_s) * 1000))


def checked_player(player: str) -> str:
    if not PLAYER_ID.fullmatch(player):
        raise BadRequest("a player id is 1 to 64 of A-Z a-z 0-9 . _ -")
    return player


def page_size(request: pb.GetTournamentRequest) -> int:
    """What the request asks for: 0 is the default page, and more than the
    most a page holds is that most (as Google's API guidelines have it)."""
    return min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)


def status_to_proto(status: TournamentStatus, standings: bool = True) -> pb.TournamentStatus:
    """The status as sent, with its page of standings; without them for the
    watchers' frequent updates (RoundEnded and the final status carry them)."""
    page = status.standings
    return pb.TournamentStatus(
        tournament_id=status.tournament_id, name=status.name, game=status.game, format=FORMAT_OF_NAME[status.format],
        state=status.state, round=status.round, rounds=status.rounds, players=status.players,
        tables_pending=status.tables_pending, tiebreak_names=status.tiebreak_names,
        standings=standings_to_proto(page.rows) if standings else [], finish_reason=status.finish_reason,
        games_played=status.games_played, next_page_token=page.next_page_token if standings else "",
        standings_total=page.total, start_by_ms=status.start_by_ms, organiser=status.organiser,
    )


def standings_to_proto(rows: tuple[Standing, ...]) -> list[pb.Standing]:
    return [pb.Standing(place=s.place, player=s.player, points=s.points, tiebreaks=s.tiebreaks, games=s.games,
                        wins=s.wins, byes=s.byes, rating=s.rating, withdrawn=s.withdrawn) for s in rows]


def results_to_proto(tournament_id: str, page: ResultsPage) -> pb.TournamentResults:
    return pb.TournamentResults(tournament_id=tournament_id, results=[_result_to_proto(r) for r in page.results],
                                byes_round=[number for number, _ in page.byes],
                                byes_player=[player for _, player in page.byes],
                                next_page_token=page.next_page_token, results_total=page.total)


def _result_to_proto(result: GameRecord) -> pb.TableResult:
    return pb.TableResult(table_id=result.table_id, round=result.round, players=result.players,
                          points=result.points, places=result.ranks, scores=result.scores, forfeited=result.forfeited)


def _smallest_table(rules: Any, seats: int) -> int:
    """One seat fewer, when the game allows it (the odd players of a table
    round sit at such tables), else 0: they get byes."""
    try:
        return seats - 1 if seats > 2 and rules.table_seats(seats - 1) == seats - 1 else 0
    except ValueError:
        return 0
