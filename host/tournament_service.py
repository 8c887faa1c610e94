"""The tournament service (tablehost.v1.Tournaments) of a front door: checks
each request, proves organisers and players by their keys (derived from the
host's secret: any front door checks any key), and turns calls into calls
on the tournament's actor.

WatchTournament streams do not each hold a Ray call: a front door keeps one
`updates` call open per tournament watched here (TournamentFeed) and hands
each of its watchers what is theirs: the status, their own table and seat
token when a round starts, the standings when it ends."""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import ray
from grpc import aio

from tablehost.actors.tokens import ORGANISER, tournament_key, tournament_key_matches
from tablehost.actors.tournament.actor import TournamentActor, tournament_actor_name
from tablehost.actors.tournament.tournament import TournamentError, TournamentSpec
from tablehost.games.engine.rules import InvalidJoin
from tablehost.games.registry import GameCatalog, UnknownGame
from tablehost.host.lobby_service import MAX_DISPLAY_NAME, BadRequest, check_text, decode_join_data
from tablehost.v1 import lobby_pb2
from tablehost.v1 import tournament_pb2 as pb

log = logging.getLogger("tablehost.front_door")

FORMATS = {pb.SWISS: "swiss", pb.ROUND_ROBIN: "round_robin", pb.ELIMINATION: "elimination",
           pb.TABLE_ROUNDS: "table_rounds"}
FORMAT_OF_NAME = {name: value for value, name in FORMATS.items()}
TWO_SEAT_FORMATS = ("swiss", "round_robin", "elimination")
PLAYER_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
TOURNAMENT_ID = re.compile(r"^t-[0-9a-f]{16}$")
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


@dataclass(frozen=True)
class TournamentSettings:
    store: str | None
    token_secret: bytes
    game_modules: tuple[str, ...] = ()
    game_path: tuple[str, ...] = ()
    max_players: int = DEFAULT_MAX_PLAYERS
    log_format: str = "text"


class ServiceRefused(Exception):
    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code


def status_to_proto(status: dict[str, Any], standings: bool = True) -> pb.TournamentStatus:
    """The status as sent; without standings for the watchers' frequent
    updates (RoundEnded and the final status carry them)."""
    return pb.TournamentStatus(
        tournament_id=status["tournament_id"], name=status["name"], game=status["game"],
        format=FORMAT_OF_NAME[status["format"]], state=status["state"], round=status["round"],
        rounds=status["rounds"], players=status["players"], tables_pending=status["tables_pending"],
        tiebreak_names=status["tiebreak_names"],
        standings=[pb.Standing(**s) for s in status["standings"]] if standings else [],
        finish_reason=status["finish_reason"], games_played=status["games_played"],
    )


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

    def __init__(self, actor: Any, on_empty: Any) -> None:
        self.actor = actor
        self.watchers: set[_Watcher] = set()
        self._on_empty = on_empty
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
            try:
                update = await self.actor.updates.remote(version, UPDATES_WAIT_S)
            except ray.exceptions.RayActorError:
                await asyncio.sleep(FEED_INTERVAL_S)  # Ray is restarting the actor; its log brings it back
                continue
            version = update["version"]
            self._last = update
            for watcher in list(self.watchers):
                self._deliver(watcher, update)
            if update["status"]["state"] == "finished":
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
                        round=current["number"] - 1, standings=[pb.Standing(**s) for s in status["standings"]]))
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
                    table_id=table_id, endpoint=placed["endpoint"], seat=seat, seat_token=placed["seat_tokens"][seat],
                    game=placed["game"], display_names=placed["display_names"], ticket="",
                    deal_commitment=placed["deal_commitment"])
                watcher.offer(pb.TournamentEvent(round_started=pb.RoundStarted(round=current["number"],
                                                                               table=assignment)))
                watcher.table_sent = table_id
        if "status" not in messages:
            finished = status["state"] == "finished"
            messages["status"] = pb.TournamentEvent(status=status_to_proto(status, standings=finished))
        watcher.offer(messages["status"])


