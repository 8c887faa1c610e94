"""A game's header is a typed record whose plain form is what stores and game
records hold: it round-trips, and headers written before join data and
deals were kept still load and replay."""

from __future__ import annotations

from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Match, MatchHeader, replay
from tablehost.games.engine.views import canonical_bytes, decode
from tests.testgames.trio import RULES as TRIO

PLAYERS = ["a", "b", "c", "d"]


def test_a_match_header_round_trips_through_its_plain_form_and_msgpack() -> None:
    match = Match(TRIO, TableSeed.numbered(3), ["ann", "ann", "bo"], {"turn_timeout_ms": 500}, 1_000,
                  [{"league": "a"}, {"league": "a", "mark": "♦"}, {"league": "a"}], deal_deadline_ms=61_000)
    header = match.header()
    plain = header.to_plain()
    assert list(plain) == ["game", "seed", "salt", "players", "join", "options", "started_ms", "deal_deadline_ms"]
    assert plain["join"][1] == {"league": "a", "mark": "♦"} and plain["deal_deadline_ms"] == 61_000
    assert MatchHeader.from_plain(plain) == header
    assert MatchHeader.from_plain(decode(canonical_bytes(plain))) == header


def test_a_header_from_before_join_data_and_deals_were_kept_replays_as_dealt_at_once() -> None:
    match = Match(BIGTWO, TableSeed.numbered(5), list(PLAYERS), {}, 0)
    match.act(BIGTWO.to_act(match.state), match.request_for(BIGTWO.to_act(match.state)).legal_actions[0], 10)
    old = {key: value for key, value in match.header().to_plain().items() if key not in ("join", "deal_deadline_ms")}
    header = MatchHeader.from_plain(old)
    assert header.join == () and header.deal_deadline_ms is None
    assert replay(BIGTWO, header, match.commands).state_hash() == match.state_hash()
