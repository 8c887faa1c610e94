"""The lobby's matching rules as plain data: queues and private tables fill
in arrival order, each proposed group is confirmed by every player's front
door before it becomes a table, and a group that fails (a decline, a leave,
a silent front door) puts the players still there back at the head of their
queue. Time is handed in, so nothing here sleeps."""

from __future__ import annotations

import pickle
from collections import Counter

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from tablehost.actors.matchmaking import Dropped, Gathering, GatheringKey, Group, LobbyRefused, Matchmaker, Refusal

DOOR = "door-1"


def queue(mm: Matchmaker, seats: int = 4, variant: str = "", now: float = 0.0) -> Gathering:
    return mm.queue("bigtwo", variant, seats, {"turn_timeout_ms": 20_000}, now)


def join(mm: Matchmaker, gathering: Gathering, *tickets: str, door: str = DOOR) -> None:
    for ticket in tickets:
        mm.join(gathering, ticket, f"name of {ticket}", door)


def tickets_of(group: Group) -> list[str]:
    return [entrant.ticket for entrant in group.entrants]


def confirm_all(mm: Matchmaker, group: Group) -> Group | None:
    seated = None
    for ticket in tickets_of(group):
        seated = mm.confirm(group.group_id, ticket)
    return seated


def only_group(mm: Matchmaker, now: float = 1.0) -> Group:
    groups = mm.propose(now)
    assert len(groups) == 1
    return groups[0]


# -- queues ------------------------------------------------------------------------


def test_the_same_game_variant_and_seat_count_share_one_queue_which_keeps_its_first_options() -> None:
    mm = Matchmaker()
    first = mm.queue("bigtwo", "", 4, {"turn_timeout_ms": 1}, now=0.0)
    again = mm.queue("bigtwo", "", 4, {"turn_timeout_ms": 2}, now=5.0)
    assert again is first
    assert (again.seats, again.options, again.created_at) == (4, {"turn_timeout_ms": 1}, 0.0)


def test_another_seat_count_or_join_partition_is_a_queue_of_its_own() -> None:
    mm = Matchmaker()
    four = mm.queue("kingdoms", "", 4, {}, now=0.0)
    five = mm.queue("kingdoms", "", 5, {}, now=0.0)
    league_b = mm.queue("kingdoms", "", 4, {}, now=0.0, partition="b")
    assert len({id(four), id(five), id(league_b)}) == 3
    join(mm, four, "a", "b", "c")
    join(mm, league_b, "d")
    assert mm.propose(now=1.0) == []
    assert mm.waiting_count(GatheringKey("kingdoms", "", seats=4)) == 3


def test_each_variant_is_a_queue_of_its_own() -> None:
    mm = Matchmaker()
    plain, short = queue(mm, variant=""), queue(mm, variant="short")
    assert plain is not short
    join(mm, plain, "a", "b")
    join(mm, short, "c", "d")
    assert mm.propose(now=1.0) == []
    assert mm.waiting_count(GatheringKey("bigtwo", "", seats=4)) == 2
    assert mm.waiting_count(GatheringKey("bigtwo", "short", seats=4)) == 2


def test_a_key_names_its_queue_or_its_private_table() -> None:
    assert GatheringKey("bigtwo", "short").label == "bigtwo/short"
    assert GatheringKey("trio", "", seats=3, partition="b").label == "trio at 3 seats (b)"
    assert GatheringKey("bigtwo", code="ABCD").label == "private table ABCD"


def test_waiting_count_of_an_unknown_queue_is_zero() -> None:
    assert Matchmaker().waiting_count(GatheringKey("nope")) == 0


# -- joining and leaving --------------------------------------------------------------


def test_a_ticket_already_waiting_is_refused_with_already_exists() -> None:
    mm = Matchmaker()
    gathering = queue(mm)
    join(mm, gathering, "a")
    with pytest.raises(LobbyRefused) as refused:
        join(mm, gathering, "a")
    assert refused.value.refusal is Refusal.ALREADY_EXISTS
    assert "a" in refused.value.message
    assert list(gathering.waiting) == ["a"]


def test_a_ticket_waiting_in_one_queue_may_not_join_another() -> None:
    mm = Matchmaker()
    join(mm, queue(mm, variant=""), "a")
    other = queue(mm, variant="short")
    with pytest.raises(LobbyRefused) as refused:
        join(mm, other, "a")
    assert refused.value.refusal is Refusal.ALREADY_EXISTS
    assert not other.waiting


