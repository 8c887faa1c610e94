"""The tournament as a fold of events: commands refuse without a trace,
duplicates change nothing, late registration closes when it should, and the
events a tournament emits replay into the same tournament."""

from __future__ import annotations

import random
from typing import Any

import msgpack
import pytest

from tablehost.actors.tournament import GameRecord, Tournament, TournamentError, TournamentSpec


def spec(form: str = "swiss", rounds: int = 3, **more: Any) -> TournamentSpec:
    return TournamentSpec("cup", "duel", form, 4 if form == "table_rounds" else 2, rounds, 11, **more)


def result(table: Any, ranks: tuple[int, ...], forfeited: tuple[bool, ...] | None = None) -> GameRecord:
    """Points as the host's games give them: players beaten plus half the ones tied."""
    forfeited = forfeited or (False,) * len(ranks)
    points = tuple(0.0 if gone else sum(1 for o in ranks if o > r) + 0.5 * (ranks.count(r) - 1)
                   for r, gone in zip(ranks, forfeited))
    return GameRecord(table.table_id, table.round, table.players, points, ranks,
                      tuple(float(10 - r) for r in ranks), forfeited)


def snapshot(tournament: Tournament) -> tuple[Any, ...]:
    return (tournament.players(), tournament.ratings(), tournament.standings(), tournament.rounds,
            tournament.rounds_played, tournament.pending_tables(), tournament.history(), tournament.finished,
            tournament.finish_reason)


def registered(count: int, **spec_fields: Any) -> tuple[Tournament, list[dict[str, Any]]]:
    tournament = Tournament(spec(**spec_fields))
    return tournament, [tournament.register(f"p{index}") for index in range(count)]


def play_round(tournament: Tournament, rng: random.Random) -> list[dict[str, Any]]:
    events = [tournament.start_round()]
    for table in tournament.pending_tables():
        seats = len(table.players)
        ranks = [0, 0] if seats == 2 and rng.random() < 0.2 else rng.sample(range(seats), seats)
        events.append(tournament.record(result(table, tuple(ranks))))
    return events


def refused(tournament: Tournament, command: Any, *args: Any, match: str) -> None:
    before = snapshot(tournament)
    with pytest.raises(TournamentError, match=match) as raised:
        command(*args)
    assert raised.value.reason == str(raised.value)
    assert snapshot(tournament) == before


def test_registering_twice_is_refused_and_changes_nothing() -> None:
    tournament, _ = registered(2)
    refused(tournament, tournament.register, "p1", match="registered already")


@pytest.mark.parametrize("player", ["", "   ", "x" * 65, "new\nline"])
def test_empty_overlong_or_unprintable_player_ids_are_refused(player: str) -> None:
    tournament, _ = registered(2)
    refused(tournament, tournament.register, player, match="player id")


def test_a_64_character_id_and_a_given_rating_are_taken() -> None:
    tournament = Tournament(spec())
    event = tournament.register("x" * 64, (30.0, 5.0))
    assert event == {"type": "registered", "player": "x" * 64, "rating": [30.0, 5.0]}
    assert tournament.ratings() == {"x" * 64: (30.0, 5.0)}


@pytest.mark.parametrize("rating", [(25.0, 0.0), (float("nan"), 8.0), (25.0, float("inf"))])
def test_a_rating_without_a_finite_mu_and_positive_sigma_is_refused(rating: tuple[float, float]) -> None:
    tournament, _ = registered(1)
    refused(tournament, tournament.register, "p9", rating, match="rating")


def test_withdrawing_an_unknown_or_withdrawn_player_is_refused_and_changes_nothing() -> None:
    tournament, _ = registered(3)
    refused(tournament, tournament.withdraw, "nobody", match="not registered")
    tournament.withdraw("p2")
    refused(tournament, tournament.withdraw, "p2", match="withdrawn already")


