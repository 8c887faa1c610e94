"""Shared fixtures. Ray must stay on loopback: the variable is set before
anything imports ray (host/__init__.py sets it too)."""

import os

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
