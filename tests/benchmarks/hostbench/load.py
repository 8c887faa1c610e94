"""The load generator seen from the benchmark: several player processes (hostbench.players
inside), given the same command at once, their answers merged; and what they cost,
read from /proc like the host's, so "the load generator binds first" is a measured claim.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

from hostbench.children import Budget, Child, worker_argv
from hostbench.procs import TreeReading, read_processes


def split_evenly(total: int, parts: int, multiple: int = 4) -> list[int]:
    """`total` split into `parts` shares that are multiples of `multiple` (whole tables
    of players per process), as even as that allows; a share may be 0."""
    units, left = divmod(total // multiple, parts)
    return [(units + (1 if index < left else 0)) * multiple for index in range(parts)]


class PlayerProcesses:
    def __init__(self, name: str, target: str, processes: int, logdir: Path, own_connections: bool) -> None:
        flags = ["--own-connections"] if own_connections else []
        self.children = [
            Child(f"{name}-{index}", worker_argv("players", "--target", target, "--prefix", f"{name}{index}", *flags),
                  logdir, stdin=True)
            for index in range(processes)
        ]

    def ask_all(self, commands: list[dict[str, Any] | None], timeout_s: float) -> list[dict[str, Any]]:
        """Send each process its command (None: nothing for that one) back to back, then
        collect the answers."""
        asked = [(child, command) for child, command in zip(self.children, commands) if command is not None]
        for child, command in asked:
            child.send(command)
        return [child.next_json(timeout_s) for child, _command in asked]

    def prepare(self, shares: list[int], budget: Budget) -> list[dict[str, Any]]:
        return self.ask_all([{"op": "prepare", "players": n} if n else None for n in shares], budget.seconds(300))

    def join(self, shares: list[int], connect: bool, budget: Budget, timeout_s: float) -> dict[str, Any]:
        """Every process with a share sends its joins at once; the answers merged."""
        commands = [{"op": "join", "connect": connect, "timeout_s": timeout_s} if n else None for n in shares]
        answers = self.ask_all(commands, budget.seconds(timeout_s * 2 + 60))
        return merge_joins(answers)

    def check(self, budget: Budget) -> dict[str, Any]:
        answers = self.ask_all([{"op": "check"}] * len(self.children), budget.seconds(60))
        merged: dict[str, Any] = {"error_messages": []}
        for answer in answers:
            for key, value in answer.items():
                if key == "error_messages":
                    merged["error_messages"] += value
                elif isinstance(value, int):
                    merged[key] = merged.get(key, 0) + value
        return merged

    def reading(self, memory: bool = True) -> TreeReading:
        return read_processes([(child.pid, "clients") for child in self.children], memory=memory)

    def close(self, timeout_s: float = 60.0) -> None:
        """Ask each to close its streams and exit; whatever does not is ended by PID."""
        for child in self.children:
            if child.running:
                try:
                    child.send({"op": "close"})
                except (OSError, ValueError):
                    pass
        for child in self.children:
            child.wait(timeout_s)
            child.stop(signal.SIGTERM, grace_s=3)


def merge_joins(answers: list[dict[str, Any]]) -> dict[str, Any]:
    """One burst's figures from every process's answer: first send and last assignment
    over all of them (the clock is the machine's monotonic clock), every wait, every
    table with how many players each process saw seated at it."""
    with_players = [a for a in answers if a.get("players")]
    tables: dict[str, int] = {}
    for answer in with_players:
        for table_id, count in answer["tables"].items():
            tables[table_id] = tables.get(table_id, 0) + count
    merged: dict[str, Any] = {
        "players": sum(a["players"] for a in with_players),
        "seated": sum(a["seated"] for a in with_players),
        "first_sent": min((a["first_sent"] for a in with_players), default=0.0),
        "last_sent": max((a["last_sent"] for a in with_players), default=0.0),
        "last_assigned": max((a["last_assigned"] for a in with_players if a["seated"]), default=0.0),
        "waits_ms": [w for a in with_players for w in a["waits_ms"]],
        "tables": len(tables),
        "full_tables": sum(1 for count in tables.values() if count == 4),
        "errors": sum(a.get("errors", 0) for a in answers),
        "error_messages": [m for a in answers for m in a.get("error_messages", [])][:5],
    }
    if any("connected" in a for a in with_players):
        merged["connected"] = sum(a.get("connected", 0) for a in with_players)
        merged["connect_s"] = max(a.get("connect_s", 0.0) for a in with_players)
    return merged
