"""Per-client quotas at the front door and who a client is: a client's rate
per kind of call and what it may hold, never another client's; players
proven by a token, everyone else known by address; a bounded memory of
clients."""

from __future__ import annotations

import pytest

from tablehost.host.identity import (ADDRESS_PREFIX, FORWARDED_CLIENT, PLAYER_PREFIX, Identities, Unauthenticated,
                                     allowance_for, allowance_of, forwarded_client, hmac_verifier, load_verifier,
                                     peer_address, player_token)
from tablehost.host.quotas import ADDRESS, PLAYER, Allowance, Kind, OverQuota, Quotas

SECRET = b"s" * 32


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_clients_calls_beyond_its_burst_are_refused_until_its_rate_refills_them() -> None:
    clock = Clock()
    quotas = Quotas(allowance_of, clock=clock)
    rate, burst = PLAYER.rates[Kind.LOOKUP]
    for _ in range(int(burst)):
        quotas.spend("player:ann", Kind.LOOKUP)
    with pytest.raises(OverQuota, match="too many lookup calls from this client"):
        quotas.spend("player:ann", Kind.LOOKUP)
    quotas.spend("player:bo", Kind.LOOKUP)  # another client's budget is its own
    quotas.spend("player:ann", Kind.JOIN)  # and so is another kind's
    clock.now += 1.01 / rate  # a little over one call's worth
    quotas.spend("player:ann", Kind.LOOKUP)
    assert quotas.refused == 1


def test_a_client_waits_for_at_most_its_share_of_seats_and_gets_them_back() -> None:
    quotas = Quotas(allowance_of)
    for _ in range(PLAYER.joins_waiting):
        quotas.hold_join("player:ann")
    with pytest.raises(OverQuota, match="already waits for"):
        quotas.hold_join("player:ann")
    quotas.release_join("player:ann")
    quotas.hold_join("player:ann")
    quotas.release_join("player:nobody")  # releasing what was never held changes nothing


def test_calls_whose_request_has_not_arrived_are_capped_per_client() -> None:
    quotas = Quotas(allowance_of)
    for _ in range(ADDRESS.calls_unread):
        quotas.hold_unread("address:10.0.0.1")
    with pytest.raises(OverQuota, match="request has not arrived"):
        quotas.hold_unread("address:10.0.0.1")
    quotas.hold_unread("address:10.0.0.2")


def test_clients_remembered_are_bounded_and_those_holding_calls_are_kept() -> None:
    small = Allowance({kind: (1.0, 1.0) for kind in Kind}, joins_waiting=1, calls_unread=1)
    quotas = Quotas(lambda client: small, limit=10)
    quotas.hold_join("holder")
    for number in range(1000):
        quotas.spend(f"client-{number}", Kind.LOOKUP)
    assert len(quotas) <= 11
    with pytest.raises(OverQuota):
        quotas.hold_join("holder")  # still remembered: its count is intact


def test_a_player_token_names_its_player_and_a_call_without_one_is_its_address() -> None:
    identities = Identities(hmac_verifier(SECRET, lambda: 1_000))
    token = player_token(SECRET, "ann", 2_000)
    assert identities.client([("authorization", f"Bearer {token}")], "ipv4:127.0.0.1:5000") == PLAYER_PREFIX + "ann"
    assert identities.client([], "ipv4:127.0.0.1:5000") == ADDRESS_PREFIX + "127.0.0.1"
    assert identities.client(None, "ipv6:[::1]:5000") == ADDRESS_PREFIX + "::1"


@pytest.mark.parametrize("header", [
    "Bearer " + player_token(b"x" * 32, "ann", 2_000),  # another secret
    "Bearer " + player_token(SECRET, "ann", 500),  # expired
    "Bearer " + player_token(SECRET, "ann", 2_000) + "=",  # extra padding
    "Bearer " + player_token(SECRET, "ann", 2_000).replace(".", ".!"),  # junk characters
    "Bearer not-a-token",
    "Basic YW5uOnB3",
])
def test_a_token_that_cannot_be_proven_is_refused_never_taken_for_the_address(header: str) -> None:
    identities = Identities(hmac_verifier(SECRET, lambda: 1_000))
    with pytest.raises(Unauthenticated):
        identities.client([("authorization", header)], "ipv4:127.0.0.1:5000")


