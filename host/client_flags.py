"""Flags of the `tablehost` commands that talk to a host as its client:
`--tls-ca` (the certificates to trust) and `--join-data` (a player's
options for the game), read once here for every command."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def add_tls_ca_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tls-ca", metavar="FILE",
                        help="connect over TLS, trusting the PEM certificate(s) in FILE (a host with --tls-cert)")


def tls_root_cert(command: str, path: str | None) -> bytes | None:
    """`--tls-ca`: the PEM certificates a client trusts to connect over TLS
    (None: plaintext)."""
    if not path:
        return None
    try:
        pem = Path(path).read_bytes()
    except OSError as error:
        raise SystemExit(f"tablehost {command}: cannot read --tls-ca {path}: {error}") from None
    if b"-----BEGIN CERTIFICATE-----" not in pem:
        raise SystemExit(f"tablehost {command}: --tls-ca {path} holds no PEM certificate")
    return pem


def parse_join_data(command: str, text: str) -> dict[str, Any]:
    """`--join-data` as a map: a player's options for the game, given as JSON."""
    if not text:
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise SystemExit(f"tablehost {command}: --join-data is not JSON: {error}") from None
    if not isinstance(data, dict):
        raise SystemExit(f"tablehost {command}: --join-data is a JSON object, got {text!r}")
    return data
