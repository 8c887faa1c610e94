"""Where tables go, as plain data: each node keeps about `rooms_per_cpu`
rooms per CPU plus a reserve of free slots, a new table goes to the ready
room holding the fewest tables, and an empty room beyond both is released
once it has been idle a while. (Named apart from the integration test
`test_placement.py`: two test modules may not share a basename here.)"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablehost.actors.placement import ANY_NODE, Placement, RoomRecord, RoomState


def ready(placement: Placement, room_id: str, node_id: str, *, tables: int = 0, idle_since: float = 0.0) -> RoomRecord:
    placement.add_starting(room_id, node_id)
    room = placement.mark_ready(room_id, f"handle of {room_id}", f"{node_id}:7000", node_id, 100, now=idle_since)
    room.tables.update(f"{room_id}/table-{i}" for i in range(tables))
    return room


def start_all(placement: Placement) -> list[str]:
    """Start (but do not ready) every room rooms_to_start asks for."""
    plan = placement.rooms_to_start()
    for node_id in plan:
        placement.add_starting(f"room-{len(placement.rooms) + 1}", node_id)
    return plan


def tables_by_room(placement: Placement) -> dict[str, int]:
    return {room_id: len(room.tables) for room_id, room in placement.rooms.items()}


IN_SERVICE = (RoomState.STARTING, RoomState.READY)  # neither draining nor being released


def live_free(placement: Placement) -> int:
    return sum(room.free for room in placement.rooms.values() if room.state in IN_SERVICE)


# -- the book of rooms ---------------------------------------------------------------------


def test_a_room_holds_at_least_one_table() -> None:
    with pytest.raises(ValueError, match="at least one table"):
        Placement(tables_per_room=0, rooms_per_cpu=1.0, free_slots=0)


def test_a_started_room_is_starting_until_it_is_marked_ready() -> None:
    placement = Placement(4, 1.0, 0)
    room = placement.add_starting("room-1", "node-a")
    assert (room.state, room.capacity, room.free) == (RoomState.STARTING, 4, 4)
    assert placement.starting == 1 and placement.free == 0
    placement.mark_ready("room-1", "handle", "10.0.0.2:7000", "node-b", 4321, now=12.0)
    assert (room.state, room.handle, room.endpoint, room.node_id, room.pid, room.idle_since) == (
        RoomState.READY, "handle", "10.0.0.2:7000", "node-b", 4321, 12.0
    )
    assert placement.starting == 0 and placement.free == 4


def test_free_counts_the_free_slots_of_ready_rooms_only() -> None:
    placement = Placement(4, 1.0, 0)
    ready(placement, "room-1", "a", tables=1)
    ready(placement, "room-2", "a", tables=4)
    ready(placement, "room-3", "a").state = RoomState.RELEASING
    placement.add_starting("room-4", "a")
    assert placement.free == 3
    assert placement.starting == 1


def test_remove_forgets_a_room_and_returns_it_once() -> None:
    placement = Placement(4, 1.0, 0)
    room = ready(placement, "room-1", "a")
    assert placement.remove("room-1") is room
    assert placement.remove("room-1") is None
    assert placement.place("t-1") is None


# -- how many rooms to start ---------------------------------------------------------------------


def test_each_node_is_given_its_cpus_times_rooms_per_cpu_rooms_rounded_up() -> None:
    placement = Placement(tables_per_room=10, rooms_per_cpu=1.5, free_slots=0)
    placement.set_nodes({"b": 3, "a": 2})
    assert placement.rooms_for_node("a") == 3
    assert placement.rooms_for_node("b") == 5
    assert placement.rooms_for_node("gone") == 0
    assert placement.rooms_to_start() == ["a"] * 3 + ["b"] * 5


def test_part_of_a_cpu_still_calls_for_a_room() -> None:
    placement = Placement(10, 1.0, 0)
    placement.set_nodes({"a": 0.25})
    assert placement.rooms_to_start() == ["a"]


def test_rooms_starting_or_ready_count_toward_a_nodes_rooms() -> None:
    placement = Placement(10, 1.0, 0)
    placement.set_nodes({"a": 3, "b": 1})
    placement.add_starting("room-1", "a")
    ready(placement, "room-2", "a")
    ready(placement, "room-3", "b")
    assert placement.rooms_to_start() == ["a"]


def test_a_room_being_released_does_not_count() -> None:
    placement = Placement(10, 1.0, 0)
    placement.set_nodes({"a": 2})
    ready(placement, "room-1", "a")
    ready(placement, "room-2", "a").state = RoomState.RELEASING
    assert placement.rooms_to_start() == ["a"]


def test_a_draining_room_does_not_count_so_its_replacement_starts() -> None:
    placement = Placement(10, 1.0, 5)
    placement.set_nodes({"a": 2})
    ready(placement, "room-1", "a")
    ready(placement, "room-2", "a", tables=8).state = RoomState.DRAINING
    assert placement.rooms_to_start() == ["a"]
    assert placement.free == 10 and [room.room_id for room in placement.draining()] == ["room-2"]


def test_set_nodes_replaces_the_live_nodes() -> None:
    placement = Placement(10, 1.0, 0)
    placement.set_nodes({"a": 1, "b": 1})
    placement.set_nodes({"b": 2})
    assert placement.nodes == {"b": 2}
    assert placement.rooms_to_start() == ["b", "b"]


def test_the_reserve_adds_rooms_until_the_free_slots_cover_it() -> None:
    placement = Placement(tables_per_room=4, rooms_per_cpu=1.0, free_slots=10)
    placement.set_nodes({"a": 1})
    assert placement.rooms_to_start() == ["a", "a", "a"]  # 12 free slots: two rooms beyond the CPU's one


def test_full_rooms_add_nothing_to_the_reserve() -> None:
    placement = Placement(tables_per_room=2, rooms_per_cpu=1.0, free_slots=2)
    placement.set_nodes({"a": 1})
    ready(placement, "room-1", "a", tables=2)
    assert placement.rooms_to_start() == ["a"]
    placement.rooms["room-1"].tables.pop()
    placement.add_starting("room-2", "a")
    assert placement.rooms_to_start() == []  # 1 free in room-1 + 2 in room-2 starting


def test_reserve_rooms_go_to_the_node_with_fewest_rooms_per_cpu() -> None:
    placement = Placement(tables_per_room=1, rooms_per_cpu=1.0, free_slots=2)
    placement.set_nodes({"a": 2, "b": 2})
    for i, node in enumerate("aaabb", start=1):
        ready(placement, f"room-{i}", node, tables=1)
    # b: 2 rooms for 2 CPUs, a: 3 for 2, so b first; then both hold 3 for 2: the first node by name.
    assert placement.rooms_to_start() == ["b", "a"]


def test_reserve_rooms_go_to_nodes_with_cpus_only() -> None:
    placement = Placement(tables_per_room=1, rooms_per_cpu=1.0, free_slots=5)
    placement.set_nodes({"a": 0, "b": 1})
    assert placement.rooms_to_start() == ["b"] * 5


def test_with_no_cpus_anywhere_one_room_is_started_anyway() -> None:
    placement = Placement(tables_per_room=4, rooms_per_cpu=1.0, free_slots=0)
    placement.set_nodes({"b": 0, "a": 0})
    assert placement.rooms_to_start() == ["a"]
    placement.add_starting("room-1", "a")
    assert placement.rooms_to_start() == []


def test_with_no_cpus_anywhere_the_reserve_still_starts_its_rooms() -> None:
    placement = Placement(tables_per_room=4, rooms_per_cpu=1.0, free_slots=5)
    placement.set_nodes({"a": 0})
    assert placement.rooms_to_start() == ["a", "a"]


def test_nothing_more_is_asked_for_once_the_plan_is_starting() -> None:
    placement = Placement(tables_per_room=3, rooms_per_cpu=2.0, free_slots=20)
    placement.set_nodes({"a": 1, "b": 2, "c": 0})
    plan = start_all(placement)
    # Two rooms per CPU give 6 rooms, 18 slots; the reserve of 20 needs one more,
    # on a node with CPUs holding the fewest rooms per CPU (a and b tie at 2: a).
    assert plan == ["a", "a", "b", "b", "b", "b", "a"]
    assert placement.rooms_to_start() == []


def test_with_no_live_node_no_room_can_be_started() -> None:
    placement = Placement(4, 1.0, free_slots=1)
    assert placement.rooms_to_start() == []


def test_a_node_where_rooms_fail_to_start_is_left_out_and_the_others_take_its_share() -> None:
    placement = Placement(4, 1.0, free_slots=12)
    placement.set_nodes({"a": 1.0, "b": 1.0})
    assert placement.rooms_to_start(excluded={"a"}) == ["b", "b", "b"]  # b's own, and two for the reserve
    assert placement.rooms_to_start(excluded={"a", "b"}) == []


# -- placing tables ------------------------------------------------------------------------------------


def test_no_table_is_placed_before_a_room_is_ready() -> None:
    placement = Placement(4, 1.0, 0)
    room = placement.add_starting("room-1", "a")
    assert placement.place("t-1") is None
    assert not room.tables


def test_a_table_goes_to_the_ready_room_holding_fewest_tables() -> None:
    placement = Placement(10, 1.0, 0)
    ready(placement, "room-1", "a", tables=3)
    ready(placement, "room-2", "b", tables=1)
    ready(placement, "room-3", "c", tables=2)
    room = placement.place("t-new")
    assert room is placement.rooms["room-2"]
    assert "t-new" in room.tables and len(room.tables) == 2


def test_a_tie_goes_to_the_room_on_the_node_holding_fewest_tables() -> None:
    placement = Placement(10, 1.0, 0)
    ready(placement, "room-1", "a", tables=1)
    ready(placement, "room-2", "a", tables=3)
    ready(placement, "room-3", "b", tables=1)
    assert placement.place("t-new") is placement.rooms["room-3"]  # node b holds 1 table, a holds 4


def test_a_tie_on_both_goes_to_the_lowest_room_number() -> None:
    placement = Placement(10, 1.0, 0)
    ready(placement, "room-10", "a")
    ready(placement, "room-9", "a")
    assert placement.place("t-new") is placement.rooms["room-9"]  # by number, not by text


def test_a_full_room_takes_no_more_tables() -> None:
    placement = Placement(2, 1.0, 0)
    ready(placement, "room-1", "a", tables=2)
    ready(placement, "room-2", "b", tables=1)
    assert placement.place("t-1") is placement.rooms["room-2"]
    assert placement.place("t-2") is None
    assert tables_by_room(placement) == {"room-1": 2, "room-2": 2}


def test_a_room_being_released_takes_no_table() -> None:
    placement = Placement(4, 1.0, 0)
    ready(placement, "room-1", "a").state = RoomState.RELEASING
    assert placement.place("t-1") is None


def test_a_draining_room_takes_no_table_however_empty() -> None:
    placement = Placement(4, 1.0, 0)
    ready(placement, "room-1", "a").state = RoomState.DRAINING
    busy = ready(placement, "room-2", "a", tables=3)
    assert placement.place("t-1") is busy
    assert placement.place("t-2") is None


def test_tables_spread_evenly_over_rooms_and_nodes() -> None:
    placement = Placement(10, 1.0, 0)
    for i, node in enumerate("aabb", start=1):
        ready(placement, f"room-{i}", node)
    placed = [placement.place(f"t-{i}").room_id for i in range(4)]
    assert placed == ["room-1", "room-3", "room-2", "room-4"]
    for i in range(4, 8):
        placement.place(f"t-{i}")
    assert tables_by_room(placement) == {"room-1": 2, "room-2": 2, "room-3": 2, "room-4": 2}


def test_unplace_frees_the_slot_and_an_empty_room_is_idle_from_then() -> None:
    placement = Placement(2, 1.0, 0)
    room = ready(placement, "room-1", "a", idle_since=1.0)
    placement.place("t-1")
    placement.place("t-2")
    placement.unplace("room-1", "t-1", now=5.0)
    assert room.tables == {"t-2"} and room.idle_since == 1.0  # not empty yet
    placement.unplace("room-1", "t-2", now=9.0)
    assert not room.tables and room.idle_since == 9.0
    assert placement.free == 2


def test_unplace_of_an_unknown_room_or_table_changes_nothing() -> None:
    placement = Placement(2, 1.0, 0)
    room = ready(placement, "room-1", "a", idle_since=1.0)
    placement.place("t-1")
    placement.unplace("room-9", "t-1", now=5.0)
    placement.unplace("room-1", "t-9", now=5.0)
    assert room.tables == {"t-1"} and room.idle_since == 1.0


# -- releasing idle rooms -------------------------------------------------------------------------------


def spare_room_setup(free_slots: int = 0) -> Placement:
    """One CPU calls for one room; room-2 is one more, empty since 10.0."""
    placement = Placement(tables_per_room=4, rooms_per_cpu=1.0, free_slots=free_slots)
    placement.set_nodes({"a": 1})
    ready(placement, "room-1", "a", idle_since=0.0)
    ready(placement, "room-2", "a", idle_since=10.0)
    return placement


def test_an_empty_idle_room_beyond_its_nodes_rooms_and_the_reserve_is_released_longest_idle_first() -> None:
    placement = spare_room_setup()
    released = placement.rooms_to_release(now=100.0, idle_s=10.0)
    assert [room.room_id for room in released] == ["room-1"]  # the node's one CPU keeps room-2
    assert placement.rooms["room-1"].state is RoomState.READY  # releasing it is the caller's to do


def test_a_room_is_released_exactly_when_it_has_been_idle_for_idle_s() -> None:
    placement = spare_room_setup()
    placement.rooms["room-1"].tables.add("t-1")
    assert placement.rooms_to_release(now=19.99, idle_s=10.0) == []
    assert [room.room_id for room in placement.rooms_to_release(now=20.0, idle_s=10.0)] == ["room-2"]


def test_a_room_holding_a_table_is_kept() -> None:
    placement = spare_room_setup()
    placement.rooms["room-1"].tables.add("t-1")
    placement.rooms["room-2"].tables.add("t-2")
    assert placement.rooms_to_release(now=1000.0, idle_s=10.0) == []


def test_the_rooms_a_nodes_cpus_call_for_are_kept_however_idle() -> None:
    placement = Placement(4, 1.0, 0)
    placement.set_nodes({"a": 2})
    ready(placement, "room-1", "a")
    ready(placement, "room-2", "a")
    assert placement.rooms_to_release(now=1000.0, idle_s=10.0) == []


def test_a_room_the_reserve_needs_is_kept() -> None:
    placement = spare_room_setup(free_slots=5)  # 8 free slots; one room less would leave 4
    assert placement.rooms_to_release(now=1000.0, idle_s=10.0) == []


def test_releases_stop_where_the_reserve_would_be_broken() -> None:
    placement = Placement(tables_per_room=4, rooms_per_cpu=1.0, free_slots=6)
    placement.set_nodes({"a": 1})
    for i in range(1, 5):
        ready(placement, f"room-{i}", "a", idle_since=float(i))
    released = placement.rooms_to_release(now=1000.0, idle_s=10.0)
    assert [room.room_id for room in released] == ["room-1", "room-2"]  # 16 free slots down to 8


def test_a_starting_room_is_never_released() -> None:
    placement = Placement(4, 1.0, 0)
    placement.set_nodes({"a": 0})
    placement.add_starting("room-1", "a")
    placement.add_starting("room-2", "a")
    assert placement.rooms_to_release(now=1000.0, idle_s=0.0) == []


def test_a_starting_room_counts_toward_its_nodes_rooms_so_an_idle_ready_one_may_go() -> None:
    placement = Placement(4, 1.0, 0)
    placement.set_nodes({"a": 1})
    ready(placement, "room-1", "a")
    placement.add_starting("room-2", "a")
    assert [room.room_id for room in placement.rooms_to_release(now=1000.0, idle_s=10.0)] == ["room-1"]


def test_rooms_on_a_node_gone_from_the_cluster_are_released_when_idle() -> None:
    placement = Placement(4, 1.0, 0)
    placement.set_nodes({"a": 1})
    ready(placement, "room-1", "a")
    ready(placement, "room-2", "gone")
    assert [room.room_id for room in placement.rooms_to_release(now=1000.0, idle_s=10.0)] == ["room-2"]


def test_a_room_emptied_lately_is_idle_only_from_its_last_table() -> None:
    placement = spare_room_setup()
    placement.rooms["room-1"].tables.add("t-1")
    placement.rooms["room-2"].tables.add("t-2")
    placement.unplace("room-2", "t-2", now=100.0)
    assert placement.rooms_to_release(now=105.0, idle_s=10.0) == []
    assert [room.room_id for room in placement.rooms_to_release(now=110.0, idle_s=10.0)] == ["room-2"]


def test_the_only_room_of_a_cluster_without_cpus_is_kept() -> None:
    """rooms_to_start keeps one room even without CPUs: releasing it would
    only start it again."""
    placement = Placement(tables_per_room=4, rooms_per_cpu=1.0, free_slots=0)
    placement.set_nodes({"a": 0})
    ready(placement, "room-1", "a")
    assert placement.rooms_to_release(now=1000.0, idle_s=10.0) == []
    ready(placement, "room-2", "a", idle_since=5.0)
    assert [room.room_id for room in placement.rooms_to_release(now=1000.0, idle_s=10.0)] == ["room-1"]


# -- properties ------------------------------------------------------------------------------------------

NODES = ["a", "b", "c"]

clusters = st.dictionaries(
    st.sampled_from(NODES), st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0, 4.0]), min_size=1, max_size=3
)
existing_rooms = st.lists(
    st.tuples(
        st.sampled_from(NODES + ["gone"]),
        st.sampled_from(list(RoomState)),
        st.integers(min_value=0, max_value=8),  # tables, capped at the capacity
        st.integers(min_value=0, max_value=50),  # idle since
    ),
    max_size=8,
)


def cluster(
    tables_per_room: int, rooms_per_cpu: float, free_slots: int, nodes: dict[str, float], rooms: list[Any]
) -> Placement:
    placement = Placement(tables_per_room, rooms_per_cpu, free_slots)
    placement.set_nodes(nodes)
    for i, (node_id, state, tables, idle_since) in enumerate(rooms, start=1):
        room = placement.add_starting(f"room-{i}", node_id)
        if state is not RoomState.STARTING:
            placement.mark_ready(room.room_id, None, "", node_id, 0, now=float(idle_since))
            room.tables.update(f"room-{i}/t{j}" for j in range(min(tables, tables_per_room)))
            room.state = state
    return placement


def guarantees_broken(placement: Placement) -> list[str]:
    """What rooms_to_start promises once its plan is started."""
    live = [room for room in placement.rooms.values() if room.state in IN_SERVICE]
    per_node = Counter(room.node_id for room in live)
    broken = [f"node {n} short of rooms" for n in placement.nodes if per_node[n] < placement.rooms_for_node(n)]
    if live_free(placement) < placement.free_slots:
        broken.append("free slots below the reserve")
    if not live:
        broken.append("no room at all")
    return broken


plans = {
    "tables_per_room": st.integers(min_value=1, max_value=8),
    "rooms_per_cpu": st.sampled_from([0.5, 1.0, 1.5, 2.0]),
    "free_slots": st.integers(min_value=0, max_value=20),
    "nodes": clusters,
    "rooms": existing_rooms,
}


@settings(max_examples=300, deadline=None)
@given(**plans)
def test_once_its_plan_is_started_every_node_has_its_rooms_and_the_reserve_is_covered(**setup: Any) -> None:
    placement = cluster(**setup)
    start_all(placement)
    assert guarantees_broken(placement) == []
    assert placement.rooms_to_start() == []


@settings(max_examples=300, deadline=None)
@given(**plans)
def test_rooms_to_start_asks_for_no_room_more_than_needed(**setup: Any) -> None:
    placement = cluster(**setup)
    plan = placement.rooms_to_start()
    for i, node_id in enumerate(plan):
        without_one = cluster(**setup)
        for other in plan[:i] + plan[i + 1 :]:
            without_one.add_starting(f"room-{len(without_one.rooms) + 1}", other)
        assert guarantees_broken(without_one), f"the room on {node_id} was not needed"


@settings(max_examples=300, deadline=None)
@given(**plans, idle_s=st.sampled_from([0.0, 10.0, 100.0]))
def test_a_released_room_is_never_one_rooms_to_start_would_start_again(idle_s: float, **setup: Any) -> None:
    placement = cluster(**setup)
    start_all(placement)
    for room in list(placement.rooms.values()):
        if room.state is RoomState.STARTING:
            placement.mark_ready(room.room_id, None, "", room.node_id, 0, now=0.0)
    released = placement.rooms_to_release(now=60.0, idle_s=idle_s)
    for room in released:
        assert room.state is RoomState.READY and not room.tables and 60.0 - room.idle_since >= idle_s
        placement.remove(room.room_id)
    assert guarantees_broken(placement) == []
    assert placement.rooms_to_start() == []


placement_steps = st.lists(
    st.one_of(st.tuples(st.just("place"), st.integers(0, 10**6)), st.tuples(st.just("unplace"), st.integers(0, 10**6))),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(tables_per_room=st.integers(min_value=1, max_value=4), rooms=existing_rooms, steps=placement_steps)
def test_place_fills_a_least_loaded_ready_room_and_never_beyond_its_capacity(
    tables_per_room: int, rooms: list[Any], steps: list[tuple[str, int]]
) -> None:
    placement = cluster(tables_per_room, 1.0, 0, {"a": 1.0, "b": 1.0}, rooms)
    placed: list[tuple[str, str]] = []
    for n, (step, pick) in enumerate(steps):
        if step == "unplace" and placed:
            room_id, table_id = placed.pop(pick % len(placed))
            placement.unplace(room_id, table_id, now=float(n))
            continue
        open_rooms = [r for r in placement.rooms.values() if r.state is RoomState.READY and r.free > 0]
        fewest = min((len(r.tables) for r in open_rooms), default=None)
        room = placement.place(f"t{n}")
        if room is None:
            assert not open_rooms
            continue
        assert room.state is RoomState.READY
        assert len(room.tables) - 1 == fewest
        placed.append((room.room_id, f"t{n}"))
        assert all(len(r.tables) <= r.capacity for r in placement.rooms.values())


# -- rooms that follow demand (Ray's autoscaler sizes the room nodes) ------------------------


def test_rooms_that_follow_demand_start_for_the_tables_waiting_and_the_reserve_only() -> None:
    placement = Placement(tables_per_room=2, rooms_per_cpu=1.0, free_slots=0, follow_demand=True)
    placement.set_nodes({"head": 4.0})  # CPUs do not call for rooms
    assert placement.rooms_to_start() == []
    assert placement.rooms_to_start(tables_waiting=3) == [ANY_NODE, ANY_NODE]
    placement.add_starting("room-1", ANY_NODE)
    assert placement.rooms_to_start(tables_waiting=3) == [ANY_NODE]  # a starting room's slots count
    reserved = Placement(tables_per_room=2, rooms_per_cpu=1.0, free_slots=3, follow_demand=True)
    assert reserved.rooms_to_start() == [ANY_NODE, ANY_NODE]


def test_rooms_that_follow_demand_are_all_released_when_idle_so_their_nodes_can_go() -> None:
    placement = Placement(tables_per_room=2, rooms_per_cpu=1.0, free_slots=0, follow_demand=True)
    placement.set_nodes({"node-a": 1.0, "node-b": 1.0})
    for index, node in enumerate(("node-a", "node-b"), 1):
        placement.add_starting(f"room-{index}", ANY_NODE)
        placement.mark_ready(f"room-{index}", object(), f"127.0.0.1:{index}", node, index, now=0.0)
    placement.place("t-1")
    assert [room.room_id for room in placement.rooms_to_release(now=100.0, idle_s=10.0)] == ["room-2"]
    placement.unplace("room-1", "t-1", now=100.0)
    assert {room.room_id for room in placement.rooms_to_release(now=200.0, idle_s=10.0)} == {"room-1", "room-2"}
    kept_warm = Placement(tables_per_room=2, rooms_per_cpu=1.0, free_slots=1, follow_demand=True)
    kept_warm.set_nodes({"node-a": 1.0})
    kept_warm.add_starting("room-1", ANY_NODE)
    kept_warm.mark_ready("room-1", object(), "127.0.0.1:1", "node-a", 1, now=0.0)
    assert kept_warm.rooms_to_release(now=200.0, idle_s=10.0) == []  # the reserve stays
