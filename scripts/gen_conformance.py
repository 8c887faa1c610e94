"""Regenerate the conformance kit (protos/conformance/*.json), the test
vectors an SDK in any language checks its codec against:

    python scripts/gen_conformance.py           # write protos/conformance/*.json
    python scripts/gen_conformance.py --check   # exit 1 if the committed vectors are stale
    python scripts/gen_conformance.py --out DIR # write them somewhere else

Every expected value is computed by the HOST's own code
(tablehost.games.engine.views: the encoder, decoder, diff and delta bytes a
room uses, and the Big Two rules for real views), never by the client SDK,
so the vectors are the host's truth and the Python SDK is checked against
them like any other (tests/unit/test_conformance_vectors.py). The inputs
are chosen here; protos/conformance/README.md documents the format.
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
import tempfile
from pathlib import Path
from typing import Any

from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.registry import DUEL, KINGDOMS
from tablehost.games.engine import views
from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Match

ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE = ROOT / "protos" / "conformance"
FORMAT_VERSION = 1
COMMAND = "python scripts/gen_conformance.py"


class Float(float):
    """A float in a `refused` vector: the encoder must refuse it."""


# -- values as JSON (the tagged form protos/conformance/README.md describes) ---------


def to_json(value: Any) -> Any:
    """JSON null, true, false, strings and arrays stand for themselves; an
    integer is {"int": decimal} (exact in every language), a byte string
    {"bin": hex}, a map {"map": [[key, value], ...]} in the order given
    (unsorted on purpose), a float {"float": repr}."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, float):
        return {"float": repr(float(value))}
    if isinstance(value, int):
        return {"int": str(value)}
    if isinstance(value, (bytes, bytearray)):
        return {"bin": bytes(value).hex()}
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    if isinstance(value, dict):
        return {"map": [[key if isinstance(key, str) else to_json(key), to_json(item)] for key, item in value.items()]}
    raise TypeError(f"no JSON form for {value!r}")


# -- inputs ---------------------------------------------------------------------------

_ORDER_KEYS = {
    # Listed in an order that no correct encoder keeps.
    "b": 1, "ab": 2, "aa": 3, "a": 4, "B": 5, "": 6,
}
# U+FF5E sorts before U+1F600 by UTF-8 bytes (EF BD 9E < F0 9F 98 80) but after
# it by UTF-16 code units (FF5E > D83D): the order JavaScript, Java and C#
# compare strings in by default.
_UTF16_TRAP = {"\U0001f600": "grinning face", "\uff5e": "fullwidth tilde"}
_PRIVATE_USE_TRAP = {"\U00010000": 1, "\ue000": 2, "\u00e9": 3, "z": 4}


