"""Verifying a finished game from what one seat (or a spectator) received.

A room sends every stream a game record with GameOver: the match's header
(the revealed seed and salt among it) and every command in order, the deal
first. Seq N is the change command N made (seq 0: the table as it opened),
so a replay from the header gives the view of every seq, and its hash is
what the host must have published at that seq. `verify_game` checks, in
order, and stops at the first point of disagreement:

1. the revealed seed and salt open the commitment the seat was given before
   it sent its entropy;
2. the seat's entropy (when it sent some) is the one the deal mixed in;
3. every command replays (the rules accept it), and the viewer's view after
   each has the hash the host published at that seq.

What this guarantees and what it does not is in docs/protocol.md ("Provably
fair deals")."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tablehost.games.engine.errors import RuleError
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import DEALER_SEAT, Command, Match
from tablehost.games.engine.rules import GameRules
from tablehost.games.engine.views import View, view_hash

RECORD_VERSION = 1
SPECTATOR = -1


class Disagreement(Exception):
    """The first point where the record and what was received disagree."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where}: {what}")
        self.where = where
        self.what = what


@dataclass(frozen=True, slots=True)
class VerifiedGame:
    """What a successful verification established."""

    table_id: str
    game: str
    viewer: int  # -1: a spectator
    commitment: str
    changes: int  # seqs replayed
    hashes_checked: int  # published hashes that matched the replay


def game_record(table_id: str, match: Match) -> dict[str, Any]:
    """The record a room sends with a game's end: everything a replay needs."""
    return {"version": RECORD_VERSION, "table_id": table_id, "header": match.header().to_plain(),
            "commands": [command.to_plain() for command in match.commands]}


def replayed_views(rules: GameRules, record: Mapping[str, Any], viewer: int) -> Iterator[tuple[int, View]]:
    """The viewer's view at every seq of the record, from 0 to the last
    command's (-1: a spectator's). A command the rules refuse, or a header
    the game cannot be set up from, raises Disagreement."""
    header = record["header"]
    try:
        match = Match(rules, TableSeed(header["seed"], header["salt"]), list(header["players"]),
                      dict(header["options"]), header["started_ms"], [dict(data) for data in header["join"]] or None,
                      deal_deadline_ms=header["deal_deadline_ms"])
    except (ValueError, KeyError, TypeError) as error:
        raise Disagreement("record", f"the game cannot be set up from the record's header: {error!r}") from None
    seat = None if viewer == SPECTATOR else viewer
    yield 0, match.view(seat)
    for seq, plain in enumerate(record["commands"], start=1):
        command = Command.from_plain(plain)
        try:
            if command.seat == DEALER_SEAT:
                match.deal([bytes.fromhex(e) for e in command.action["entropy"]], command.now_ms)
            else:
                match.act(command.seat, command.action, command.now_ms, command.automatic)
        except (RuleError, ValueError, KeyError, TypeError) as error:
            raise Disagreement(f"seq {seq}", f"the rules refuse the recorded command of seat {command.seat} "
                                             f"{command.action!r}: {error}") from None
        yield seq, match.view(seat)


def replayed_hashes(rules: GameRules, record: Mapping[str, Any], viewer: int) -> Iterator[tuple[int, str]]:
    """The hash of the viewer's view at every seq (see replayed_views)."""
    for seq, view in replayed_views(rules, record, viewer):
        yield seq, view_hash(view)


def verify_game(
    rules: GameRules,
    record: Mapping[str, Any],
    viewer: int,
    published: Mapping[int, str],
    commitment_given: str,
    entropy_sent: bytes | None = None,
) -> VerifiedGame:
    """Check a game's record against what one stream received: `published`
    maps each seq it received a view hash for to that hash, and
    `commitment_given` is the commitment it was told before its hello.
    Raises Disagreement at the first point that does not hold."""
    if record.get("version") != RECORD_VERSION:
        raise Disagreement("record", f"version {record.get('version')!r}; this verifier reads {RECORD_VERSION}")
    header = record["header"]
    if header["game"] != rules.name:
        raise Disagreement("record", f"a game of {header['game']}, verified with the rules of {rules.name}")
    try:
        opened = TableSeed(header["seed"], header["salt"]).commitment
    except ValueError as error:
        raise Disagreement("commitment", f"the revealed seed is malformed: {error}") from None
    if opened != commitment_given:
        raise Disagreement("commitment", f"the revealed seed and salt hash to {opened}, but the commitment given "
                                         f"before the deal was {commitment_given}")
    if entropy_sent is not None:
        _check_entropy(record, viewer, entropy_sent)
    checked = 0
    last = -1
    for seq, replayed in replayed_hashes(rules, record, viewer):
        last = seq
        if seq in published:
            if published[seq] != replayed:
                raise Disagreement(f"seq {seq}", f"the host published view hash {published[seq]}, but the replay "
                                                 f"gives {replayed}")
            checked += 1
    beyond = sorted(seq for seq in published if seq > last)
    if beyond:
        raise Disagreement(f"seq {beyond[0]}", f"a view was published, but the record ends at seq {last}")
    return VerifiedGame(record["table_id"], header["game"], viewer, commitment_given, last, checked)


def _check_entropy(record: Mapping[str, Any], viewer: int, entropy_sent: bytes) -> None:
    commands = record["commands"]
    deal = commands[0] if commands and commands[0]["seat"] == DEALER_SEAT else None
    if deal is None:
        raise Disagreement("deal", "this seat sent entropy, but the game was dealt without waiting for any")
    mixed = deal["action"]["entropy"]
    if not 0 <= viewer < len(mixed) or mixed[viewer] != entropy_sent.hex():
        shown = mixed[viewer] if 0 <= viewer < len(mixed) else None
        raise Disagreement("deal", f"seat {viewer} sent entropy {entropy_sent.hex()}, but the deal mixed in {shown!r}")
