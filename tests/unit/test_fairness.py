"""Provably fair deals in the rules layer: the derivations (pinned by known
answers computed with openssl, not with this code), the game waiting for its
deal, the game record and its verification, which must reject a tampered
seed, command, hash or commitment at the first point of disagreement."""

from __future__ import annotations

import random

import pytest

from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.duel.game import RULES as DUEL
from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.fairness import TableSeed, commitment, random_key
from tablehost.games.engine.match import DEALER_SEAT, DEALING_STAGE, Match, MatchHeader, replay
from tablehost.games.engine.verification import Disagreement, game_record, replayed_hashes, verify_game
from tablehost.games.engine.views import decode, canonical_bytes, view_hash

SEED = bytes(range(32)).hex()
SALT = bytes(range(0xA0, 0xB0)).hex()
PLAYERS = ["ann", "bo", "cy", "di"]


def test_the_commitment_is_sha256_of_the_salt_then_the_seed() -> None:
    # echo -n "$SALT$SEED" | xxd -r -p | sha256sum
    assert commitment(SEED, SALT) == "4353e662d8b7b4127e2231bb7dc448dc35cc5a893631bdd01574e802d768244a"


def test_the_random_key_is_hmac_sha256_of_the_deal_label_and_every_seats_entropy_under_the_seed() -> None:
    # the message is canonical msgpack of ["tablehost deal", [b"", b"\x01\x02"]]:
    # printf 92ae7461626c65686f7374206465616c92c400c4020102 | xxd -r -p |
    #   openssl dgst -sha256 -mac HMAC -macopt hexkey:$SEED
    assert random_key(SEED, [b"", b"\x01\x02"]).hex() == (
        "6518ec416add7dad96e85561bca1b36009969934841b48b6cca48f6a779008ed")


def test_a_seats_entropy_changes_the_key_and_its_place_matters() -> None:
    keys = {random_key(SEED, entropy) for entropy in ([b"", b""], [b"x", b""], [b"", b"x"], [b"x", b"x"])}
    assert len(keys) == 4


@pytest.mark.parametrize(("seed", "salt"), [("00" * 31, SALT), (SEED, "00" * 15), (SEED.upper(), SALT),
                                              ("zz" * 32, SALT)])
def test_a_seed_or_salt_of_the_wrong_size_or_spelling_is_refused(seed: str, salt: str) -> None:
    with pytest.raises(ValueError):
        TableSeed(seed, salt)


def test_new_seeds_come_from_the_os_and_differ() -> None:
    assert len({TableSeed.new() for _ in range(50)}) == 50


def test_the_seating_is_a_permutation_of_the_seeds_own_stream_not_of_the_game() -> None:
    seed = TableSeed.numbered(1)
    assert sorted(seed.seated(range(8))) == list(range(8))
    assert seed.seated(range(8)) == seed.seated(range(8))
    orders = {tuple(TableSeed.numbered(n).seated(range(4))) for n in range(200)}
    assert len(orders) == 24, "every seating of four players comes up"


# -- the game waiting for its deal ---------------------------------------------------


def waiting_match(seed: int = 3, deadline_ms: int = 5_000) -> Match:
    return Match(BIGTWO, TableSeed.numbered(seed), list(PLAYERS), {}, 1_000, deal_deadline_ms=deadline_ms)


def test_before_the_deal_every_seat_sees_only_the_commitment_and_the_deals_deadline() -> None:
    match = waiting_match()
    view = match.view(2)
    assert view == {"game": "bigtwo", "seat": 2, "players": PLAYERS, "stage": DEALING_STAGE, "deadline_ms": 5_000,
                    "fairness": {"commitment": match.seed.commitment}}
    assert match.view(None)["seat"] == -1
    assert match.requests == [] and match.deadline_ms == 5_000 and match.result is None


def test_nothing_can_be_played_before_the_deal() -> None:
    match = waiting_match()
    with pytest.raises(RuleError) as refused:
        match.act(0, {"type": "pass"}, 1_500)
    assert refused.value.reason is Reason.NOT_YOUR_TURN
    assert match.commands == []


def test_the_deal_mixes_each_seats_entropy_and_is_the_logs_first_command() -> None:
    match = waiting_match()
    match.deal([b"a", b"", b"c", b"d"], 2_000)
    assert match.dealt and match.commands[0].seat == DEALER_SEAT
    assert match.commands[0].action == {"type": "deal", "entropy": ["61", "", "63", "64"]}
    assert match.view(0)["fairness"] == {"commitment": match.seed.commitment, "entropy": ["61", "", "63", "64"]}
    other = waiting_match()
    other.deal([b"a", b"", b"c", b"e"], 2_000)
    assert [match.view(seat)["hand"] for seat in range(4)] != [other.view(seat)["hand"] for seat in range(4)], \
        "one seat's entropy changes the deal"
    with pytest.raises(RuleError):
        match.deal([b""] * 4, 2_500)


def test_a_deal_refuses_entropy_longer_than_64_bytes_or_for_the_wrong_seats() -> None:
    match = waiting_match()
    for entropy in ([b"x" * 65, b"", b"", b""], [b""] * 3):
        with pytest.raises(ValueError):
            match.deal(entropy, 2_000)
    assert not match.dealt


