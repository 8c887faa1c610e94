"""The layers stay apart: the client side (clients/) can be shipped to
players without the host or the rules, and the rules (games/) run anywhere,
so each imports only what its layer allows; and dependencies point one way,
games <- actors <- host, so the actors never import the front door. Read
from the source, so an import inside a function counts too."""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

ALLOWED = {
    # the generated protos, the SDK's own modules, and the client libraries
    "clients": {"tablehost.v1", "tablehost.clients", "grpc", "msgpack", "hdrh", "rich"},
    # plain data and msgpack: no terminal, no network, no Ray
    "games": {"tablehost.games", "msgpack"},
}


# Layers that may import anything but what sits above them.
FORBIDDEN = {
    "actors": {"tablehost.host"},
}


def imported_modules(path: Path) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module)
    return modules


def within(module: str, packages: set[str]) -> bool:
    return any(module == package or module.startswith(package + ".") for package in packages)


def imports_where(layer: str, wrong: Callable[[str], bool]) -> set[str]:
    """Each "FILE: MODULE" of the layer's imports that `wrong` picks out."""
    return {
        f"{path.relative_to(ROOT)}: {module}"
        for path in sorted((ROOT / layer).rglob("*.py"))
        for module in imported_modules(path)
        if wrong(module)
    }


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_each_layer_imports_only_what_it_may(layer: str) -> None:
    outside = imports_where(layer, lambda module: module.split(".")[0] not in sys.stdlib_module_names
                            and not within(module, ALLOWED[layer]))
    assert not outside, f"{layer}/ imports what its layer may not: {sorted(outside)}"


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_no_layer_imports_the_ones_above_it(layer: str) -> None:
    upward = imports_where(layer, lambda module: within(module, FORBIDDEN[layer]))
    assert not upward, f"{layer}/ imports a layer above it: {sorted(upward)}"