def test_a_ticket_in_a_proposed_group_may_not_join_again() -> None:
    mm = Matchmaker()
    gathering = queue(mm, seats=2)
    join(mm, gathering, "a", "b")
    group = only_group(mm)
    with pytest.raises(LobbyRefused) as refused:
        join(mm, gathering, "a")
    assert refused.value.refusal is Refusal.ALREADY_EXISTS
    assert tickets_of(group) == ["a", "b"] and not gathering.waiting


def test_join_returns_the_entrant_with_its_name_door_and_queue() -> None:
    mm = Matchmaker()
    gathering = queue(mm)
    entrant = mm.join(gathering, "a", "Ann", "door-7")
    assert (entrant.ticket, entrant.name, entrant.door, entrant.key, entrant.group) == (
        "a", "Ann", "door-7", gathering.key, None
    )
    assert mm.entrants["a"] is entrant


def test_leave_takes_a_waiting_player_out_and_returns_it() -> None:
    mm = Matchmaker()
    gathering = queue(mm)
    join(mm, gathering, "a", "b", "c")
    entrant = mm.leave("b")
    assert entrant is not None and entrant.ticket == "b"
    assert list(gathering.waiting) == ["a", "c"]
    assert "b" not in mm.entrants


def test_leave_of_a_ticket_not_known_here_returns_none() -> None:
    mm = Matchmaker()
    join(mm, queue(mm), "a")
    assert mm.leave("stranger") is None
    assert list(mm.entrants) == ["a"]


def test_a_ticket_that_left_may_join_again_at_the_back() -> None:
    mm = Matchmaker()
    gathering = queue(mm)
    join(mm, gathering, "a", "b")
    mm.leave("a")
    join(mm, gathering, "a")
    assert list(gathering.waiting) == ["b", "a"]


def test_a_seated_ticket_is_forgotten_and_may_join_again() -> None:
    mm = Matchmaker()
    gathering = queue(mm, seats=2)
    join(mm, gathering, "a", "b")
    assert confirm_all(mm, only_group(mm)) is not None
    join(mm, gathering, "a")
    assert list(gathering.waiting) == ["a"]


# -- proposing groups ------------------------------------------------------------------


def test_a_queue_short_of_its_seats_proposes_nothing() -> None:
    mm = Matchmaker()
    join(mm, queue(mm, seats=4), "a", "b", "c")
    assert mm.propose(now=1.0) == []


def test_propose_forms_a_group_of_seats_players_in_arrival_order() -> None:
    mm = Matchmaker()
    gathering = queue(mm, seats=4)
    join(mm, gathering, "d", "b", "a", "c")
    group = only_group(mm, now=7.0)
    assert tickets_of(group) == ["d", "b", "a", "c"]
    assert group.gathering is gathering and group.proposed_at == 7.0
    assert all(mm.entrants[t].group == group.group_id for t in "abcd")
    assert not gathering.waiting and gathering.proposed == 1


def test_propose_forms_every_group_a_queue_can_fill_and_leaves_the_rest_waiting() -> None:
    mm = Matchmaker()
    gathering = queue(mm, seats=4)
    join(mm, gathering, *"abcdefghi")
    groups = mm.propose(now=1.0)
    assert [tickets_of(g) for g in groups] == [list("abcd"), list("efgh")]
    assert len({g.group_id for g in groups}) == 2
    assert list(gathering.waiting) == ["i"] and gathering.proposed == 2


def test_propose_serves_every_queue_that_filled() -> None:
    mm = Matchmaker()
    pairs, fours = queue(mm, seats=2, variant="pairs"), queue(mm, seats=4)
    join(mm, pairs, "a", "b")
    join(mm, fours, "c", "d", "e", "f")
    groups = mm.propose(now=1.0)
    assert sorted(tickets_of(g) for g in groups) == [["a", "b"], ["c", "d", "e", "f"]]


def test_a_second_propose_with_nobody_new_proposes_nothing_again() -> None:
    mm = Matchmaker()
    join(mm, queue(mm, seats=2), "a", "b", "c")
    assert len(mm.propose(now=1.0)) == 1
    assert mm.propose(now=2.0) == []


def test_a_player_joining_later_completes_a_group_at_the_next_propose() -> None:
    mm = Matchmaker()
    gathering = queue(mm, seats=2)
    join(mm, gathering, "a")
    assert mm.propose(now=1.0) == []
    join(mm, gathering, "b")
    assert tickets_of(only_group(mm, now=2.0)) == ["a", "b"]


# -- confirming --------------------------------------------------------------------------


def test_a_group_is_returned_by_its_last_confirmation_only() -> None:
    mm = Matchmaker()
    join(mm, queue(mm, seats=3), "a", "b", "c")
    group = only_group(mm)
    assert mm.confirm(group.group_id, "b") is None
    assert mm.confirm(group.group_id, "a") is None
    assert mm.confirm(group.group_id, "c") is group


