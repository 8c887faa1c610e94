"""The tournament service (tablehost.v1.Tournaments) of a front door: proves
organisers and players by their keys (derived from the host's secret: any
front door checks any key) and turns calls into calls on the tournament's
actor. Its parts: host/tournament_wire.py checks requests and builds
replies, host/tournament_calls.py calls a tournament (its actor, or its log
once the actor is gone: host/logged_tournaments.py), host/tournament_feed.py
fans WatchTournament out.

Only an organiser the operator issued a token to creates tournaments
(host/organisers.py), and at most the host's cap of them not yet finished at
once (host/organiser_places.py). A tournament not started in time expires,
and a finished one ends its actor's process: the front door answers for it
from its log in the store, as the actor would have.

Standings and results are sent a page at a time (at most MAX_PAGE_SIZE), so
no reply outgrows what a gRPC client takes by default (4 MiB), however many
players register."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import grpc
import ray
from grpc import aio

from tablehost.actors.ray_classes import actor_class
from tablehost.actors.store import StoreError
from tablehost.actors.store.event_log import EventLog, open_event_log
from tablehost.actors.tokens import ORGANISER, tournament_key, tournament_key_matches
from tablehost.actors.tournament.actor import TournamentActor, tournament_actor_name
from tablehost.actors.tournament.answers import ResultsPage, TournamentStatus
from tablehost.actors.tournament.kept import parse_results_token, parse_standings_token
from tablehost.games.registry import GameCatalog
from tablehost.host.logged_tournaments import LoggedTournament, LoggedTournaments
from tablehost.host.lobby_service import BadRequest, decode_join_data
from tablehost.host.organiser_places import CapReached, OrganiserPlaces
from tablehost.host.organisers import (NotAuthenticated, NotPermitted, Organiser, OrganiserRegistry,
                                       OrganiserVerifier, check_organiser_token, now_ms)
from tablehost.host.tournament_calls import TournamentCalls, actor_gone
from tablehost.host.tournament_feed import WATCHER_BACKLOG, TournamentFeed, Watcher
from tablehost.host.tournament_wire import (ServiceRefused, checked_player, created_event, page_size,
                                            results_to_proto, status_to_proto)
from tablehost.v1 import tournament_pb2 as pb

if TYPE_CHECKING:
    from tablehost.host.config import HostConfig

log = logging.getLogger("tablehost.front_door")

# What one tournament may hold unless the operator says otherwise.
DEFAULT_MAX_PLAYERS = 100_000
# Watch streams one front door serves at once, over every tournament.
MAX_WATCHERS = 50_000
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


class TournamentService:
    def __init__(self, settings: TournamentSettings, catalog: GameCatalog,
                 clock_ms: Callable[[], int] = now_ms) -> None:
        self.settings = settings
        self.catalog = catalog
        self._clock_ms = clock_ms
        self._feeds: dict[str, TournamentFeed] = {}
        self._watching = 0
        # The store's event logs: the tournaments', the registry of organisers
        # and each organiser's places. A host without a store has no tournaments.
        self._logs: EventLog | None = open_event_log(settings.store) if settings.store is not None else None
        self._organisers = (OrganiserVerifier(OrganiserRegistry(self._logs))
                            if self._logs is not None else None)
        self._places = (OrganiserPlaces(self._logs, settings.max_tournaments_per_organiser, self._still_open)
                        if self._logs is not None else None)
        self.logged = LoggedTournaments(self._logs)
        self.calls = TournamentCalls(self.logged)

    # -- calls --------------------------------------------------------------------------

    async def CreateTournament(self, request: pb.CreateTournamentRequest,
                               context: aio.ServicerContext) -> pb.TournamentCreated:
        try:
            organiser = await self._organiser(request.organiser_token)
            created = created_event(request, organiser, self.catalog, self.settings.max_players,
                                    self.settings.start_within_s, self._clock_ms())
        except ServiceRefused as refused:
            await context.abort(refused.code, str(refused))
        assert self._places is not None  # a host with a store, or _organiser refused
        tournament_id = created.spec.tournament_id
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
                 {key: value for key, value in created.spec.to_dict().items() if key != "deal_key"})
        return pb.TournamentCreated(tournament_id=tournament_id,
                                    organiser_key=tournament_key(self.settings.token_secret, tournament_id, ORGANISER),
                                    organiser=organiser.name, start_by_ms=created.start_by_ms or 0)

    async def Register(self, request: pb.RegisterRequest, context: aio.ServicerContext) -> pb.Registration:
        target = await self.calls.find(request.tournament_id, context)
        try:
            player = checked_player(request.player)
            join = decode_join_data(request.join_data)
        except BadRequest as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        await self.calls.change(context, request.tournament_id, target, "register", player, join)
        return pb.Registration(tournament_id=request.tournament_id, player=player,
                               player_key=tournament_key(self.settings.token_secret, request.tournament_id, player))

    async def Withdraw(self, request: pb.WithdrawRequest, context: aio.ServicerContext) -> pb.WithdrawResponse:
        secret, tournament_id = self.settings.token_secret, request.tournament_id
        target = await self.calls.find(tournament_id, context)
        if not (tournament_key_matches(secret, tournament_id, request.player, request.key)
                or tournament_key_matches(secret, tournament_id, ORGANISER, request.key)):
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "the key is neither this player's nor the organiser's")
        await self.calls.change(context, tournament_id, target, "withdraw", request.player)
        return pb.WithdrawResponse()

    async def StartTournament(self, request: pb.StartTournamentRequest,
                              context: aio.ServicerContext) -> pb.TournamentStatus:
        target = await self.calls.find(request.tournament_id, context)
        if not tournament_key_matches(self.settings.token_secret, request.tournament_id, ORGANISER,
                                      request.organiser_key):
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "only the organiser's key starts the tournament")
        status: TournamentStatus = await self.calls.change(context, request.tournament_id, target, "start")
        return status_to_proto(status)

    async def GetTournament(self, request: pb.GetTournamentRequest,
                            context: aio.ServicerContext) -> pb.TournamentStatus:
        version, offset = None, 0
        if request.page_token:
            try:
                version, offset = parse_standings_token(request.page_token)
            except ValueError as error:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        status: TournamentStatus = await self.calls.read(request.tournament_id, context, "status", version, offset,
                                                         page_size(request))
        return status_to_proto(status)

    async def GetResults(self, request: pb.GetTournamentRequest,
                         context: aio.ServicerContext) -> pb.TournamentResults:
        offset = 0
        if request.page_token:
            try:
                offset = parse_results_token(request.page_token)
            except ValueError as error:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        page: ResultsPage = await self.calls.read(request.tournament_id, context, "results", offset, page_size(request))
        return results_to_proto(request.tournament_id, page)

    async def WatchTournament(self, request: pb.WatchTournamentRequest,
                              context: aio.ServicerContext) -> AsyncIterator[pb.TournamentEvent]:
        target = await self.calls.find(request.tournament_id, context)
        if request.player and not tournament_key_matches(self.settings.token_secret, request.tournament_id,
                                                         request.player, request.player_key):
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, f"that is not {request.player[:64]!r}'s key")
        if isinstance(target, LoggedTournament):
            # Over (or no longer run): where it stands, and the end of the stream.
            status = target.status()
            yield pb.TournamentEvent(status=status_to_proto(status, standings=status.state == "finished"))
            return
        if self._watching >= MAX_WATCHERS:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "this front door serves as many watchers as it may")
        feed = self._feeds.get(request.tournament_id)
        if feed is None:
            key = request.tournament_id
            feed = self._feeds[key] = TournamentFeed(target, lambda _empty: self._feeds.pop(key, None),
                                                     lambda: self.calls.final_status(key))
        watcher = Watcher(request.player)
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
                return not await asyncio.to_thread(self.logged.read, tournament_id)
            except StoreError:
                return True
        try:
            return await asyncio.wait_for(actor.state.remote(), STATE_WAIT_S) != "finished"
        except ray.exceptions.RayActorError:
            return not actor_gone(tournament_id)
        except TimeoutError:
            return True

    async def administer(self, context: aio.ServicerContext, tournament_id: str, method: str, *args: Any) -> str:
        """An administrator's action (pause, resume, cancel, remove_player) on
        the tournament's actor; FAILED_PRECONDITION once it is over."""
        target = await self.calls.find(tournament_id, context)
        return str(await self.calls.change(context, tournament_id, target, method, *args))
