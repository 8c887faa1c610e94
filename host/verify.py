"""`tablehost verify FILE ...`: check finished games as a player received them.

Each file is a ReceivedGame (clients/game_record.py: what the SDK's
`TableSession.received_game()` saves, and what `tablehost bots --record-dir`
writes for every bot). For each: the stream holds together, the revealed
seed opens the commitment given before the hello, the deal mixed in the
player's entropy, and a replay of every recorded command with the game's
rules gives every view hash the host published (games/engine/verification.py).
The first point of disagreement is printed; the exit code is 1 if any file
fails."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from tablehost.clients.game_record import ReceivedGame, RecordError
from tablehost.games.engine.verification import Disagreement, VerifiedGame, verify_game
from tablehost.games.registry import GameCatalog, UnknownGame


def verify_received(received: ReceivedGame, catalog: GameCatalog) -> VerifiedGame:
    """Every check, rule-free ones first; RecordError or Disagreement at the first that fails."""
    observed = received.check_deal()
    try:
        rules = catalog.rules(observed.record["header"]["game"])
    except UnknownGame as error:
        raise Disagreement("record", f"{error} (add it with --game-module)") from None
    except (KeyError, TypeError):
        raise Disagreement("record", "the game record has no header naming its game") from None
    entropy = received.entropy if observed.hello_before_deal and received.seat >= 0 else None
    return verify_game(rules, observed.record, received.seat, observed.published, received.deal_commitment, entropy)


def add_verify_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="games saved by the SDK or `tablehost bots --record-dir`")
    parser.add_argument("--game-module", action="append", default=[], metavar="MODULE:ATTRIBUTE",
                        help="know a game the host added with --game-module (repeatable)")
    parser.add_argument("--json", action="store_true", help="one JSON object per file")


def run_verify(args: argparse.Namespace) -> int:
    from tablehost.host.config_flags import game_module_paths

    catalog = GameCatalog.load(game_module_paths(args.game_module))
    failed = 0
    for name in args.files:
        outcome = _verify_file(Path(name), catalog)
        failed += not outcome["verified"]
        if args.json:
            print(json.dumps(outcome))
        elif outcome["verified"]:
            who = "spectator" if outcome["seat"] == -1 else f"seat {outcome['seat']}"
            print(f"verified {name}: table {outcome['table_id']} ({outcome['game']}), {who}, "
                  f"{outcome['changes']} changes replayed, {outcome['hashes_checked']} published hashes match")
        else:
            print(f"FAILED {name}: {outcome['where']}: {outcome['what']}")
    return 1 if failed else 0


def _verify_file(path: Path, catalog: GameCatalog) -> dict[str, Any]:
    try:
        received = ReceivedGame.from_json(path.read_text())
        verified = verify_received(received, catalog)
    except OSError as error:
        return {"file": str(path), "verified": False, "where": "file", "what": str(error)}
    except (ValueError, KeyError, TypeError) as error:
        return {"file": str(path), "verified": False, "where": "file", "what": f"not a saved game: {error!r}"}
    except (RecordError, Disagreement) as failure:
        return {"file": str(path), "verified": False, "where": failure.where, "what": failure.what}
    return {"file": str(path), "verified": True, "table_id": verified.table_id, "game": verified.game,
            "seat": verified.viewer, "changes": verified.changes, "hashes_checked": verified.hashes_checked}
