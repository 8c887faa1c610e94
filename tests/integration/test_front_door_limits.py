"""The front door holds against one hostile client, through the real host:
a bad join never stops anyone else's seating; each client (a player proven
by its token) has its own rates, seats waited for and calls held, and
another client is not held back by it; a client that leaves seats empty is
refused for a while and its tables are cancelled, not played beside an
empty seat; calls that never send their request are ended; private tables
are bounded per client and their turn timers by a range."""

from __future__ import annotations

import asyncio
import math
import time

import grpc
import pytest
from conftest import player_token, run
from support import close_all, play_randomly, seat_table, wait_until

from tablehost.clients.sdk import LobbyClient, LobbyError, TableCancelled, TableSession
from tablehost.host.quotas import PLAYER, Kind
from tablehost.v1 import lobby_pb2

pytestmark = pytest.mark.integration


def signed_in(host, player: str) -> LobbyClient:
    return LobbyClient(host.target, player_token=player_token(player))


async def refusal(call) -> LobbyError | grpc.aio.AioRpcError | None:
    try:
        await call
    except (LobbyError, grpc.aio.AioRpcError) as error:
        return error
    return None


def code_of(error) -> grpc.StatusCode:
    return error.code if isinstance(error, LobbyError) else error.code()


def test_a_join_the_game_cannot_read_is_refused_alone_while_everyone_else_is_seated(host) -> None:
    """Mixed string and byte keys (once a TypeError that failed the lobby's
    whole batch, and with it all seating), at a private table (checked by
    the lobby, which alone knows its game) and at the queue (checked at the
    door); and join data on which the game's own code raises (the faulty
    test game's partition): each is refused on its own."""
    mixed_keys = b"\x82\xa4deck\xaamage-basic\xc4\x04deck\xa1x"  # {"deck": ..., b"deck": "x"}

    async def scenario():
        async with LobbyClient(host.target) as creator:
            code = await creator.create_private_table("duel")
        bad = [LobbyClient(host.target) for _ in range(3)]
        try:
            refused = await asyncio.gather(
                refusal(bad[0].stub.JoinPrivateTable(lobby_pb2.JoinPrivateTableRequest(code=code, join_data=mixed_keys))),
                refusal(bad[1].stub.JoinQueue(lobby_pb2.JoinQueueRequest(game="duel", join_data=mixed_keys))),
                refusal(bad[2].join_queue("faulty", "crash", join_data={"crash": "partition"})),
                seat_table(host.target),
            )
        finally:
            await close_all(bad, [])
        lobbies, sessions = refused[3]
        try:
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions)))
        finally:
            await close_all(lobbies, sessions)
        return refused[:3], sessions

    refused, sessions = run(scenario())
    assert [code_of(error) for error in refused] == [grpc.StatusCode.INVALID_ARGUMENT,
                                                     grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.INTERNAL]
    assert "keys are strings" in refused[0].details() and "keys are strings" in refused[1].details()
    assert "this join could not be taken" in refused[2].details
    assert all(s.result is not None for s in sessions)


def test_a_clients_lookups_past_its_rate_are_refused_and_another_client_is_not_held_back(host) -> None:
    rate, burst = PLAYER.rates[Kind.LOOKUP]

    async def scenario():
        flooder, other = signed_in(host, "flooder"), signed_in(host, "bystander")
        try:
            started = time.monotonic()
            answers = await asyncio.gather(
                *(refusal(flooder.lookup_table(f"no-such-table-{n}")) for n in range(int(burst) + 20)))
            elapsed_s = time.monotonic() - started
            others = await refusal(other.lookup_table("no-such-table"))
            return answers, others, elapsed_s
        finally:
            await close_all([flooder, other], [])

    answers, others, elapsed_s = run(scenario())
    codes = [code_of(answer) for answer in answers]
    # The burst, and what the rate refilled while the calls arrived (on a busy machine, a call or two).
    refilled = math.ceil(rate * elapsed_s)
    answered = codes.count(grpc.StatusCode.NOT_FOUND)
    assert int(burst) <= answered <= int(burst) + refilled, (answered, burst, refilled)
    assert codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED) == len(codes) - answered >= 20 - refilled
    assert "too many lookup calls from this client" in next(
        a.details for a in answers if code_of(a) == grpc.StatusCode.RESOURCE_EXHAUSTED)
    assert code_of(others) == grpc.StatusCode.NOT_FOUND


def test_a_client_waits_for_a_few_seats_at_most(host) -> None:
    async def scenario():
        greedy = signed_in(host, "greedy")
        # Tables of five: four waiting never fill one.
        waiting = [asyncio.ensure_future(greedy.join_queue("kingdoms", "g", ticket=f"greedy-{n}", seats=5))
                   for n in range(PLAYER.joins_waiting)]
        try:
            await wait_until(lambda: host.host.quotas.usage("player:greedy").joins_waiting == PLAYER.joins_waiting)
            return await refusal(greedy.join_queue("kingdoms", "g", ticket="greedy-one-too-many", seats=5))
        finally:
            for call in waiting:
                call.cancel()
            await asyncio.gather(*waiting, return_exceptions=True)
            await greedy.close()

    refused = run(scenario())
    assert code_of(refused) == grpc.StatusCode.RESOURCE_EXHAUSTED and "already waits for 4 seats" in refused.details


