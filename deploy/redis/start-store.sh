#!/bin/sh
# One of the store's Redis servers (primary or replica), started so that
# Sentinel's choice stands: it asks the sentinels which server is the
# primary now and, unless that is itself, starts as its replica. Only when
# no sentinel knows a primary yet (the first start of the whole layout) is
# FIRST_PRIMARY the primary. Every server keeps its append-only file synced
# on every write, and refuses writes past maxmemory rather than evicting a
# table (noeviction), and refuses them too while no replica is connected
# (a primary cut off from its replicas stops, rather than diverging from the
# one Sentinel promotes: the store acknowledges a write only once a replica
# holds it anyway).
#
# Environment: SELF (the name others reach this server at), FIRST_PRIMARY
# and FIRST_PRIMARY_PORT (default 6379), SENTINELS ("host:port host:port ..."), SERVICE (the name the sentinels
# monitor), MAXMEMORY (e.g. 3gb), PORT (default 6379), DATA (default /data).
set -eu
port="${PORT:-6379}"
. "$(dirname "$0")/primary.sh"
primary="$(primary_named)"
[ -n "$primary" ] || primary="$FIRST_PRIMARY:${FIRST_PRIMARY_PORT:-6379}"
set -- redis-server --port "$port" --dir "${DATA:-/data}" --appendonly yes --appendfsync always \
    --maxmemory "$MAXMEMORY" --maxmemory-policy noeviction \
    --min-replicas-to-write 1 --min-replicas-max-lag 10 \
    --replica-announce-ip "$SELF" --replica-announce-port "$port"
if [ "$primary" != "$SELF:$port" ]; then
    set -- "$@" --replicaof "${primary%:*}" "${primary##*:}"
fi
echo "starting as $( [ "$primary" = "$SELF:$port" ] && echo primary || echo "replica of $primary" )"
exec "$@"
