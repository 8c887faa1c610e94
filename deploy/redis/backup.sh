#!/bin/sh
# A backup of the store: a snapshot (RDB) of the primary Sentinel names,
# written to BACKUP_DIR as store-YYYYMMDDTHHMMSSZ.rdb and checked with
# redis-check-rdb; snapshots older than KEEP_DAYS (default 7) are deleted.
# What it holds: every table's journal and checkpoint and every tournament's
# log as of the snapshot; restoring one loses what was written after it.
#
# Environment: SENTINELS, SERVICE, BACKUP_DIR, KEEP_DAYS.
set -eu
. "$(dirname "$0")/primary.sh"
primary="$(primary_named)"
[ -n "$primary" ] || { echo "no sentinel names the primary of $SERVICE" >&2; exit 1; }
file="$BACKUP_DIR/store-$(date -u +%Y%m%dT%H%M%SZ).rdb"
redis-cli -h "${primary%:*}" -p "${primary##*:}" --rdb "$file.partial" >/dev/null
redis-check-rdb "$file.partial" >/dev/null
mv "$file.partial" "$file"
find "$BACKUP_DIR" -name 'store-*.rdb' -mtime +"${KEEP_DAYS:-7}" -delete
echo "backed up the primary $primary to $file"
