"""The engine's PRNG: SplitMix64 with `below` and `shuffle` pinned by known answers.

A game replays from its seed in any Python version and in any language only if these
streams never change, so every algorithm here is pinned to exact outputs: a change to
any of them must fail a test, not silently re-deal every recorded game.
"""

from __future__ import annotations

import msgpack
import pytest

from tablehost.games.engine.rng import Random, stream_state

GOLDEN = 0x9E3779B97F4A7C15
MASK = (1 << 64) - 1


def test_splitmix64_seed_0_gives_the_published_reference_outputs() -> None:
    rng = Random(0)
    assert [rng.next_u64() for _ in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]


def test_each_output_advances_the_state_by_the_golden_gamma() -> None:
    rng = Random(0)
    rng.next_u64()
    rng.next_u64()
    assert rng.state == (2 * GOLDEN) & MASK


def test_the_state_wraps_around_at_64_bits() -> None:
    rng = Random(MASK)
    assert rng.next_u64() == 0xE4D971771B652C20
    assert rng.state == (MASK + GOLDEN) & MASK


def test_below_outputs_are_pinned_for_seed_42() -> None:
    rng = Random(42)
    assert [rng.below(n) for n in (1, 2, 3, 6, 10, 13, 52, 1000)] == [0, 1, 0, 0, 0, 7, 49, 908]
    assert rng.state == 17418742259747381458


def test_below_rejects_draws_past_the_unbiased_limit() -> None:
    # For n = 2**63 + 1 the limit is n itself; seed 0's first output (0xe220...) is
    # above it, so below() must throw it away and answer with the second output.
    rng = Random(0)
    assert rng.below(2**63 + 1) == 0x6E789E6AA1B965F4
    assert rng.state == (2 * GOLDEN) & MASK


def test_below_one_is_always_zero_but_still_consumes_a_draw() -> None:
    rng = Random(5)
    assert rng.below(1) == 0
    assert rng.state == (5 + GOLDEN) & MASK


@pytest.mark.parametrize("bound", [0, -1, -(2**70)])
def test_below_rejects_a_bound_that_is_not_positive(bound: int) -> None:
    rng = Random(1)
    with pytest.raises(ValueError):
        rng.below(bound)
    assert rng.state == 1


def test_shuffle_output_is_pinned_for_seed_42() -> None:
    rng = Random(42)
    items = list(range(10))
    rng.shuffle(items)
    assert items == [0, 9, 5, 8, 6, 4, 7, 2, 1, 3]
    assert rng.state == 10372713005361028327


def test_shuffle_of_a_big_two_deck_is_pinned() -> None:
    from tablehost.games.bigtwo.cards import FULL_DECK

    rng = Random(20240601)
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    assert deck[:13] == "AC JS TS 4D 4S 2C 4C QH 3H 8S 3C 9D 5D".split()
    assert sorted(deck) == sorted(FULL_DECK)


def test_shuffle_walks_fisher_yates_from_the_last_index_down() -> None:
    # Recompute the documented algorithm from raw below() draws.
    items = list("ABCDEFGH")
    expected = list(items)
    reference = Random(99)
    for i in range(len(expected) - 1, 0, -1):
        j = reference.below(i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    rng = Random(99)
    rng.shuffle(items)
    assert items == expected
    assert rng.state == reference.state


@pytest.mark.parametrize("items", [[], ["only"]])
def test_shuffling_zero_or_one_item_draws_nothing(items: list[str]) -> None:
    rng = Random(42)
    rng.shuffle(items)
    assert rng.state == 42


def test_the_state_is_a_plain_int_that_round_trips_through_msgpack() -> None:
    rng = Random(2**63 + 12345)
    rng.next_u64()
    assert type(rng.state) is int
    assert msgpack.unpackb(msgpack.packb(rng.state)) == rng.state
    resumed = Random(rng.state)
    assert resumed.next_u64() == rng.next_u64()


def test_a_generator_resumed_from_its_state_continues_the_same_stream() -> None:
    whole = Random(7)
    first_half = [whole.below(52) for _ in range(5)]
    resumed = Random(whole.state)
    second_half = [resumed.below(52) for _ in range(5)]
    again = Random(7)
    assert [again.below(52) for _ in range(10)] == first_half + second_half


@pytest.mark.parametrize("state", [-1, 1 << 64])
def test_a_state_outside_64_bits_is_rejected(state: int) -> None:
    with pytest.raises(ValueError):
        Random(state)


def test_a_streams_state_is_the_first_eight_bytes_of_hmac_sha256_of_its_label() -> None:
    """Known answers computed with openssl (`printf LABEL | openssl dgst
    -sha256 -hmac KEY`), not with this code: docs/protocol.md gives them too."""
    assert stream_state(b"tablehost", "seating/0") == 0xDB508740654912F8
    assert stream_state(bytes(range(32)), "deck.shuffle/3") == 0x1D871DE9A147C5E9


def test_streams_need_a_key() -> None:
    with pytest.raises(ValueError):
        stream_state(b"", "seating/0")
