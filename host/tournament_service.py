"""The tournament service (tablehost.v1.Tournaments) of a front door: checks
each request, proves organisers and players by their keys (derived from the
host's secret: any front door checks any key), and turns calls into calls
on the tournament's actor.

Only an organiser the operator issued a token to creates tournaments
(host/organisers.py), and at most the host's cap of them not yet finished at
once (host/organiser_places.py). A tournament not started in time expires,
and a finished one ends its actor's process: the front door answers for it
from its log in the store (LoggedTournament), as the actor would have.

Standings and results are sent a page at a time (at most MAX_PAGE_SIZE), so
no reply outgrows what a gRPC client takes by default (4 MiB), however many
players register.

WatchTournament streams do not each hold a Ray call: a front door keeps one
`updates` call open per tournament watched here (TournamentFeed) and hands
each of its watchers what is theirs: the status, their own table and seat
token when a round starts, the first page of the standings when it ends."""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import grpc
import ray
from grpc import aio

from tablehost.actors.store import StoreError
from tablehost.actors.store.event_log import EventLog, open_event_log
from tablehost.actors.tokens import ORGANISER, tournament_key, tournament_key_matches
from tablehost.actors.tournament.actor import TournamentActor, tournament_actor_name
from tablehost.actors.tournament.kept import (DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, KeptTournament, PageExpired,
                                              StandingsPages, parse_results_token, parse_standings_token)
from tablehost.actors.tournament.tournament import TournamentError, TournamentSpec
from tablehost.games.engine.rules import InvalidJoin
from tablehost.games.registry import GameCatalog, UnknownGame
from tablehost.host.lobby_service import MAX_DISPLAY_NAME, BadRequest, check_text, decode_join_data
from tablehost.host.organiser_places import CapReached, OrganiserPlaces
from tablehost.host.organisers import (NotAuthenticated, NotPermitted, Organiser, OrganiserRegistry,
                                       OrganiserVerifier, check_organiser_token, now_ms)
from tablehost.v1 import lobby_pb2
from tablehost.v1 import tournament_pb2 as pb
from tablehost.actors.ray_classes import actor_class

if TYPE_CHECKING:
    from tablehost.host.config import HostConfig

log = logging.getLogger("tablehost.front_door")

FORMATS = {pb.SWISS: "swiss", pb.ROUND_ROBIN: "round_robin", pb.ELIMINATION: "elimination",
           pb.TABLE_ROUNDS: "table_rounds"}
FORMAT_OF_NAME = {name: value for value, name in FORMATS.items()}
TWO_SEAT_FORMATS = ("swiss", "round_robin", "elimination")
PLAYER_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
TOURNAMENT_ID = re.compile(r"t-[0-9a-f]{16}")
MAX_ROUNDS = 64
# What one tournament may hold unless the operator says otherwise.
DEFAULT_MAX_PLAYERS = 100_000
# A watcher that lets this many events pile up unread is ended (it may
# watch again and gets where the tournament stands first).
WATCHER_BACKLOG = 32
# Watch streams one front door serves at once, over every tournament.
MAX_WATCHERS = 50_000
UPDATES_WAIT_S = 30.0
# While only results come in, a feed asks for the next update at most this
# often, so a round's burst of results reaches each watcher as a few
# statuses, not one per result (a new round or table is passed on at once).
FEED_INTERVAL_S = 0.5
# How long after its table opens a player may take to connect before it
# forfeits the game as a no-show, unless the organiser says otherwise.
DEFAULT_NO_SHOW_AFTER_S = 60
MAX_NO_SHOW_AFTER_S = 3600
# Tournaments not yet finished one organiser may have at once, and how long a
# tournament may wait for its start, unless the operator says otherwise
# (host/config.py): each unfinished tournament holds a process (docs/operations.md, "Sizing").
DEFAULT_MAX_TOURNAMENTS_PER_ORGANISER = 10
DEFAULT_START_WITHIN_S = 24 * 3600.0
# A place taken this recently whose tournament's actor is not found yet is
# still being created (by this or another front door), and counts as taken.
CREATION_GRACE_MS = 60_000
# How long the cap's count waits for a tournament to say whether it is
# finished (a tournament that does not answer counts as open).
STATE_WAIT_S = 10.0
# Tournaments whose actor is gone, as folded from their logs, kept per front
# door: at most this many, and no more players over all but the latest (a
# folded tournament of 10,000 players, 3 rounds played, took 26 MiB and 5 s).
LOGGED_KEPT = 64
LOGGED_PLAYERS_KEPT = 50_000


