#!/usr/bin/env bash
# What the test suite needs beyond Python packages, from Debian's packages
# when missing: redis-server (the store for hosts on a cluster; the tests
# start their own servers, the package's service is not started), and
# promtool and amtool (the alert rules' and Alertmanager's checks: packages
# prometheus and prometheus-alertmanager, without their recommends; their
# services are not started either), and Chromium with its chromedriver (the
# admin console's and the web table's browser tests drive them; nothing
# downloads a browser), and Node.js with npm (the TypeScript SDK is built and
# tested through npm; its packages come from clients/ts/package-lock.json).
set -euo pipefail
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
command -v amtool >/dev/null 2>&1 || missing+=(prometheus-alertmanager)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ "${#missing[@]}" -eq 0 ]; then
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
install() { $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; }
install || { $SUDO apt-get update -q >/dev/null && install; }
for tool in redis-server promtool amtool chromium chromedriver node npm; do command -v "$tool" >/dev/null; done