def encoding_inputs() -> list[tuple[str, Any]]:
    ints = [
        ("positive fixint 0", 0), ("positive fixint 1 (an integer, not true)", 1),
        ("positive fixint 127", 127), ("uint8 128", 128), ("uint8 255", 255), ("uint16 256", 256),
        ("uint16 65535", 65535), ("uint32 65536", 65536), ("uint32 2^32-1", 2**32 - 1), ("uint64 2^32", 2**32),
        ("uint64 2^53", 2**53), ("uint64 2^53+1 (not a double)", 2**53 + 1), ("uint64 2^63-1", 2**63 - 1),
        ("uint64 2^63 (above int64)", 2**63), ("uint64 2^64-1", 2**64 - 1),
        ("negative fixint -1", -1), ("negative fixint -32", -32), ("int8 -33", -33), ("int8 -128", -128),
        ("int16 -129", -129), ("int16 -32768", -32768), ("int32 -32769", -32769), ("int32 -2^31", -(2**31)),
        ("int64 -2^31-1", -(2**31) - 1), ("int64 -2^53-1 (not a double)", -(2**53) - 1), ("int64 -2^63", -(2**63)),
    ]
    strings = [
        ("empty string", ""), ("fixstr", "a"), ("fixstr of 31 bytes", "a" * 31), ("str8 of 32 bytes", "a" * 32),
        ("str8 of 255 bytes", "a" * 255), ("str16 of 256 bytes", "a" * 256),
        ("two-byte UTF-8", "\u00e9"), ("three-byte UTF-8", "\u65e5\u672c"),
        ("four-byte UTF-8 (a surrogate pair in UTF-16)", "\U0001f600"),
        ("the header counts UTF-8 bytes: 11 characters, 33 bytes, str8", "\u65e5" * 11),
        ("NUL inside a string", "a\u0000b"), ("a string that looks like a number stays a string", "1"),
        ("a string that looks like a boolean stays a string", "true"),
    ]
    binaries = [
        ("empty byte string (bin has no fix form)", b""), ("bin8", b"\x00\xff"), ("bin8 of 255 bytes", bytes(255)),
        ("bin16 of 256 bytes", bytes(range(256))), ("bytes and a string of the same text differ", [b"abc", "abc"]),
    ]
    arrays = [
        ("empty array", []), ("array of an empty array", [[]]), ("fixarray of 15", list(range(15))),
        ("array16 of 16", list(range(16))),
        ("booleans, integers, nil and strings keep their types", [1, True, 0, False, None, "1", b"1"]),
        ("nested arrays", [[1, [2, [3, []]]]]),
    ]
    maps = [
        ("empty map", {}), ("map with an empty map", {"a": {}}), ("empty key", {"": 0}),
        ("keys ordered by UTF-8 bytes", dict(_ORDER_KEYS)),
        ("U+FF5E before U+1F600 (UTF-16 order is the reverse)", dict(_UTF16_TRAP)),
        ("U+E000 before U+10000, and both after U+00E9", dict(_PRIVATE_USE_TRAP)),
        ("fixmap of 15", {f"k{i:02d}": i for i in reversed(range(15))}),
        ("map16 of 16", {f"k{i:02d}": i for i in reversed(range(16))}),
        ("nested maps sorted at every level", {"z": {"y": {"b": 2, "a": 1}, "x": []}, "a": {"d": None, "c": {}}}),
        ("a boolean and an integer under keys", {"flag": True, "count": 1, "off": False, "zero": 0}),
        ("negative numbers in a map", {"n": -1, "m": -129, "l": -(2**63)}),
        ("a view-like map", {
            "seat": 0, "hand": ["3C", "4D", "2S"], "rng": 2**64 - 1,
            "request": {"legal_actions": [{"type": "play", "cards": ["3C"]}, {"type": "pass"}],
                        "deadline_ms": 1_700_000_020_000, "default": None},
            "players": ["ann", "\u00e9ric", "\u5c0f\u660e", "\U0001f600"], "result": None,
        }),
    ]
    return [("nil", None), ("true", True), ("false", False), *ints, *strings, *binaries, *arrays, *maps]


def _uint(marker: int, fmt: str, value: int) -> bytes:
    return bytes([marker]) + struct.pack(fmt, value)


def decoding_inputs() -> list[tuple[str, bytes]]:
    """Valid MessagePack that is not canonical (or canonical but easy to get
    wrong): a decoder takes it exactly, an encoder writes it back smallest."""
    return [
        ("1 as uint8", _uint(0xCC, ">B", 1)),
        ("1 as uint16", _uint(0xCD, ">H", 1)),
        ("1 as uint32", _uint(0xCE, ">I", 1)),
        ("1 as uint64", _uint(0xCF, ">Q", 1)),
        ("1 as int8", _uint(0xD0, ">b", 1)),
        ("0 as int64", _uint(0xD3, ">q", 0)),
        ("127 as int8", _uint(0xD0, ">b", 127)),
        ("200 as int16 (non-negative is written unsigned)", _uint(0xD1, ">h", 200)),
        ("-1 as int8", _uint(0xD0, ">b", -1)),
        ("-1 as int64", _uint(0xD3, ">q", -1)),
        ("-100 as int32", _uint(0xD2, ">i", -100)),
        ("2^53+1 as int64 (a double would round it)", _uint(0xD3, ">q", 2**53 + 1)),
        ("2^63-1 as int64", _uint(0xD3, ">q", 2**63 - 1)),
        ("2^64-1 as uint64 (canonical; no signed 64-bit type holds it)", _uint(0xCF, ">Q", 2**64 - 1)),
        ("-2^63 as int64 (canonical)", _uint(0xD3, ">q", -(2**63))),
        ("-2^53-1 as int64 (canonical; a double would round it)", _uint(0xD3, ">q", -(2**53) - 1)),
        ("fixstr written as str8", bytes.fromhex("d90161")),
        ("fixstr written as str16", bytes.fromhex("da000161")),
        ("fixstr written as str32", bytes.fromhex("db0000000161")),
        ("bin8 written as bin16", bytes.fromhex("c50000")),
        ("bin8 written as bin32", bytes.fromhex("c60000000201ff")),
        ("fixarray written as array16", bytes.fromhex("dc000101")),
        ("fixarray written as array32", bytes.fromhex("dd0000000101")),
        ("fixmap written as map16", bytes.fromhex("de0001a16101")),
        ("fixmap written as map32", bytes.fromhex("df00000001a16101")),
        ("map keys out of order", bytes.fromhex("82a16201a16102")),
        ("map keys in UTF-16 order", b"\x82\xa4" + "\U0001f600".encode() + b"\x01\xa3" + "\uff5e".encode() + b"\x02"),
        ("unsorted map inside an array inside a map",
         bytes.fromhex("81a17891") + bytes.fromhex("83a17a01a17902a17803")),
    ]