@dataclass(frozen=True)
class TournamentSettings:
    store: str | None
    token_secret: bytes = field(repr=False)
    game_modules: tuple[str, ...] = ()
    game_path: tuple[str, ...] = ()
    max_players: int = DEFAULT_MAX_PLAYERS
    log_format: str = "text"
    max_tournaments_per_organiser: int = DEFAULT_MAX_TOURNAMENTS_PER_ORGANISER
    # The longest a tournament may wait for its start before it expires.
    start_within_s: float = DEFAULT_START_WITHIN_S

    @classmethod
    def of_host(cls, config: HostConfig) -> TournamentSettings:
        return cls(config.store, config.token_secret, config.game_modules, config.game_path,
                   log_format=config.log_format,
                   max_tournaments_per_organiser=config.max_tournaments_per_organiser,
                   start_within_s=config.tournament_start_within_s)


class ServiceRefused(Exception):
    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code


def status_to_proto(status: dict[str, Any], standings: bool = True) -> pb.TournamentStatus:
    """The status as sent, with its page of standings; without them for the
    watchers' frequent updates (RoundEnded and the final status carry them)."""
    return pb.TournamentStatus(
        tournament_id=status["tournament_id"], name=status["name"], game=status["game"],
        format=FORMAT_OF_NAME[status["format"]], state=status["state"], round=status["round"],
        rounds=status["rounds"], players=status["players"], tables_pending=status["tables_pending"],
        tiebreak_names=status["tiebreak_names"],
        standings=[pb.Standing(**s) for s in status["standings"]] if standings else [],
        finish_reason=status["finish_reason"], games_played=status["games_played"],
        next_page_token=status["next_page_token"] if standings else "", standings_total=status["standings_total"],
        start_by_ms=status["start_by_ms"], organiser=status["organiser"],
    )


def results_to_proto(tournament_id: str, kept: dict[str, Any]) -> pb.TournamentResults:
    results = [pb.TableResult(table_id=r["table_id"], round=r["round"], players=r["players"], points=r["points"],
                              places=r["ranks"], scores=r["scores"], forfeited=r["forfeited"])
               for r in kept["results"]]
    return pb.TournamentResults(tournament_id=tournament_id, results=results,
                                byes_round=[number for number, _ in kept["byes"]],
                                byes_player=[player for _, player in kept["byes"]],
                                next_page_token=kept["next_page_token"], results_total=kept["results_total"])


class LoggedTournament:
    """A tournament whose actor is gone (it finished, or expired unstarted),
    answered from its log with the actor's own answers (kept.py)."""

    def __init__(self, kept: KeptTournament) -> None:
        self.kept = kept
        self.pages = StandingsPages()

    def status(self, version: int | None = None, offset: int = 0, size: int = DEFAULT_PAGE_SIZE) -> dict[str, Any]:
        return self.kept.status(self.pages.page(self.kept.core, version, offset, size, time.monotonic()))

    def results(self, offset: int = 0, size: int = DEFAULT_PAGE_SIZE) -> dict[str, Any]:
        return self.kept.results(offset, size)

    def why_unchangeable(self) -> str:
        if self.kept.core.finished:
            return f"the tournament has finished: {self.kept.core.finish_reason}"
        return "the tournament is no longer run by this host (its actor is gone)"


class _ActorGone(Exception):
    """The tournament's actor ended (for good) during the call."""


