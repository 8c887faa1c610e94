"""Seat tokens: the lobby signs, the room verifies alone."""

import pytest

from tablehost.actors.tokens import SeatClaim, TokenError, sign_seat_token, verify_seat_token

SECRET = b"k" * 32
CLAIM = SeatClaim("bigtwo-1-abc", 2, expires_ms=10_000)


def test_a_genuine_token_yields_its_seat() -> None:
    token = sign_seat_token(SECRET, CLAIM)
    assert verify_seat_token(SECRET, token, now_ms=9_999) == CLAIM


def test_an_expired_token_is_refused() -> None:
    token = sign_seat_token(SECRET, CLAIM)
    with pytest.raises(TokenError, match="expired"):
        verify_seat_token(SECRET, token, now_ms=10_000)


def test_the_claim_names_the_table_a_room_routes_the_stream_to() -> None:
    token = sign_seat_token(SECRET, SeatClaim("bigtwo-2-def", 0, expires_ms=10_000))
    assert verify_seat_token(SECRET, token, now_ms=0).table_id == "bigtwo-2-def"


def test_a_token_signed_with_another_secret_is_refused() -> None:
    token = sign_seat_token(b"other", CLAIM)
    with pytest.raises(TokenError, match="signature"):
        verify_seat_token(SECRET, token, now_ms=0)


def test_a_seat_changed_in_the_payload_breaks_the_signature() -> None:
    genuine = sign_seat_token(SECRET, CLAIM)
    other_seat = sign_seat_token(b"attacker", SeatClaim("bigtwo-1-abc", 0, 10_000))
    forged = other_seat.split(".")[0] + "." + genuine.split(".")[1]
    with pytest.raises(TokenError, match="signature"):
        verify_seat_token(SECRET, forged, now_ms=0)


@pytest.mark.parametrize("garbage", ["", "abc", "a.b.c", "!!!.???"])
def test_malformed_tokens_are_refused_with_a_clear_error(garbage: str) -> None:
    with pytest.raises(TokenError):
        verify_seat_token(SECRET, garbage, now_ms=0)
