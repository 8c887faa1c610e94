"""Who a call comes from, as a front door's quotas count it (host/quotas.py).

By default a client is the address its connection comes from. An operator
whose players sign in to the game's own account service plugs that in: the
service gives each player a token, the client sends it with every call as
`authorization: Bearer TOKEN` metadata, and the front door asks the
operator's verifier (`--player-auth MODULE:ATTR`, any callable taking the
token and returning the player's id, or raising to refuse it) who it is.
The host ships one verifier, `hmac`: tokens signed with a secret the
account service shares with the host (`player_token` below writes one;
docs/protocol.md gives the format). A call that sends a token it cannot
prove is refused UNAUTHENTICATED: it never falls back to the address."""

from __future__ import annotations

import hashlib
import hmac
import importlib
import ipaddress
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack

from tablehost.actors.tokens import TokenError, b64url, unb64url
from tablehost.games.engine.views import canonical_bytes
from tablehost.host.quotas import ADDRESS, EXEMPT, PLAYER, Allowance

ADDRESS_PREFIX = "address:"
PLAYER_PREFIX = "player:"
AUTHORIZATION = "authorization"
BEARER = "Bearer "
PLAYER_ID = re.compile(r"^[A-Za-z0-9._@-]{1,64}$")
MAX_PLAYER_TOKEN_LENGTH = 1024
_TOKEN_DOMAIN = b"player-token\x00"
# The metadata by which this process's web gateway names the browser a call
# comes from: "MAC ADDRESS", MAC an HMAC of the address under a key only the
# process knows, so no client can name an address other than its own.
FORWARDED_CLIENT = "x-tablehost-web-client"

Verifier = Callable[[str], str]


class Unauthenticated(Exception):
    """The call's player token is not one the operator's verifier accepts."""


