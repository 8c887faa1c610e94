"""Seat tokens: the lobby signs, the room verifies alone."""

import pytest

from tablehost.actors.tokens import SeatClaim, TokenError, sign_seat_token, unb64url, verify_seat_token

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


def _signed(payload: bytes, secret: bytes = SECRET) -> str:
    import base64
    import hashlib
    import hmac

    encode = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()  # noqa: E731
    return f"{encode(payload)}.{encode(hmac.new(secret, payload, hashlib.sha256).digest())}"


def test_the_token_carries_the_run_of_the_host_that_issued_it() -> None:
    claim = SeatClaim("bigtwo-a1b2-1-abc", 1, expires_ms=10_000, run_id="a1b2")
    assert verify_seat_token(SECRET, sign_seat_token(SECRET, claim), now_ms=0, run_id="a1b2") == claim


def test_a_token_of_another_run_is_refused_even_with_the_same_secret() -> None:
    earlier_run = sign_seat_token(SECRET, SeatClaim("bigtwo-1-abc", 0, expires_ms=10_000, run_id="earlier"))
    with pytest.raises(TokenError, match="another run of the host"):
        verify_seat_token(SECRET, earlier_run, now_ms=0, run_id="now")


@pytest.mark.parametrize(
    "payload",
    [
        b"\xc1",  # not msgpack
        b"\x93\x01\x02\x03",  # a list, not a map
        b"\x81\xa5table\xa1t",  # no seat, expiry or run
        b"\x84\xa3exp\xcb@\x00\x00\x00\x00\x00\x00\x00\xa3run\xa0\xa4seat\x00\xa5table\xa1t",  # a float expiry
    ],
)
def test_a_signed_payload_of_the_wrong_shape_is_refused_not_crashed_on(payload: bytes) -> None:
    with pytest.raises(TokenError):
        verify_seat_token(SECRET, _signed(payload), now_ms=0)


def test_an_oversized_token_is_refused_before_it_is_decoded() -> None:
    with pytest.raises(TokenError, match="too long"):
        verify_seat_token(SECRET, "a" * 100_000 + "." + "b", now_ms=0)
    with pytest.raises(TokenError, match="malformed"):
        verify_seat_token(SECRET, "é.é", now_ms=0)


@pytest.mark.parametrize("spoil", [
    lambda token: token + "=",  # padding a token never has
    lambda token: token.replace(".", ".=="),
    lambda token: token[:5] + "!" + token[5:],  # a character outside the alphabet, which a lenient decoder skips
    lambda token: token[:5] + " " + token[5:],
    lambda token: token.replace(".", "\n."),
])
def test_a_token_has_one_spelling_and_junk_around_a_genuine_one_is_refused(spoil) -> None:
    token = sign_seat_token(SECRET, SeatClaim("t-1", 2, 10_000))
    with pytest.raises(TokenError, match="malformed"):
        verify_seat_token(SECRET, spoil(token), 1_000)


def test_unused_bits_in_the_last_character_are_refused() -> None:
    assert unb64url("QQ") == b"A"
    with pytest.raises(ValueError):
        unb64url("QR")  # the same byte with a bit set that base64 does not use