def test_a_confirmed_group_leaves_the_matchmaker() -> None:
    mm = Matchmaker()
    gathering = queue(mm, seats=2)
    join(mm, gathering, "a", "b", "c")
    group = only_group(mm)
    confirm_all(mm, group)
    assert group.group_id not in mm.groups
    assert list(mm.entrants) == ["c"]
    assert gathering.proposed == 0 and list(gathering.waiting) == ["c"]


def test_confirming_the_same_player_twice_counts_once() -> None:
    mm = Matchmaker()
    join(mm, queue(mm, seats=2), "a", "b")
    group = only_group(mm)
    assert mm.confirm(group.group_id, "a") is None
    assert mm.confirm(group.group_id, "a") is None
    assert group.group_id in mm.groups
    assert mm.confirm(group.group_id, "b") is group


def test_a_confirmation_naming_a_player_outside_the_group_is_ignored() -> None:
    mm = Matchmaker()
    gathering = queue(mm, seats=2)
    join(mm, gathering, "a", "b", "c")
    group = only_group(mm)
    mm.confirm(group.group_id, "a")
    assert mm.confirm(group.group_id, "c") is None
    assert group.confirmed == {"a"} and group.group_id in mm.groups


def test_a_confirmation_for_an_unknown_group_returns_none() -> None:
    assert Matchmaker().confirm(404, "a") is None


def test_a_confirmation_for_a_dissolved_group_returns_none_and_the_player_stays_waiting() -> None:
    mm = Matchmaker()
    gathering = queue(mm, seats=2)
    join(mm, gathering, "a", "b")
    group = only_group(mm)
    mm.decline(group.group_id, "b")
    assert mm.confirm(group.group_id, "a") is None
    assert list(gathering.waiting) == ["a"] and mm.entrants["a"].group is None


# -- declines and leaves dissolve a group --------------------------------------------------


def test_a_decline_returns_the_others_to_the_head_of_the_queue_in_order() -> None:
    mm = Matchmaker()
    gathering = queue(mm, seats=4)
    join(mm, gathering, "a", "b", "c", "d")
    group = only_group(mm)
    join(mm, gathering, "late-1", "late-2")
    declined = mm.decline(group.group_id, "c")
    assert declined is not None and declined.ticket == "c"
    assert list(gathering.waiting) == ["a", "b", "d", "late-1", "late-2"]
    assert group.group_id not in mm.groups and gathering.proposed == 0
    assert all(mm.entrants[t].group is None for t in ("a", "b", "d"))


def test_the_decliner_is_gone_and_the_others_are_proposed_again_before_later_arrivals() -> None:
    mm = Matchmaker()
    gathering = queue(mm, seats=4)
    join(mm, gathering, "a", "b", "c", "d")
    first = only_group(mm)
    mm.decline(first.group_id, "a")
    assert "a" not in mm.entrants
    join(mm, gathering, "e", "f")
    second = only_group(mm, now=2.0)
    assert tickets_of(second) == ["b", "c", "d", "e"]
    assert second.group_id != first.group_id
    assert list(gathering.waiting) == ["f"]


def test_confirmations_do_not_carry_over_to_the_group_proposed_after_a_decline() -> None:
    mm = Matchmaker()
    gathering = queue(mm, seats=2)
    join(mm, gathering, "a", "b", "c")
    first = only_group(mm)
    mm.confirm(first.group_id, "a")
    mm.decline(first.group_id, "b")
    second = only_group(mm, now=2.0)
    assert tickets_of(second) == ["a", "c"] and second.confirmed == set()
    assert mm.confirm(second.group_id, "c") is None  # "a" must confirm this group too
    assert mm.confirm(second.group_id, "a") is second


def test_a_decline_for_a_group_the_player_is_not_in_is_ignored() -> None:
    mm = Matchmaker()
    gathering = queue(mm, seats=2)
    join(mm, gathering, *"abcd")
    first, second = mm.propose(now=1.0)
    assert mm.decline(second.group_id, "a") is None
    assert mm.decline(404, "a") is None
    assert mm.decline(first.group_id, "stranger") is None
    assert set(mm.groups) == {first.group_id, second.group_id}
    assert set(mm.entrants) == set("abcd")


def test_a_late_decline_after_the_group_dissolved_does_not_remove_a_waiting_player() -> None:
    mm = Matchmaker()
    gathering = queue(mm, seats=2)
    join(mm, gathering, "a", "b")
    group = only_group(mm)
    mm.decline(group.group_id, "a")
    assert mm.decline(group.group_id, "b") is None
    assert list(gathering.waiting) == ["b"]


