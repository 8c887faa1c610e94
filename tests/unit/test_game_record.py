"""The SDK's saved game (clients/game_record.py), read back without the
rules: a stream built from a real game checks out; a dishonest host that
committed to one seed and dealt from another is caught at the commitment
even when every message it sent is self-consistent; entropy the deal left
out, a delta that does not apply and a stream with no end are refused."""

from __future__ import annotations

import random

import pytest

from tablehost.clients.codec import encode
from tablehost.clients.game_record import ReceivedGame, RecordError
from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Match
from tablehost.games.engine.verification import game_record, replayed_views
from tablehost.games.engine.views import canonical_bytes, decode, diff, view_hash
from tablehost.v1 import table_pb2

SEAT = 1


def finished_game(seed: int = 2) -> Match:
    match = Match(BIGTWO, TableSeed.numbered(seed), ["a", "b", "c", "d"], {}, 0, deal_deadline_ms=3_000)
    match.deal([bytes([seat + 1]) * 4 for seat in range(4)], 100)
    chooser = random.Random(seed)
    while match.result is None:
        request = match.requests[0]
        match.act(request.seat, chooser.choice(request.legal_actions), 200 + len(match.commands))
    return match


def stream_of(match: Match, patch=lambda view: view) -> list[bytes]:
    """The messages a seat that connected before the deal receives, each
    view passed through `patch` (what a dishonest host might change)."""
    record = decode(canonical_bytes(game_record("t-9", match)))
    views = [patch(view) for _, view in replayed_views(BIGTWO, record, SEAT)]
    messages = [table_pb2.ServerMessage(snapshot=table_pb2.Snapshot(
        seq=0, view=canonical_bytes(views[0]), view_hash=view_hash(views[0]), seat=SEAT, table_id="t-9"))]
    for seq in range(1, len(views)):
        messages.append(table_pb2.ServerMessage(delta=table_pb2.Delta(
            seq=seq, delta=canonical_bytes(diff(views[seq - 1], views[seq])), view_hash=view_hash(views[seq]))))
    messages.append(table_pb2.ServerMessage(game_over=table_pb2.GameOver(
        seq=len(views) - 1, result=canonical_bytes(match.result), record=encode(record))))
    return [message.SerializeToString() for message in messages]


def received(match: Match, messages: list[bytes], commitment: str | None = None) -> ReceivedGame:
    return ReceivedGame("t-9", SEAT, "bigtwo", commitment or match.seed.commitment, bytes([SEAT + 1]) * 4, messages)


def test_an_honest_stream_checks_out_and_its_json_round_trips() -> None:
    match = finished_game()
    game = received(match, stream_of(match))
    observed = game.check_deal()
    assert observed.hello_before_deal
    assert len(observed.published) == len(match.commands) + 1
    assert ReceivedGame.from_json(game.to_json()) == game


def test_a_host_that_committed_to_one_seed_and_dealt_from_another_is_caught_at_the_commitment() -> None:
    """Every message is consistent (hashes match the views it sent), the
    record is the game actually played; only the commitment the lobby gave
    before the hello, and that the views repeat, is another seed's."""
    match = finished_game()
    promised = TableSeed.numbered(77).commitment

    def claim_other_commitment(view: dict) -> dict:
        return {**view, "fairness": {**view["fairness"], "commitment": promised}}
    game = received(match, stream_of(match, claim_other_commitment), commitment=promised)
    with pytest.raises(RecordError) as failure:
        game.check_deal()
    assert failure.value.where == "commitment"


def test_entropy_the_deal_left_out_is_refused() -> None:
    match = finished_game()
    game = received(match, stream_of(match))
    game.entropy = b"something else"
    with pytest.raises(RecordError) as failure:
        game.check_deal()
    assert failure.value.where == "deal"


def test_a_delta_that_does_not_give_its_hash_is_refused_at_its_seq() -> None:
    match = finished_game()
    messages = stream_of(match)
    forged = table_pb2.ServerMessage.FromString(messages[4])
    forged.delta.view_hash = "ab" * 32
    messages[4] = forged.SerializeToString()
    with pytest.raises(RecordError) as failure:
        received(match, messages).observe()
    assert failure.value.where == "seq 4"


def test_a_stream_that_never_heard_the_end_has_nothing_to_verify() -> None:
    match = finished_game()
    with pytest.raises(RecordError, match="end"):
        received(match, stream_of(match)[:-1]).observe()


def test_a_file_of_another_format_is_refused() -> None:
    with pytest.raises(RecordError, match="format"):
        ReceivedGame.from_json('{"format": "something/2"}')
