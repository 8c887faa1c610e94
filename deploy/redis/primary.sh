# Sourced by the store's scripts: `primary_named [SKIP]` prints HOST:PORT of
# the primary the first answering sentinel of $SENTINELS names for $SERVICE
# (skipping SKIP, a sentinel's own address), or nothing when none answers.
primary_named() {
    for sentinel in $SENTINELS; do
        [ "$sentinel" = "${1:-}" ] && continue
        answer="$(redis-cli -h "${sentinel%:*}" -p "${sentinel##*:}" --raw SENTINEL get-master-addr-by-name "$SERVICE" 2>/dev/null || true)"
        host="$(printf '%s\n' "$answer" | sed -n 1p)"
        if [ -n "$host" ] && [ "${answer#*ERR}" = "$answer" ]; then
            printf '%s:%s\n' "$host" "$(printf '%s\n' "$answer" | sed -n 2p)"
            return
        fi
    done
}
