"""A game's header and a table's stored header are typed records whose
plain form is what stores and game records hold: they round-trip, a store
writes the same bytes as before, and headers written before join data,
deals and code versions were kept still load, replay and resume."""

from __future__ import annotations

import asyncio
from pathlib import Path

import msgpack

from tablehost.actors.room_calls import OpenedTable, SeatRequest, TableRequest, opened_table
from tablehost.actors.store import Appends, JournalEntry, TableHeader
from tablehost.actors.store.local import LocalStore
from tablehost.actors.table import resume_table
from tablehost.actors.versions import code_versions, why_not_resumable
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


def record_as_written_before(table_id: str) -> dict:
    """A room's record of a table as the code that kept it as a plain dict wrote it."""
    return {"table_id": table_id, "game": "bigtwo", "variant": "", "commitment": "c0" * 32,
            "players": list(PLAYERS), "tickets": ["t0", "t1", "t2", "t3"], "clients": ["player:a", "", "", ""],
            "join": [{"league": "a"}, {}, {"league": "a", "mark": "♦"}, {}], "entrants": ["t2", "t0", "t3", "t1"],
            "options": {"turn_timeout_ms": 500}, "started_ms": 1_000}


def old_table(tmp_path: Path, table_id: str) -> tuple[dict, Match]:
    """A Big Two table as a store written before join data, deals and code
    versions were kept holds it: the plain header, then two commands."""
    match = Match(BIGTWO, TableSeed.numbered(5), list(PLAYERS), {}, 0)
    plain_match = {key: value for key, value in match.header().to_plain().items()
                   if key not in ("join", "deal_deadline_ms")}
    plain = {"table_id": table_id, "run_id": "run-1", "match": plain_match, "record": record_as_written_before(table_id)}
    folder = tmp_path / table_id
    folder.mkdir(parents=True)
    (folder / "epoch").write_bytes(b"1")
    (folder / "header").write_bytes(msgpack.packb(plain, use_bin_type=True))
    store = LocalStore(str(tmp_path))
    for seq in (1, 2):
        seat = BIGTWO.to_act(match.state)
        action = match.request_for(seat).legal_actions[0]
        match.act(seat, action, seq)
        assert store.append({table_id: Appends(1, [JournalEntry(seq, f"a{seq}", seat, action, seq, False)])}) == {}
    store.close()
    return plain, match


def test_a_table_header_round_trips_through_its_plain_form() -> None:
    match = Match(BIGTWO, TableSeed.numbered(5), list(PLAYERS), {}, 0, deal_deadline_ms=60_000)
    header = TableHeader("t-1", "run-1", match.header(), OpenedTable.from_plain(record_as_written_before("t-1")),
                         code_versions(BIGTWO))
    plain = header.to_plain()
    assert list(plain) == ["table_id", "run_id", "match", "record", "versions"]
    assert plain["record"] == record_as_written_before("t-1")
    assert list(plain["record"]) == list(record_as_written_before("t-1"))
    assert plain["versions"] == {"tablehost": header.versions.tablehost, "rules": 1}
    assert TableHeader.from_plain(msgpack.unpackb(msgpack.packb(plain))) == header


def test_a_rooms_opened_table_round_trips_through_the_headers_plain_form() -> None:
    entrants = (SeatRequest("t0", "a", {"league": "a"}, "player:a"), SeatRequest("t1", "b"),
                SeatRequest("t2", "c", {"league": "a", "mark": "♦"}), SeatRequest("t3", "d"))
    request = TableRequest("t-2", "bigtwo", "", TableSeed.numbered(5), entrants, {"turn_timeout_ms": 500})
    opened = opened_table(request, [entrants[2], entrants[0], entrants[3], entrants[1]])
    assert opened.players == ("c", "a", "d", "b") and opened.entrants == ("t0", "t1", "t2", "t3")
    assert opened.join[0] == {"league": "a", "mark": "♦"} and opened.clients == ("", "player:a", "", "")
    match = Match(BIGTWO, TableSeed.numbered(5), list(opened.players), {}, 0)
    header = TableHeader("t-2", "run-1", match.header(), opened, code_versions(BIGTWO))
    plain = msgpack.unpackb(msgpack.packb(header.to_plain(), use_bin_type=True))
    assert list(plain["record"]) == list(record_as_written_before("t-2"))
    assert plain["record"]["players"] == ["c", "a", "d", "b"] and plain["record"]["options"] == {"turn_timeout_ms": 500}
    assert TableHeader.from_plain(plain).opened == opened and TableHeader.from_plain(plain) == header


def test_an_old_stored_header_reads_back_typed_and_resumes_as_rules_version_1(tmp_path: Path) -> None:
    plain, match = old_table(tmp_path, "t-old")
    store = LocalStore(str(tmp_path))
    header = store.header("t-old")
    assert (header.table_id, header.run_id) == ("t-old", "run-1")
    assert header.opened.players == tuple(PLAYERS) and header.opened.entrants == ("t2", "t0", "t3", "t1")
    assert header.opened.join[2] == {"league": "a", "mark": "♦"} and header.opened.clients[0] == "player:a"
    assert header.opened.to_plain() == plain["record"]
    assert header.match.join == () and header.match.deal_deadline_ms is None and header.versions is None
    stored = store.claim("t-old")
    assert stored.header == header and why_not_resumable(stored.header, BIGTWO) is None

    async def resume():  # a table's timers run on the room's loop
        table = resume_table(stored, BIGTWO, journal=None, owner=None, rate=200, burst=400)
        table.close("checked")
        return table

    resumed = asyncio.run(resume())
    assert resumed.seq == 2 and resumed.match.state_hash() == match.state_hash()
    store.close()
    assert msgpack.unpackb((tmp_path / "t-old" / "header").read_bytes()) == plain  # read, never rewritten


def test_a_header_is_stored_as_the_same_plain_mapping_as_before(tmp_path: Path) -> None:
    match = Match(BIGTWO, TableSeed.numbered(5), list(PLAYERS), {}, 0)
    header = TableHeader("t-new", "run-1", match.header(), OpenedTable.from_plain(record_as_written_before("t-new")),
                         code_versions(BIGTWO))
    store = LocalStore(str(tmp_path))
    store.create([header])
    store.close()
    written_before = {"table_id": "t-new", "run_id": "run-1", "match": match.header().to_plain(),
                      "record": record_as_written_before("t-new"),
                      "versions": {"tablehost": header.versions.tablehost, "rules": 1}}
    assert (tmp_path / "t-new" / "header").read_bytes() == msgpack.packb(written_before, use_bin_type=True)
