"""The lobby's collaborators without Ray: front doors' batches into the
queues and mailboxes, and confirmed groups into rooms (rooms here answer
as a real room would, or fail as a dead one does)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from tablehost.actors.config import LobbyConfig, RoomConfig
from tablehost.actors.door_exchange import DoorExchange, DoorJoin
from tablehost.actors.matchmaking import Group, Refusal
from tablehost.actors.placement import Placement, RoomRecord
from tablehost.actors.room_calls import RoomUnreachable, TableOpening, TableRequest, opened_table
from tablehost.actors.table_admin import TableAdmin
from tablehost.actors.table_directory import TableDirectory
from tablehost.actors.table_mint import TableMint
from tablehost.actors.table_opener import MAX_PLACEMENT_ATTEMPTS, TableOpener
from tablehost.actors.tournament_tables import PlacedTable, Placing, PlacingRefused, TournamentTable
from tablehost.actors.tokens import verify_seat_token
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.rng import Random
from tablehost.games.registry import GameCatalog
from tablehost.v1 import lobby_pb2

SECRET = b"s" * 32
CONFIG = LobbyConfig(room=RoomConfig(token_secret=SECRET, tables_per_room=2), seed=7)


def bigtwo(ticket: str, **more: Any) -> DoorJoin:
    return DoorJoin(ticket, ticket, {}, **{"game": "bigtwo", **more})


def doors(confirmed: list[Group]) -> DoorExchange:
    return DoorExchange(CONFIG, GameCatalog.load(), Random(7), "lobby-1", on_confirmed=confirmed.append)


def test_a_full_queue_is_proposed_to_each_players_own_front_door_and_confirmed_into_a_group() -> None:
    async def scenario() -> tuple[list[Group], dict[str, list[tuple[int, str]]]]:
        confirmed: list[Group] = []
        exchange = doors(confirmed)
        exchange.exchange("door-a", [bigtwo("a1"), bigtwo("a2")], [], [])
        exchange.exchange("door-b", [bigtwo("b1"), bigtwo("b2")], [], [])
        mail = {door: (await exchange.poll(door, 1.0)).proposals for door in ("door-a", "door-b")}
        for door, proposals in mail.items():
            exchange.exchange(door, [], [], [(group, ticket, True) for group, ticket in proposals])
        return confirmed, mail

    confirmed, mail = asyncio.run(scenario())
    assert sorted(ticket for _, ticket in mail["door-a"]) == ["a1", "a2"]
    assert sorted(ticket for _, ticket in mail["door-b"]) == ["b1", "b2"]
    (group,) = confirmed
    assert sorted(entrant.ticket for entrant in group.entrants) == ["a1", "a2", "b1", "b2"]


def test_a_malformed_or_unknown_join_is_refused_alone_and_the_batch_goes_on() -> None:
    confirmed: list[Group] = []
    exchange = doors(confirmed)
    # A seat count no front door would send: the game's code raises on it.
    reply = exchange.exchange("door-a", [bigtwo("x", game="chess"), bigtwo("y", seats="four"),
                                         *(bigtwo(f"p{i}") for i in range(4))], [], [])
    assert set(reply.refused) == {"x", "y"} and reply.lobby == "lobby-1"
    assert reply.refused["x"][0] == Refusal.INVALID_ARGUMENT.value and "chess" in reply.refused["x"][1]
    assert reply.refused["y"][0] == Refusal.INTERNAL.value
    assert sorted(t for _, t in exchange.mailboxes["door-a"].proposals) == ["p0", "p1", "p2", "p3"]


def test_a_front_door_that_stops_polling_takes_its_waiting_players_with_it() -> None:
    exchange = doors([])
    exchange.exchange("door-a", [bigtwo("a1")], [], [])
    exchange.tidy(time.monotonic() + CONFIG.door_timeout_s + 1)
    assert exchange.mailboxes == {} and "a1" not in exchange.matchmaker.entrants


class Rooms:
    """Rooms as the opener sees them: each answers as a room would, or
    fails as a dead one (`dead`), or is full (`full`)."""

    def __init__(self, placement: Placement) -> None:
        self.placement = placement
        self.dead: set[str] = set()
        self.full: set[str] = set()
        self.lost_rooms: list[str] = []
        self.opener: TableOpener | None = None

    async def open_tables(self, room: RoomRecord, requests: list[TableRequest]) -> list[TableOpening]:
        if room.room_id in self.dead:
            raise RoomUnreachable("it failed (RayActorError)")
        if room.room_id in self.full:
            return [TableOpening(r.table_id, error=f"{room.room_id} is full", retry=True) for r in requests]
        return [TableOpening(r.table_id, opened_table(r, list(r.entrants) if r.keep_order else r.seed.seated(r.entrants)))
                for r in requests]

    async def resume_tables(self, room: RoomRecord, table_ids: list[str]) -> list[TableOpening]:
        raise AssertionError("nothing resumes here")

    def lost(self, room: RoomRecord, why: str) -> None:
        self.lost_rooms.append(room.room_id)
        removed = self.placement.remove(room.room_id)
        assert removed is not None and self.opener is not None
        self.opener.room_lost(removed, why)

    def start_wanted(self, tables_waiting: int) -> None:
        pass

    def none_can_start(self) -> bool:
        return False


def opener_with_rooms(room_ids: list[str]) -> tuple[TableOpener, Rooms, DoorExchange, list[asyncio.Task[None]]]:
    placement = Placement(CONFIG.room.tables_per_room, 1.0, 0)
    placement.set_nodes({"node-1": 2.0})
    for number, room_id in enumerate(room_ids, 1):
        placement.add_starting(room_id, "node-1")
        placement.mark_ready(room_id, None, f"127.0.0.1:{5000 + number}", "node-1", number, 0.0)
    directory = TableDirectory(600.0)
    rooms = Rooms(placement)
    exchange = DoorExchange(CONFIG, GameCatalog.load(), Random(7), "lobby-1",
                            on_confirmed=lambda group: opener.confirmed(group))
    tasks: list[asyncio.Task[None]] = []
    opener = TableOpener(CONFIG, exchange.catalog, placement, directory, TableAdmin(directory, placement, lambda: None),
                         exchange, rooms, TableMint("", Random(7), 7, fixed_seed=True, id_tag=""),
                         spawn=lambda coroutine: tasks.append(asyncio.get_running_loop().create_task(coroutine)))
    rooms.opener = opener
    return opener, rooms, exchange, tasks


async def seat_group(exchange: DoorExchange, opener: TableOpener, prefix: str) -> None:
    """Four players of one front door, proposed and confirmed into the opener."""
    exchange.exchange("door-a", [bigtwo(f"{prefix}{i}") for i in range(4)], [], [])
    proposals = exchange.mailboxes["door-a"].proposals[-4:]
    exchange.exchange("door-a", [], [], [(group, ticket, True) for group, ticket in proposals])


async def settle(tasks: list[asyncio.Task[None]]) -> None:
    while not all(task.done() for task in tasks):
        await asyncio.gather(*tasks)


def test_a_confirmed_group_is_seated_and_each_front_door_gets_a_token_for_its_own_seat() -> None:
    async def scenario() -> tuple[list[lobby_pb2.TableAssignment], TableOpener]:
        opener, _, exchange, tasks = opener_with_rooms(["room-1"])
        await seat_group(exchange, opener, "p")
        opener.place_awaiting()
        await settle(tasks)
        return (await exchange.poll("door-a", 1.0)).seated, opener

    seated, opener = asyncio.run(scenario())
    assert sorted(a.seat for a in seated) == [0, 1, 2, 3] and len({a.table_id for a in seated}) == 1
    for assignment in seated:
        claim = verify_seat_token(SECRET, assignment.seat_token, time.time_ns() // 1_000_000)
        assert (claim.table_id, claim.seat) == (assignment.table_id, assignment.seat)
        assert assignment.display_names[assignment.seat] == assignment.ticket
    assert opener.directory.get(seated[0].table_id).room_id == "room-1"


def test_tables_a_dead_room_did_not_open_keep_their_confirmation_and_open_in_another() -> None:
    async def scenario() -> tuple[list[lobby_pb2.TableAssignment], Rooms, TableOpener]:
        opener, rooms, exchange, tasks = opener_with_rooms(["room-1", "room-2"])
        rooms.dead.add("room-1")
        await seat_group(exchange, opener, "p")
        opener.place_awaiting()
        await settle(tasks)
        return (await exchange.poll("door-a", 1.0)).seated, rooms, opener

    seated, rooms, opener = asyncio.run(scenario())
    assert rooms.lost_rooms == ["room-1"]
    assert len(seated) == 4 and {a.endpoint for a in seated} == {"127.0.0.1:5002"}
    assert "room-1" not in opener.placement.rooms


def test_a_table_every_room_refuses_as_full_is_tried_a_bounded_number_of_times_then_its_players_are_told() -> None:
    async def scenario() -> tuple[list[tuple[str, str, str]], int]:
        opener, rooms, exchange, tasks = opener_with_rooms(["room-1"])
        rooms.full.add("room-1")
        calls = 0
        refuse = rooms.open_tables

        async def counted(room: RoomRecord, requests: list[TableRequest]) -> list[TableOpening]:
            nonlocal calls
            calls += 1
            return await refuse(room, requests)

        rooms.open_tables = counted  # type: ignore[method-assign]
        await seat_group(exchange, opener, "p")
        opener.place_awaiting()
        await settle(tasks)
        return (await exchange.poll("door-a", 1.0)).dropped, calls

    dropped, calls = asyncio.run(scenario())
    assert calls == MAX_PLACEMENT_ATTEMPTS
    assert sorted(ticket for ticket, _, _ in dropped) == ["p0", "p1", "p2", "p3"]
    assert {refusal for _, refusal, _ in dropped} == {Refusal.INTERNAL.value}


@pytest.mark.parametrize("seats", [1, 9])
def test_a_tournament_table_of_a_size_the_game_cannot_seat_is_answered_with_an_error_and_opens_nothing(
        seats: int) -> None:
    async def scenario() -> tuple[list[Placing], TableOpener]:
        opener, _, _, _ = opener_with_rooms(["room-1"])
        table = TournamentTable("t-1", "bigtwo", TableSeed.numbered(1), (("a", {}),) * seats)
        return await opener.place_tournament_tables([table]), opener

    (answer,), opener = asyncio.run(scenario())
    assert answer == PlacingRefused("t-1", f"bigtwo is played by 4 players, not {seats}")
    assert opener.directory.get("t-1") is None and not opener.placement.rooms["room-1"].tables


def test_a_tournament_table_keeps_its_seat_order_and_a_second_ask_opens_nothing_twice() -> None:
    async def scenario() -> tuple[list[Placing], list[Placing]]:
        opener, _, _, tasks = opener_with_rooms(["room-1"])
        table = TournamentTable("t-1", "bigtwo", TableSeed.numbered(1), tuple((name, {}) for name in "wxyz"))
        first = await opener.place_tournament_tables([table])
        again = await opener.place_tournament_tables([table])
        await settle(tasks)
        return first, again

    (first,), (again,) = asyncio.run(scenario())
    assert isinstance(first, PlacedTable) and first.display_names == ("w", "x", "y", "z")
    assert isinstance(again, PlacedTable) and again.endpoint == first.endpoint and len(again.seat_tokens) == 4