@dataclass(eq=False)
class _Watcher:
    player: str
    queue: asyncio.Queue[pb.TournamentEvent | None] = field(default_factory=lambda: asyncio.Queue(WATCHER_BACKLOG))
    round_sent: int = 0
    table_sent: str = ""
    overflowed: bool = False

    def offer(self, event: pb.TournamentEvent) -> None:
        try:
            self.queue.put_nowait(event)
        except asyncio.QueueFull:
            self.overflowed = True
            self.queue.get_nowait()
            self.queue.put_nowait(None)  # what the stream reads as "you fell behind"


class TournamentFeed:
    """One tournament's updates at this front door, fanned out to its watchers."""

    def __init__(self, actor: Any, on_empty: Any,
                 final_status: Callable[[], Awaitable[dict[str, Any] | None]]) -> None:
        """`final_status`: where the tournament stands once its actor is
        gone for good (its log's answer), or None while the actor is there."""
        self.actor = actor
        self.watchers: set[_Watcher] = set()
        self._on_empty = on_empty
        self._final_status = final_status
        self._last: dict[str, Any] | None = None
        self._task: asyncio.Task[None] | None = None

    def add(self, watcher: _Watcher) -> None:
        self.watchers.add(watcher)
        if self._last is not None:
            self._deliver(watcher, self._last)
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._follow())

    def remove(self, watcher: _Watcher) -> None:
        self.watchers.discard(watcher)
        if not self.watchers and self._task is not None:
            self._task.cancel()
            self._task = None
            self._on_empty(self)

    async def _follow(self) -> None:
        version, seen = -1, None
        while self.watchers:
            gone = False
            try:
                update = await self.actor.updates.remote(version, UPDATES_WAIT_S)
            except ray.exceptions.RayActorError:
                final = await self._final_status()
                if final is None:
                    await asyncio.sleep(FEED_INTERVAL_S)  # Ray is restarting the actor; its log brings it back
                    continue
                # It finished and let its process go: its log says how it ended.
                update, gone = {"version": version + 1, "status": final, "round": None}, True
            version = update["version"]
            self._last = update
            for watcher in list(self.watchers):
                self._deliver(watcher, update)
            if gone or update["status"]["state"] == "finished":
                for watcher in list(self.watchers):
                    watcher.offer(pb.TournamentEvent())  # an empty event: the end
                return
            # A round started or its tables opened: players are told at once;
            # results alone are gathered for FEED_INTERVAL_S.
            current = update["round"]
            shape = (current["number"], len(current["placed"])) if current is not None else None
            if shape == seen:
                await asyncio.sleep(FEED_INTERVAL_S)
            seen = shape

    @staticmethod
    def _deliver(watcher: _Watcher, update: dict[str, Any]) -> None:
        """What this watcher has not been told: a round ended and another
        started (its table or bye), then the status. The messages are built
        once per update and shared by every watcher."""
        messages = update.setdefault("_messages", {})
        status = update["status"]
        current = update["round"]
        if current is not None and current["number"] > watcher.round_sent:
            if watcher.round_sent:
                if "round_ended" not in messages:
                    messages["round_ended"] = pb.TournamentEvent(round_ended=pb.RoundEnded(
                        round=current["number"] - 1, standings=[pb.Standing(**s) for s in status["standings"]],
                        standings_total=status["standings_total"]))
                watcher.offer(messages["round_ended"])
            watcher.round_sent = current["number"]
            watcher.table_sent = ""
            if watcher.player in current["byes"]:
                watcher.offer(pb.TournamentEvent(round_started=pb.RoundStarted(round=current["number"], bye=True)))
        if current is not None and watcher.player and not watcher.table_sent:
            seated = messages.setdefault("seated", {player: table_id for table_id, players in current["tables"].items()
                                                    for player in players})
            table_id = seated.get(watcher.player)
            if table_id is not None and table_id in current["placed"]:
                placed = current["placed"][table_id]
                seat = current["tables"][table_id].index(watcher.player)
                assignment = lobby_pb2.TableAssignment(
                    table_id=table_id, endpoint=placed.endpoint, seat=seat, seat_token=placed.seat_tokens[seat],
                    game=placed.game, display_names=placed.display_names, ticket="",
                    deal_commitment=placed.deal_commitment)
                watcher.offer(pb.TournamentEvent(round_started=pb.RoundStarted(round=current["number"],
                                                                               table=assignment)))
                watcher.table_sent = table_id
        if "status" not in messages:
            finished = status["state"] == "finished"
            messages["status"] = pb.TournamentEvent(status=status_to_proto(status, standings=finished))
        watcher.offer(messages["status"])


