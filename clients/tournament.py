"""The SDK's side of hosted tournaments: `TournamentClient` for the front
door's Tournaments service, and `play_tournament`, which watches a
tournament as one registered player and plays each round's table with a bot
(what `tablehost tournament simulate` runs for every player).

A player needs no polling: WatchTournament says when each round starts and
where this player's table is (with its seat token), and when it ends.

Creating a tournament takes the organiser's token, issued by the host's
operator (`tablehost organiser issue`). Standings and results come a page
at a time; `full_status` and `all_results` join the pages.
Like the rest of the SDK: the stdlib, grpcio and the generated modules only."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import grpc.aio

from tablehost.clients.bots import Bot, PlayStats, play_seat
from tablehost.clients.codec import encode
from tablehost.clients.sdk import Assignment, LobbyClient, TableClosed, TableSession, open_channel
from tablehost.v1 import tournament_pb2 as pb
from tablehost.v1 import tournament_pb2_grpc

# How long one connection attempt waits for the table's first snapshot, and
# how long a player keeps trying before it gives its table up.
CONNECT_TIMEOUT_S = 20.0
CONNECT_PATIENCE_S = 120.0
# The most standings or results the host sends a page.
MAX_PAGE_SIZE = 1000
# Times paging through the standings starts again when they changed under it
# and the host no longer keeps those of its first page (ABORTED).
PAGING_ATTEMPTS = 5
# How long a patient registration waits before asking again after the host
# refused it for this client's rate (RESOURCE_EXHAUSTED).
PATIENCE_STEP_S = 0.25

FORMATS = {"swiss": pb.SWISS, "round_robin": pb.ROUND_ROBIN, "elimination": pb.ELIMINATION,
           "table_rounds": pb.TABLE_ROUNDS}


class TournamentClient:
    """The Tournaments service over one grpc.aio channel (opened on first use).
    `organiser_token` is what `create` proves the organiser with."""

    def __init__(self, target: str, *, call_timeout: float = 30.0, tls_root_cert: bytes | None = None,
                 organiser_token: str = "") -> None:
        self.target = target
        self.call_timeout = call_timeout
        self.tls_root_cert = tls_root_cert
        self.organiser_token = organiser_token
        self._channel: grpc.aio.Channel | None = None
        self._stub: tournament_pb2_grpc.TournamentsStub | None = None

    @property
    def stub(self) -> tournament_pb2_grpc.TournamentsStub:
        if self._stub is None:
            self._channel = open_channel(self.target, self.tls_root_cert)
            self._stub = tournament_pb2_grpc.TournamentsStub(self._channel)  # type: ignore[no-untyped-call]  # generated, untyped
        return self._stub

    async def close(self) -> None:
        if self._channel is not None:
            channel, self._channel, self._stub = self._channel, None, None
            await channel.close()

    async def __aenter__(self) -> TournamentClient:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    async def create(self, name: str, game: str, format: str, rounds: int = 0, seats: int = 0,
                     turn_timeout_ms: int = 0, max_players: int = 0,
                     no_show_after_s: int = 0, start_within_s: int = 0) -> pb.TournamentCreated:
        """A new tournament, registration open; keep the organiser key. A
        player not connected to its table `no_show_after_s` after it opened
        forfeits that game (0: the host's 60 s). Not started within
        `start_within_s` (0: the host's limit, 24 h unless its operator set
        another), it expires. Needs the client's organiser token."""
        if format not in FORMATS:
            raise ValueError(f"format is one of {', '.join(FORMATS)}, not {format!r}")
        request = pb.CreateTournamentRequest(name=name, game=game, format=FORMATS[format], rounds=rounds, seats=seats,
                                             turn_timeout_ms=turn_timeout_ms, max_players=max_players,
                                             no_show_after_s=no_show_after_s, organiser_token=self.organiser_token,
                                             start_within_s=start_within_s)
        return await self.stub.CreateTournament(request, timeout=self.call_timeout)

    async def register(self, tournament_id: str, player: str, join_data: dict[str, Any] | None = None, *,
                       patient_s: float = 0.0) -> pb.Registration:
        """Register `player`. A host counts each client's calls: one that
        registers many players from one address (a simulation) passes
        `patient_s` to keep asking, for up to that long, while the host
        refuses it for its rate."""
        request = pb.RegisterRequest(tournament_id=tournament_id, player=player,
                                     join_data=encode(join_data) if join_data else b"")
        deadline = asyncio.get_running_loop().time() + patient_s
        while True:
            try:
                return await self.stub.Register(request, timeout=self.call_timeout)
            except grpc.aio.AioRpcError as error:
                if (error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED
                        or asyncio.get_running_loop().time() + PATIENCE_STEP_S > deadline):
                    raise
            await asyncio.sleep(PATIENCE_STEP_S)

    async def withdraw(self, tournament_id: str, player: str, key: str) -> None:
        await self.stub.Withdraw(pb.WithdrawRequest(tournament_id=tournament_id, player=player, key=key),
                                 timeout=self.call_timeout)

    async def start(self, tournament_id: str, organiser_key: str) -> pb.TournamentStatus:
        request = pb.StartTournamentRequest(tournament_id=tournament_id, organiser_key=organiser_key)
        return await self.stub.StartTournament(request, timeout=self.call_timeout)

    async def status(self, tournament_id: str, page_size: int = 0, page_token: str = "") -> pb.TournamentStatus:
        """Where it stands, with one page of the standings (the first, or the
        one `page_token` asks for; `page_size` 0: the host's 100)."""
        request = pb.GetTournamentRequest(tournament_id=tournament_id, page_size=page_size, page_token=page_token)
        return await self.stub.GetTournament(request, timeout=self.call_timeout)

    async def full_status(self, tournament_id: str) -> pb.TournamentStatus:
        """Where it stands, with every standing (the pages joined, each
        player once). Pages again from the first when the standings changed
        and the host no longer keeps those of the first page."""
        for attempt in range(PAGING_ATTEMPTS):
            try:
                status = await self.status(tournament_id, MAX_PAGE_SIZE)
                whole = pb.TournamentStatus()
                whole.CopyFrom(status)
                while status.next_page_token:
                    status = await self.status(tournament_id, MAX_PAGE_SIZE, status.next_page_token)
                    whole.standings.extend(status.standings)
                whole.next_page_token = ""
                return whole
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.ABORTED or attempt == PAGING_ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable")

    async def results(self, tournament_id: str, page_size: int = 0, page_token: str = "") -> pb.TournamentResults:
        """One page of the results, in the order recorded (the byes come with the last page)."""
        request = pb.GetTournamentRequest(tournament_id=tournament_id, page_size=page_size, page_token=page_token)
        return await self.stub.GetResults(request, timeout=self.call_timeout)

    async def all_results(self, tournament_id: str) -> pb.TournamentResults:
        """Every result recorded so far and every bye: the pages joined."""
        page = await self.results(tournament_id, MAX_PAGE_SIZE)
        whole = pb.TournamentResults()
        whole.CopyFrom(page)
        while page.next_page_token:
            page = await self.results(tournament_id, MAX_PAGE_SIZE, page.next_page_token)
            whole.results.extend(page.results)
            whole.byes_round[:] = page.byes_round
            whole.byes_player[:] = page.byes_player
        whole.next_page_token = ""
        return whole

    async def watch(self, tournament_id: str, player: str = "",
                    player_key: str = "") -> AsyncIterator[pb.TournamentEvent]:
        """The tournament's events for `player` (a spectator's without one),
        until it is over. A stream ended by the front door (restarting, or
        this reader fell behind) is opened again: its first event says where
        the tournament stands, so nothing is missed that matters."""
        request = pb.WatchTournamentRequest(tournament_id=tournament_id, player=player, player_key=player_key)
        while True:
            try:
                async for event in self.stub.WatchTournament(request):
                    yield event
                return
            except grpc.aio.AioRpcError as error:
                if error.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED):
                    raise
                await asyncio.sleep(0.2)