def test_a_withdrawn_player_is_not_paired_next_round_and_keeps_their_results() -> None:
    tournament, _ = registered(6, rounds=3)
    play_round(tournament, random.Random(1))
    points_before = {s.player: s.points for s in tournament.standings()}
    tournament.withdraw("p3")
    tournament.start_round()
    seated = {player for table in tournament.pending_tables() for player in table.players}
    current = tournament.current_round
    assert current is not None
    assert "p3" not in seated | set(current.byes)
    assert len(seated | set(current.byes)) == 5
    withdrawn = next(s for s in tournament.standings() if s.player == "p3")
    assert withdrawn.withdrawn and withdrawn.points == points_before["p3"] and withdrawn.games == 1


def test_starting_a_round_while_one_is_being_played_is_refused() -> None:
    tournament, _ = registered(4)
    tournament.start_round()
    refused(tournament, tournament.start_round, match="round 1 is still being played: 2 table")


def test_a_duplicate_result_returns_none_and_changes_nothing() -> None:
    tournament, _ = registered(4)
    tournament.start_round()
    table = tournament.pending_tables()[0]
    assert tournament.record(result(table, (0, 1))) is not None
    before = snapshot(tournament)
    assert tournament.record(result(table, (0, 1))) is None
    assert snapshot(tournament) == before


def test_a_different_result_for_a_recorded_table_is_refused() -> None:
    tournament, _ = registered(4)
    tournament.start_round()
    table = tournament.pending_tables()[0]
    tournament.record(result(table, (0, 1)))
    refused(tournament, tournament.record, result(table, (1, 0)), match="already has a different result")


def test_a_result_whose_players_are_not_the_tables_in_seat_order_is_refused() -> None:
    tournament, _ = registered(4)
    tournament.start_round()
    table = tournament.pending_tables()[0]
    swapped = GameRecord(table.table_id, 1, table.players[::-1], (1.0, 0.0), (0, 1), (1.0, 0.0), (False, False))
    refused(tournament, tournament.record, swapped, match="are not table")
    stranger = GameRecord(table.table_id, 1, (table.players[0], "p9"), (1.0, 0.0), (0, 1), (1.0, 0.0),
                          (False, False))
    refused(tournament, tournament.record, stranger, match="are not table")


def test_a_result_for_an_unknown_table_or_of_the_wrong_shape_is_refused() -> None:
    tournament, _ = registered(4)
    tournament.start_round()
    table = tournament.pending_tables()[0]
    unknown = GameRecord("cup.r9.t0", 9, table.players, (1.0, 0.0), (0, 1), (1.0, 0.0), (False, False))
    refused(tournament, tournament.record, unknown, match="no table cup.r9.t0")
    short = GameRecord(table.table_id, 1, table.players, (1.0,), (0, 1), (1.0, 0.0), (False, False))
    refused(tournament, tournament.record, short, match="one per seat")
    wrong_round = GameRecord(table.table_id, 2, table.players, (1.0, 0.0), (0, 1), (1.0, 0.0), (False, False))
    refused(tournament, tournament.record, wrong_round, match="the result says round 2")
    scoring_no_show = GameRecord(table.table_id, 1, table.players, (1.0, 0.0), (0, 1), (1.0, 0.0), (True, False))
    refused(tournament, tournament.record, scoring_no_show, match="forfeited scores 0")


def test_late_registration_is_open_until_half_the_rounds_have_started() -> None:
    tournament, _ = registered(4, rounds=5)  # half of 5: registration open while at most 2 rounds started
    rng = random.Random(2)
    play_round(tournament, rng)
    tournament.register("late1")
    play_round(tournament, rng)
    tournament.register("late2")
    play_round(tournament, rng)
    refused(tournament, tournament.register, "late3", match="ends once 2 round")


def test_late_join_rounds_zero_closes_registration_when_round_one_starts() -> None:
    tournament, _ = registered(4, late_join_rounds=0)
    tournament.start_round()
    refused(tournament, tournament.register, "late", match="registration is closed")


@pytest.mark.parametrize("form", ["elimination", "round_robin"])
def test_an_elimination_or_round_robin_takes_no_players_once_started(form: str) -> None:
    tournament, _ = registered(4, form=form, rounds=0)
    tournament.start_round()
    refused(tournament, tournament.register, "late", match="took its field")


