"""The admin plane's parts without a host: tokens that name their holder and
are good for nothing else, a status read from the lobby at most once an
interval however many ask, and a tournament's pause and cancellation kept
in its log."""

from __future__ import annotations

import asyncio

import pytest

from tablehost.actors.tournament.log_events import CoreEvent, LogEvent, PausedEvent, ResumedEvent, StartEvent
from tablehost.actors.tournament.kept import KeptTournament
from tablehost.actors.tournament.tournament import TournamentError
from tablehost.host.admin_auth import BadAdminToken, admin_token, verify_admin_token
from tablehost.host.admin_service import StatusCache
from tablehost.host.identity import Unauthenticated, hmac_verifier, player_token

SECRET = b"an admin secret of at least thirty-two bytes"


def test_an_admin_token_names_its_holder_until_it_expires() -> None:
    token = admin_token(SECRET, "ops.alice", 2_000)
    assert verify_admin_token(SECRET, token, 1_999) == "ops.alice"
    with pytest.raises(BadAdminToken, match="expired"):
        verify_admin_token(SECRET, token, 2_000)
    with pytest.raises(BadAdminToken, match="not signed with this host's"):
        verify_admin_token(b"another secret of at least thirty-two bytes!", token, 0)
    payload, signature = token.split(".")
    with pytest.raises(BadAdminToken, match="not signed"):
        verify_admin_token(SECRET, f"{payload[:-2]}AA.{signature}", 0)
    with pytest.raises(BadAdminToken, match="malformed"):
        verify_admin_token(SECRET, "x" * 2000, 0)


def test_a_player_token_is_not_an_admin_token_nor_the_other_way_round() -> None:
    """Even signed with the same secret: each is signed for its own purpose."""
    as_player = player_token(SECRET, "alice", 10_000)
    with pytest.raises(BadAdminToken, match="not signed"):
        verify_admin_token(SECRET, as_player, 0)
    with pytest.raises(Unauthenticated, match="not signed"):
        hmac_verifier(SECRET, lambda: 0)(admin_token(SECRET, "alice", 10_000))


def test_an_admin_name_is_checked_like_a_player_id() -> None:
    with pytest.raises(ValueError):
        admin_token(SECRET, "has spaces", 1)


class CountingLobby:
    def __init__(self) -> None:
        self.reads = 0
        self.gate = asyncio.Event()

    async def status(self) -> dict:
        self.reads += 1
        await self.gate.wait()
        return {"read": self.reads}


def test_the_status_is_read_once_per_interval_however_many_ask() -> None:
    now = [100.0]

    async def scenario() -> tuple[list, int, tuple, int, tuple]:
        lobby = CountingLobby()
        cache = StatusCache(lobby.status, interval_s=1.0, clock=lambda: now[0])
        waiting = [asyncio.ensure_future(cache.get()) for _ in range(50)]
        await asyncio.sleep(0)
        lobby.gate.set()
        together = await asyncio.gather(*waiting)
        now[0] += 0.5
        within = await cache.get()
        reads_within = lobby.reads
        now[0] += 0.6
        after = await cache.get()
        return together, reads_within, within, lobby.reads, after

    together, reads_within, within, reads_after, after = asyncio.run(scenario())
    assert reads_within == 1 and all(answer == ({"read": 1}, 0.0) for answer in together)
    assert within == ({"read": 1}, 0.5)
    assert reads_after == 2 and after == ({"read": 2}, 0.0)


def test_a_failed_read_fails_its_callers_and_the_next_call_reads_again() -> None:
    reads = []

    async def read() -> dict:
        reads.append(1)
        if len(reads) == 1:
            raise ConnectionError("lobby away")
        return {"ok": True}

    async def scenario():
        cache = StatusCache(read, interval_s=10.0, clock=lambda: 0.0)
        with pytest.raises(ConnectionError):
            await cache.get()
        return await cache.get()

    assert asyncio.run(scenario()) == ({"ok": True}, 0.0)
    assert len(reads) == 2


def _created() -> dict:
    return {"kind": "created", "name": "t", "max_players": 8, "no_show_after_s": 60, "spec": {
        "tournament_id": "t-0123456789abcdef", "game": "duel", "format": "swiss", "rounds": 2, "seats": 2,
        "seed": 1, "deal_key": "00" * 32}}


def test_a_pause_and_a_cancellation_are_replayed_from_the_log() -> None:
    kept = KeptTournament.replay([_created()])
    log = [_created()]

    def apply(event: LogEvent) -> None:
        kept.apply(event)
        log.append(event.to_plain())

    for player in ("a", "b", "c"):
        apply(CoreEvent(kept.core.register(player)))
    apply(StartEvent())
    apply(CoreEvent(kept.core.start_round()))
    apply(PausedEvent())
    assert kept.state == "paused" and KeptTournament.replay(log).state == "paused"
    apply(ResumedEvent())
    assert kept.state == "running" and KeptTournament.replay(log).state == "running"
    apply(CoreEvent(kept.core.cancel("cancelled by an administrator: rain")))
    replayed = KeptTournament.replay(log)
    assert kept.state == replayed.state == "finished"
    assert replayed.core.finish_reason == "cancelled by an administrator: rain"
    assert len(replayed.core.pending_tables()) == 1  # the round it was cancelled in stays unfinished
    with pytest.raises(TournamentError, match="has finished"):
        kept.core.cancel("again")