def test_leaving_while_proposed_dissolves_the_group_like_a_decline() -> None:
    mm = Matchmaker()
    gathering = queue(mm, seats=3)
    join(mm, gathering, "a", "b", "c", "d")
    group = only_group(mm)
    left = mm.leave("b")
    assert left is not None and left.ticket == "b"
    assert list(gathering.waiting) == ["a", "c", "d"]
    assert group.group_id not in mm.groups and gathering.proposed == 0


def test_a_dissolved_group_returns_behind_an_older_group_returned_first() -> None:
    """Each dissolved group goes back to the head, so when two groups of one
    queue fail, the one that failed last is ahead: order is kept within a
    group, not across groups."""
    mm = Matchmaker()
    gathering = queue(mm, seats=2)
    join(mm, gathering, *"abcd")
    first, second = mm.propose(now=1.0)
    mm.decline(first.group_id, "a")
    mm.decline(second.group_id, "c")
    assert list(gathering.waiting) == ["d", "b"]


# -- groups not confirmed in time -------------------------------------------------------------


def test_expire_dissolves_a_group_not_confirmed_in_time_and_drops_the_silent_players() -> None:
    mm = Matchmaker()
    gathering = queue(mm, seats=4)
    join(mm, gathering, "a", "b", "c", "d")
    group = only_group(mm, now=10.0)
    join(mm, gathering, "e")
    mm.confirm(group.group_id, "a")
    mm.confirm(group.group_id, "c")
    dropped = mm.expire(now=15.0, confirm_timeout_s=5.0)
    assert sorted(d.entrant.ticket for d in dropped) == ["b", "d"]
    assert all(isinstance(d, Dropped) and d.refusal is Refusal.UNAVAILABLE and d.message for d in dropped)
    assert list(gathering.waiting) == ["a", "c", "e"]
    assert set(mm.entrants) == {"a", "c", "e"} and not mm.groups and gathering.proposed == 0


def test_a_group_within_its_confirmation_time_is_left_alone() -> None:
    mm = Matchmaker()
    join(mm, queue(mm, seats=2), "a", "b")
    group = only_group(mm, now=10.0)
    assert mm.expire(now=14.9, confirm_timeout_s=5.0) == []
    assert group.group_id in mm.groups
    assert mm.confirm(group.group_id, "a") is None
    assert mm.confirm(group.group_id, "b") is group


def test_a_group_expires_exactly_at_its_timeout() -> None:
    mm = Matchmaker()
    join(mm, queue(mm, seats=2), "a", "b")
    only_group(mm, now=10.0)
    assert sorted(d.entrant.ticket for d in mm.expire(now=15.0, confirm_timeout_s=5.0)) == ["a", "b"]
    assert not mm.entrants and not mm.groups


def test_expire_only_dissolves_the_groups_that_are_late() -> None:
    mm = Matchmaker()
    gathering = queue(mm, seats=2)
    join(mm, gathering, "a", "b")
    old = only_group(mm, now=1.0)
    join(mm, gathering, "c", "d")
    new = only_group(mm, now=4.0)
    mm.confirm(old.group_id, "a")
    dropped = mm.expire(now=6.0, confirm_timeout_s=5.0)
    assert [d.entrant.ticket for d in dropped] == ["b"]
    assert list(mm.groups) == [new.group_id]
    assert list(gathering.waiting) == ["a"]


def test_the_players_kept_by_expire_are_proposed_again() -> None:
    mm = Matchmaker()
    gathering = queue(mm, seats=2)
    join(mm, gathering, "a", "b")
    group = only_group(mm, now=0.0)
    mm.confirm(group.group_id, "b")
    mm.expire(now=5.0, confirm_timeout_s=5.0)
    join(mm, gathering, "c")
    assert tickets_of(only_group(mm, now=5.0)) == ["b", "c"]


# -- a front door that is gone --------------------------------------------------------------------


def test_drop_door_removes_its_players_wherever_they_wait() -> None:
    mm = Matchmaker()
    gathering = queue(mm, seats=2)
    join(mm, gathering, "a", "b", door="door-1")
    group = only_group(mm)
    join(mm, gathering, "c", door="door-2")
    join(mm, gathering, "d", door="door-1")
    gone = mm.drop_door("door-1")
    assert sorted(e.ticket for e in gone) == ["a", "b", "d"]
    assert list(mm.entrants) == ["c"] and list(gathering.waiting) == ["c"]
    assert group.group_id not in mm.groups and gathering.proposed == 0


