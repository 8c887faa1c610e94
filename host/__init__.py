"""The front door (lobby service), host configuration and the CLI."""

import os

# Ray binds every server to the machine's network address unless this is set
# before ray is first imported; the embedded default must stay on loopback.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