@dataclass
class PlayerReport:
    """What one player did in a tournament: each table played, its result."""

    player: str
    stats: PlayStats  # may be shared by every player of a run (one event loop)
    tables: list[str] = field(default_factory=list)
    byes: list[int] = field(default_factory=list)
    final: pb.TournamentStatus | None = None


async def play_tournament(client: TournamentClient, lobby: LobbyClient, tournament_id: str, player: str,
                          player_key: str, bot: Bot, stats: PlayStats | None = None) -> PlayerReport:
    """Watch the tournament as `player` and play every table it is given,
    each in its own task (a round's status arrives while the game goes on);
    returns when the tournament is over."""
    report = PlayerReport(player, stats if stats is not None else PlayStats())
    # Kept until the end (one a round, so few): a table's failure surfaces
    # when the tournament is over, not lost with a task nobody awaited.
    games: list[asyncio.Task[Any]] = []
    try:
        async for event in client.watch(tournament_id, player, player_key):
            kind = event.WhichOneof("event")
            if kind == "round_started" and event.round_started.bye:
                report.byes.append(event.round_started.round)
            elif kind == "round_started" and event.round_started.HasField("table"):
                assignment = Assignment.from_proto(event.round_started.table)
                report.tables.append(assignment.table_id)
                games.append(asyncio.get_running_loop().create_task(_play_table(assignment, lobby, bot, report.stats)))
            elif kind == "status":
                report.final = event.status
        await asyncio.gather(*games)
    finally:
        for task in games:
            task.cancel()
    return report


async def _play_table(assignment: Assignment, lobby: LobbyClient, bot: Bot, stats: PlayStats) -> None:
    """Connect (again, while a busy host is slow to send the first snapshot:
    thousands of players connect at once when a round starts) and play."""
    deadline = asyncio.get_running_loop().time() + CONNECT_PATIENCE_S
    while True:
        try:
            session = await TableSession.connect(assignment, lobby, connect_timeout=CONNECT_TIMEOUT_S,
                                                 tls_root_cert=lobby.tls_root_cert)
            break
        except TimeoutError:
            if asyncio.get_running_loop().time() > deadline:
                raise
    async with session:
        try:
            await play_seat(session, bot, stats)
        except TableClosed:
            pass  # closed unfinished (its no-shows): the tournament's results say how it ended