def test_the_seed_and_salt_are_revealed_in_every_view_once_the_game_is_over() -> None:
    match = played_game(BIGTWO, 5)
    assert match.result is not None
    fairness = match.view(1)["fairness"]
    assert (fairness["seed"], fairness["salt"]) == (match.seed.seed, match.seed.salt)
    assert match.view(None)["fairness"] == fairness
    before_end = replay(BIGTWO, match.header(), match.commands[:-1])
    assert "seed" not in before_end.view(1)["fairness"], "never before the end"


def test_a_replay_with_the_deal_rebuilds_the_same_game() -> None:
    match = played_game(DUEL, 11)
    again = replay(DUEL, MatchHeader.from_plain(decode(canonical_bytes(match.header().to_plain()))), match.commands)
    assert again.state_hash() == match.state_hash()


# -- records and verification --------------------------------------------------------


def played_game(rules, seed: int) -> Match:
    """A game dealt with entropy and played to its end by random legal moves."""
    seats = rules.default_seats or rules.max_seats
    join = [rules.example_join()] * seats
    match = Match(rules, TableSeed.numbered(seed), [f"n{s}" for s in range(seats)], {}, 1_000, join,
                  deal_deadline_ms=4_000)
    match.deal([bytes([seat]) * 8 for seat in range(seats)], 1_200)
    chooser = random.Random(seed)
    now = 1_300
    while match.result is None:
        request = chooser.choice(match.requests)
        action = chooser.choice(request.legal_actions) if request.legal_actions else request.default
        match.act(request.seat, action, now)
        now += 10
    return match


def published_by(rules, match: Match, viewer: int) -> dict[int, str]:
    """What a stream that saw every change would hold: each seq's view hash."""
    return dict(replayed_hashes(rules, decode(canonical_bytes(game_record("t-1", match))), viewer))


@pytest.mark.parametrize("viewer", [0, 1, -1])
def test_an_honest_record_verifies_for_a_seat_and_a_spectator(viewer: int) -> None:
    match = played_game(DUEL, 4)
    record = decode(canonical_bytes(game_record("t-1", match)))
    published = published_by(DUEL, match, viewer)
    entropy = bytes([viewer]) * 8 if viewer >= 0 else None
    verified = verify_game(DUEL, record, viewer, published, match.seed.commitment, entropy)
    assert verified.changes == len(match.commands)
    assert verified.hashes_checked == len(match.commands) + 1


def tampered(match: Match, change) -> dict:
    record = decode(canonical_bytes(game_record("t-1", match)))
    change(record)
    return record


def test_an_altered_seed_fails_at_the_commitment() -> None:
    match = played_game(BIGTWO, 6)
    record = tampered(match, lambda r: r["header"].update(seed=TableSeed.numbered(99).seed))
    with pytest.raises(Disagreement) as failure:
        verify_game(BIGTWO, record, 0, published_by(BIGTWO, match, 0), match.seed.commitment)
    assert failure.value.where == "commitment"


def test_a_commitment_that_does_not_match_fails_at_the_commitment() -> None:
    match = played_game(BIGTWO, 6)
    record = tampered(match, lambda r: None)
    with pytest.raises(Disagreement) as failure:
        verify_game(BIGTWO, record, 0, published_by(BIGTWO, match, 0), TableSeed.numbered(7).commitment)
    assert failure.value.where == "commitment"


def test_an_altered_command_fails_at_its_seq() -> None:
    match = played_game(BIGTWO, 8)
    published = published_by(BIGTWO, match, 2)
    plays = [index for index, c in enumerate(match.commands) if c.action["type"] == "pass"]
    index = plays[len(plays) // 2]

    def alter(record: dict) -> None:
        command = record["commands"][index]
        command["now_ms"] += 1  # a later move: every deadline after it moves
    with pytest.raises(Disagreement) as failure:
        verify_game(BIGTWO, tampered(match, alter), 2, published, match.seed.commitment)
    assert failure.value.where == f"seq {index + 1}"


def test_a_command_the_rules_refuse_fails_at_its_seq() -> None:
    match = played_game(BIGTWO, 9)
    published = published_by(BIGTWO, match, 0)

    def alter(record: dict) -> None:
        record["commands"][3]["action"] = {"type": "play", "cards": ["2S", "2H", "2D"]}
    with pytest.raises(Disagreement, match="refuse") as failure:
        verify_game(BIGTWO, tampered(match, alter), 0, published, match.seed.commitment)
    assert failure.value.where == "seq 4"


def test_an_altered_published_hash_fails_at_its_seq() -> None:
    match = played_game(BIGTWO, 10)
    record = tampered(match, lambda r: None)
    published = published_by(BIGTWO, match, 3)
    published[7] = view_hash({"forged": True})
    with pytest.raises(Disagreement) as failure:
        verify_game(BIGTWO, record, 3, published, match.seed.commitment)
    assert failure.value.where == "seq 7"


def test_entropy_the_deal_did_not_mix_in_fails_at_the_deal() -> None:
    match = played_game(BIGTWO, 12)
    record = tampered(match, lambda r: None)
    with pytest.raises(Disagreement) as failure:
        verify_game(BIGTWO, record, 1, published_by(BIGTWO, match, 1), match.seed.commitment, b"other entropy")
    assert failure.value.where == "deal"
