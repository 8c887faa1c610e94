"""The hatchling build hook of the tablehost-client wheel (clients/pyproject.toml).

It puts every module of the `tablehost.clients` package (clients/ and any
subpackage of it) into the wheel under tablehost/clients/, so a module added
to clients/ ships in the client distribution without anyone editing its
pyproject. It lives here, not in clients/, because everything in clients/
installs as part of the SDK.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def package_modules(package: Path) -> list[Path]:
    """The .py files of `package` and of its subpackages (folders with an
    __init__.py all the way down), in a stable order."""
    modules = sorted(package.glob("*.py"))
    for folder in sorted(path for path in package.iterdir() if path.is_dir()):
        if (folder / "__init__.py").is_file():
            modules += package_modules(folder)
    return modules


class ClientModules(BuildHookInterface):
    PLUGIN_NAME = "client-modules"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Add each module of clients/ (the project root) as a forced include."""
        clients = Path(self.root)
        for module in package_modules(clients):
            build_data["force_include"][str(module)] = f"tablehost/clients/{module.relative_to(clients).as_posix()}"
