"""Seat tokens: the lobby signs, the room verifies without a
round trip to the lobby. Format in docs/protocol.md section 7.

A token carries the run of the host that issued it (a random id made once
per `tablehost serve`, also part of every table id), and a room accepts
only its own run's: a host restarted with the same seed and secret would
otherwise deal the same table ids again, and an old seat token would open
the new table of that id."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass

import msgpack

from tablehost.games.engine.views import canonical_bytes

SPECTATOR_SEAT = -1
# Longer than any token the lobby signs; a longer one is not even decoded.
MAX_TOKEN_LENGTH = 1024


class TokenError(Exception):
    """The token is malformed, forged, expired, of another run of the host,
    or for another table."""


@dataclass(frozen=True, slots=True)
class SeatClaim:
    table_id: str
    seat: int
    expires_ms: int
    run_id: str = ""


_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")


def b64url(data: bytes) -> str:
    """base64url without padding, as every token the host signs is written."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    """The bytes of `b64url`'s text and of nothing else: no padding, no
    character outside the alphabet, no unused bits set (a token has one
    spelling; a lenient decoder would take junk around a genuine one)."""
    if not _BASE64URL.fullmatch(text) or len(text) % 4 == 1:
        raise ValueError("not base64url without padding")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if b64url(data) != text:
        raise ValueError("not the canonical base64url of its bytes")
    return data


def sign_seat_token(secret: bytes, claim: SeatClaim) -> str:
    payload = canonical_bytes(
        {"table": claim.table_id, "seat": claim.seat, "exp": claim.expires_ms, "run": claim.run_id}
    )
    signature = hmac.new(secret, payload, hashlib.sha256).digest()
    return f"{b64url(payload)}.{b64url(signature)}"


def verify_seat_token(secret: bytes, token: str, now_ms: int, run_id: str | None = None) -> SeatClaim:
    """The claim, if the token is genuine, current and (given `run_id`) of
    this run of the host. The claim names the table, which is how a room
    serving many tables routes the stream."""
    if len(token) > MAX_TOKEN_LENGTH:
        raise TokenError("the seat token is malformed (too long)")
    try:
        payload_text, signature_text = token.split(".")
        payload, signature = unb64url(payload_text), unb64url(signature_text)
    except ValueError:  # also binascii.Error and non-ASCII text
        raise TokenError("the seat token is malformed") from None
    expected = hmac.new(secret, payload, hashlib.sha256).digest()
    if not hmac.compare_digest(signature, expected):
        raise TokenError("the seat token's signature is not the lobby's")
    claim = _claim_of(payload)
    if claim.expires_ms <= now_ms:
        raise TokenError("the seat token has expired")
    if run_id is not None and claim.run_id != run_id:
        raise TokenError(
            "the seat token is from another run of the host (it was restarted since); ask the lobby for a seat again"
        )
    return claim


def _claim_of(payload: bytes) -> SeatClaim:
    """The signed fields, each of its type: a signature proves who signed,
    not that the payload has the shape this version expects."""
    try:
        fields = msgpack.unpackb(payload, raw=False)
    except Exception:  # msgpack raises several unrelated types for bad bytes
        raise TokenError("the seat token's payload is not msgpack") from None
    if not isinstance(fields, dict):
        raise TokenError("the seat token's payload is not a map")
    table_id, seat, expires_ms, run_id = (fields.get(key) for key in ("table", "seat", "exp", "run"))
    if not (isinstance(table_id, str) and type(seat) is int and type(expires_ms) is int and isinstance(run_id, str)):
        raise TokenError("the seat token's payload lacks its table, seat, expiry or run")
    return SeatClaim(table_id, seat, expires_ms, run_id)


ORGANISER = ""  # the `who` of a tournament's organiser key


def tournament_key(secret: bytes, tournament_id: str, who: str) -> str:
    """The key a tournament's organiser (who = ORGANISER) or a registered
    player (who = the player's id) proves itself with. Derived from the
    host's secret, so no front door keeps a list of keys and any front door
    of the cluster checks them."""
    payload = canonical_bytes({"tournament": tournament_id, "who": who})
    return b64url(hmac.new(secret, b"tournament-key\x00" + payload, hashlib.sha256).digest())


def tournament_key_matches(secret: bytes, tournament_id: str, who: str, key: str) -> bool:
    return hmac.compare_digest(tournament_key(secret, tournament_id, who), key)
