"""The Python SDK's codec (clients/codec.py) against the conformance kit
(protos/conformance/), read the way protos/conformance/README.md tells an SDK
in another language to read it; and the kit against the host: committed
vectors that `python scripts/gen_conformance.py` would now write differently
are stale, and fail here."""

from __future__ import annotations

import copy
import importlib.util
import json
import re
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tablehost.clients import codec
from tablehost.games.engine import views

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "protos" / "conformance"
SCRIPT = ROOT / "scripts" / "gen_conformance.py"


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_conformance", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def from_json(value: Any) -> Any:
    """A value of the kit's tagged JSON form as a Python value."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, list):
        return [from_json(item) for item in value]
    (tag, body), = value.items()
    if tag == "int":
        return int(body)
    if tag == "bin":
        return bytes.fromhex(body)
    if tag == "float":
        return float(body)
    if tag == "map":
        return {(key if isinstance(key, str) else from_json(key)): from_json(item) for key, item in body}
    raise ValueError(f"unknown tag {tag!r}")


def same(a: Any, b: Any) -> bool:
    """Equal with equal types all the way down: 1 is not true, b"a" is not "a"."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[key], b[key]) for key in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(same, a, b))
    return a == b


def cases(file: str) -> list[Any]:
    document = json.loads((KIT / file).read_text(encoding="ascii"))
    assert document["format_version"] == 1
    return [pytest.param(case, id=case["name"]) for case in document["cases"]]


def test_every_file_of_the_kit_has_cases() -> None:
    """A file that lost its cases would make every test below pass vacuously."""
    for file in ("encoding.json", "decoding.json", "refused.json", "hashes.json", "deltas.json",
                 "invalid_deltas.json"):
        assert len(cases(file)) >= 5, file


@pytest.mark.parametrize("case", cases("encoding.json"))
def test_the_sdk_writes_each_value_in_its_canonical_bytes(case: dict[str, Any]) -> None:
    value = from_json(case["value"])
    assert codec.encode(value).hex() == case["hex"]
    assert same(codec.decode(bytes.fromhex(case["hex"])), value)


@pytest.mark.parametrize("case", cases("decoding.json"))
def test_the_sdk_reads_any_valid_form_exactly_and_writes_it_back_smallest(case: dict[str, Any]) -> None:
    decoded = codec.decode(bytes.fromhex(case["hex"]))
    assert same(decoded, from_json(case["value"]))
    assert codec.encode(decoded).hex() == case["canonical_hex"]


@pytest.mark.parametrize("case", cases("refused.json"))
def test_the_sdk_refuses_values_without_a_canonical_form(case: dict[str, Any]) -> None:
    with pytest.raises(codec.CanonicalEncodingError):
        codec.encode(from_json(case["value"]))


@pytest.mark.parametrize("case", cases("hashes.json"))
def test_the_sdk_hashes_each_view_as_the_host_does(case: dict[str, Any]) -> None:
    view = from_json(case["view"])
    assert codec.encode(view).hex() == case["hex"]
    assert codec.view_hash(view) == case["view_hash"]


@pytest.mark.parametrize("case", cases("deltas.json"))
def test_the_sdk_applies_each_delta_to_the_hosts_next_view(case: dict[str, Any]) -> None:
    view = from_json(case["view"])
    before = copy.deepcopy(view)
    assert codec.view_hash(view) == case["view_hash"]
    delta = codec.decode(bytes.fromhex(case["delta_hex"]))
    assert same(delta, from_json(case["delta"]))
    applied = codec.apply_delta(view, delta)
    assert same(applied, from_json(case["expected_view"]))
    assert codec.view_hash(applied) == case["expected_view_hash"]
    assert same(view, before), "applying a delta must leave the view it was given as it was"


@pytest.mark.parametrize("case", cases("invalid_deltas.json"))
def test_the_sdk_refuses_each_delta_that_does_not_fit_and_keeps_its_view(case: dict[str, Any]) -> None:
    view = from_json(case["view"])
    before = copy.deepcopy(view)
    delta = codec.decode(bytes.fromhex(case["delta_hex"]))
    assert same(delta, from_json(case["delta"]))
    with pytest.raises(codec.DeltaError):
        codec.apply_delta(view, delta)
    assert same(view, before)
    assert codec.view_hash(view) == case["view_hash"]


def test_the_committed_vectors_are_what_the_host_writes_now() -> None:
    assert load_generator().stale_files() == [], "run: python scripts/gen_conformance.py"


def test_a_changed_or_unknown_vector_file_is_reported_stale(tmp_path: Path) -> None:
    generator = load_generator()
    for file in KIT.glob("*.json"):
        shutil.copy(file, tmp_path / file.name)
    edited = tmp_path / "hashes.json"
    edited.write_text(edited.read_text(encoding="ascii").replace('"view_hash": "', '"view_hash": "0', 1),
                      encoding="ascii")
    (tmp_path / "leftover.json").write_text("{}", encoding="ascii")
    assert generator.stale_files(tmp_path) == ["hashes.json", "leftover.json"]


def test_the_protocol_pages_delta_example_is_what_the_host_sends_and_the_sdk_applies() -> None:
    """docs/protocol.md section 5 shows a delta with deletions, its bytes and
    the hash after it: the page must stay true to the host."""
    page = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = page[page.index("Example, with deletions"):page.index("## 6.")]
    before_block, delta_block = re.findall(r"```\n(.*?)```", section, re.DOTALL)
    old = json.loads(before_block)
    delta_line, _, hex_lines = delta_block.partition("\n\n")
    wire = bytes.fromhex(hex_lines)
    shown_view = re.search(r"give the view of seq N, `(.*?)`", section, re.DOTALL)
    shown_hash = re.search(r"view hash is `([0-9a-f]{64})`", section)
    assert shown_view is not None and shown_hash is not None
    new, documented_hash = json.loads(shown_view.group(1)), shown_hash.group(1)
    delta = json.loads(delta_line)
    assert views.canonical_bytes(delta) == wire
    # The host's diff makes the same operations (their order follows how the
    # host built the view, which the page does not show).
    assert sorted(map(repr, views.diff(old, new))) == sorted(map(repr, delta))
    assert views.apply_delta(old, delta) == new
    assert codec.apply_delta(old, codec.decode(wire)) == new
    assert codec.view_hash(new) == views.view_hash(new) == documented_hash
