"""The front door's guard (actors/unary_parsing.CallGuard): every call of the
Lobby and Tournaments services is named to its client
(host/identity.py) and counted against that client's quotas
(host/quotas.py) before anything else is done for it."""

from __future__ import annotations

import grpc
from grpc import aio

from tablehost.actors.unary_parsing import Refused
from tablehost.host.identity import Identities, Unauthenticated
from tablehost.host.quotas import Kind, OverQuota, Quotas

# Each method's kind of call, for its rate.
METHOD_KINDS = {
    "JoinQueue": Kind.JOIN, "JoinPrivateTable": Kind.JOIN, "LeaveQueue": Kind.LEAVE,
    "LookupTable": Kind.LOOKUP, "Spectate": Kind.LOOKUP, "CreatePrivateTable": Kind.CREATE_TABLE,
    "CreateTournament": Kind.TOURNAMENT_WRITE, "Register": Kind.TOURNAMENT_WRITE, "Withdraw": Kind.TOURNAMENT_WRITE,
    "StartTournament": Kind.TOURNAMENT_WRITE, "GetTournament": Kind.TOURNAMENT_READ,
    "GetResults": Kind.TOURNAMENT_READ, "WatchTournament": Kind.TOURNAMENT_READ,
}


class FrontDoorGuard:
    def __init__(self, identities: Identities, quotas: Quotas, request_timeout_s: float) -> None:
        self.identities = identities
        self.quotas = quotas
        self.request_timeout_s = request_timeout_s

    def client_of(self, context: aio.ServicerContext) -> str:
        try:
            return self.identities.client(context.invocation_metadata(), context.peer())
        except Unauthenticated as error:
            raise Refused(grpc.StatusCode.UNAUTHENTICATED, str(error)) from None

    def hold(self, client: str) -> None:
        try:
            self.quotas.hold_unread(client)
        except OverQuota as error:
            raise Refused(grpc.StatusCode.RESOURCE_EXHAUSTED, str(error)) from None

    def release(self, client: str) -> None:
        self.quotas.release_unread(client)

    def spend(self, client: str, method: str) -> None:
        kind = METHOD_KINDS.get(method)
        if kind is None:
            return
        try:
            self.quotas.spend(client, kind)
        except OverQuota as error:
            raise Refused(grpc.StatusCode.RESOURCE_EXHAUSTED, str(error)) from None