def test_a_host_without_player_auth_refuses_a_token_rather_than_ignore_it() -> None:
    with pytest.raises(Unauthenticated, match="takes no player tokens"):
        Identities(None).client([("authorization", "Bearer x")], "ipv4:127.0.0.1:1")


def test_an_operators_verifier_is_loaded_by_name_and_its_answer_checked() -> None:
    verifier = load_verifier("tests.unit.test_quotas:verify_by_name", b"", lambda: 0)
    identities = Identities(verifier)
    assert identities.client([("authorization", "Bearer ok:bo")], "ipv4:1.2.3.4:1") == PLAYER_PREFIX + "bo"
    with pytest.raises(Unauthenticated, match="no valid player id"):
        identities.client([("authorization", "Bearer ok:not valid!")], "ipv4:1.2.3.4:1")
    with pytest.raises(Unauthenticated, match="refused: unknown"):
        identities.client([("authorization", "Bearer nope")], "ipv4:1.2.3.4:1")
    with pytest.raises(ValueError, match="at least 32 bytes"):
        load_verifier("hmac", b"short", lambda: 0)


def verify_by_name(token: str) -> str:
    """An operator's verifier, as the account service of a game would plug in."""
    if not token.startswith("ok:"):
        raise LookupError("unknown")
    return token.removeprefix("ok:")


def test_peer_strings_give_their_address() -> None:
    assert peer_address("ipv4:10.1.2.3:40000") == "10.1.2.3"
    assert peer_address("ipv6:[2001:db8::1]:443") == "2001:db8::1"
    assert peer_address("unix:/tmp/socket") == "unix:/tmp/socket"


def test_an_exempt_address_has_no_quota_and_others_keep_theirs() -> None:
    allowance_of = allowance_for(["127.0.0.1", "10.8.0.0/16"])
    quotas = Quotas(allowance_of)
    for _ in range(10_000):
        quotas.spend("address:127.0.0.1", Kind.JOIN)
        quotas.hold_join("address:10.8.3.4")
    assert allowance_of("address:10.9.0.1") is ADDRESS and allowance_of("player:ann") is PLAYER
    with pytest.raises(OverQuota):
        for _ in range(10_000):
            quotas.spend("address:10.9.0.1", Kind.JOIN)


def test_tablehost_player_token_writes_a_token_the_hmac_verifier_proves(monkeypatch, capsys) -> None:
    from tablehost.host.cli import main

    monkeypatch.setenv("TABLEHOST_PLAYER_AUTH_SECRET", SECRET.decode())
    with pytest.raises(SystemExit) as ended:
        main(["player-token", "ann", "--days", "1"])
    assert ended.value.code == 0
    token = capsys.readouterr().out.strip()
    assert Identities(hmac_verifier(SECRET, lambda: 0)).client([("authorization", f"Bearer {token}")], "x") \
        == PLAYER_PREFIX + "ann"
    monkeypatch.delenv("TABLEHOST_PLAYER_AUTH_SECRET")
    with pytest.raises(SystemExit, match="set TABLEHOST_PLAYER_AUTH_SECRET"):
        main(["player-token", "ann"])


def test_the_web_gateway_names_the_browser_only_with_its_key() -> None:
    """The gateway relays a browser's calls from its own connection; the
    address it signs with the process's key counts instead. Anyone else
    sending the header (forged, or signed with another key) is counted by
    the connection's own address."""
    identities = Identities(None, forward_key="the-process-key")
    peer = "ipv4:127.0.0.1:5000"
    signed = [(FORWARDED_CLIENT, forwarded_client("the-process-key", "203.0.113.7"))]
    assert identities.client(signed, peer) == "address:203.0.113.7"
    forged = [(FORWARDED_CLIENT, forwarded_client("another-key", "203.0.113.7"))]
    assert identities.client(forged, peer) == "address:127.0.0.1"
    tampered = [(FORWARDED_CLIENT, signed[0][1].replace("203.0.113.7", "203.0.113.8"))]
    assert identities.client(tampered, peer) == "address:127.0.0.1"
    assert Identities(None).client(signed, peer) == "address:127.0.0.1"  # a door without a gateway trusts none
