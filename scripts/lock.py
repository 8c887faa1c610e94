"""Write requirements.lock: the exact version of every package tablehost and
its tests run on (the closure of `tablehost[test]`'s requirements), as the
environment this runs in has them installed. The README's commands install
with it as pip's constraints (`pip install -c requirements.lock ...`), so a
fresh machine gets the versions the suite passed with, not whatever the
ranges in pyproject.toml allow that day.

    .venv/bin/python scripts/lock.py           # write it from the installed environment
    .venv/bin/python scripts/lock.py --check   # exit 1 if it differs from what is installed

To move a dependency: install the new version in the venv, run the suite,
then write the lock again."""

from __future__ import annotations

import argparse
import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
PROJECT = "tablehost"
HEADER = """\
# Written by scripts/lock.py (do not edit): every package tablehost and its
# tests run on, at the version the suite passed with. Used as constraints:
#     pip install -c requirements.lock -e '.[test]'
"""


def closure(project: str = PROJECT, extras: frozenset[str] = frozenset({"test"})) -> dict[str, str]:
    """Installed version of every distribution `project[extras]` needs, by name."""
    pinned: dict[str, str] = {}
    seen: set[tuple[str, frozenset[str]]] = set()
    pending = [(project, extras)]
    while pending:
        name, wanted = pending.pop()
        if (name, wanted) in seen:
            continue
        seen.add((name, wanted))
        distribution = metadata.distribution(name)
        if canonicalize_name(name) != PROJECT:
            pinned[canonicalize_name(name)] = distribution.version
        for text in distribution.requires or []:
            requirement = Requirement(text)
            environments = [{"extra": extra} for extra in wanted] or [{"extra": ""}]
            if requirement.marker is not None and not any(requirement.marker.evaluate(env) for env in environments):
                continue
            pending.append((requirement.name, frozenset(requirement.extras)))
    return pinned


def lock_text() -> str:
    return HEADER + "".join(f"{name}=={version}\n" for name, version in sorted(closure().items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the lock differs from what is installed")
    args = parser.parse_args()
    text = lock_text()
    if args.check:
        if not LOCK.exists() or LOCK.read_text() != text:
            print("requirements.lock differs from the installed environment: install with "
                  "`pip install -c requirements.lock -e '.[test]'`, or write it again with scripts/lock.py",
                  file=sys.stderr)
            return 1
        print("requirements.lock matches the installed environment")
        return 0
    LOCK.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