def refused_inputs() -> list[tuple[str, Any, str]]:
    return [
        ("a float", Float(0.5), "the canonical encoding has no floats"),
        ("an integral float", Float(1.0), "the canonical encoding has no floats, even integral ones"),
        ("a float inside a map", {"a": [1, Float(2.5)]}, "the canonical encoding has no floats"),
        ("2^64", 2**64, "beyond the 64-bit range"),
        ("-2^63-1", -(2**63) - 1, "beyond the 64-bit range"),
        ("an integer map key", {1: "x"}, "map keys are strings"),
        ("a byte-string map key", {b"a": "x"}, "map keys are strings"),
        ("a nested integer map key", {"a": {2: "x"}}, "map keys are strings"),
    ]


def _bigtwo_match() -> Match:
    return Match(BIGTWO, TableSeed.numbered(20260101), ["ann", "\u00e9ric", "\u5c0f\u660e", "\U0001f600"], {}, 1_700_000_000_000)


def _bigtwo_moves(match: Match, count: int) -> list[tuple[int | None, dict[str, Any], dict[str, Any]]]:
    """(viewer, view before, view after) for every viewer, over `count`
    moves of the last listed action (a pass where passing is allowed), at a
    fixed clock."""
    viewers: list[int | None] = [0, 1, 2, 3, None]
    pairs: list[tuple[int | None, dict[str, Any], dict[str, Any]]] = []
    now = 1_700_000_000_000
    for _ in range(count):
        before = match.views(viewers)
        seat = BIGTWO.to_act(match.state)
        assert seat is not None
        now += 1_000
        match.act(seat, before[seat]["request"]["legal_actions"][-1], now)
        after = match.views(viewers)
        pairs.extend((viewer, before[viewer], after[viewer]) for viewer in viewers)
    return pairs


def _duel_match() -> Match:
    return Match(DUEL, TableSeed.numbered(20261204), ["ann", "\u00e9ric"], {}, 1_700_000_000_000,
                 [DUEL.accepted_join({"deck": "mage-basic"}), DUEL.accepted_join({"deck": "hunter-basic"})])


def _kingdoms_match() -> Match:
    return Match(KINGDOMS, TableSeed.numbered(20261204), ["ann", "\u00e9ric", "\u5c0f\u660e"], {},
                 1_700_000_000_000)


def _moves(match: Match, count: int) -> list[tuple[int | None, dict[str, Any], dict[str, Any]]]:
    """(viewer, view before, view after) for every seat and a spectator, over
    `count` moves, each the first asked seat's first listed action (its
    default when none is listed), at a fixed clock: games that ask several
    seats at once and out of turn (Duel's mulligan, Kingdoms)."""
    viewers: list[int | None] = [*range(len(match.players)), None]
    pairs: list[tuple[int | None, dict[str, Any], dict[str, Any]]] = []
    now = 1_700_000_000_000
    for _ in range(count):
        before = match.views(viewers)
        request = match.requests[0]
        now += 1_000
        match.act(request.seat, (request.legal_actions or [request.default])[0], now)
        after = match.views(viewers)
        pairs.extend((viewer, before[viewer], after[viewer]) for viewer in viewers)
    return pairs


