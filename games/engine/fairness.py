"""Provably fair deals: what a table's randomness is made of.

A table's randomness comes from a secret seed the host draws for it (32
random bytes) and from entropy each player may send in its hello. Before any
player's entropy is in, every seat is told a commitment to the seed,
SHA-256(salt || seed); the game's random key mixes the seed with every
seat's entropy, so neither the host (bound by its commitment before it saw
the entropy) nor a player (who never sees the seed) can choose the deal.
When the game is over the seed and salt are revealed, and anyone holding a
record of the game can open the commitment, derive the key, replay every
command and check every view hash (games/engine/verification.py).

Each random purpose draws from a stream of its own (rng.stream_state): the
seating from the seed's stream "seating/0" (the seats are known before any
entropy is), the game's draws from streams of the random key
(Context.random). Derivations, pinned by known-answer tests and repeated in
docs/protocol.md:
- commitment = hex SHA-256(salt bytes || seed bytes)
- random key = HMAC-SHA256(seed bytes, canonical msgpack of
  ["tablehost deal", [entropy of seat 0, entropy of seat 1, ...]]) with
  each entropy a byte string (empty for a seat that sent none)
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from tablehost.games.engine.rng import Random, stream_state
from tablehost.games.engine.views import canonical_bytes

SEED_BYTES = 32
SALT_BYTES = 16
# What one seat may contribute: more adds nothing a 256-bit seed lacks.
MAX_ENTROPY_BYTES = 64
_DEAL_LABEL = "tablehost deal"
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class TableSeed:
    """A table's secret seed and the salt of its commitment, as lowercase hex."""

    seed: str
    salt: str

    def __post_init__(self) -> None:
        for name, value, size in (("seed", self.seed, SEED_BYTES), ("salt", self.salt, SALT_BYTES)):
            if len(value) != 2 * size or value != value.lower() or not _is_hex(value):
                raise ValueError(f"a table's {name} is {size} bytes as lowercase hex, got {value!r}")

    @classmethod
    def new(cls) -> TableSeed:
        """Fresh from the operating system's CSPRNG: what every hosted table gets."""
        return cls(secrets.token_hex(SEED_BYTES), secrets.token_hex(SALT_BYTES))

    @classmethod
    def derived(cls, key: bytes, label: str) -> TableSeed:
        """Derived from `key` and `label` (a table id): for a host started
        with a fixed seed, which deals the same tables again and so promises
        no secrecy to players (tests and reproducible runs only)."""
        digest = hmac.new(key, f"table seed {label}".encode(), hashlib.sha512).digest()
        return cls(digest[:SEED_BYTES].hex(), digest[SEED_BYTES:SEED_BYTES + SALT_BYTES].hex())

    @classmethod
    def numbered(cls, number: int) -> TableSeed:
        """The reproducible seed numbered `number`: for tools that replay
        a game by number (tests, benchmarks, the conformance vectors)."""
        return cls.derived(b"tablehost reproducible seeds", str(number))

    @property
    def commitment(self) -> str:
        """What every seat is told before any entropy is in."""
        return commitment(self.seed, self.salt)

    def random_key(self, entropy: Sequence[bytes]) -> bytes:
        """The game's random key: the seed mixed with every seat's entropy."""
        return random_key(self.seed, entropy)

    def seated(self, entrants: Sequence[T]) -> list[T]:
        """The entrants in seat order: a permutation from the seed's own
        stream, independent of the game's draws and of the entrants' order."""
        seated = list(entrants)
        Random(stream_state(bytes.fromhex(self.seed), "seating/0")).shuffle(seated)
        return seated


def commitment(seed: str, salt: str) -> str:
    return hashlib.sha256(bytes.fromhex(salt) + bytes.fromhex(seed)).hexdigest()


def random_key(seed: str, entropy: Sequence[bytes]) -> bytes:
    message = canonical_bytes([_DEAL_LABEL, [bytes(contribution) for contribution in entropy]])
    return hmac.new(bytes.fromhex(seed), message, hashlib.sha256).digest()


def _is_hex(value: str) -> bool:
    try:
        bytes.fromhex(value)
    except ValueError:
        return False
    return True