def test_drop_door_returns_the_other_doors_players_of_a_group_to_the_head() -> None:
    mm = Matchmaker()
    gathering = queue(mm, seats=3)
    join(mm, gathering, "a", door="door-2")
    join(mm, gathering, "b", door="door-1")
    join(mm, gathering, "c", "d", door="door-2")
    only_group(mm)
    assert [e.ticket for e in mm.drop_door("door-1")] == ["b"]
    assert list(gathering.waiting) == ["a", "c", "d"]


def test_drop_door_of_a_door_holding_nobody_changes_nothing() -> None:
    mm = Matchmaker()
    gathering = queue(mm)
    join(mm, gathering, "a")
    assert mm.drop_door("door-9") == []
    assert list(gathering.waiting) == ["a"]


# -- private tables ---------------------------------------------------------------------------------


def test_a_private_table_is_found_by_its_code() -> None:
    mm = Matchmaker()
    gathering = mm.open_private("ABCD", "bigtwo", 4, {"turn_timeout_ms": 5}, now=3.0)
    assert mm.private_gathering("ABCD") is gathering
    assert gathering.private and gathering.key == GatheringKey("bigtwo", code="ABCD")
    assert (gathering.seats, gathering.options, gathering.created_at) == (4, {"turn_timeout_ms": 5}, 3.0)
    assert mm.private_count == 1
    assert mm.private_gathering("ZZZZ") is None


def test_a_code_in_use_cannot_be_opened_again() -> None:
    mm = Matchmaker()
    first = mm.open_private("ABCD", "bigtwo", 4, {}, now=0.0)
    with pytest.raises(LobbyRefused) as refused:
        mm.open_private("ABCD", "hearts", 4, {}, now=1.0)
    assert refused.value.refusal is Refusal.ALREADY_EXISTS
    assert mm.private_gathering("ABCD") is first and mm.private_count == 1


def test_a_private_table_is_not_the_public_queue_of_its_game() -> None:
    mm = Matchmaker()
    private = mm.open_private("ABCD", "bigtwo", 2, {}, now=0.0)
    public = queue(mm, seats=2)
    join(mm, private, "a")
    join(mm, public, "b")
    assert mm.propose(now=1.0) == []


def test_a_private_table_forms_one_table_and_is_then_forgotten() -> None:
    mm = Matchmaker()
    private = mm.open_private("ABCD", "bigtwo", 2, {}, now=0.0)
    join(mm, private, "a", "b")
    group = only_group(mm)
    assert group.gathering is private
    assert mm.private_gathering("ABCD") is private  # still there until the group is confirmed
    assert confirm_all(mm, group) is group
    assert mm.private_gathering("ABCD") is None and mm.private_count == 0
    assert private.key not in mm.gatherings
    assert mm.open_private("ABCD", "bigtwo", 2, {}, now=1.0) is not private


def test_a_player_beyond_a_private_tables_seats_is_refused() -> None:
    """The table forms once and is then forgotten: a player beyond its seats
    would wait for a table that never comes."""
    mm = Matchmaker()
    private = mm.open_private("ABCD", "bigtwo", 2, {}, now=0.0)
    join(mm, private, "a", "b")
    with pytest.raises(LobbyRefused) as refused:
        join(mm, private, "c")
    assert refused.value.refusal is Refusal.RESOURCE_EXHAUSTED
    assert "ABCD" in refused.value.message
    assert "c" not in mm.entrants and list(private.waiting) == ["a", "b"]


def test_a_private_table_with_its_group_proposed_takes_nobody_else() -> None:
    mm = Matchmaker()
    private = mm.open_private("ABCD", "bigtwo", 2, {}, now=0.0)
    join(mm, private, "a", "b")
    group = only_group(mm)
    with pytest.raises(LobbyRefused):
        join(mm, private, "c")
    assert confirm_all(mm, group) is group
    assert not mm.entrants


def test_a_seat_freed_by_a_decline_at_a_private_table_can_be_taken_again() -> None:
    mm = Matchmaker()
    private = mm.open_private("ABCD", "bigtwo", 3, {}, now=0.0)
    join(mm, private, "a", "b", "c")
    first = only_group(mm)
    mm.decline(first.group_id, "b")
    assert list(private.waiting) == ["a", "c"]
    assert mm.propose(now=2.0) == []
    join(mm, private, "d")
    second = only_group(mm, now=3.0)
    assert tickets_of(second) == ["a", "c", "d"]
    assert confirm_all(mm, second) is second and mm.private_gathering("ABCD") is None