class TournamentService:
    def __init__(self, settings: TournamentSettings, catalog: GameCatalog) -> None:
        self.settings = settings
        self.catalog = catalog
        self._feeds: dict[str, TournamentFeed] = {}
        self._watching = 0

    # -- calls -------------------------------------------------------------------------

    async def CreateTournament(self, request: pb.CreateTournamentRequest,
                               context: aio.ServicerContext) -> pb.TournamentCreated:
        try:
            created = self._created(request)
        except ServiceRefused as refused:
            await context.abort(refused.code, str(refused))
        tournament_id = created["spec"]["tournament_id"]
        # Ray restarts it when its process dies (max_restarts on the class).
        actor = TournamentActor.options(name=tournament_actor_name(tournament_id), lifetime="detached").remote(
            created, self.settings.store, self.settings.game_modules, self.settings.game_path, self.settings.log_format)
        await actor.status.remote()
        log.info("tournament %s created: %s", tournament_id,
                 {key: value for key, value in created["spec"].items() if key != "deal_key"})
        return pb.TournamentCreated(tournament_id=tournament_id,
                                    organiser_key=tournament_key(self.settings.token_secret, tournament_id, ORGANISER))

    async def Register(self, request: pb.RegisterRequest, context: aio.ServicerContext) -> pb.Registration:
        actor = await self._actor(request.tournament_id, context)
        try:
            player = _player(request.player)
            join = decode_join_data(request.join_data)
        except BadRequest as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        await self._call(context, actor.register.remote(player, join))
        return pb.Registration(tournament_id=request.tournament_id, player=player,
                               player_key=tournament_key(self.settings.token_secret, request.tournament_id, player))

    async def Withdraw(self, request: pb.WithdrawRequest, context: aio.ServicerContext) -> pb.WithdrawResponse:
        actor = await self._actor(request.tournament_id, context)
        secret, tournament_id = self.settings.token_secret, request.tournament_id
        if not (tournament_key_matches(secret, tournament_id, request.player, request.key)
                or tournament_key_matches(secret, tournament_id, ORGANISER, request.key)):
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "the key is neither this player's nor the organiser's")
        await self._call(context, actor.withdraw.remote(request.player))
        return pb.WithdrawResponse()

    async def StartTournament(self, request: pb.StartTournamentRequest,
                              context: aio.ServicerContext) -> pb.TournamentStatus:
        actor = await self._actor(request.tournament_id, context)
        if not tournament_key_matches(self.settings.token_secret, request.tournament_id, ORGANISER,
                                      request.organiser_key):
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "only the organiser's key starts the tournament")
        return status_to_proto(await self._call(context, actor.start.remote()))

    async def GetTournament(self, request: pb.GetTournamentRequest,
                            context: aio.ServicerContext) -> pb.TournamentStatus:
        actor = await self._actor(request.tournament_id, context)
        return status_to_proto(await self._call(context, actor.status.remote()))

    async def GetResults(self, request: pb.GetTournamentRequest,
                         context: aio.ServicerContext) -> pb.TournamentResults:
        actor = await self._actor(request.tournament_id, context)
        kept = await self._call(context, actor.results.remote())
        results = [pb.TableResult(table_id=r["table_id"], round=r["round"], players=r["players"], points=r["points"],
                                  places=r["ranks"], scores=r["scores"], forfeited=r["forfeited"])
                   for r in kept["results"]]
        return pb.TournamentResults(tournament_id=request.tournament_id, results=results,
                                    byes_round=[number for number, _ in kept["byes"]],
                                    byes_player=[player for _, player in kept["byes"]])

    async def WatchTournament(self, request: pb.WatchTournamentRequest,
                              context: aio.ServicerContext) -> AsyncIterator[pb.TournamentEvent]:
        actor = await self._actor(request.tournament_id, context)
        if request.player and not tournament_key_matches(self.settings.token_secret, request.tournament_id,
                                                         request.player, request.player_key):
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, f"that is not {request.player[:64]!r}'s key")
        if self._watching >= MAX_WATCHERS:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "this front door serves as many watchers as it may")
        feed = self._feeds.get(request.tournament_id)
        if feed is None:
            feed = self._feeds[request.tournament_id] = TournamentFeed(
                actor, lambda empty, key=request.tournament_id: self._feeds.pop(key, None))
        watcher = _Watcher(request.player)
        self._watching += 1
        feed.add(watcher)
        try:
            while True:
                event = await watcher.queue.get()
                if event is None:
                    await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                        f"more than {WATCHER_BACKLOG} events went unread; watch again")
                if not event.WhichOneof("event"):
                    return  # the tournament is over
                yield event
        finally:
            self._watching -= 1
            feed.remove(watcher)

    # -- checks --------------------------------------------------------------------------

    def _created(self, request: pb.CreateTournamentRequest) -> dict[str, Any]:
        if self.settings.store is None:
            raise ServiceRefused(grpc.StatusCode.FAILED_PRECONDITION,
                                 "this host has no store (--store none): a tournament's results must survive a crash")
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
        tournament_id = f"t-{secrets.token_hex(8)}"
        spec = TournamentSpec(tournament_id=tournament_id, game=request.game, format=form, seats=seats,
                              rounds=request.rounds, seed=secrets.randbits(63),
                              min_seats=_smallest_table(rules, seats) if form == "table_rounds" else 0)
        options = {"turn_timeout_ms": request.turn_timeout_ms} if request.turn_timeout_ms else {}
        return {"kind": "created", "spec": spec.to_dict(), "name": name, "options": options,
                "max_players": max_players, "no_show_after_s": request.no_show_after_s or DEFAULT_NO_SHOW_AFTER_S}

    async def _actor(self, tournament_id: str, context: aio.ServicerContext) -> Any:
        if not TOURNAMENT_ID.match(tournament_id):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                f"a tournament id is t- and 16 hex digits, not {tournament_id[:40]!r}")
        try:
            return ray.get_actor(tournament_actor_name(tournament_id))
        except ValueError:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no tournament {tournament_id}")

    async def _call(self, context: aio.ServicerContext, awaitable: Any) -> Any:
        try:
            return await awaitable
        except ray.exceptions.RayTaskError as error:
            cause = error.cause
            if isinstance(cause, TournamentError):
                await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(cause))
            if isinstance(cause, InvalidJoin):
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"join data refused: {cause}")
            log.error("a tournament failed unexpectedly: %s", error)
            await context.abort(grpc.StatusCode.INTERNAL, f"the tournament failed: {type(cause).__name__}")
        except ray.exceptions.RayActorError as error:
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"the tournament is restarting; try again: {error}")


def _player(player: str) -> str:
    if not PLAYER_ID.match(player):
        raise BadRequest("a player id is 1 to 64 of A-Z a-z 0-9 . _ -")
    return player


def _smallest_table(rules: Any, seats: int) -> int:
    """One seat fewer, when the game allows it (the odd players of a table
    round sit at such tables), else 0: they get byes."""
    try:
        return seats - 1 if seats > 2 and rules.table_seats(seats - 1) == seats - 1 else 0
    except ValueError:
        return 0
