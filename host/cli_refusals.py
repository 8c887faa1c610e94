"""How a `tablehost` command ends when the host refuses one of its requests
(host/cli.py's docstring): one line on stderr naming the gRPC status and the
host's reason, and exit status 1, never a traceback."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Coroutine
from typing import Any


def one_line(text: str) -> str:
    return " ".join(text.split())


def _refusal_line(command: str, error: BaseException) -> str | None:
    """`tablehost <command>: <STATUS>: <details>` for a gRPC call the host
    refused (a grpc.aio error, or the SDK's LobbyError wrapping one); None
    for any other error."""
    import grpc

    from tablehost.clients.sdk import LobbyError

    if isinstance(error, LobbyError):
        code, details = error.code, error.details
    elif isinstance(error, grpc.aio.AioRpcError):
        code, details = error.code(), error.details() or ""
    else:
        return None
    return f"tablehost {command}: {code.name}: {one_line(details)}"


def run_command(command: str, steps: Coroutine[Any, Any, int | None]) -> int:
    """Run one command's coroutine to its exit status; a request the host
    refused ends it with one line on stderr and status 1."""
    try:
        return asyncio.run(steps) or 0
    except Exception as error:
        line = _refusal_line(command, error)
        if line is None:
            raise
        print(line, file=sys.stderr)
        return 1
