"""Sampling tables over the wire to test that nobody can choose their seat,
role, first move or cards by when they join, what they are called or what
they bring, and the statistics that judge it.

A game's tables are filled one at a time, each player joining only once the
lobby counts the one before it as waiting in that game's queue, so the
arrival order is the one chosen here (games may be sampled at once). Each
player's display name, ticket and join data come from a fixed PRNG per
table, and each seat sends fixed entropy; a host started with a fixed seed
derives a table's seed from it and the players' tickets. So every sample
(and every p-value) is the same in every run: a test built on them is
deterministic and fails only when the property is broken.

Each table is read once it is dealt (its first change): per arrival
position, the seat it got and what the game dealt it (Big Two: who holds
3C and so leads, and who holds 2S; Duel: who plays first; Kingdoms: who
is the lord)."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from scipy import stats

from tablehost.clients.codec import decode
from tablehost.clients.sdk import Assignment, LobbyClient, TableSession, open_channel
from tablehost.host.admin_auth import admin_metadata
from tablehost.v1 import admin_pb2, admin_pb2_grpc, table_pb2

# Each hypothesis is rejected below this p-value: with fixed samples a test
# fails only if the property is broken (or, once in a thousand seeds, by the
# choice of seeds, which then stays the same on every run).
SIGNIFICANCE = 0.001
NAMES = ("ann", "zed", "mo", "xiaoming", "\u00e9ric", "a" * 64, "b0t", "Z")


@dataclass(frozen=True)
class TableSample:
    """One dealt table, by arrival position (0: joined first)."""

    seats: tuple[int, ...]  # the seat each position got
    names: tuple[str, ...]  # the display name each position joined with
    joins: tuple[str, ...]  # a label of each position's join data
    outcomes: dict[str, int]  # what the deal decided (e.g. "first"), as the arrival position it went to


@dataclass(frozen=True)
class GameSampling:
    """How to fill and read one game's tables."""

    game: str
    seats: int
    # (table index, position) -> join data and a label for it
    join: Callable[[random.Random], tuple[dict[str, Any], str]]
    # seat -> the first dealt view of that seat, all seats -> outcome name -> seat
    read: Callable[[dict[int, dict[str, Any]]], dict[str, int]]


def _bigtwo(views: dict[int, dict[str, Any]]) -> dict[str, int]:
    holder = {card: seat for seat, view in views.items() for card in view["hand"]}
    assert views[0]["to_act"] == holder["3C"], "the holder of 3C leads"
    return {"leads (holds 3C)": holder["3C"], "holds 2S": holder["2S"]}


def _duel(views: dict[int, dict[str, Any]]) -> dict[str, int]:
    return {"first": views[0]["first"]}


def _kingdoms(views: dict[int, dict[str, Any]]) -> dict[str, int]:
    lords = [player["seat"] for player in views[0]["players"] if player["identity"] == "lord"]
    return {"lord": lords[0]}


def _no_join(_: random.Random) -> tuple[dict[str, Any], str]:
    return {}, ""


def _a_deck(chooser: random.Random) -> tuple[dict[str, Any], str]:
    deck = chooser.choice(("mage-basic", "hunter-basic", "paladin-basic"))
    return {"deck": deck}, deck


SAMPLINGS = {
    "bigtwo": GameSampling("bigtwo", 4, _no_join, _bigtwo),
    "duel": GameSampling("duel", 2, _a_deck, _duel),
    "kingdoms": GameSampling("kingdoms", 5, _no_join, _kingdoms),
}


@dataclass(frozen=True)
class AdminPlane:
    """Where the host's admin listener is, and the token to call it with:
    the queue's waiting counts are read from its status."""

    target: str
    token: str


async def sample_tables(target: str, admin_plane: AdminPlane, sampling: GameSampling, tables: int,
                        seed: int) -> list[TableSample]:
    """Fill and read `tables` tables of the game, one after another."""
    samples = []
    async with open_channel(admin_plane.target) as channel:
        admin = _AdminCalls(admin_pb2_grpc.AdminStub(channel), admin_metadata(admin_plane.token))
        for index in range(tables):
            chooser = random.Random(seed * 1_000_003 + index)
            samples.append(await _sample_one(target, admin, sampling, chooser, seed, index))
    return samples


@dataclass(frozen=True)
class _AdminCalls:
    stub: admin_pb2_grpc.AdminStub
    metadata: tuple[tuple[str, str], ...]


