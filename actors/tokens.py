"""Seat tokens: the lobby signs, the room verifies without a
round trip to the lobby. Format in docs/protocol.md section 7."""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass

import msgpack

from tablehost.games.engine.views import canonical_bytes

SPECTATOR_SEAT = -1


class TokenError(Exception):
    """The token is malformed, forged, expired or for another table."""


@dataclass(frozen=True, slots=True)
class SeatClaim:
    table_id: str
    seat: int
    expires_ms: int


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign_seat_token(secret: bytes, claim: SeatClaim) -> str:
    payload = canonical_bytes({"table": claim.table_id, "seat": claim.seat, "exp": claim.expires_ms})
    signature = hmac.new(secret, payload, hashlib.sha256).digest()
    return f"{_b64(payload)}.{_b64(signature)}"


def verify_seat_token(secret: bytes, token: str, now_ms: int) -> SeatClaim:
    """The claim, if the token is genuine and current. The claim names the
    table, which is how a room serving many tables routes the stream."""
    try:
        payload_text, signature_text = token.split(".")
        payload, signature = _unb64(payload_text), _unb64(signature_text)
    except ValueError:
        raise TokenError("the seat token is malformed") from None
    expected = hmac.new(secret, payload, hashlib.sha256).digest()
    if not hmac.compare_digest(signature, expected):
        raise TokenError("the seat token's signature is not the lobby's")
    fields = msgpack.unpackb(payload, raw=False)
    claim = SeatClaim(fields["table"], fields["seat"], fields["exp"])
    if claim.expires_ms <= now_ms:
        raise TokenError("the seat token has expired")
    return claim
