"""Turn timers (Big Two's automatic moves) and reconnects through the wire."""

from __future__ import annotations

import asyncio

import pytest
from conftest import run
from support import close_all, play_randomly, seat_table

from tablehost.games.bigtwo.cards import card_order
from tablehost.v1 import lobby_pb2, table_pb2

pytestmark = pytest.mark.integration


async def private_code(lobby_stub, timeout_ms: int) -> str:
    created = await lobby_stub.CreatePrivateTable(
        lobby_pb2.CreatePrivateTableRequest(game="bigtwo", turn_timeout_ms=timeout_ms)
    )
    return created.code


@pytest.mark.slow
def test_a_silent_players_turns_are_played_by_the_timer_and_the_game_ends(host) -> None:
    async def scenario():
        from tablehost.clients.sdk import LobbyClient

        async with LobbyClient(host.target) as creator:
            code = await private_code(creator.stub, 150)
        lobbies, sessions = await seat_table(host.target, code=code)
        silent = sessions[1]
        updates = silent.subscribe()
        try:
            await asyncio.gather(*(play_randomly(s, i) for i, s in enumerate(sessions) if s is not silent))
            result = await silent.wait_game_over(60)
        finally:
            await close_all(lobbies, sessions)
        seen = []
        while not updates.empty():
            seen.append(updates.get_nowait())
        return silent.seat, result, seen

    seat, result, updates = run(scenario(), timeout=180)
    assert sum(result.scores) == 0
    automatic = [u for u in updates if u.kind == "delta" and u.automatic]
    assert automatic, "the silent seat never timed out"
    for update in automatic:
        before, after = update.previous, update.view
        assert before["to_act"] == seat and update.act_id == ""
        if before["first_play"]:
            assert after["last_play"] == {"seat": seat, "kind": "single", "cards": ["3C"]}
        elif before["last_play"] is None:
            lowest = min(before["hand"], key=card_order)
            assert after["last_play"]["cards"] == [lowest]
        else:
            assert after["hand"] == before["hand"]  # a pass
    # deadlines are epoch ms and move forward with each turn
    deadlines = [u.view["deadline_ms"] for u in updates if u.kind == "delta" and u.view["deadline_ms"]]
    assert deadlines == sorted(deadlines) and deadlines[0] > 1_700_000_000_000


@pytest.mark.slow
def test_a_dropped_client_reconnects_with_its_last_seq_and_gets_exactly_the_missed_deltas(host) -> None:
    async def scenario():
        from tablehost.clients.sdk import LobbyClient

        async with LobbyClient(host.target) as creator:
            code = await private_code(creator.stub, 200)
        lobbies, sessions = await seat_table(host.target, code=code, record=True)
        dropped, witness = sessions[2], sessions[0]
        witness_updates, dropped_updates = witness.subscribe(), dropped.subscribe()
        try:
            others = [asyncio.ensure_future(play_randomly(s, i)) for i, s in enumerate(sessions) if s is not dropped]
            while dropped.seq < 3:
                await asyncio.wait_for(dropped_updates.get(), 30)
            await dropped.drop()
            held = dropped.seq
            received_before = len(dropped.received)
            while witness.seq < held + 4 and witness.result is None:
                await asyncio.wait_for(witness_updates.get(), 30)
            await dropped.reconnect()
            while dropped.seq < held + 4:
                await asyncio.wait_for(dropped_updates.get(), 30)
            replayed = [table_pb2.ServerMessage.FromString(raw) for raw in dropped.received[received_before:]]
            await play_randomly(dropped, 99)
            await asyncio.gather(*others)
            await dropped.wait_game_over(30)
            return held, replayed, dropped, witness
        finally:
            await close_all(lobbies, sessions)

    held, replayed, dropped, witness = run(scenario(), timeout=180)
    kinds = [m.WhichOneof("kind") for m in replayed]
    assert "snapshot" not in kinds
    delta_seqs = [m.delta.seq for m in replayed if m.HasField("delta")]
    assert delta_seqs[: 4] == [held + 1, held + 2, held + 3, held + 4]
    assert delta_seqs == list(range(held + 1, held + 1 + len(delta_seqs)))
    assert dropped.reconnects == 1 and dropped.desyncs == 0 and dropped.gaps == 0
    assert dropped.result is not None and dropped.result.scores == witness.result.scores
