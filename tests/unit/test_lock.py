"""requirements.lock: what the suite runs on is what the lock says, every
locked version is within pyproject.toml's ranges, and every way the project
is installed (the README's commands, CI, the image, `ray up`) uses it."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]


def locked() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[canonicalize_name(name)] = version
    return pins


def test_the_installed_environment_is_the_lock() -> None:
    checked = subprocess.run([sys.executable, str(ROOT / "scripts" / "lock.py"), "--check"], capture_output=True,
                             text=True, timeout=60)
    assert checked.returncode == 0, checked.stderr


def test_every_locked_version_is_within_pyprojects_ranges() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    direct = [Requirement(text) for text in project["dependencies"] + project["optional-dependencies"]["test"]]
    pins = locked()
    for requirement in direct:
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is not locked"
        assert requirement.specifier.contains(pins[name], prereleases=True), f"{name}=={pins[name]} not in {requirement}"


def test_every_install_uses_the_lock() -> None:
    readme = (ROOT / "README.md").read_text()
    assert readme.count("pip install -c requirements.lock") >= 2
    assert "pip install -c requirements.lock -e '.[test]'" in (ROOT / ".ci" / "run").read_text()
    assert "-c /tmp/tablehost/requirements.lock" in (ROOT / "deploy" / "Dockerfile").read_text()
    assert "-c ~/tablehost/requirements.lock" in (ROOT / "deploy" / "ray-cluster.yaml").read_text()
