"""Who may call the admin plane, and the audit log of what they did.

An admin token names its holder and expires; it is signed with the admin
secret the operator sets (`TABLEHOST_ADMIN_SECRET`, at least 32 bytes), in
the format of a player token under a purpose of its own, so a player token
is never an admin token. `tablehost admin-token NAME` writes one. A host
started without a secret makes one for its run and writes a token to the
admin token file, which only its user can read.

Every admin call is its token holder's: the guard (an
actors/unary_parsing.CallGuard) refuses a call without a valid token
UNAUTHENTICATED before its request is read, and bounds the calls whose
request has not arrived. The audit log gets a line for every action (who,
what, the reason, the outcome) and for refused tokens, a bounded number a
minute, since anyone who can reach the listener can send those."""

from __future__ import annotations

import json
import logging
import logging.handlers
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import grpc
from grpc import aio

from tablehost.actors.log_budget import LogBudget
from tablehost.actors.unary_parsing import Refused
from tablehost.host.identity import AUTHORIZATION, BEARER, PLAYER_ID, signed_claims, verified_claims

MIN_ADMIN_SECRET_BYTES = 32
# Admin calls whose request has not arrived, over every caller.
MAX_UNREAD_ADMIN_CALLS = 64
# Refused tokens written to the audit log a minute; the rest are counted.
REFUSALS_LOGGED_PER_MINUTE = 60
# The audit file rotates at this size, keeping this many old files.
AUDIT_FILE_BYTES = 16 * 2**20
AUDIT_FILES_KEPT = 4
ADMIN_PREFIX = "admin:"
# Where a host without an admin secret writes its run's token, and where the
# CLI looks for one.
DEFAULT_TOKEN_FILE = Path.home() / ".tablehost" / "admin-token"
_TOKEN_DOMAIN = b"admin-token\x00"

audit_log = logging.getLogger("tablehost.audit")


def admin_token(secret: bytes, admin: str, expires_ms: int) -> str:
    """A token naming `admin` until `expires_ms` (epoch ms)."""
    if not PLAYER_ID.match(admin):
        raise ValueError("an admin name is 1 to 64 of A-Z a-z 0-9 . _ @ -")
    return signed_claims(secret, _TOKEN_DOMAIN, {"admin": admin, "exp": expires_ms})


class BadAdminToken(Exception):
    """Why a call's admin token is not accepted."""


def verify_admin_token(secret: bytes, token: str, now_ms: int) -> str:
    """The admin the token names, or BadAdminToken."""
    try:
        fields = verified_claims(secret, _TOKEN_DOMAIN, token)
    except ValueError as error:
        raise BadAdminToken(f"the admin token is {error}") from None
    admin, expires_ms = fields.get("admin"), fields.get("exp")
    if not isinstance(admin, str) or not PLAYER_ID.match(admin) or type(expires_ms) is not int:
        raise BadAdminToken("the admin token names no admin and expiry")
    if expires_ms <= now_ms:
        raise BadAdminToken("the admin token has expired")
    return admin


def admin_metadata(token: str) -> tuple[tuple[str, str], ...]:
    """What a call to the admin plane carries."""
    return ((AUTHORIZATION, BEARER + token),)


def bearer_token(metadata: Sequence[tuple[str, str | bytes]] | None) -> str | None:
    for key, value in metadata or ():
        if key == AUTHORIZATION:
            text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
            return text[len(BEARER):] if text.startswith(BEARER) else ""
    return None


class AdminGuard:
    """The admin listener's CallGuard: a valid admin token, or UNAUTHENTICATED."""

    def __init__(self, secret: bytes, clock_ms: Callable[[], int], request_timeout_s: float,
                 budget: LogBudget | None = None) -> None:
        if len(secret) < MIN_ADMIN_SECRET_BYTES:
            raise ValueError(f"the admin secret is {len(secret)} bytes; at least {MIN_ADMIN_SECRET_BYTES} are needed")
        self._secret = secret
        self._clock_ms = clock_ms
        self.request_timeout_s = request_timeout_s
        self._unread = 0
        self._budget = budget or LogBudget(REFUSALS_LOGGED_PER_MINUTE, 60.0)

    def client_of(self, context: aio.ServicerContext) -> str:
        token = bearer_token(context.invocation_metadata())
        try:
            if token is None:
                raise BadAdminToken("the admin plane needs an admin token ('authorization: Bearer TOKEN'; "
                                    "`tablehost admin-token` writes one)")
            if not token:
                raise BadAdminToken("the authorization header is not 'Bearer TOKEN'")
            return ADMIN_PREFIX + verify_admin_token(self._secret, token, self._clock_ms())
        except BadAdminToken as refused:
            left_out = self._budget.take()
            if left_out is not None:
                audit("refused", admin="", peer=context.peer(), why=str(refused), left_out=left_out)
            raise Refused(grpc.StatusCode.UNAUTHENTICATED, str(refused)) from None

    def hold(self, client: str) -> None:
        if self._unread >= MAX_UNREAD_ADMIN_CALLS:
            raise Refused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                          f"{MAX_UNREAD_ADMIN_CALLS} admin calls are waiting for their requests already")
        self._unread += 1

    def release(self, client: str) -> None:
        self._unread -= 1

    def spend(self, client: str, method: str) -> None:
        """Admins are not rate limited: each holds a token the operator gave."""


def audit(action: str, **fields: Any) -> None:
    """One line of the audit log: when (epoch ms), the action, and its fields
    (who, what it concerned, the reason, the outcome)."""
    audit_log.info(json.dumps({"at_ms": time.time_ns() // 1_000_000, "action": action, **fields},
                              sort_keys=True, ensure_ascii=False))


def write_audit_file(path: str) -> logging.Handler:
    """Also write the audit log to `path` (JSON lines, rotated at
    AUDIT_FILE_BYTES); returns the handler, for the host to remove at stop."""
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=AUDIT_FILE_BYTES, backupCount=AUDIT_FILES_KEPT,
                                                   encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(message)s"))
    audit_log.addHandler(handler)
    audit_log.setLevel(logging.INFO)
    return handler


def write_token_file(path: Path, token: str) -> None:
    """Write `token` where only this user can read it."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(token + "\n")
    os.chmod(path, 0o600)
