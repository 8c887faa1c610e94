"""Provably fair deals over the wire: bots play Big Two, Duel and Kingdoms
through the real host, each saving its game as it received it; every saved
game verifies (the commitment given before the hello opens with the seed
revealed at the end, the deal mixed in the bot's entropy, and a replay of
every command gives every view hash the host published), with the library
call and with `tablehost verify`. A game altered in any of the ways a
dishonest host or a forger could (the seed, a command, a published hash,
the commitment) fails, naming the first point of disagreement."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run

from tablehost.clients.bots import bot_factories
from tablehost.clients.codec import decode, encode
from tablehost.clients.game_record import ReceivedGame, RecordError
from tablehost.clients.loadrun import format_summary, run_tables
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.verification import Disagreement
from tablehost.games.registry import GameCatalog
from tablehost.host.verify import verify_received
from tablehost.v1 import table_pb2

pytestmark = [pytest.mark.integration, pytest.mark.slow]
CATALOG = GameCatalog.load()
GAMES = {"bigtwo": (2, "greedy"), "duel": (2, "greedy"), "kingdoms": (1, "rules")}


@pytest.fixture(scope="module")
def recorded(host, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Path]]:
    """Each game's saved games, from bots that played them to the end."""
    saved = {}
    for game, (tables, bot) in GAMES.items():
        rules = CATALOG.rules(game)
        folder = tmp_path_factory.mktemp(game)
        summary = run(run_tables(host.target, game, tables, bot=bot, seed=3, timeout_s=90,
                                 seats_per_table=rules.table_seats(), bots=bot_factories(rules.bots()),
                                 join_data=rules.example_join(), record_dir=folder))
        assert summary.ok, format_summary(summary)
        saved[game] = sorted(folder.glob("*.json"))
        assert len(saved[game]) == summary.bots_expected
    return saved


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_seat_of_every_game_verifies(recorded: dict[str, list[Path]], game: str) -> None:
    for path in recorded[game]:
        received = ReceivedGame.from_json(path.read_text())
        verified = verify_received(received, CATALOG)
        assert verified.game == game and verified.viewer == received.seat
        assert verified.hashes_checked >= verified.changes, "every change the seat received was checked"
        observed = received.observe()
        assert observed.hello_before_deal, "the bot said hello before the deal, so its entropy was mixed in"
        assert observed.record["commands"][0]["action"]["entropy"][received.seat] == received.entropy.hex()


def test_tablehost_verify_accepts_every_saved_game(recorded: dict[str, list[Path]]) -> None:
    files = [str(path) for paths in recorded.values() for path in paths]
    done = subprocess.run([sys.executable, "-m", "tablehost.host.cli", "verify", "--json", *files],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    outcomes = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(outcomes) == len(files) and all(outcome["verified"] for outcome in outcomes)


# -- what a forger or a dishonest host might change -----------------------------------


def altered(path: Path, change) -> ReceivedGame:
    """The saved game with one message changed by `change(kind, message)`,
    which returns True once it changed something."""
    received = ReceivedGame.from_json(path.read_text())
    for index, raw in enumerate(received.messages):
        message = table_pb2.ServerMessage.FromString(raw)
        if change(message.WhichOneof("kind"), message):
            received.messages[index] = message.SerializeToString()
            return received
    raise AssertionError("nothing was altered")


def with_record(message: table_pb2.ServerMessage, change) -> bool:
    record = decode(message.game_over.record)
    change(record)
    message.game_over.record = encode(record)
    return True


def failure_of(received: ReceivedGame) -> Exception:
    with pytest.raises((RecordError, Disagreement)) as failure:
        verify_received(received, CATALOG)
    return failure.value


def test_an_altered_seed_is_rejected(recorded: dict[str, list[Path]]) -> None:
    forged = TableSeed.numbered(1)

    def change(kind: str, message: table_pb2.ServerMessage) -> bool:
        return kind == "game_over" and with_record(message, lambda r: r["header"].update(seed=forged.seed))
    failure = failure_of(altered(recorded["bigtwo"][0], change))
    assert failure.where == "record" and "seed" in failure.what


def test_an_altered_command_is_rejected_at_its_seq(recorded: dict[str, list[Path]]) -> None:
    """A Big Two play turned into a pass: every seat sees plays and passes,
    so the replay disagrees at that very seq (a pass the rules refuse, or
    hands of other sizes)."""
    altered_seq = []

    def play_turned_into_a_pass(record: dict) -> None:
        index = next(i for i, c in enumerate(record["commands"]) if i > 4 and c["action"]["type"] == "play")
        record["commands"][index]["action"] = {"type": "pass"}
        altered_seq.append(index + 1)

    def change(kind: str, message: table_pb2.ServerMessage) -> bool:
        return kind == "game_over" and with_record(message, play_turned_into_a_pass)
    failure = failure_of(altered(recorded["bigtwo"][0], change))
    assert failure.where == f"seq {altered_seq[0]}"


def test_an_altered_hash_is_rejected_at_its_seq(recorded: dict[str, list[Path]]) -> None:
    def change(kind: str, message: table_pb2.ServerMessage) -> bool:
        if kind != "delta" or message.delta.seq != 3:
            return False
        message.delta.view_hash = "0" * 64
        return True
    failure = failure_of(altered(recorded["kingdoms"][0], change))
    assert failure.where == "seq 3"


def test_a_commitment_that_does_not_match_is_rejected(recorded: dict[str, list[Path]]) -> None:
    received = ReceivedGame.from_json(recorded["bigtwo"][1].read_text())
    received.deal_commitment = TableSeed.numbered(2).commitment  # not what the views show
    assert failure_of(received).where == "seq 0"


def test_tablehost_verify_names_the_first_disagreement_and_exits_1(recorded: dict[str, list[Path]],
                                                                  tmp_path: Path) -> None:
    saved = json.loads(recorded["bigtwo"][0].read_text())
    saved["deal_commitment"] = TableSeed.numbered(4).commitment
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(saved))
    done = subprocess.run([sys.executable, "-m", "tablehost.host.cli", "verify", str(forged),
                           str(recorded["bigtwo"][1])], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"FAILED {forged}: seq 0: the views show commitment")
    assert lines[1].startswith(f"verified {recorded['bigtwo'][1]}")
