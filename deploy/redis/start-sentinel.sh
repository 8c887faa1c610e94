#!/bin/sh
# One of the store's sentinels. It monitors the primary the other sentinels
# name now (FIRST_PRIMARY only when none does yet), so one that restarts
# after a failover does not follow the old primary. Quorum 2 of 3; a
# primary silent for 5 s (DOWN_AFTER_MS) is failed over.
#
# Environment: SELF, FIRST_PRIMARY, SENTINELS (the others and itself),
# SERVICE, PORT (default 26379), STORE_PORT (default 6379), CONFIG (where
# its config file goes: Sentinel rewrites it as it learns), DOWN_AFTER_MS,
# FAILOVER_TIMEOUT_MS.
set -eu
port="${PORT:-26379}"
. "$(dirname "$0")/primary.sh"
named="$(primary_named "$SELF:$port")"
primary="${named:-$FIRST_PRIMARY:${STORE_PORT:-6379}}"
primary_port="${primary##*:}"
primary="${primary%:*}"
config="${CONFIG:-/tmp/sentinel.conf}"
cat > "$config" <<CONF
port $port
sentinel resolve-hostnames yes
sentinel announce-hostnames yes
sentinel announce-ip $SELF
sentinel announce-port $port
sentinel monitor $SERVICE $primary $primary_port 2
sentinel down-after-milliseconds $SERVICE ${DOWN_AFTER_MS:-5000}
sentinel failover-timeout $SERVICE ${FAILOVER_TIMEOUT_MS:-30000}
sentinel parallel-syncs $SERVICE 1
CONF
exec redis-server "$config" --sentinel
