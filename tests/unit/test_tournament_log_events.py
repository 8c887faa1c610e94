"""A tournament's log events as typed records: each is stored as the same
plain data it always was, reads back as itself, and a log written before
organisers proved themselves still folds."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from tablehost.actors.tournament.log_events import (CoreEvent, CreatedEvent, LogEvent, PausedEvent, ResumedEvent,
                                                StartEvent, TournamentOrganiser, event_from_plain)
from tablehost.actors.tournament.kept import DEFAULT_ROUND_LIMIT_S, KeptTournament, StandingsPages
from tablehost.actors.tournament.records import TournamentSpec

SPEC = TournamentSpec("t-00000000000000aa", "duel", "swiss", seats=2, rounds=2, seed=7, deal_key="ab" * 32)
CREATED = CreatedEvent(SPEC, "cup", max_players=64, no_show_after_s=60, options={"turn_timeout_ms": 30000},
                       organiser=TournamentOrganiser("0123456789abcdef", "Acme"), start_by_ms=1_800_000_000_000)


def stored(event: dict[str, Any]) -> dict[str, Any]:
    """As the store hands it back."""
    return msgpack.unpackb(msgpack.packb(event, use_bin_type=True), raw=False)


@pytest.mark.parametrize("event", [
    CREATED, CreatedEvent(SPEC, "cup", max_players=8, no_show_after_s=30),
    CreatedEvent(SPEC, "cup", max_players=8, no_show_after_s=30, round_limit_s=1.5),
    CoreEvent({"type": "registered", "player": "ann"}, {"deck": "mage-basic"}),
    CoreEvent({"type": "withdrawn", "player": "ann"}), StartEvent(), PausedEvent(), ResumedEvent()],
    ids=lambda event: type(event).__name__)
def test_each_event_reads_back_from_its_stored_form_as_itself(event: LogEvent) -> None:
    plain = stored(event.to_plain())
    assert event_from_plain(plain) == event
    assert event_from_plain(plain).to_plain() == plain


def test_the_created_event_is_stored_as_the_front_door_always_wrote_it() -> None:
    written = {"kind": "created", "spec": SPEC.to_dict(), "name": "cup", "options": {"turn_timeout_ms": 30000},
               "max_players": 64, "no_show_after_s": 60, "organiser": {"id": "0123456789abcdef", "name": "Acme"},
               "start_by_ms": 1_800_000_000_000}
    assert msgpack.packb(CREATED.to_plain(), use_bin_type=True) == msgpack.packb(written, use_bin_type=True)


def test_the_other_events_are_stored_as_the_actor_always_wrote_them() -> None:
    assert CoreEvent({"player": "ann"}, {"deck": "x"}).to_plain() == {"kind": "core", "event": {"player": "ann"},
                                                                      "join": {"deck": "x"}}
    assert CoreEvent({"player": "ann"}).to_plain() == {"kind": "core", "event": {"player": "ann"}}
    assert [event.to_plain() for event in (StartEvent(), PausedEvent(), ResumedEvent())] == [
        {"kind": "start"}, {"kind": "paused"}, {"kind": "resumed"}]


def test_a_log_from_before_organisers_proved_themselves_still_folds() -> None:
    old = {"kind": "created", "spec": SPEC.to_dict(), "name": "cup", "options": {}, "max_players": 8,
           "no_show_after_s": 60}
    created = event_from_plain(stored(old))
    assert isinstance(created, CreatedEvent) and created.organiser is None and created.start_by_ms is None
    assert created.to_plain() == old
    core = KeptTournament.replay([old]).core
    log = [old, *({"kind": "core", "event": core.register(player)} for player in ("ann", "bob")), {"kind": "start"}]
    kept = KeptTournament.replay([stored(event) for event in log])
    assert (kept.organiser, kept.start_by_ms, kept.state, kept.core.players()) == ("", 0, "running", ["ann", "bob"])
    assert kept.round_limit_s == DEFAULT_ROUND_LIMIT_S
    assert kept.status(StandingsPages().first(kept.core)).organiser == ""


def test_an_event_of_a_kind_no_tournament_writes_is_refused() -> None:
    with pytest.raises(ValueError, match="no events of kind 'renamed'"):
        event_from_plain({"kind": "renamed", "name": "cup"})
    with pytest.raises(ValueError, match="no events of kind None"):
        event_from_plain({"name": "cup"})
    with pytest.raises(ValueError, match="no events of kind 'renamed'"):
        KeptTournament.replay([CREATED.to_plain(), {"kind": "renamed", "name": "cup"}])


def test_a_log_holds_one_created_event_its_first() -> None:
    with pytest.raises(ValueError, match="begins with its created event, not 'start'"):
        KeptTournament.replay([{"kind": "start"}])
    with pytest.raises(ValueError, match="one created event"):
        KeptTournament.replay([CREATED.to_plain(), CREATED.to_plain()])
