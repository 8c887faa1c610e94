"""`tablehost organiser issue|list|revoke`: the operator says who may create
tournaments on a host (host/organisers.py).

The commands work on the host's store (`--store`, as `tablehost serve` takes
it), where every front door reads the registry of organisers; `issue` signs
the token with the host's secret, from TABLEHOST_TOKEN_SECRET as `serve`
reads it. They do not talk to a running host: a revocation reaches every
front door through the store, within the few seconds a front door keeps
what it read."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from tablehost.actors.store.redis_url import SCHEMES as REDIS_SCHEMES
from tablehost.host.organisers import (DEFAULT_VALID_DAYS, MAX_VALID_DAYS, Organiser, OrganiserRegistry,
                                       UnknownOrganiser, now_ms, when)

DAY_MS = 24 * 3600 * 1000
_STORES = ("local:", *REDIS_SCHEMES)


def add_organiser_commands(commands: Any) -> None:
    organiser = commands.add_parser("organiser", help="issue, list and revoke the tokens of tournament organisers")
    actions = organiser.add_subparsers(dest="action", required=True)

    def with_store(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
        parser.add_argument("--store", default=os.environ.get("TABLEHOST_STORE"), metavar="URL",
                            help="the host's store, as `tablehost serve --store` takes it: local:DIR or "
                                 "redis://HOST:PORT/DB (default: $TABLEHOST_STORE)")
        return parser

    issue = with_store(actions.add_parser("issue", help="issue an organiser a token (prints the token and its id)"))
    issue.add_argument("name", help="who the organiser is (shown in logs and tournaments)")
    issue.add_argument("--days", type=int, default=DEFAULT_VALID_DAYS,
                       help=f"days the token is valid (default {DEFAULT_VALID_DAYS})")
    listing = with_store(actions.add_parser("list", help="every organiser issued, with its expiry and revocation"))
    listing.add_argument("--json", action="store_true", help="one JSON object a line")
    revoke = with_store(actions.add_parser("revoke", help="revoke an organiser's token (it creates no more tournaments)"))
    revoke.add_argument("organiser_id", metavar="ID", help="the id `issue` printed (or `list` shows)")


def run_organiser_command(args: argparse.Namespace) -> int:
    from tablehost.actors.store import StoreError
    from tablehost.actors.store.event_log import open_event_log

    command = f"tablehost organiser {args.action}"
    registry = OrganiserRegistry(open_event_log(_store(command, args.store)))
    try:
        if args.action == "issue":
            return _issue(command, registry, args)
        if args.action == "list":
            return _list(registry, args.json)
        return _revoke(command, registry, args.organiser_id)
    except StoreError as error:
        print(f"{command}: the store cannot be used: {error}", file=sys.stderr)
        return 1
    finally:
        registry.log.close()


def _store(command: str, url: str | None) -> str:
    """The host's store; a local folder must exist (a mistyped path would
    hold a registry no host reads)."""
    if not url or url == "none":
        raise SystemExit(f"{command}: give the host's store with --store (or TABLEHOST_STORE): local:DIR or "
                         "redis://HOST:PORT/DB, the one `tablehost serve` uses")
    if not url.startswith(_STORES):
        raise SystemExit(f"{command}: --store takes local:DIR or redis://HOST:PORT/DB, got {url!r}")
    if url.startswith("local:") and not Path(url.removeprefix("local:")).is_dir():
        raise SystemExit(f"{command}: the store {url} is not a folder (is it the one `tablehost serve` uses?)")
    return url


def _secret(command: str) -> bytes:
    from tablehost.host.config import MIN_TOKEN_SECRET_BYTES

    text = os.environ.get("TABLEHOST_TOKEN_SECRET", "")
    if not text:
        raise SystemExit(f"{command}: set TABLEHOST_TOKEN_SECRET to the host's secret, as `tablehost serve` reads it "
                         "(a host without one makes a random secret no token can be issued for)")
    if len(text.encode()) < MIN_TOKEN_SECRET_BYTES:
        raise SystemExit(f"{command}: TABLEHOST_TOKEN_SECRET is shorter than the {MIN_TOKEN_SECRET_BYTES} bytes a "
                         "host accepts")
    return text.encode()


def _issue(command: str, registry: OrganiserRegistry, args: argparse.Namespace) -> int:
    if not 1 <= args.days <= MAX_VALID_DAYS:
        raise SystemExit(f"{command}: --days takes 1 to {MAX_VALID_DAYS}, got {args.days}")
    secret = _secret(command)
    try:
        token, organiser = registry.issue(secret, args.name, args.days * DAY_MS, now_ms())
    except ValueError as error:
        raise SystemExit(f"{command}: {error}") from None
    print(json.dumps({"organiser": organiser.name, "id": organiser.organiser_id,
                      "expires": when(organiser.expires_ms), "token": token}))
    return 0


def _row(organiser: Organiser, at_ms: int) -> dict[str, Any]:
    return {"id": organiser.organiser_id, "organiser": organiser.name, "issued": when(organiser.issued_ms),
            "expires": when(organiser.expires_ms), "status": organiser.status(at_ms),
            "revoked": when(organiser.revoked_ms) if organiser.revoked_ms else ""}


def _list(registry: OrganiserRegistry, as_json: bool) -> int:
    at_ms = now_ms()
    rows = [_row(organiser, at_ms) for organiser in registry.organisers().values()]
    if as_json:
        for row in rows:
            print(json.dumps(row))
        return 0
    table = [["id", "organiser", "issued", "expires", "status"]]
    table += [[row["id"], row["organiser"], row["issued"], row["expires"],
               row["status"] + (f" {row['revoked']}" if row["revoked"] else "")] for row in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    for line in table:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip())
    return 0


def _revoke(command: str, registry: OrganiserRegistry, organiser_id: str) -> int:
    at_ms = now_ms()
    try:
        organiser = registry.revoke(organiser_id, at_ms)
    except UnknownOrganiser:
        print(f"{command}: no organiser has the id {organiser_id!r} (`tablehost organiser list` shows them)",
              file=sys.stderr)
        return 1
    if organiser.revoked_ms != at_ms:
        print(f"{organiser.organiser_id} ({organiser.name}) was revoked already, on {when(organiser.revoked_ms)}")
    else:
        print(f"revoked {organiser.organiser_id} ({organiser.name}): front doors refuse its token within seconds")
    return 0
