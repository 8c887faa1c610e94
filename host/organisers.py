"""Organisers: who may create tournaments on a host.

The operator issues each organiser a token (`tablehost organiser issue`): it
names the organiser, has a random id and an expiry, and is signed with the
host's secret (TABLEHOST_TOKEN_SECRET) as seat tokens are (docs/protocol.md
says how), under a label of its own so that no other key or token of the
host's can pass for one. A front door checks the signature and the expiry
itself; whether the token was revoked it learns from the registry of
organisers, an append-only event log in the host's store (the log named
ORGANISERS_LOG), so every front door of a cluster sees a revocation. A front
door keeps what it read of the registry for REGISTRY_CACHE_S: a revoked
token may still create tournaments for those few seconds. A token the
registry does not list (one newer than what was read) makes the front door
read it again at once, so a new organiser is never refused for the cache.

The registry's events:
    {"kind": "issued", "id", "name", "issued_ms", "expires_ms"}
    {"kind": "revoked", "id", "revoked_ms"}"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import msgpack

from tablehost.actors.store.event_log import EventConflict, EventLog
from tablehost.actors.tokens import b64url, unb64url
from tablehost.games.engine.views import canonical_bytes

ORGANISERS_LOG = "organisers"
# Signed under this label: an organiser token is no seat token, player token
# or tournament key, even where their payloads could be made to look alike.
_TOKEN_LABEL = b"organiser-token\x00"
# Longer than any token `issue` writes; a longer one is not even decoded.
MAX_ORGANISER_TOKEN_LENGTH = 512
ORGANISER_ID = re.compile(r"[0-9a-f]{16}")
MAX_ORGANISER_NAME = 64
DEFAULT_VALID_DAYS = 90
MAX_VALID_DAYS = 3650
# How long a front door keeps what it read of the registry.
REGISTRY_CACHE_S = 5.0
# Appends tried before giving up when other writers keep getting there first.
APPEND_ATTEMPTS = 20


class OrganiserRefused(Exception):
    """The call's organiser token does not allow it; the message says why."""


class NotAuthenticated(OrganiserRefused):
    """No token, or one that is malformed or not signed with this host's secret."""


class NotPermitted(OrganiserRefused):
    """A genuine token that no longer allows anything: expired, revoked, or
    unknown to the registry."""


class UnknownOrganiser(KeyError):
    """No organiser of that id was ever issued."""


@dataclass(frozen=True, slots=True)
class OrganiserClaim:
    """What a token says, signed."""

    organiser_id: str
    name: str
    expires_ms: int


@dataclass(frozen=True, slots=True)
class Organiser:
    """An organiser as the registry holds it."""

    organiser_id: str
    name: str
    issued_ms: int
    expires_ms: int
    revoked_ms: int = 0  # 0: not revoked

    def status(self, now_ms: int) -> str:
        if self.revoked_ms:
            return "revoked"
        return "expired" if self.expires_ms <= now_ms else "valid"


def now_ms() -> int:
    return int(time.time() * 1000)


def when(epoch_ms: int) -> str:
    """An epoch time as people read it (UTC, to the minute)."""
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")


def check_name(name: str) -> str:
    if not name or len(name) > MAX_ORGANISER_NAME or not name.isprintable() or name != name.strip():
        raise ValueError(f"an organiser's name is 1 to {MAX_ORGANISER_NAME} printable characters, "
                         f"without spaces at either end, not {name[:80]!r}")
    return name


# -- tokens ---------------------------------------------------------------------------------


def _signature(secret: bytes, payload: bytes) -> bytes:
    return hmac.new(secret, _TOKEN_LABEL + payload, hashlib.sha256).digest()


def sign_organiser_token(secret: bytes, claim: OrganiserClaim) -> str:
    """`base64url(payload) "." base64url(HMAC-SHA256(secret, label + payload))`,
    the payload being the canonical msgpack of {"organiser", "id", "exp"}."""
    payload = canonical_bytes({"organiser": claim.name, "id": claim.organiser_id, "exp": claim.expires_ms})
    return f"{b64url(payload)}.{b64url(_signature(secret, payload))}"


def read_organiser_token(secret: bytes, token: str) -> OrganiserClaim:
    """The claim of a genuine token (whatever its expiry); NotAuthenticated
    for no token, a malformed one, or one this host's secret did not sign."""
    if not token:
        raise NotAuthenticated("creating a tournament needs an organiser token (organiser_token), issued by the "
                               "host's operator with `tablehost organiser issue`")
    if len(token) > MAX_ORGANISER_TOKEN_LENGTH:
        raise NotAuthenticated("the organiser token is malformed (too long)")
    try:
        payload_text, signature_text = token.split(".")
        # Strict: one spelling of a token only (actors/tokens.py).
        payload, signature = unb64url(payload_text), unb64url(signature_text)
    except ValueError:  # binascii.Error and non-ASCII text too
        raise NotAuthenticated("the organiser token is malformed") from None
    if not hmac.compare_digest(signature, _signature(secret, payload)):
        raise NotAuthenticated("the organiser token was not issued by this host (its signature does not match)")
    try:
        fields = msgpack.unpackb(payload, raw=False)
    except Exception:  # msgpack raises several unrelated types for bad bytes
        raise NotAuthenticated("the organiser token's payload is not msgpack") from None
    if not isinstance(fields, dict):
        raise NotAuthenticated("the organiser token's payload is not a map")
    name, organiser_id, expires_ms = (fields.get(key) for key in ("organiser", "id", "exp"))
    if not (isinstance(name, str) and isinstance(organiser_id, str) and ORGANISER_ID.fullmatch(organiser_id)
            and type(expires_ms) is int):
        raise NotAuthenticated("the organiser token's payload lacks its organiser, id or expiry")
    return OrganiserClaim(organiser_id, name, expires_ms)


