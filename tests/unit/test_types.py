"""Every package passes mypy: games/ and clients/ (what game authors and
client writers read and call), and the actors and the front door. mypy
follows the imports as anyone does: tablehost/ assembles the package from
links to the folders, so every import path is a file path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_passes_mypy(tmp_path: Path) -> None:
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path),
         "-p", "tablehost.games", "-p", "tablehost.clients", "-p", "tablehost.actors", "-p", "tablehost.host"],
        cwd=ROOT, env={**os.environ, "MYPYPATH": str(ROOT)}, capture_output=True, text=True, timeout=300,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Success" in checked.stdout


def test_every_import_path_is_a_file_path() -> None:
    """tablehost/ holds a link per folder of the architecture, and nothing else."""
    links = {entry.name: os.readlink(entry) for entry in (ROOT / "tablehost").iterdir()}
    assert links == {"__init__.py": "../protos/tablehost/__init__.py", "py.typed": "../protos/tablehost/py.typed",
                     "v1": "../protos/tablehost/v1", "games": "../games", "actors": "../actors", "host": "../host",
                     "clients": "../clients"}
    assert (ROOT / "tablehost" / "actors" / "lobby.py").resolve() == ROOT / "actors" / "lobby.py"