async def _waiting(admin: _AdminCalls, game: str, since: float) -> int:
    """Players waiting in the game's queue, from a status snapshot taken
    after `since` (the loop's clock): the admin status is a snapshot up to
    an interval old, and a count from before the last join or the last
    table formed would be compared with the wrong one."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while True:
        asked = loop.time()
        status = await admin.stub.Status(admin_pb2.StatusRequest(), metadata=admin.metadata, timeout=10)
        if asked - status.age_s >= since:
            return sum(queue.waiting for queue in status.queues if queue.game == game)
        if loop.time() > deadline:
            raise TimeoutError("no status snapshot newer than the join came")
        await asyncio.sleep(0.005)


async def _sample_one(target: str, admin: _AdminCalls, sampling: GameSampling,
                      chooser: random.Random, seed: int, index: int) -> TableSample:
    names = chooser.sample(NAMES, sampling.seats)
    joins = [sampling.join(chooser) for _ in range(sampling.seats)]
    lobbies = [LobbyClient(target) for _ in range(sampling.seats)]
    calls: list[asyncio.Task[Assignment]] = []
    sessions: list[TableSession] = []
    try:
        for position, lobby in enumerate(lobbies):
            waiting_before = await _waiting(admin, sampling.game, since=asyncio.get_running_loop().time())
            joined_at = asyncio.get_running_loop().time()
            calls.append(asyncio.create_task(lobby.join_queue(
                sampling.game, names[position], join_data=joins[position][0], seats=sampling.seats,
                ticket=f"fair-{sampling.game}-{seed}-{index}-{position}")))
            if position < sampling.seats - 1:  # the last one fills the table instead
                await _until(lambda: _waiting(admin, sampling.game, since=joined_at),
                             lambda waiting: waiting > waiting_before)
        assignments = await asyncio.gather(*calls)
        # The seat's entropy is fixed by the seat, not by who sits there, so
        # the deal depends on the table alone, whatever the order.
        sessions = await asyncio.gather(*(
            TableSession.connect(a, lobby, entropy=f"fair {index} seat {a.seat}".encode(), record=True)
            for a, lobby in zip(assignments, lobbies)))
        await asyncio.gather(*(_until(lambda s=s: _seq_of(s), lambda seq: seq >= 1) for s in sessions))
        for session in sessions:
            first = table_pb2.ServerMessage.FromString(session.received[0])
            if decode(first.snapshot.view).get("stage") != "dealing":
                raise AssertionError(f"seat {session.seat} of table {session.table_id} said hello after the deal: "
                                     "its entropy was left out and the sample would not repeat")
        views = {session.seat: session.view for session in sessions}
        seat_of = [a.seat for a in assignments]
        position_of_seat = {seat: position for position, seat in enumerate(seat_of)}
        outcomes = {name: position_of_seat[seat] for name, seat in sampling.read(views).items()}
        return TableSample(tuple(seat_of), tuple(names), tuple(label for _, label in joins), outcomes)
    finally:
        for session in sessions:
            await session.close()
        for lobby in lobbies:
            await lobby.close()


async def _seq_of(session: TableSession) -> int:
    return session.seq


async def _until(read, holds, timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not holds(await read()):
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError("the condition did not come true in time")
        await asyncio.sleep(0.005)


# -- the statistics ------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """One hypothesis of independence, its test and its p-value."""

    question: str
    counts: dict[Any, int]
    p_value: float

    @property
    def holds(self) -> bool:
        return self.p_value >= SIGNIFICANCE


def uniform(question: str, observed: Sequence[Any], categories: Sequence[Any]) -> Finding:
    """Chi-square goodness of fit of `observed` to the uniform distribution
    over `categories` (an exact binomial test for two)."""
    counts = Counter(observed)
    frequencies = [counts.get(category, 0) for category in categories]
    if len(categories) == 2:
        p = stats.binomtest(frequencies[0], sum(frequencies), 0.5).pvalue
    else:
        p = stats.chisquare(frequencies).pvalue
    return Finding(question, {category: counts.get(category, 0) for category in categories}, float(p))


def independent(question: str, pairs: Sequence[tuple[Any, Any]]) -> Finding:
    """Chi-square test of independence of a contingency table of pairs."""
    rows = sorted({a for a, _ in pairs}, key=str)
    columns = sorted({b for _, b in pairs}, key=str)
    counts = Counter(pairs)
    table = [[counts.get((row, column), 0) for column in columns] for row in rows]
    p = stats.chi2_contingency(table).pvalue
    return Finding(question, {f"{a}|{b}": n for (a, b), n in sorted(counts.items(), key=str)}, float(p))


def findings(sampling: GameSampling, samples: Sequence[TableSample]) -> list[Finding]:
    """Every independence the deal must keep, for one game's samples: the
    seat and each outcome against the arrival position, the display name
    and the join data."""
    positions = list(range(sampling.seats))
    found = [independent("seat vs arrival position",
                         [(position, seat) for s in samples for position, seat in enumerate(s.seats)])]
    for outcome in samples[0].outcomes:
        found.append(uniform(f"{outcome}: arrival position", [s.outcomes[outcome] for s in samples], positions))
        found.append(_by_attribute(f"{outcome}: display name", samples, outcome, lambda s: s.names))
        if any(s.joins[0] for s in samples):
            found.append(_by_attribute(f"{outcome}: join data", samples, outcome, lambda s: s.joins))
    return found


def _by_attribute(question: str, samples: Sequence[TableSample], outcome: str,
                  attribute: Callable[[TableSample], Sequence[str]]) -> Finding:
    """Whether a player's attribute (name, join data) changes its chance of
    the outcome: per attribute value, how often its holder got the outcome
    against how often it sat at a table, tested for independence."""
    pairs = []
    for sample in samples:
        for position, value in enumerate(attribute(sample)):
            pairs.append((value, sample.outcomes[outcome] == position))
    return independent(question, pairs)