def check_organiser_token(secret: bytes, token: str, at_ms: int) -> OrganiserClaim:
    """The claim of a genuine token that has not expired at `at_ms`."""
    claim = read_organiser_token(secret, token)
    if claim.expires_ms <= at_ms:
        raise NotPermitted(f"the organiser token of {claim.name!r} (id {claim.organiser_id}) expired on "
                           f"{when(claim.expires_ms)}; ask the host's operator for a new one")
    return claim


# -- the registry ---------------------------------------------------------------------------


def fold_registry(events: list[dict[str, Any]]) -> dict[str, Organiser]:
    """Every organiser ever issued, by id, with its revocation if any."""
    organisers: dict[str, Organiser] = {}
    for event in events:
        if event["kind"] == "issued":
            organisers[event["id"]] = Organiser(event["id"], event["name"], event["issued_ms"], event["expires_ms"])
        elif event["kind"] == "revoked" and event["id"] in organisers:
            organisers[event["id"]] = replace(organisers[event["id"]], revoked_ms=event["revoked_ms"])
    return organisers


class OrganiserRegistry:
    """The registry of organisers in the host's store (blocking I/O: a front
    door calls it from a thread)."""

    def __init__(self, log: EventLog) -> None:
        self.log = log

    def organisers(self) -> dict[str, Organiser]:
        return fold_registry(self.log.read(ORGANISERS_LOG))

    def issue(self, secret: bytes, name: str, valid_for_ms: int, at_ms: int) -> tuple[str, Organiser]:
        """A new organiser and its token, valid for `valid_for_ms` from `at_ms`."""
        check_name(name)
        if valid_for_ms <= 0:
            raise ValueError("an organiser token must be valid for some time")
        organiser = Organiser(secrets.token_hex(8), name, at_ms, at_ms + valid_for_ms)
        self._append(lambda _: {"kind": "issued", "id": organiser.organiser_id, "name": name,
                                "issued_ms": organiser.issued_ms, "expires_ms": organiser.expires_ms})
        claim = OrganiserClaim(organiser.organiser_id, name, organiser.expires_ms)
        return sign_organiser_token(secret, claim), organiser

    def revoke(self, organiser_id: str, at_ms: int) -> Organiser:
        """The organiser, revoked (by this call or an earlier one: revoking
        twice keeps the first time). UnknownOrganiser for an id never issued."""

        def revocation(organisers: dict[str, Organiser]) -> dict[str, Any] | None:
            if organiser_id not in organisers:
                raise UnknownOrganiser(organiser_id)
            if organisers[organiser_id].revoked_ms:
                return None
            return {"kind": "revoked", "id": organiser_id, "revoked_ms": at_ms}

        self._append(revocation)
        return self.organisers()[organiser_id]

    def _append(self, event_for: Callable[[dict[str, Organiser]], dict[str, Any] | None]) -> None:
        """Append what `event_for` makes of the registry as it is (nothing
        for None), at the index after what was read: a writer that got there
        first makes this one read again and decide again."""
        for _ in range(APPEND_ATTEMPTS):
            events = self.log.read(ORGANISERS_LOG)
            event = event_for(fold_registry(events))
            if event is None:
                return
            try:
                self.log.append(ORGANISERS_LOG, len(events), event)
                return
            except EventConflict:
                continue
        raise EventConflict(f"the registry of organisers kept changing over {APPEND_ATTEMPTS} attempts")


class OrganiserVerifier:
    """A front door's check that a genuine organiser token (checked with
    check_organiser_token) was issued and not revoked, from the registry as
    read at most REGISTRY_CACHE_S ago."""

    def __init__(self, registry: OrganiserRegistry, cache_s: float = REGISTRY_CACHE_S,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.registry = registry
        self.cache_s = cache_s
        self._monotonic = monotonic
        self._known: dict[str, Organiser] = {}
        self._read_at = float("-inf")
        self._reads_begun = 0
        self._reading = asyncio.Lock()

    async def organiser(self, claim: OrganiserClaim) -> Organiser:
        """The registry's organiser of a genuine claim; NotPermitted when it
        was revoked or never issued (the store was reset)."""
        organiser = (await self._registry(fresh=False)).get(claim.organiser_id)
        if organiser is None:
            organiser = (await self._registry(fresh=True)).get(claim.organiser_id)
        if organiser is None:
            raise NotPermitted(f"the organiser token of {claim.name!r} (id {claim.organiser_id}) is not in this "
                               "host's registry of organisers (was the store reset?); ask the operator for a new one")
        if organiser.revoked_ms:
            raise NotPermitted(f"the organiser token of {organiser.name!r} (id {organiser.organiser_id}) was revoked "
                               f"on {when(organiser.revoked_ms)}")
        return organiser

    async def _registry(self, fresh: bool) -> dict[str, Organiser]:
        """The registry as read within the cache's time (`fresh`: read since
        this call began). One read at a time; callers waiting meanwhile take
        what it read."""
        asked_at, reads_begun = self._monotonic(), self._reads_begun
        async with self._reading:
            stale = self._reads_begun == reads_begun if fresh else asked_at - self._read_at > self.cache_s
            if stale:
                self._reads_begun += 1
                began = self._monotonic()
                self._known = await asyncio.to_thread(self.registry.organisers)
                self._read_at = began
            return self._known