def test_after_the_last_planned_round_the_tournament_finishes_and_refuses_more() -> None:
    tournament, _ = registered(4, rounds=2)
    rng = random.Random(3)
    play_round(tournament, rng)
    play_round(tournament, rng)
    assert tournament.start_round() == {"type": "finished", "reason": "all 2 planned rounds were played"}
    assert tournament.finished and tournament.rounds_played == 2
    refused(tournament, tournament.start_round, match="has finished")
    refused(tournament, tournament.register, "late", match="has finished")
    refused(tournament, tournament.withdraw, "p0", match="has finished")


def test_fewer_than_two_active_players_end_the_tournament_cleanly() -> None:
    tournament, _ = registered(2)
    tournament.withdraw("p0")
    event = tournament.start_round()
    assert event["type"] == "finished" and "fewer than 2 active players" in event["reason"]
    assert tournament.rounds == [] and tournament.finished


def test_table_ids_name_the_tournament_round_and_table() -> None:
    tournament, _ = registered(6)
    event = tournament.start_round()
    assert [table["table_id"] for table in event["tables"]] == ["cup.r1.t0", "cup.r1.t1", "cup.r1.t2"]
    assert [table.table_id for table in tournament.pending_tables()] == ["cup.r1.t0", "cup.r1.t1", "cup.r1.t2"]


def test_an_unknown_event_is_refused() -> None:
    with pytest.raises(TournamentError, match="not a tournament event"):
        Tournament(spec()).apply({"type": "teleported"})


@pytest.mark.parametrize("form", ["swiss", "round_robin", "elimination", "table_rounds"])
def test_replaying_the_emitted_events_after_msgpack_rebuilds_the_same_tournament(form: str) -> None:
    rng = random.Random(4)
    tournament = Tournament(spec(form, rounds=0, min_seats=3 if form == "table_rounds" else 0))
    events = [tournament.register(f"p{index}", (20.0 + index, 6.0) if index % 3 == 0 else None)
              for index in range(11)]
    events += play_round(tournament, rng)
    if form not in ("round_robin", "elimination"):
        events.append(tournament.register("late"))
    events.append(tournament.withdraw("p4"))
    events.append(tournament.start_round())
    table = tournament.pending_tables()[0]
    no_show = tuple(seat == 0 for seat in range(len(table.players)))
    events.append(tournament.record(result(table, tuple(range(1, len(table.players))) + (0,), no_show)))
    kept = msgpack.unpackb(msgpack.packb(events))
    assert snapshot(Tournament.replay(tournament.spec, kept)) == snapshot(tournament)  # mid-round
    while not tournament.finished:
        for table in tournament.pending_tables():
            events.append(tournament.record(result(table, tuple(rng.sample(range(len(table.players)),
                                                                           len(table.players))))))
        events.append(tournament.start_round())
    replayed = Tournament.replay(tournament.spec, msgpack.unpackb(msgpack.packb(events)))
    assert snapshot(replayed) == snapshot(tournament)
    assert replayed.current_round == tournament.current_round


def test_a_no_show_scores_nothing_and_loses_rating_to_the_player_who_came() -> None:
    tournament, _ = registered(2)
    tournament.start_round()
    table = tournament.pending_tables()[0]
    absent, present = table.players
    tournament.record(result(table, (1, 0), (True, False)))
    ratings = tournament.ratings()
    assert ratings[absent][0] < 25.0 < ratings[present][0]
    standing = {s.player: s for s in tournament.standings()}
    assert standing[absent].points == 0 and standing[present].wins == 1


def test_the_spec_round_trips_through_plain_data_and_refuses_nonsense() -> None:
    table_spec = TournamentSpec("t", "bigtwo", "table_rounds", 4, 5, 9, min_seats=3, late_join_rounds=1)
    assert TournamentSpec.from_dict(msgpack.unpackb(msgpack.packb(table_spec.to_dict()))) == table_spec
    for bad in ({"format": "ladder"}, {"seats": 4}, {"format": "table_rounds", "seats": 9},
                {"format": "table_rounds", "seats": 4, "min_seats": 5}, {"rounds": -1}):
        fields = {"tournament_id": "t", "game": "duel", "format": "swiss", "seats": 2, "rounds": 3, "seed": 1}
        with pytest.raises(TournamentError):
            TournamentSpec(**{**fields, **bad})
