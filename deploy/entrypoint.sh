#!/usr/bin/env bash
# The tablehost image's entrypoint: one container is one Ray node, and a
# front door must itself be a Ray node (a Ray driver runs on a node of its
# cluster), so every role starts Ray first, but drain-node, which acts on the
# node its container already runs.
#
#   head [RAY START FLAGS] [-- SERVE FLAGS]
#       A Ray head. With `--` and serve flags after it, the head also runs the
#       front door (`tablehost serve --address auto SERVE FLAGS`) in the
#       foreground; without, it runs Ray alone (`ray start --head --block`).
#   worker [RAY START FLAGS]
#       A Ray node that joins $RAY_HEAD_ADDRESS (HOST:PORT) to hold rooms:
#       the lobby starts about one room per CPU of it.
#   front-door [SERVE FLAGS]
#       Joins $RAY_HEAD_ADDRESS as a node with no CPUs (the lobby places no
#       room on it), then runs `tablehost serve --address auto SERVE FLAGS`.
#   drain-node [DRAIN FLAGS]
#       In a container whose Ray node runs: drains that node (`tablehost
#       drain --node ITS_NODE_ID DRAIN FLAGS`): its rooms' tables move to
#       other nodes, the rooms stop, and no room starts there again. The
#       room pods' preStop hook (deploy/kuberay/raycluster.yaml).
#
# Before the front door serves, it waits until a node with CPUs has joined:
# a lobby created earlier would try to start its rooms on the nodes without
# CPUs, where they cannot start (only room nodes set $ROOM_ADDRESS).
set -euo pipefail

# What a node that runs no rooms keeps for Ray's object store: tablehost
# passes only small messages between processes, and the store's shared
# memory counts against the container's memory.
readonly FRONT_DOOR_OBJECT_STORE_BYTES=100000000
readonly ROOM_NODE_POLL_S=2

usage() {
    # This file's opening comment, without its "#" marks.
    awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
}

head_address() {
    if [[ -z "${RAY_HEAD_ADDRESS:-}" ]]; then
        echo "tablehost-entrypoint: $1 needs RAY_HEAD_ADDRESS (the Ray head's HOST:PORT)" >&2
        exit 2
    fi
    printf '%s' "$RAY_HEAD_ADDRESS"
}

wait_for_a_room_node() {
    python - "$ROOM_NODE_POLL_S" <<'PYTHON'
import logging
import sys
import time

import ray

ray.init(address="auto", log_to_driver=False, logging_level=logging.WARNING)
announced = False
while ray.cluster_resources().get("CPU", 0) <= 0:
    if not announced:
        print("tablehost-entrypoint: waiting for a Ray node with CPUs to hold rooms", flush=True)
        announced = True
    time.sleep(float(sys.argv[1]))
ray.shutdown()
PYTHON
}

this_node_id() {
    # The Ray node a driver started here joins is this container's own.
    python - <<'PYTHON' | tail -n 1
import logging

import ray

ray.init(address="auto", log_to_driver=False, logging_level=logging.WARNING)
print(ray.get_runtime_context().get_node_id())
ray.shutdown()
PYTHON
}

serve() {
    wait_for_a_room_node
    exec tablehost serve --address auto "$@"
}

role="${1:-help}"
shift || true
case "$role" in
    head)
        ray_flags=()
        while (($#)) && [[ "$1" != "--" ]]; do
            ray_flags+=("$1")
            shift
        done
        if (($# == 0)); then
            exec ray start --head --block "${ray_flags[@]}"
        fi
        shift  # the "--"
        ray start --head "${ray_flags[@]}"
        serve "$@"
        ;;
    worker)
        address="$(head_address worker)"
        exec ray start --address="$address" --block "$@"
        ;;
    front-door)
        address="$(head_address front-door)"
        ray start --address="$address" --num-cpus=0 --object-store-memory="$FRONT_DOOR_OBJECT_STORE_BYTES"
        serve "$@"
        ;;
    drain-node)
        node_id="$(this_node_id)"
        exec tablehost drain --node "$node_id" "$@"
        ;;
    help | -h | --help)
        usage
        ;;
    *)
        echo "tablehost-entrypoint: unknown role '$role'" >&2
        usage >&2
        exit 2
        ;;
esac
