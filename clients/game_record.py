"""A finished game as one stream received it, kept so the deal can be verified.

A `ReceivedGame` holds only what the client knew first-hand: the commitment
the lobby gave it before its hello, the entropy it sent, and the raw
ServerMessages of its stream in the order they came (reconnects included).
`observe()` reads the stream back: every snapshot's and delta's view hash,
checked against the view the client computes, the game record that came with
GameOver and the seed the final view revealed. `check_deal()` is what needs
no game rules: the revealed seed and salt open the commitment, and the deal
mixed in this client's entropy. Replaying every command and comparing every
published hash needs the game's rules: `tablehost verify FILE` does it, and
docs/protocol.md ("Provably fair deals") says how for an SDK in another
language.

Saved as JSON (`to_json`/`from_json`), the messages as base64 of their bytes."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tablehost.clients.codec import View, apply_delta, decode, view_hash
from tablehost.v1 import table_pb2

FORMAT = "tablehost-received-game/1"
DEALER_SEAT = -1


class RecordError(Exception):
    """What was received does not hold together, or does not open the
    commitment; `where` is the first point of disagreement (a seq, "record",
    "commitment" or "deal")."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where}: {what}")
        self.where = where
        self.what = what


@dataclass(frozen=True, slots=True)
class ObservedGame:
    """A received stream read back: the view hash published at each seq the
    stream saw, the game record, and what the views said of the deal."""

    published: dict[int, str]
    record: dict[str, Any]
    commitment_shown: str  # in the first view
    revealed_seed: str  # in the final view
    revealed_salt: str
    # The first view was the table before its deal, so the first hello (and
    # its entropy) reached the table before the cards were dealt.
    hello_before_deal: bool


@dataclass
class ReceivedGame:
    table_id: str
    seat: int
    game: str
    deal_commitment: str  # as the lobby's TableAssignment gave it, before the hello
    entropy: bytes  # what this client sent in its hellos (empty: none)
    messages: list[bytes] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps({
            "format": FORMAT, "table_id": self.table_id, "seat": self.seat, "game": self.game,
            "deal_commitment": self.deal_commitment, "entropy": self.entropy.hex(),
            "messages": [base64.b64encode(raw).decode() for raw in self.messages],
        }, indent=1)

    @classmethod
    def from_json(cls, text: str) -> ReceivedGame:
        plain = json.loads(text)
        if plain.get("format") != FORMAT:
            raise RecordError("record", f"not a {FORMAT} file (format {plain.get('format')!r})")
        return cls(plain["table_id"], plain["seat"], plain["game"], plain["deal_commitment"],
                   bytes.fromhex(plain["entropy"]), [base64.b64decode(m) for m in plain["messages"]])

    def observe(self) -> ObservedGame:
        """Read the stream back, checking that it holds together: each
        snapshot's view has its hash, and each delta applies to the view
        before it and gives the hash published with it."""
        return _observe(self.messages)

    def check_deal(self) -> ObservedGame:
        """What needs no rules: the stream holds together, the commitment the
        views showed is the one given before the hello, the revealed seed and
        salt open it, and (when this client's hello came before the deal) the
        deal mixed in this client's entropy."""
        observed = self.observe()
        if observed.commitment_shown != self.deal_commitment:
            raise RecordError("seq 0", f"the views show commitment {observed.commitment_shown}, but the lobby gave "
                                       f"{self.deal_commitment}")
        opened = commitment(observed.revealed_seed, observed.revealed_salt)
        if opened != self.deal_commitment:
            raise RecordError("commitment", f"the revealed seed and salt hash to {opened}, not to the commitment "
                                            f"{self.deal_commitment}")
        header = observed.record.get("header", {})
        if (header.get("seed"), header.get("salt")) != (observed.revealed_seed, observed.revealed_salt):
            raise RecordError("record", "the game record's seed and salt are not the ones the final view revealed")
        if observed.hello_before_deal and self.seat >= 0:  # a spectator sends no entropy
            mixed = deal_entropy(observed.record)
            if mixed is None or not 0 <= self.seat < len(mixed) or mixed[self.seat] != self.entropy.hex():
                raise RecordError("deal", f"seat {self.seat} sent entropy {self.entropy.hex() or '(none)'} before "
                                          f"the deal, but the deal mixed in {mixed!r}")
        return observed