def test_close_private_returns_everyone_there_and_forgets_the_code() -> None:
    mm = Matchmaker()
    private = mm.open_private("ABCD", "bigtwo", 2, {}, now=0.0)
    join(mm, private, "a", "b")
    group = only_group(mm)
    left = mm.close_private("ABCD")
    assert [e.ticket for e in left] == ["a", "b"]
    assert not mm.entrants and not mm.groups
    assert mm.private_gathering("ABCD") is None and mm.private_count == 0
    assert mm.confirm(group.group_id, "a") is None and mm.confirm(group.group_id, "b") is None


def test_close_private_of_an_unknown_code_returns_nobody() -> None:
    mm = Matchmaker()
    join(mm, queue(mm), "a")
    assert mm.close_private("ZZZZ") == []
    assert list(mm.entrants) == ["a"]


def test_private_codes_older_than_a_cutoff_are_those_created_strictly_before_it() -> None:
    mm = Matchmaker()
    mm.open_private("OLD", "bigtwo", 4, {}, now=1.0)
    mm.open_private("EDGE", "bigtwo", 4, {}, now=2.0)
    mm.open_private("NEW", "bigtwo", 4, {}, now=3.0)
    assert mm.private_codes_older_than(2.0) == ["OLD"]
    assert sorted(mm.private_codes_older_than(10.0)) == ["EDGE", "NEW", "OLD"]
    assert mm.private_codes_older_than(0.0) == []


# -- tidying ------------------------------------------------------------------------------------------


def test_prune_forgets_only_public_queues_with_nobody_waiting_or_proposed() -> None:
    mm = Matchmaker()
    empty = queue(mm, variant="empty")
    waiting = queue(mm, variant="waiting", seats=3)
    proposed = queue(mm, variant="proposed", seats=2)
    private = mm.open_private("ABCD", "bigtwo", 4, {}, now=0.0)
    join(mm, waiting, "a")
    join(mm, proposed, "b", "c")
    only_group(mm)
    mm.prune_empty_queues()
    assert empty.key not in mm.gatherings
    assert {waiting.key, proposed.key, private.key} <= set(mm.gatherings)


def test_a_pruned_queue_is_made_afresh_when_someone_queues_again() -> None:
    mm = Matchmaker()
    old = queue(mm, seats=2)
    join(mm, old, "a")
    mm.leave("a")
    mm.prune_empty_queues()
    new = queue(mm, seats=2)
    assert new is not old
    join(mm, new, "b", "c")
    assert tickets_of(only_group(mm)) == ["b", "c"]


# -- refusals cross Ray ---------------------------------------------------------------------------------


@pytest.mark.parametrize("refusal", list(Refusal))
def test_a_refusal_survives_pickling_with_its_reason_and_message(refusal: Refusal) -> None:
    copy = pickle.loads(pickle.dumps(LobbyRefused(refusal, "why it was refused")))
    assert isinstance(copy, LobbyRefused)
    assert copy.refusal is refusal
    assert copy.message == "why it was refused"
    assert str(copy) == "why it was refused"


# -- any interleaving ---------------------------------------------------------------------------------------

QUEUES = {("bigtwo", ""): 4, ("bigtwo", "pairs"): 2, ("hearts", ""): 3}
DOORS = ["door-1", "door-2", "door-3"]


