"""A front door's calls on one tournament: on its actor while there is one,
else answered from its log (host/logged_tournaments.py), also when the
actor goes during the call; the actor's refusals become gRPC statuses."""

from __future__ import annotations

import logging
import re
from typing import Any

import grpc
import ray
from grpc import aio

from tablehost.actors.store import StoreError
from tablehost.actors.tournament.answers import TournamentStatus
from tablehost.actors.tournament.actor import tournament_actor_name
from tablehost.actors.tournament.kept import PageExpired
from tablehost.actors.tournament.tournament import TournamentError
from tablehost.games.engine.rules import InvalidJoin
from tablehost.host.logged_tournaments import LoggedTournament, LoggedTournaments

log = logging.getLogger("tablehost.front_door")

TOURNAMENT_ID = re.compile(r"t-[0-9a-f]{16}")


class ActorGone(Exception):
    """The tournament's actor ended (for good) during the call."""


def actor_gone(tournament_id: str) -> bool:
    """No actor runs the tournament (finished and released, or never created)."""
    try:
        ray.get_actor(tournament_actor_name(tournament_id))
        return False
    except ValueError:
        return True


class TournamentCalls:
    def __init__(self, logged: LoggedTournaments) -> None:
        self.logged = logged

    async def find(self, tournament_id: str, context: aio.ServicerContext) -> Any:
        """The tournament's actor, or its log's answers when the actor is gone."""
        if not TOURNAMENT_ID.fullmatch(tournament_id):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                f"a tournament id is t- and 16 hex digits, not {tournament_id[:40]!r}")
        try:
            return ray.get_actor(tournament_actor_name(tournament_id))
        except ValueError:
            pass
        try:
            logged = await self.logged.get(tournament_id)
        except StoreError as error:
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"the tournament's log cannot be read: {error}")
        if logged is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no tournament {tournament_id}")
        return logged

    async def change(self, context: aio.ServicerContext, tournament_id: str, target: Any, method: str,
                     *args: Any) -> Any:
        """Ask the tournament's actor to change it; refused once the actor is
        gone (the tournament is over)."""
        if not isinstance(target, LoggedTournament):
            try:
                return await self._call(context, tournament_id, getattr(target, method).remote(*args))
            except ActorGone:
                target = await self.find(tournament_id, context)
        await context.abort(grpc.StatusCode.FAILED_PRECONDITION, target.why_unchangeable())

    async def read(self, tournament_id: str, context: aio.ServicerContext, method: str, *args: Any) -> Any:
        """Ask the tournament's actor, or its log once the actor is gone
        (also when it goes during the call)."""
        target = await self.find(tournament_id, context)
        if not isinstance(target, LoggedTournament):
            try:
                return await self._call(context, tournament_id, getattr(target, method).remote(*args))
            except ActorGone:
                target = await self.find(tournament_id, context)
        try:
            return getattr(target, method)(*args)
        except PageExpired as error:
            await context.abort(grpc.StatusCode.ABORTED, str(error))

    async def final_status(self, tournament_id: str) -> TournamentStatus | None:
        """Where a tournament whose actor is gone for good stands, from its
        log; None while its actor is there (restarting, perhaps)."""
        if not actor_gone(tournament_id):
            return None
        try:
            logged = await self.logged.get(tournament_id)
        except StoreError:
            return None  # asked again after a moment
        return logged.status() if logged is not None else None

    async def _call(self, context: aio.ServicerContext, tournament_id: str, awaitable: Any) -> Any:
        """The actor's answer; its refusals as statuses. Raises ActorGone
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
            if actor_gone(tournament_id):
                raise ActorGone() from None
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"the tournament is restarting; try again: {error}")