def commitment(seed: str, salt: str) -> str:
    """hex SHA-256(salt || seed), as docs/protocol.md defines it."""
    try:
        return hashlib.sha256(bytes.fromhex(salt) + bytes.fromhex(seed)).hexdigest()
    except ValueError as error:
        raise RecordError("commitment", f"the revealed seed or salt is not hex: {error}") from None


def deal_entropy(record: dict[str, Any]) -> list[str] | None:
    """Each seat's entropy (hex) as the record's deal mixed it in; None for a
    game dealt without waiting for any."""
    commands = record.get("commands") or []
    if commands and commands[0].get("seat") == DEALER_SEAT:
        return list(commands[0]["action"]["entropy"])
    return None


def _observe(messages: Sequence[bytes]) -> ObservedGame:
    published: dict[int, str] = {}
    view: View | None = None
    seq = -1
    first: View | None = None
    record: dict[str, Any] | None = None
    for raw in messages:
        message = table_pb2.ServerMessage.FromString(raw)
        kind = message.WhichOneof("kind")
        if kind == "snapshot":
            view, seq = _checked_view(message.snapshot), message.snapshot.seq
            _publish(published, seq, message.snapshot.view_hash)
        elif kind == "delta":
            delta = message.delta
            if view is not None and delta.seq == seq + 1:
                try:
                    view = apply_delta(view, decode(delta.delta))
                except (ValueError, TypeError) as error:
                    raise RecordError(f"seq {delta.seq}", f"the delta does not apply: {error}") from None
                if view_hash(view) != delta.view_hash:
                    raise RecordError(f"seq {delta.seq}", f"the delta gives a view hashing to {view_hash(view)}, "
                                                          f"but its message says {delta.view_hash}")
                seq = delta.seq
            elif delta.seq > seq:
                view = None  # a gap: the next snapshot brings the view back
            _publish(published, delta.seq, delta.view_hash)
        elif kind == "game_over":
            plain = decode(message.game_over.record) if message.game_over.record else None
            if not isinstance(plain, dict):
                raise RecordError("record", "the game over carried no game record")
            record = plain
        if first is None and view is not None:
            first = view
    if record is None:
        raise RecordError("record", "the stream never received the game's end")
    if first is None or view is None:
        raise RecordError("record", "the stream holds no view")
    shown = first.get("fairness") or {}
    final = view.get("fairness") or {}
    if "seed" not in final or "salt" not in final:
        raise RecordError(f"seq {seq}", "the final view reveals no seed")
    return ObservedGame(published, record, str(shown.get("commitment", "")), str(final["seed"]), str(final["salt"]),
                        first.get("stage") == "dealing")


def _checked_view(snapshot: table_pb2.Snapshot) -> View:
    view = decode(snapshot.view)
    if not isinstance(view, dict):
        raise RecordError(f"seq {snapshot.seq}", "a snapshot's view is not a map")
    if view_hash(view) != snapshot.view_hash:
        raise RecordError(f"seq {snapshot.seq}", f"the snapshot's view hashes to {view_hash(view)}, but its message "
                                                 f"says {snapshot.view_hash}")
    return view


def _publish(published: dict[int, str], seq: int, published_hash: str) -> None:
    """Two messages for one seq (a replay after a reconnect) must agree."""
    earlier = published.setdefault(seq, published_hash)
    if earlier != published_hash:
        raise RecordError(f"seq {seq}", f"two view hashes were published for it: {earlier} and {published_hash}")