class MatchmakerMachine(RuleBasedStateMachine):
    """Joins, leaves, proposals, confirmations, declines, expiries, dead front
    doors and private tables in any order. Tickets are never reused, so each
    ticket's fate is one of: still known here, gone (told why), or seated."""

    def __init__(self) -> None:
        super().__init__()
        self.mm = Matchmaker()
        self.now = 0.0
        self.issued = 0
        self.joined: set[str] = set()
        self.gone: set[str] = set()  # left, declined, dropped or closed out
        self.seated: set[str] = set()
        self.proposals: list[tuple[int, str]] = []  # every (group, ticket) ever asked about
        self.codes: list[str] = []

    def _new_ticket(self) -> str:
        self.issued += 1
        return f"t{self.issued}"

    def _open_codes(self) -> list[str]:
        return [code for code in self.codes if self.mm.private_gathering(code) is not None]

    # -- what players and front doors do

    @rule(which=st.sampled_from(sorted(QUEUES)), door=st.sampled_from(DOORS))
    def join_a_queue(self, which: tuple[str, str], door: str) -> None:
        game, variant = which
        gathering = self.mm.queue(game, variant, QUEUES[which], {}, self.now)
        ticket = self._new_ticket()
        self.mm.join(gathering, ticket, ticket, door)
        self.joined.add(ticket)

    @rule(which=st.sampled_from(sorted(QUEUES)), doors=st.lists(st.sampled_from(DOORS), min_size=4, max_size=4))
    def a_queues_worth_of_players_join(self, which: tuple[str, str], doors: list[str]) -> None:
        for door in doors[: QUEUES[which]]:
            self.join_a_queue(which, door)

    @precondition(lambda self: self._open_codes())
    @rule(data=st.data(), door=st.sampled_from(DOORS))
    def join_a_private_table(self, data: st.DataObject, door: str) -> None:
        gathering = self.mm.private_gathering(data.draw(st.sampled_from(self._open_codes())))
        assert gathering is not None
        full = len(gathering.waiting) + gathering.proposed * gathering.seats >= gathering.seats
        ticket = self._new_ticket()
        try:
            self.mm.join(gathering, ticket, ticket, door)
        except LobbyRefused as refused:
            assert full and refused.refusal is Refusal.RESOURCE_EXHAUSTED
            return
        assert not full
        self.joined.add(ticket)

    @precondition(lambda self: self.mm.entrants)
    @rule(data=st.data(), which=st.sampled_from(sorted(QUEUES)))
    def join_again_while_known(self, data: st.DataObject, which: tuple[str, str]) -> None:
        ticket = data.draw(st.sampled_from(sorted(self.mm.entrants)))
        gathering = self.mm.queue(*which, QUEUES[which], {}, self.now)
        before = list(gathering.waiting)
        try:
            self.mm.join(gathering, ticket, ticket, DOORS[0])
        except LobbyRefused as refused:
            assert refused.refusal is Refusal.ALREADY_EXISTS
        else:
            raise AssertionError(f"{ticket} joined twice")
        assert list(gathering.waiting) == before

    @precondition(lambda self: self.joined)
    @rule(data=st.data())
    def leave(self, data: st.DataObject) -> None:
        ticket = data.draw(st.sampled_from(sorted(self.joined)))
        known = ticket in self.mm.entrants
        entrant = self.mm.leave(ticket)
        assert (entrant is not None) == known
        if entrant is not None:
            assert entrant.ticket == ticket
            self.gone.add(ticket)
        assert ticket not in self.mm.entrants

    @rule()
    def propose(self) -> None:
        for group in self.mm.propose(self.now):
            tickets = [e.ticket for e in group.entrants]
            assert len(tickets) == group.gathering.seats == len(set(tickets))
            assert set(tickets) <= self.joined - self.gone - self.seated
            self.proposals.extend((group.group_id, ticket) for ticket in tickets)
        for gathering in self.mm.gatherings.values():  # nobody is left waiting who could have been grouped
            assert len(gathering.waiting) < gathering.seats or (gathering.private and gathering.proposed)

    def _live_proposals(self) -> list[tuple[int, str]]:
        return [(gid, e.ticket) for gid, g in sorted(self.mm.groups.items()) for e in g.entrants]

    def _seat(self, group_id: int, group: Group) -> None:
        tickets = [e.ticket for e in group.entrants]
        assert len(tickets) == group.gathering.seats == len(set(tickets))
        assert set(tickets) <= self.joined
        assert not set(tickets) & (self.gone | self.seated)
        assert group.confirmed == set(tickets)
        assert group_id not in self.mm.groups
        assert not set(tickets) & set(self.mm.entrants)
        self.seated.update(tickets)

    def _decline(self, group_id: int, ticket: str) -> None:
        in_that_group = ticket in self.mm.entrants and self.mm.entrants[ticket].group == group_id
        entrant = self.mm.decline(group_id, ticket)
        assert (entrant is not None) == in_that_group
        if entrant is not None:
            assert entrant.ticket == ticket
            assert group_id not in self.mm.groups
            self.gone.add(ticket)

    @precondition(lambda self: self.mm.groups)
    @rule(data=st.data())
    def confirm(self, data: st.DataObject) -> None:
        group_id, ticket = data.draw(st.sampled_from(self._live_proposals()))
        group = self.mm.confirm(group_id, ticket)
        if group is not None:
            self._seat(group_id, group)

    @precondition(lambda self: self.mm.groups)
    @rule(data=st.data())
    def decline(self, data: st.DataObject) -> None:
        self._decline(*data.draw(st.sampled_from(self._live_proposals())))

    @precondition(lambda self: self.mm.groups)
    @rule(data=st.data())
    def every_door_confirms_a_group(self, data: st.DataObject) -> None:
        group_id = data.draw(st.sampled_from(sorted(self.mm.groups)))
        group = self.mm.groups[group_id]
        unconfirmed = [e.ticket for e in group.entrants if e.ticket not in group.confirmed]
        answers = [self.mm.confirm(group_id, ticket) for ticket in unconfirmed]
        assert answers[:-1] == [None] * (len(unconfirmed) - 1)
        assert answers[-1] is group
        self._seat(group_id, answers[-1])

    @precondition(lambda self: self.proposals)
    @rule(data=st.data(), present=st.booleans())
    def answer_any_proposal_even_a_stale_one(self, data: st.DataObject, present: bool) -> None:
        group_id, ticket = data.draw(st.sampled_from(self.proposals))
        if not present:
            self._decline(group_id, ticket)
            return
        group = self.mm.confirm(group_id, ticket)
        if group is not None:
            self._seat(group_id, group)

    @rule(timeout=st.sampled_from([0.0, 1.0, 5.0]))
    def expire(self, timeout: float) -> None:
        late = {gid for gid, g in self.mm.groups.items() if self.now - g.proposed_at >= timeout}
        silent = {e.ticket for gid in late for e in self.mm.groups[gid].entrants} - {
            t for gid in late for t in self.mm.groups[gid].confirmed
        }
        dropped = self.mm.expire(self.now, timeout)
        assert sorted(d.entrant.ticket for d in dropped) == sorted(silent)
        assert not late & set(self.mm.groups)
        self.gone.update(silent)

    @rule(door=st.sampled_from(DOORS))
    def drop_door(self, door: str) -> None:
        held = {t for t, e in self.mm.entrants.items() if e.door == door}
        gone = self.mm.drop_door(door)
        assert {e.ticket for e in gone} == held
        self.gone.update(held)

    @rule(seats=st.integers(min_value=1, max_value=4))
    def open_private(self, seats: int) -> None:
        code = f"P{len(self.codes)}"
        self.mm.open_private(code, "bigtwo", seats, {}, self.now)
        self.codes.append(code)

    @precondition(lambda self: self._open_codes())
    @rule(data=st.data())
    def close_private(self, data: st.DataObject) -> None:
        code = data.draw(st.sampled_from(self._open_codes()))
        gathering = self.mm.private_gathering(code)
        assert gathering is not None
        there = set(gathering.waiting) | {
            e.ticket for g in self.mm.groups.values() if g.gathering is gathering for e in g.entrants
        }
        left = self.mm.close_private(code)
        assert {e.ticket for e in left} == there
        assert self.mm.private_gathering(code) is None
        self.gone.update(there)

    @rule()
    def prune(self) -> None:
        self.mm.prune_empty_queues()

    @rule(seconds=st.sampled_from([0.5, 1.0, 5.0]))
    def time_passes(self, seconds: float) -> None:
        self.now += seconds

    # -- what must hold after every step

    @invariant()
    def every_known_ticket_is_waiting_or_in_exactly_one_group(self) -> None:
        places: Counter[str] = Counter()
        for key, gathering in self.mm.gatherings.items():
            assert gathering.key == key
            for ticket, entrant in gathering.waiting.items():
                assert entrant.ticket == ticket and entrant.group is None and entrant.key == key
                places[ticket] += 1
        for group_id, group in self.mm.groups.items():
            assert self.mm.gatherings.get(group.gathering.key) is group.gathering
            for entrant in group.entrants:
                assert entrant.group == group_id
                places[entrant.ticket] += 1
        assert set(places) == set(self.mm.entrants)
        assert all(count == 1 for count in places.values()), places

    @invariant()
    def every_ticket_that_joined_is_known_gone_or_seated_and_only_one_of_them(self) -> None:
        known = set(self.mm.entrants)
        assert known | self.gone | self.seated == self.joined
        assert not known & self.gone and not known & self.seated and not self.gone & self.seated

    @invariant()
    def each_gathering_counts_its_groups_and_a_private_table_has_one_at_most(self) -> None:
        groups_of = Counter(group.gathering.key for group in self.mm.groups.values())
        for key, gathering in self.mm.gatherings.items():
            assert gathering.proposed == groups_of[key]
            if gathering.private:
                assert gathering.proposed <= 1
                assert len(gathering.waiting) + gathering.proposed * gathering.seats <= gathering.seats

    @invariant()
    def every_open_code_has_its_gathering(self) -> None:
        for code in self._open_codes():
            gathering = self.mm.private_gathering(code)
            assert gathering is not None and gathering.key.code == code
        assert self.mm.private_count == len(self._open_codes())


MatchmakerMachine.TestCase.settings = settings(
    max_examples=300, stateful_step_count=50, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestAnyInterleavingKeepsEveryTicketInOnePlace = MatchmakerMachine.TestCase
