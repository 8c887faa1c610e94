"""Scenario: what a group commit saves, in process. A busy room has one command
in flight for each of many tables; the journal writes them as one batch. Here the
local store takes rounds of such batches (one entry for each of N tables) and,
beside them, the same entries appended one table at a time (what a journal without
group commit would do): appends/s and disk syncs per entry for both.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from typing import Any

from tablehost.actors.store import Appends, JournalEntry, TableHeader
from tablehost.actors.store.local import LocalStore
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import MatchHeader


@dataclass(frozen=True)
class GroupCommitPlan:
    tables: tuple[int, ...]
    rounds: int


def _entry(seq: int, table: int) -> JournalEntry:
    return JournalEntry(seq, f"t{table}-a{seq}", seq % 4, {"type": "play", "cards": ["3D", "3C"]}, 1_700_000_000_000 + seq,
                        False)


def _header(table_id: str) -> TableHeader:
    match = MatchHeader("bigtwo", TableSeed.numbered(1), ("a", "b", "c", "d"), ({},) * 4, {}, 0, None)
    return TableHeader(table_id, "", match, {}, None)


def _measure(tables: int, rounds: int, grouped: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="group-commit-") as folder:
        store = LocalStore(folder)
        ids = [f"table-{i}" for i in range(tables)]
        for table_id in ids:
            store.create([_header(table_id)])
        store.syncs = store.entries = 0
        started = time.perf_counter()
        for seq in range(1, rounds + 1):
            if grouped:
                assert store.append({t: Appends(1, [_entry(seq, i)]) for i, t in enumerate(ids)}) == {}
            else:
                for i, table_id in enumerate(ids):
                    assert store.append({table_id: Appends(1, [_entry(seq, i)])}) == {}
        elapsed = time.perf_counter() - started
        store.close()
    return {"entries_per_s": round(store.entries / elapsed, 1), "syncs_per_entry": round(store.syncs / store.entries, 4),
            "entries": store.entries, "elapsed_s": round(elapsed, 3)}


def run(plan: GroupCommitPlan) -> dict[str, Any]:
    rows = []
    _measure(1, 100, False)  # warm-up: the first run pays for imports and a cold disk cache
    for tables in plan.tables:
        rounds = max(5, plan.rounds // tables)
        grouped, alone = _measure(tables, rounds, True), _measure(tables, rounds, False)
        rows.append({"tables": tables, "rounds": rounds, "grouped": grouped, "one_by_one": alone,
                     "speedup": round(grouped["entries_per_s"] / alone["entries_per_s"], 2)})
        print(f"  {tables} tables: grouped {grouped['entries_per_s']:.0f} entries/s "
              f"({grouped['syncs_per_entry']:.3f} syncs/entry), one by one {alone['entries_per_s']:.0f} entries/s "
              f"({alone['syncs_per_entry']:.3f}): x{rows[-1]['speedup']}", flush=True)
    return {"plan": plan.__dict__, "rows": rows}
