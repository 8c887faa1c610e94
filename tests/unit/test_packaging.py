"""What `pip install .` puts on a machine: the one `tablehost` package (the
folders games/, actors/, host/, clients/ and protos/ under it), no generic
top-level names, and a py.typed marker. And what `pip install ./clients`
puts there: the SDK alone (`tablehost.clients` and the generated
`tablehost.v1`), with the main distribution's version ranges."""

from __future__ import annotations

import ast
import email
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built from a copy of the sources, so the build leaves nothing in the checkout."""
    source, out = tmp_path_factory.mktemp("source"), tmp_path_factory.mktemp("wheel")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in ("games", "actors", "host", "clients", "protos", "tablehost"):  # tablehost/: links to the rest
        shutil.copytree(ROOT / folder, source / folder, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out),
                    str(source)], check=True, capture_output=True, timeout=300)
    return next(out.glob("tablehost-*.whl"))


def test_the_wheel_installs_one_tablehost_package_and_nothing_generic(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top_level = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top_level == {"tablehost"}
    for module in ("tablehost/games/bigtwo/game.py", "tablehost/actors/room.py", "tablehost/host/cli.py",
                   "tablehost/clients/sdk.py", "tablehost/v1/table_pb2.py", "tablehost/py.typed"):
        assert module in names


def test_every_package_of_the_checkout_is_in_the_wheel(wheel: Path) -> None:
    """A subpackage left out of pyproject.toml's list works in an editable
    install and is missing from every real one (a container image)."""
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in ("games", "actors", "host", "clients"):
        for marker in sorted((ROOT / folder).rglob("__init__.py")):
            installed = f"tablehost/{marker.relative_to(ROOT).as_posix()}"
            assert installed in names, f"{marker.parent.relative_to(ROOT)} is not installed: add it to pyproject.toml"


def test_outside_the_checkout_games_is_not_importable_and_tablehost_games_is(wheel: Path, tmp_path: Path) -> None:
    unpacked = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(unpacked)
    # -S: no site processing, so the checkout's editable install is not on the path;
    # the dependencies come from this environment's site-packages, after the wheel.
    env = {"PYTHONPATH": f"{unpacked}:{sysconfig.get_paths()['purelib']}:{sysconfig.get_paths()['platlib']}"}
    probe = ("import importlib.util, tablehost.games.bigtwo.game as g; "
             "print(g.__file__); print(importlib.util.find_spec('games'))")
    ran = subprocess.run([sys.executable, "-S", "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=60)
    assert ran.returncode == 0, ran.stderr
    installed_at, games_spec = ran.stdout.split()
    assert installed_at.startswith(str(unpacked)) and games_spec == "None"


def test_the_main_wheel_does_not_ship_the_client_distributions_files(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "tablehost/clients/pyproject.toml" not in names
    assert "tablehost/clients/README.md" not in names


# -- the client distribution (clients/pyproject.toml) ----------------------------------


@pytest.fixture(scope="module")
def client_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built as `pip wheel ./clients` builds it, from a copy of the folders it
    reads (clients/, protos/ and the build hook in scripts/), so the build
    leaves nothing in the checkout. pip fetches hatchling to build it."""
    source, out = tmp_path_factory.mktemp("client-source"), tmp_path_factory.mktemp("client-wheel")
    for folder in ("clients", "protos", "scripts"):
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out),
                            str(source / "clients")], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    return next(out.glob("tablehost_client-*.whl"))


def test_the_client_wheel_holds_the_sdk_and_the_protos_and_nothing_of_the_host(client_wheel: Path) -> None:
    names = set(zipfile.ZipFile(client_wheel).namelist())
    installed = {name for name in names if not name.split("/")[0].endswith(".dist-info")}
    expected = {"tablehost/py.typed"}
    expected |= {f"tablehost/clients/{path.relative_to(ROOT / 'clients').as_posix()}"
                 for path in (ROOT / "clients").rglob("*.py") if "__pycache__" not in path.parts}
    expected |= {f"tablehost/{path.relative_to(ROOT / 'protos' / 'tablehost').as_posix()}"
                 for path in (ROOT / "protos" / "tablehost").rglob("*")
                 if path.is_file() and "__pycache__" not in path.parts}
    assert installed == expected


def test_the_client_distribution_depends_on_the_client_libraries_alone(client_wheel: Path) -> None:
    with zipfile.ZipFile(client_wheel) as archive:
        metadata_name = next(name for name in archive.namelist() if name.endswith(".dist-info/METADATA"))
        metadata = email.message_from_bytes(archive.read(metadata_name))
    required: dict[str, set[str]] = {}
    for requirement in metadata.get_all("Requires-Dist") or []:
        spec, _, marker = requirement.partition(";")
        name = spec.split("<")[0].split(">")[0].split("=")[0].strip()
        required.setdefault(marker.split("==")[-1].strip(" '\"") if marker else "", set()).add(name)
    assert metadata["Name"] == "tablehost-client"
    assert required == {"": {"grpcio", "protobuf", "msgpack", "hdrhistogram"}, "terminal": {"rich"}}


def test_the_client_distribution_pins_the_main_distributions_ranges_and_version() -> None:
    """One checkout, one SDK: the two distributions must not drift apart."""
    main = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    client = tomllib.loads((ROOT / "clients" / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert client["version"] == main["version"]
    assert client["requires-python"] == main["requires-python"]
    pinned = client["dependencies"] + [req for extra in client["optional-dependencies"].values() for req in extra]
    assert pinned and set(pinned) <= set(main["dependencies"])


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_rich_is_imported_by_the_terminal_alone_so_it_can_stay_an_extra() -> None:
    """`pip install ./clients` leaves rich out (`[terminal]` brings it): any
    other module importing it would fail there."""
    importers = {path.name for path in sorted((ROOT / "clients").rglob("*.py")) if "rich" in _imports(path)}
    assert importers == {"terminal.py"}
