"""What `pip install .` puts on a machine: the one `tablehost` package (the
folders games/, actors/, host/, clients/ and protos/ under it), no generic
top-level names, and a py.typed marker."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
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
    for folder in ("games", "actors", "host", "clients", "protos"):
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__"))
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
