#!/usr/bin/env bash
# The services the test suite starts for itself: redis-server (the store for
# hosts on a cluster). Installed from Debian's packages when missing; the
# package's own service is not started (the tests start their own servers).
set -euo pipefail
if command -v redis-server >/dev/null 2>&1; then
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get install -y -q redis-server >/dev/null || { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q redis-server >/dev/null; }
command -v redis-server >/dev/null