def hash_inputs() -> list[tuple[str, dict[str, Any]]]:
    match = _bigtwo_match()
    duel = _duel_match()
    kingdoms = _kingdoms_match()
    return [
        ("the example of docs/protocol.md section 4", {"b": 1, "a": [True, None]}),
        ("the empty view", {}),
        ("unicode keys and values", {**_UTF16_TRAP, **_PRIVATE_USE_TRAP}),
        ("64-bit integers", {"max": 2**64 - 1, "min": -(2**63), "double_breaker": 2**53 + 1}),
        ("Big Two, seat 0 at the deal", match.view(0)),
        ("Big Two, the seat to act at the deal (with its request)", match.view(BIGTWO.to_act(match.state))),
        ("Big Two, a spectator at the deal", match.view(None)),
        ("Duel, seat 0 in the mulligan (with its request)", duel.view(0)),
        ("Duel, a spectator in the mulligan", duel.view(None)),
        ("Kingdoms, the lord choosing a general (with its request)", kingdoms.view(kingdoms.requests[0].seat)),
        ("Kingdoms, a spectator while the lord chooses", kingdoms.view(None)),
    ]


def delta_inputs() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(name, old view, new view): the host computes the delta between them."""
    base: dict[str, Any] = {"a": {"b": 1, "c": {"d": [1, 2], "e": "x"}}, "n": 1, "s": "text", "list": [1, 2, 3]}
    cases: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
        ("an unchanged view gives the empty delta", base, base),
        ("a top-level value changes", base, {**base, "n": 2}),
        ("a key is added", base, {**base, "new": {"x": 1}}),
        ("a key is deleted", base, {k: v for k, v in base.items() if k != "s"}),
        ("a nested value changes", base, {**base, "a": {"b": 2, "c": base["a"]["c"]}}),
        ("a nested key is deleted", base, {**base, "a": {"c": base["a"]["c"]}}),
        ("deletions and changes three levels down",
         base, {**base, "a": {"b": 1, "c": {"d": [1, 2], "f": None}}}),
        ("an array changes and is replaced whole", base, {**base, "list": [1, 2, 3, 4]}),
        ("a map becomes an array, replaced whole", base, {**base, "a": ["b", "c"]}),
        ("a string becomes a map, replaced whole", base, {**base, "s": {"t": 1}}),
        ("1 becomes true: equal in some languages, different bytes", base, {**base, "n": True}),
        ("a map is emptied and stays as an empty map", {"m": {"x": 1, "y": 2}}, {"m": {}}),
        ("an empty map gains a key", {"m": {}}, {"m": {"x": 1}}),
        ("a value becomes null (set, not deleted)", base, {**base, "n": None}),
        ("unicode keys on the path", {"\uff5e": {"\U0001f600": 1}}, {"\uff5e": {"\U0001f600": 2, "\ue000": 3}}),
        ("64-bit values", {"rng": 1}, {"rng": 2**64 - 1, "low": -(2**63)}),
        ("an answered request is deleted",
         {"seat": 0, "request": {"legal_actions": [{"type": "pass"}], "deadline_ms": None, "default": None}},
         {"seat": 0}),
    ]
    match = _bigtwo_match()
    for index, (viewer, before, after) in enumerate(_bigtwo_moves(match, 2)):
        who = "a spectator" if viewer is None else f"seat {viewer}"
        cases.append((f"Big Two, move {index // 5 + 1}, as {who} sees it", before, after))
    for game, other, moves in (("Duel", _duel_match(), 3), ("Kingdoms", _kingdoms_match(), 4)):
        viewers = len(other.players) + 1
        for index, (viewer, before, after) in enumerate(_moves(other, moves)):
            who = "a spectator" if viewer is None else f"seat {viewer}"
            cases.append((f"{game}, move {index // viewers + 1}, as {who} sees it", before, after))
    return cases


def handmade_delta_inputs() -> list[tuple[str, dict[str, Any], list[Any]]]:
    """Valid deltas the host's diff would not write but the format allows:
    an SDK applies every operation in order."""
    view = {"a": {"b": 1}, "n": 1}
    return [
        ("a later operation overrides an earlier one", view, [[["n"], 2], [["n"], 3]]),
        ("a key deleted, then set again", view, [[["n"]], [["n"], "back"]]),
        ("a map created, then a key set inside it", view, [[["m"], {}], [["m", "k"], 1]]),
        ("a map set whole replaces the old map", view, [[["a"], {"c": 2}]]),
        ("a nested key added to an existing map", view, [[["a", "z"], [True, None]]]),
    ]


def invalid_delta_inputs() -> list[tuple[str, list[Any] | Any, str]]:
    """Deltas that cannot apply to INVALID_BASE: the views have diverged."""
    return [
        ("delete a key the view lacks", [[["missing"]]], "a deletion names a key that is not there"),
        ("delete a nested key the map lacks", [[["a", "missing"]]], "a deletion names a key that is not there"),
        ("a path through a missing key", [[["nowhere", "x"], 1]], "every key but the last names a map that exists"),
        ("a path through an integer", [[["n", "x"], 1]], "every key but the last names a map that exists"),
        ("a path through an array of two-character strings", [[["hand", "x"], 1]],
         "every key but the last names a map that exists (an array is not a map)"),
        ("an array index in a path", [[["hand", 0], "5S"]], "paths are map keys, which are strings"),
        ("an integer as the last key", [[[0], 1]], "paths are map keys, which are strings"),
        ("a byte string in a path", [[[b"n"], 2]], "paths are map keys, which are strings"),
        ("an empty path", [[[], 1]], "a path is a non-empty array"),
        ("a path that is a string, not an array", [["n", 2]], "a path is a non-empty array"),
        ("an operation of three elements", [[["n"], 1, 2]], "an operation is [path] or [path, value]"),
        ("an empty operation", [[]], "an operation is [path] or [path, value]"),
        ("an operation that is not an array", ["n"], "an operation is [path] or [path, value]"),
        ("a delta that is a map", {"n": 2}, "a delta is an array of operations"),
        ("a delta that is nil", None, "a delta is an array of operations"),
        ("a valid operation, then one that cannot apply: the whole delta is refused",
         [[["n"], 2], [["missing"]]], "a deletion names a key that is not there; the first operation must not stick"),
    ]


INVALID_BASE = {"a": {"b": 1}, "hand": ["3C", "4D"], "n": 1}


# -- the vectors ------------------------------------------------------------------------


def _hex(data: bytes) -> str:
    return data.hex()


def encoding_vectors() -> list[dict[str, Any]]:
    cases = []
    for name, value in encoding_inputs():
        data = views.canonical_bytes(value)
        assert views.decode(data) == value, f"the host does not read back {name!r}"
        cases.append({"name": name, "value": to_json(value), "hex": _hex(data)})
    return cases


def decoding_vectors() -> list[dict[str, Any]]:
    cases = []
    for name, data in decoding_inputs():
        value = views.decode(data)
        cases.append({"name": name, "hex": _hex(data), "value": to_json(value),
                      "canonical_hex": _hex(views.canonical_bytes(value))})
    return cases


def refused_vectors() -> list[dict[str, Any]]:
    cases = []
    for name, value, why in refused_inputs():
        try:
            views.canonical_bytes(value)
        except (TypeError, ValueError, OverflowError):
            pass
        else:
            raise AssertionError(f"the host encoded {name!r}, which the kit says it refuses")
        cases.append({"name": name, "value": to_json(value), "why": why})
    return cases


def hash_vectors() -> list[dict[str, Any]]:
    cases = []
    for name, view in hash_inputs():
        data = views.canonical_bytes(view)
        encoded = views.encode_view(view)
        assert encoded.data == data, f"encode_view and canonical_bytes disagree on {name!r}"
        cases.append({"name": name, "view": to_json(view), "hex": _hex(data), "view_hash": views.view_hash(view)})
    return cases


def delta_vectors() -> list[dict[str, Any]]:
    cases = []
    for name, old, new in delta_inputs():
        # What a room sends: delta_bytes over the encoded views, as in actors/view_log.py.
        wire = views.delta_bytes(views.encode_view(old), views.encode_view(new))
        delta = views.decode(wire)
        assert wire == views.canonical_bytes(views.diff(old, new)), f"the room's delta bytes differ on {name!r}"
        assert views.apply_delta(old, delta) == new
        cases.append(_delta_case(name, old, delta, wire, new))
    for name, old, delta in handmade_delta_inputs():
        new = views.apply_delta(old, delta)
        cases.append(_delta_case(name, old, delta, views.canonical_bytes(delta), new))
    return cases


def _delta_case(name: str, old: dict[str, Any], delta: Any, wire: bytes, new: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": name,
        "view": to_json(old),
        "view_hash": views.view_hash(old),
        "delta": to_json(delta),
        "delta_hex": _hex(wire),
        "expected_view": to_json(new),
        "expected_view_hash": views.view_hash(new),
    }


def invalid_delta_vectors() -> list[dict[str, Any]]:
    return [
        {"name": name, "view": to_json(INVALID_BASE), "view_hash": views.view_hash(INVALID_BASE),
         "delta": to_json(delta), "delta_hex": _hex(views.canonical_bytes(delta)), "why": why}
        for name, delta, why in invalid_delta_inputs()
    ]


FILES = {
    "encoding.json": ("Values and their canonical MessagePack bytes: encode(value) == hex, decode(hex) == value.",
                      encoding_vectors),
    "decoding.json": ("Valid MessagePack that an SDK must decode exactly (decode(hex) == value) and write back "
                      "canonically (encode(value) == canonical_hex).", decoding_vectors),
    "refused.json": ("Values the canonical encoding has no form for: an encoder raises an error.", refused_vectors),
    "hashes.json": ("Views, their canonical bytes and their view hash (lowercase hex SHA-256 of the bytes).",
                    hash_vectors),
    "deltas.json": ("Deltas applied to a view: apply(view, decode(delta_hex)) == expected_view, whose hash is "
                    "expected_view_hash; the view given is left as it was.", delta_vectors),
    "invalid_deltas.json": ("Deltas that do not fit their view: an SDK refuses the whole delta and keeps the view "
                            "it had (see README.md).", invalid_delta_vectors),
}


def render(name: str) -> str:
    """The file's JSON: a header, then one case a line, so a change to the
    host's encoding shows in a diff as the cases it changed. ASCII only
    (every other character escaped), so no editor or checkout can alter it."""
    description, make = FILES[name]
    header = {"format_version": FORMAT_VERSION, "generated_by": COMMAND, "description": description}
    lines = [f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=True)}," for key, value in header.items()]
    cases = [json.dumps(case, ensure_ascii=True) for case in make()]
    return "{\n" + "\n".join(lines) + '\n "cases": [\n  ' + ",\n  ".join(cases) + "\n ]\n}\n"


def generate(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        (out_dir / name).write_text(render(name), encoding="ascii")


def stale_files(committed: Path = CONFORMANCE) -> list[str]:
    """Vector files that differ from what this script writes now (or are
    missing, or are left over from an older version of the kit)."""
    with tempfile.TemporaryDirectory() as scratch:
        fresh = Path(scratch)
        generate(fresh)
        stale = [name for name in sorted(FILES)
                 if not (committed / name).exists() or (committed / name).read_bytes() != (fresh / name).read_bytes()]
    stale += [path.name for path in sorted(committed.glob("*.json")) if path.name not in FILES]
    return stale


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the committed vectors are stale")
    parser.add_argument("--out", type=Path, default=CONFORMANCE, help="where to write the vectors")
    args = parser.parse_args()
    if args.check:
        stale = stale_files(args.out)
        if stale:
            print(f"stale conformance vectors in {args.out} (run {COMMAND}):", *stale, sep="\n  ")
            sys.exit(1)
        print("conformance vectors are up to date")
    else:
        generate(args.out)


if __name__ == "__main__":
    main()