def peer_address(peer: str) -> str:
    """The address of gRPC's peer string ("ipv4:127.0.0.1:5555" -> 127.0.0.1,
    "ipv6:[::1]:5555" -> ::1); the string itself for any other transport."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    if kind == "ipv6":
        return rest.rpartition(":")[0].strip("[]")
    return peer


def forwarded_client(key: str, address: str) -> str:
    """The FORWARDED_CLIENT value the web gateway sends for `address`."""
    return f"{_forward_mac(key, address)} {address}"


def _forward_mac(key: str, address: str) -> str:
    return hmac.new(key.encode(), address.encode(), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Identities:
    """How a front door names the client of each call. `forward_key` is
    its web gateway's key: a call that carries an address signed with it
    (FORWARDED_CLIENT) is that address's, not the gateway connection's."""

    verifier: Verifier | None = None
    forward_key: str | None = field(default=None, repr=False)

    def client(self, metadata: Sequence[tuple[str, str | bytes]] | None, peer: str) -> str:
        token = _bearer(metadata)
        if token is None:
            return ADDRESS_PREFIX + (self._forwarded(metadata) or peer_address(peer))
        if self.verifier is None:
            raise Unauthenticated("this host takes no player tokens; call without an authorization header")
        if len(token) > MAX_PLAYER_TOKEN_LENGTH:
            raise Unauthenticated("the player token is malformed (too long)")
        try:
            player = self.verifier(token)
        except Exception as error:  # the operator's verifier refuses as it likes
            raise Unauthenticated(f"the player token was refused: {error}") from None
        if not isinstance(player, str) or not PLAYER_ID.match(player):
            raise Unauthenticated("the player token names no valid player id (1 to 64 of A-Z a-z 0-9 . _ @ -)")
        return PLAYER_PREFIX + player

    def _forwarded(self, metadata: Sequence[tuple[str, str | bytes]] | None) -> str | None:
        """The browser's address the gateway signed, or None (a value not
        signed with this process's key is ignored: the connection's address
        counts)."""
        if self.forward_key is None:
            return None
        for key, value in metadata or ():
            if key == FORWARDED_CLIENT:
                text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
                mac, _, address = text.partition(" ")
                if address and hmac.compare_digest(mac, _forward_mac(self.forward_key, address)):
                    return address
        return None


def allowance_for(exempt: Sequence[str] = ()) -> Callable[[str], Allowance]:
    """A client's allowance: a player's, an address's, or none at all for an
    address in the `exempt` networks (CIDR, or single addresses: the
    operator's own load generators)."""
    networks = [ipaddress.ip_network(network, strict=False) for network in exempt]

    def allowance_of(client: str) -> Allowance:
        if client.startswith(PLAYER_PREFIX):
            return PLAYER
        if networks:
            try:
                address = ipaddress.ip_address(client.removeprefix(ADDRESS_PREFIX))
            except ValueError:
                return ADDRESS
            if any(address in network for network in networks):
                return EXEMPT
        return ADDRESS

    return allowance_of


allowance_of = allowance_for()


def _bearer(metadata: Sequence[tuple[str, str | bytes]] | None) -> str | None:
    for key, value in metadata or ():
        if key == AUTHORIZATION:
            text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
            if not text.startswith(BEARER):
                raise Unauthenticated("the authorization header is not 'Bearer TOKEN'")
            return text[len(BEARER):]
    return None


# -- the built-in verifier: tokens signed with a shared secret ---------------------------


def signed_claims(secret: bytes, domain: bytes, claims: dict[str, Any]) -> str:
    """`claims` as a token: their canonical msgpack and its HMAC-SHA256 under
    `secret` for the purpose `domain` (a token signed for one purpose is
    never good for another), each base64url, joined by a dot."""
    payload = canonical_bytes(claims)
    return f"{b64url(payload)}.{b64url(hmac.new(secret, domain + payload, hashlib.sha256).digest())}"


def verified_claims(secret: bytes, domain: bytes, token: str) -> dict[str, Any]:
    """The claims of a token `signed_claims` wrote with `secret` for `domain`;
    ValueError saying what is wrong with it otherwise."""
    if len(token) > MAX_PLAYER_TOKEN_LENGTH:
        raise ValueError("malformed (too long)")
    try:
        payload_text, signature_text = token.split(".")
        payload, signature = unb64url(payload_text), unb64url(signature_text)
    except (ValueError, TokenError):
        raise ValueError("malformed") from None
    if not hmac.compare_digest(signature, hmac.new(secret, domain + payload, hashlib.sha256).digest()):
        raise ValueError("not signed with this host's secret")
    try:
        claims = msgpack.unpackb(payload, raw=False)
    except Exception:  # msgpack raises several unrelated types for bad bytes
        raise ValueError("not msgpack inside") from None
    if not isinstance(claims, dict):
        raise ValueError("not a map of claims inside")
    return claims


def player_token(secret: bytes, player: str, expires_ms: int) -> str:
    """A token for `player` until `expires_ms`: what the game's account
    service writes with the secret it shares with the host."""
    if not PLAYER_ID.match(player):
        raise ValueError("a player id is 1 to 64 of A-Z a-z 0-9 . _ @ -")
    return signed_claims(secret, _TOKEN_DOMAIN, {"player": player, "exp": expires_ms})


def hmac_verifier(secret: bytes, clock_ms: Callable[[], int]) -> Verifier:
    """Checks tokens written by `player_token` with `secret`."""

    def verify(token: str) -> str:
        try:
            fields = verified_claims(secret, _TOKEN_DOMAIN, token)
        except ValueError as error:
            raise Unauthenticated(str(error)) from None
        player, expires_ms = fields.get("player"), fields.get("exp")
        if not isinstance(player, str) or type(expires_ms) is not int:
            raise Unauthenticated("its payload names no player and expiry")
        if expires_ms <= clock_ms():
            raise Unauthenticated("it has expired")
        return player

    return verify


def load_verifier(spec: str, secret: bytes, clock_ms: Callable[[], int]) -> Verifier | None:
    """`--player-auth`: "" (none: clients are their addresses), "hmac" (the
    built-in, with `secret`), or `package.module:ATTRIBUTE` naming the
    operator's own callable."""
    if not spec:
        return None
    if spec == "hmac":
        if len(secret) < 32:
            raise ValueError("--player-auth hmac needs TABLEHOST_PLAYER_AUTH_SECRET of at least 32 bytes")
        return hmac_verifier(secret, clock_ms)
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"--player-auth takes hmac or package.module:ATTRIBUTE, got {spec!r}")
    verifier = getattr(importlib.import_module(module_name), attribute)
    if not callable(verifier):
        raise ValueError(f"--player-auth {spec} is not callable")
    return verifier
