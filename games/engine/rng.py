"""The engine's deterministic PRNG: same key, same commands, same game, in any language.

Python's `random` may change its streams between versions, and a game must
replay identically on any version and in any language. So the engine uses
SplitMix64 (Steele, Lea, Flood 2014; the generator Java's SplittableRandom
and xoshiro's seeding use), whose whole state is one 64-bit integer.

Every random purpose draws from a stream of its own (`stream_state`): a
keyed hash of the purpose's label, so that no two purposes share numbers
(the seating and the game's first draw, say, were once the same permutation).

Algorithms, pinned by known-answer tests (docs/protocol.md repeats them):
- next_u64: state += 0x9E3779B97F4A7C15; z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
  return z ^ (z >> 31)  (all mod 2**64)
- below(n): rejection sampling: limit = 2**64 - (2**64 % n); draw until x < limit;
  return x % n. Unbiased.
- shuffle(items): Fisher-Yates from the last index down: for i = len-1 .. 1,
  j = below(i + 1), swap items[i] and items[j].
- stream_state(key, label): the first 8 bytes, big-endian, of
  HMAC-SHA256(key, UTF-8 of label).
"""

from __future__ import annotations

import hashlib
import hmac
from typing import MutableSequence, TypeVar

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
T = TypeVar("T")


class Random:
    """A SplitMix64 stream; `state` is the whole generator and is plain data."""

    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        if not 0 <= state <= _MASK:
            raise ValueError(f"PRNG state must be an unsigned 64-bit integer, got {state}")
        self.state = state

    def next_u64(self) -> int:
        self.state = (self.state + _GOLDEN) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n): rejection keeps it unbiased for any n."""
        if n <= 0:
            raise ValueError(f"below() needs a positive bound, got {n}")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n

    def shuffle(self, items: MutableSequence[T]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def stream_state(key: bytes, label: str) -> int:
    """The SplitMix64 state that starts the stream named `label` under `key`.
    While HMAC-SHA256 is a pseudo-random function, streams of different
    labels are independent, and none can be predicted without the key."""
    if not key:
        raise ValueError("a stream needs a non-empty key")
    return int.from_bytes(hmac.new(key, label.encode(), hashlib.sha256).digest()[:8], "big")