def test_calls_that_never_send_their_request_are_ended_and_bounded_per_client(host) -> None:
    """A slow client opens calls and never sends them: each ends
    DEADLINE_EXCEEDED once the request timeout has passed (2 s on the test
    host), and past its allowance of such calls the next is refused at once."""
    metadata = (("authorization", f"Bearer {player_token('slowloris')}"),)

    async def scenario():
        async with grpc.aio.insecure_channel(host.target) as channel:
            method = channel.stream_unary("/tablehost.v1.Lobby/LookupTable")
            held = [method(metadata=metadata) for _ in range(PLAYER.calls_unread)]
            await asyncio.gather(*(call.wait_for_connection() for call in held))  # each call opened, nothing sent
            await wait_until(lambda: host.host.quotas.usage("player:slowloris").calls_unread == PLAYER.calls_unread)
            one_more = method(metadata=metadata)
            over = await refusal(one_more)
            ended = await asyncio.gather(*(refusal(call) for call in held))
            return over, ended

    over, ended = run(scenario())
    assert code_of(over) == grpc.StatusCode.RESOURCE_EXHAUSTED and "request has not arrived" in over.details()
    assert {code_of(e) for e in ended} == {grpc.StatusCode.DEADLINE_EXCEEDED}
    assert "no request within 2 s" in ended[0].details()
    assert host.host.quotas.usage("player:slowloris").calls_unread == 0


@pytest.mark.slow
def test_a_client_that_never_comes_to_its_table_gets_it_cancelled_and_is_refused_for_a_while(host) -> None:
    """The ghost queues, is seated with three honest players and never opens
    its stream: at the deal's deadline the table is cancelled (nobody plays
    beside an empty seat), the honest players are told and queue again; after
    three such seats the ghost's joins are refused."""

    async def one_table(round_number: int) -> list[BaseException | None]:
        ghost = signed_in(host, "ghost")
        honest = [signed_in(host, f"honest-{round_number}-{n}") for n in range(3)]
        code = await honest[0].create_private_table("bigtwo")  # a table of these four alone
        assignments = await asyncio.gather(ghost.join_private_table(code, "ghost", ticket=f"ghost-{round_number}"),
                                           *(h.join_private_table(code, "h") for h in honest))
        sessions = await asyncio.gather(*(TableSession.connect(a, h) for a, h in zip(assignments[1:], honest)))
        outcomes = await asyncio.gather(*(s.wait_dealt(timeout=20) for s in sessions), return_exceptions=True)
        await close_all([ghost, *honest], list(sessions))
        return [o if isinstance(o, BaseException) else None for o in outcomes]

    async def scenario():
        cancelled = [await one_table(n) for n in range(3)]
        async with signed_in(host, "ghost") as ghost:
            refused = await refusal(ghost.join_queue("bigtwo", "ghost", ticket="ghost-again"))  # the queue too
        return cancelled, refused

    cancelled, refused = run(scenario(), timeout=120)
    assert all(isinstance(outcome, TableCancelled) for outcomes in cancelled for outcome in outcomes)
    assert code_of(refused) == grpc.StatusCode.RESOURCE_EXHAUSTED and "never came to the table" in refused.details


def test_private_tables_are_bounded_per_client_and_their_turn_timers_by_a_range(host) -> None:
    async def scenario():
        async with signed_in(host, "organiser-of-games") as creator:
            made = [await creator.create_private_table("bigtwo") for _ in range(3)]
            too_many = await refusal(creator.create_private_table("bigtwo"))
        async with signed_in(host, "careless") as other:
            bounds = [await refusal(other.create_private_table("bigtwo", turn_timeout_ms=ms))
                      for ms in (1, 49 * 24 * 3600 * 1000)]
        return made, too_many, bounds

    made, too_many, bounds = run(scenario())
    assert len(set(made)) == 3
    assert code_of(too_many) == grpc.StatusCode.RESOURCE_EXHAUSTED and "its most (3)" in too_many.details
    assert [code_of(b) for b in bounds] == [grpc.StatusCode.INVALID_ARGUMENT] * 2
    assert "100 to 3600000" in bounds[0].details


def test_a_token_the_host_cannot_prove_is_refused_and_never_taken_for_the_address(host) -> None:
    async def scenario():
        async with LobbyClient(host.target, player_token="forged.token") as forger:
            return await refusal(forger.lookup_table("anything"))

    refused = run(scenario())
    assert code_of(refused) == grpc.StatusCode.UNAUTHENTICATED and "player token was refused" in refused.details