class TournamentService:
    def __init__(self, settings: TournamentSettings, catalog: GameCatalog,
                 clock_ms: Callable[[], int] = now_ms) -> None:
        self.settings = settings
        self.catalog = catalog
        self._clock_ms = clock_ms
        self._feeds: dict[str, TournamentFeed] = {}
        self._watching = 0
        self._logged: OrderedDict[str, LoggedTournament] = OrderedDict()
        self._loading: dict[str, asyncio.Future[LoggedTournament | None]] = {}
        # The store's event logs: the tournaments', the registry of organisers
        # and each organiser's places. A host without a store has no tournaments.
        self._logs: EventLog | None = open_event_log(settings.store) if settings.store is not None else None
        self._organisers = (OrganiserVerifier(OrganiserRegistry(self._logs))
                            if self._logs is not None else None)
        self._places = (OrganiserPlaces(self._logs, settings.max_tournaments_per_organiser, self._still_open)
                        if self._logs is not None else None)

    # -- calls -------------------------------------------------------------------------

    async def CreateTournament(self, request: pb.CreateTournamentRequest,
                               context: aio.ServicerContext) -> pb.TournamentCreated:
        try:
            organiser = await self._organiser(request.organiser_token)
            created = self._created(request, organiser)
        except ServiceRefused as refused:
            await context.abort(refused.code, str(refused))
        assert self._places is not None  # a host with a store, or _created refused
        tournament_id = created["spec"]["tournament_id"]
        try:
            places = await self._places.take(organiser.organiser_id, organiser.name, tournament_id,
                                             self._clock_ms())
        except CapReached as full:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(full))
        except StoreError as error:  # EventConflict too: other front doors kept taking places
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"the organiser's places cannot be counted; try again: "
                                                             f"{error}")
        try:
            # Ray restarts it when its process dies (max_restarts on the class).
            actor = actor_class(TournamentActor).options(name=tournament_actor_name(tournament_id), lifetime="detached").remote(
                created, self.settings.store, self.settings.game_modules, self.settings.game_path,
                self.settings.log_format)
            await actor.status.remote()
        except Exception:
            await self._places.free(organiser.organiser_id, tournament_id)
            raise
        log.info("tournament %s created for organiser %r (id %s, %d of %d places): %s", tournament_id,
                 organiser.name, organiser.organiser_id, places, self.settings.max_tournaments_per_organiser,
                 {key: value for key, value in created["spec"].items() if key != "deal_key"})
        return pb.TournamentCreated(tournament_id=tournament_id,
                                    organiser_key=tournament_key(self.settings.token_secret, tournament_id, ORGANISER),
                                    organiser=organiser.name, start_by_ms=created["start_by_ms"])

    async def Register(self, request: pb.RegisterRequest, context: aio.ServicerContext) -> pb.Registration:
        target = await self._find(request.tournament_id, context)
        try:
            player = _player(request.player)
            join = decode_join_data(request.join_data)
        except BadRequest as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        await self._change(context, request.tournament_id, target, "register", player, join)
        return pb.Registration(tournament_id=request.tournament_id, player=player,
                               player_key=tournament_key(self.settings.token_secret, request.tournament_id, player))

    async def Withdraw(self, request: pb.WithdrawRequest, context: aio.ServicerContext) -> pb.WithdrawResponse:
        secret, tournament_id = self.settings.token_secret, request.tournament_id
        target = await self._find(tournament_id, context)
        if not (tournament_key_matches(secret, tournament_id, request.player, request.key)
                or tournament_key_matches(secret, tournament_id, ORGANISER, request.key)):
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "the key is neither this player's nor the organiser's")
        await self._change(context, tournament_id, target, "withdraw", request.player)
        return pb.WithdrawResponse()

    async def StartTournament(self, request: pb.StartTournamentRequest,
                              context: aio.ServicerContext) -> pb.TournamentStatus:
        target = await self._find(request.tournament_id, context)
        if not tournament_key_matches(self.settings.token_secret, request.tournament_id, ORGANISER,
                                      request.organiser_key):
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "only the organiser's key starts the tournament")
        return status_to_proto(await self._change(context, request.tournament_id, target, "start"))

    async def GetTournament(self, request: pb.GetTournamentRequest,
                            context: aio.ServicerContext) -> pb.TournamentStatus:
        version, offset = None, 0
        if request.page_token:
            try:
                version, offset = parse_standings_token(request.page_token)
            except ValueError as error:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        status = await self._read(request.tournament_id, context, "status", version, offset, _page_size(request))
        return status_to_proto(status)

    async def GetResults(self, request: pb.GetTournamentRequest,
                         context: aio.ServicerContext) -> pb.TournamentResults:
        offset = 0
        if request.page_token:
            try:
                offset = parse_results_token(request.page_token)
            except ValueError as error:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        kept = await self._read(request.tournament_id, context, "results", offset, _page_size(request))
        return results_to_proto(request.tournament_id, kept)

    async def WatchTournament(self, request: pb.WatchTournamentRequest,
                              context: aio.ServicerContext) -> AsyncIterator[pb.TournamentEvent]:
        target = await self._find(request.tournament_id, context)
        if request.player and not tournament_key_matches(self.settings.token_secret, request.tournament_id,
                                                         request.player, request.player_key):
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, f"that is not {request.player[:64]!r}'s key")
        if isinstance(target, LoggedTournament):
            # Over (or no longer run): where it stands, and the end of the stream.
            status = target.status()
            yield pb.TournamentEvent(status=status_to_proto(status, standings=status["state"] == "finished"))
            return
        if self._watching >= MAX_WATCHERS:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "this front door serves as many watchers as it may")
        feed = self._feeds.get(request.tournament_id)
        if feed is None:
            key = request.tournament_id
            feed = self._feeds[key] = TournamentFeed(target, lambda _empty: self._feeds.pop(key, None),
                                                     partial(self._final_status, key))
        watcher = _Watcher(request.player)
        self._watching += 1
        feed.add(watcher)
        try:
            while True:
                event = await watcher.queue.get()
                if event is None:
                    await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                        f"more than {WATCHER_BACKLOG} events went unread; watch again")
                    return  # abort raises; this says so to the type checker
                if not event.WhichOneof("event"):
                    return  # the tournament is over
                yield event
        finally:
            self._watching -= 1
            feed.remove(watcher)

    # -- organisers ----------------------------------------------------------------------

    async def _organiser(self, token: str) -> Organiser:
        """The organiser the token proves (ServiceRefused otherwise): genuine
        and current from the token alone, then issued and not revoked, from
        the registry in the store."""
        if self._organisers is None:  # nobody can create one here: say so before asking who calls
            raise ServiceRefused(grpc.StatusCode.FAILED_PRECONDITION,
                                 "this host has no store (--store none): a tournament's results must survive a crash")
        try:
            claim = check_organiser_token(self.settings.token_secret, token, self._clock_ms())
            return await self._organisers.organiser(claim)
        except NotAuthenticated as error:
            raise ServiceRefused(grpc.StatusCode.UNAUTHENTICATED, str(error)) from None
        except NotPermitted as error:
            raise ServiceRefused(grpc.StatusCode.PERMISSION_DENIED, str(error)) from None
        except StoreError as error:
            raise ServiceRefused(grpc.StatusCode.UNAVAILABLE, f"the registry of organisers cannot be read: {error}")

    async def _still_open(self, tournament_id: str, place_taken_ms: int) -> bool:
        """Whether the tournament holds its organiser's place: it is not
        finished, or it is still being created."""
        try:
            actor = ray.get_actor(tournament_actor_name(tournament_id))
        except ValueError:
            if self._clock_ms() - place_taken_ms > CREATION_GRACE_MS:
                return False  # finished and gone, or never created
            # Not created yet (its log is written by its actor), or already gone.
            try:
                return not await asyncio.to_thread(self._read_log, tournament_id)
            except StoreError:
                return True
        try:
            return await asyncio.wait_for(actor.state.remote(), STATE_WAIT_S) != "finished"
        except ray.exceptions.RayActorError:
            return not self._gone(tournament_id)
        except TimeoutError:
            return True

    # -- checks --------------------------------------------------------------------------

    def _created(self, request: pb.CreateTournamentRequest, organiser: Organiser) -> dict[str, Any]:
        invalid = grpc.StatusCode.INVALID_ARGUMENT
        try:
            name = check_text("name", request.name, MAX_DISPLAY_NAME)
            rules = self.catalog.rules(request.game)
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
        max_players = min(request.max_players or self.settings.max_players, self.settings.max_players)
        if request.no_show_after_s > MAX_NO_SHOW_AFTER_S:
            raise ServiceRefused(invalid, f"no_show_after_s is at most {MAX_NO_SHOW_AFTER_S}, "
                                          f"not {request.no_show_after_s}")
        if request.start_within_s > self.settings.start_within_s:
            raise ServiceRefused(invalid, f"start_within_s is at most this host's {self.settings.start_within_s:g} s, "
                                          f"not {request.start_within_s}")
        start_within_s = request.start_within_s or self.settings.start_within_s
        tournament_id = f"t-{secrets.token_hex(8)}"
        spec = TournamentSpec(tournament_id=tournament_id, game=request.game, format=form, seats=seats,
                              rounds=request.rounds, seed=secrets.randbits(63),
                              min_seats=_smallest_table(rules, seats) if form == "table_rounds" else 0)
        options = {"turn_timeout_ms": request.turn_timeout_ms} if request.turn_timeout_ms else {}
        return {"kind": "created", "spec": spec.to_dict(), "name": name, "options": options,
                "max_players": max_players, "no_show_after_s": request.no_show_after_s or DEFAULT_NO_SHOW_AFTER_S,
                "organiser": {"id": organiser.organiser_id, "name": organiser.name},
                "start_by_ms": self._clock_ms() + int(start_within_s * 1000)}

    async def administer(self, context: aio.ServicerContext, tournament_id: str, method: str, *args: Any) -> str:
        """An administrator's action (pause, resume, cancel, remove_player) on
        the tournament's actor; FAILED_PRECONDITION once it is over."""
        target = await self._find(tournament_id, context)
        return str(await self._change(context, tournament_id, target, method, *args))

    async def _find(self, tournament_id: str, context: aio.ServicerContext) -> Any:
        """The tournament's actor, or its log's answers when the actor is gone."""
        if not TOURNAMENT_ID.fullmatch(tournament_id):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                f"a tournament id is t- and 16 hex digits, not {tournament_id[:40]!r}")
        try:
            return ray.get_actor(tournament_actor_name(tournament_id))
        except ValueError:
            pass
        try:
            logged = await self._logged_tournament(tournament_id)
        except StoreError as error:
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"the tournament's log cannot be read: {error}")
        if logged is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no tournament {tournament_id}")
        return logged

    async def _change(self, context: aio.ServicerContext, tournament_id: str, target: Any, method: str,
                      *args: Any) -> Any:
        """Ask the tournament's actor to change it; refused once the actor is
        gone (the tournament is over)."""
        if not isinstance(target, LoggedTournament):
            try:
                return await self._call(context, tournament_id, getattr(target, method).remote(*args))
            except _ActorGone:
                target = await self._find(tournament_id, context)
        await context.abort(grpc.StatusCode.FAILED_PRECONDITION, target.why_unchangeable())

    async def _read(self, tournament_id: str, context: aio.ServicerContext, method: str, *args: Any) -> Any:
        """Ask the tournament's actor, or its log once the actor is gone
        (also when it goes during the call)."""
        target = await self._find(tournament_id, context)
        if not isinstance(target, LoggedTournament):
            try:
                return await self._call(context, tournament_id, getattr(target, method).remote(*args))
            except _ActorGone:
                target = await self._find(tournament_id, context)
        try:
            return getattr(target, method)(*args)
        except PageExpired as error:
            await context.abort(grpc.StatusCode.ABORTED, str(error))

    async def _logged_tournament(self, tournament_id: str) -> LoggedTournament | None:
        """The tournament folded from its log (None: no log), kept for the
        next call; callers asking at once share one fold."""
        logged = self._logged.get(tournament_id)
        if logged is not None:
            self._logged.move_to_end(tournament_id)
            return logged
        loading = self._loading.get(tournament_id)
        if loading is None:
            loading = self._loading[tournament_id] = asyncio.ensure_future(self._fold_log(tournament_id))
            loading.add_done_callback(lambda _: self._loading.pop(tournament_id, None))
        logged = await asyncio.shield(loading)
        if logged is not None and tournament_id not in self._logged:
            self._logged[tournament_id] = logged
            while len(self._logged) > 1 and (len(self._logged) > LOGGED_KEPT or sum(
                    len(kept.kept.core.players()) for kept in self._logged.values()) > LOGGED_PLAYERS_KEPT):
                self._logged.popitem(last=False)
        return logged

    async def _fold_log(self, tournament_id: str) -> LoggedTournament | None:
        """Off the event loop: a large tournament's log takes seconds to fold."""
        events = await asyncio.to_thread(self._read_log, tournament_id)
        if not events:
            return None
        logged = LoggedTournament(await asyncio.to_thread(KeptTournament.replay, events))
        await asyncio.to_thread(logged.pages.first, logged.kept.core)  # its standings, computed before it is shared
        return logged

    def _read_log(self, tournament_id: str) -> list[dict[str, Any]]:
        return self._logs.read(tournament_id) if self._logs is not None else []

    async def _final_status(self, tournament_id: str) -> dict[str, Any] | None:
        """Where a tournament whose actor is gone for good stands, from its
        log; None while its actor is there (restarting, perhaps)."""
        if not self._gone(tournament_id):
            return None
        try:
            logged = await self._logged_tournament(tournament_id)
        except StoreError:
            return None  # asked again after a moment
        return logged.status() if logged is not None else None

    @staticmethod
    def _gone(tournament_id: str) -> bool:
        try:
            ray.get_actor(tournament_actor_name(tournament_id))
            return False
        except ValueError:
            return True

    async def _call(self, context: aio.ServicerContext, tournament_id: str, awaitable: Any) -> Any:
        """The actor's answer; its refusals as statuses. Raises _ActorGone
        when the actor ended for good meanwhile (a read asks the log then)."""
        try:
            return await awaitable
        except ray.exceptions.RayTaskError as error:
            cause = error.cause
            if isinstance(cause, TournamentError):
                await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(cause))
            if isinstance(cause, InvalidJoin):
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"join data refused: {cause}")
            if isinstance(cause, PageExpired):
                await context.abort(grpc.StatusCode.ABORTED, str(cause))
            log.error("a tournament failed unexpectedly: %s", error)
            await context.abort(grpc.StatusCode.INTERNAL, f"the tournament failed: {type(cause).__name__}")
        except ray.exceptions.RayActorError as error:
            if self._gone(tournament_id):
                raise _ActorGone() from None
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"the tournament is restarting; try again: {error}")


def _page_size(request: pb.GetTournamentRequest) -> int:
    """What the request asks for: 0 is the default page, and more than the
    most a page holds is that most (as Google's API guidelines have it)."""
    return min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)


def _player(player: str) -> str:
    if not PLAYER_ID.fullmatch(player):
        raise BadRequest("a player id is 1 to 64 of A-Z a-z 0-9 . _ -")
    return player


def _smallest_table(rules: Any, seats: int) -> int:
    """One seat fewer, when the game allows it (the odd players of a table
    round sit at such tables), else 0: they get byes."""
    try:
        return seats - 1 if seats > 2 and rules.table_seats(seats - 1) == seats - 1 else 0
    except ValueError:
        return 0
