"""Every package passes mypy: games/ and clients/ (what game authors and
client writers read and call), and the actors and the front door.

mypy cannot follow the editable install's folder mapping, so the check runs
on a `tablehost` package assembled from links to the folders."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_passes_mypy(tmp_path: Path) -> None:
    package = tmp_path / "tablehost"
    package.mkdir()
    for name in ("__init__.py", "py.typed"):
        (package / name).write_bytes((ROOT / "protos" / "tablehost" / name).read_bytes())
    for name, folder in (("v1", ROOT / "protos" / "tablehost" / "v1"), ("games", ROOT / "games"),
                         ("clients", ROOT / "clients"), ("actors", ROOT / "actors"), ("host", ROOT / "host")):
        (package / name).symlink_to(folder, target_is_directory=True)
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "-p", "tablehost.games", "-p", "tablehost.clients", "-p", "tablehost.actors", "-p", "tablehost.host"],
        cwd=tmp_path, env={**os.environ, "MYPYPATH": str(tmp_path)}, capture_output=True, text=True, timeout=300,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Success" in checked.stdout
