"""The network test bed: nodes in namespaces of their own reach each other at their own
addresses over the bed's bridge and nothing else; a partition drops a node's packets
silently and a heal brings it back; the machine's own namespace never sees the bed's
addresses; destroying the bed leaves no namespace and no process behind."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from netbed import BED_RANGE, BedError, NetBed, bed_namespaces

pytestmark = pytest.mark.integration

# A TCP echo server on the node's address: it prints "ready" once listening.
ECHO_SERVER = """
import socket, sys
server = socket.create_server((sys.argv[1], 7000))
print("ready", flush=True)
while True:
    conn, _ = server.accept()
    with conn:
        conn.sendall(conn.recv(64))
"""
# One attempt to reach it: prints what came back, or the error's name.
ECHO_CLIENT = """
import socket, sys
try:
    with socket.create_connection((sys.argv[1], 7000), timeout=float(sys.argv[2])) as conn:
        conn.sendall(b"ping")
        print(conn.recv(64).decode())
except OSError as error:
    print(type(error).__name__)
"""


def reach(bed: NetBed, source: str, target: str, timeout_s: float = 2.0) -> str:
    done = bed.run(source, [sys.executable, "-c", ECHO_CLIENT, bed.address(target), str(timeout_s)], timeout=30)
    return done.stdout.strip()


def reach_within(bed: NetBed, source: str, target: str, limit_s: float) -> str:
    """The first answer that is "ping", or the last one when `limit_s` runs out: a
    healed link may take a moment (the bridge relearns the port)."""
    deadline = time.monotonic() + limit_s
    answer = reach(bed, source, target)
    while answer != "ping" and time.monotonic() < deadline:
        answer = reach(bed, source, target)
    return answer


@pytest.fixture
def bed():
    built = NetBed.create(["server", "client", "bystander"])
    try:
        yield built
    finally:
        built.destroy()


def start_echo(bed: NetBed, node: str) -> subprocess.Popen:
    server = bed.start(node, [sys.executable, "-c", ECHO_SERVER, bed.address(node)],
                       stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None and server.stdout.readline().strip() == "ready"
    return server


def test_nodes_reach_each_other_at_their_own_addresses_and_a_partition_is_silent(bed):
    addresses = {name: bed.address(name) for name in bed.nodes}
    assert len(set(addresses.values())) == 3
    assert all(ip_in_bed_range(address) for address in addresses.values())
    start_echo(bed, "server")

    assert reach(bed, "client", "server") == "ping"
    assert reach(bed, "bystander", "server") == "ping"

    bed.partition("server")
    # Dropped, not refused: the client hears nothing and gives up at its own timeout.
    started = time.monotonic()
    assert reach(bed, "client", "server", timeout_s=1.5) == "TimeoutError"
    assert time.monotonic() - started >= 1.4

    bed.heal("server")
    assert reach_within(bed, "client", "server", limit_s=10.0) == "ping"


def test_only_the_partitioned_node_is_cut_off(bed):
    start_echo(bed, "bystander")
    bed.partition("server")
    assert reach(bed, "client", "bystander") == "ping"


def test_a_cut_between_two_nodes_is_silent_and_leaves_the_others_connected(bed):
    start_echo(bed, "server")
    bed.cut("server", ["client"])
    started = time.monotonic()
    assert reach(bed, "client", "server", timeout_s=1.5) == "TimeoutError"
    assert time.monotonic() - started >= 1.4
    assert reach(bed, "bystander", "server") == "ping"

    bed.mend("server", ["client"])
    assert reach_within(bed, "client", "server", limit_s=10.0) == "ping"


def test_the_machines_own_namespace_never_holds_a_bed_address(bed):
    shown = subprocess.run(["ip", "-4", "-o", "addr", "show"], capture_output=True, text=True, check=True).stdout
    assert not any(bed.address(name) in shown for name in bed.nodes)
    # A node's namespace has its address and loopback, nothing of the machine's.
    inside = bed.run("client", ["ip", "-4", "-o", "addr", "show"]).stdout
    assert bed.address("client") in inside and "127.0.0.1" in inside
    assert len([line for line in inside.splitlines() if line.strip()]) == 2


def test_destroy_ends_the_processes_and_removes_every_namespace():
    built = NetBed.create(["solo", "other"], bed_id="t0")
    server = start_echo(built, "solo")
    assert len(bed_namespaces("t0")) == 3  # two nodes and the switch
    built.destroy()
    assert server.poll() is not None
    assert bed_namespaces("t0") == []
    built.destroy()  # a second time is harmless (a fixture's finally after a failed test)


def test_a_bed_that_fails_half_built_removes_what_it_made_and_nothing_else():
    # A namespace already named as the bed's second node would be: the first node and
    # the switch are made, the second fails, and only what the bed made goes.
    subprocess.run(["ip", "netns", "add", "thbt1n1"], check=True)
    try:
        with pytest.raises(BedError, match="thbt1n1"):
            NetBed.create(["first", "second"], bed_id="t1")
        assert bed_namespaces("t1") == ["thbt1n1"]
    finally:
        subprocess.run(["ip", "netns", "delete", "thbt1n1"], check=True)


def ip_in_bed_range(address: str) -> bool:
    import ipaddress

    return ipaddress.ip_address(address) in BED_RANGE
