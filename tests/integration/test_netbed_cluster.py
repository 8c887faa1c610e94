"""The host on the network test bed: a Ray head and a room node, each in a namespace
with its own address, started as an operator starts them (`ray start` with that node's
address); the front door on the head; bots in a client namespace of their own. The
players reach the front door at the head's address and their table at the room node's,
which the room advertises; every hash checks out. Then the room node is cut off from
everyone and healed, and a new game still plays through it. And the load generator's
agents, one on every node, play across the bed; its report matches the rooms' counters."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme

from bed_cluster import Cluster
from netbed import NetBed
from ray_processes import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.slow]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    bed = NetBed.create(["head", "room1", "client"])
    cluster = Cluster(bed, tmp_path)
    try:
        yield cluster.start()
    finally:
        bed.destroy()
        cluster.keep_logs_and_clean_up()


def clean(summary: dict, tables: int) -> bool:
    return (summary["ok"] and summary["games_completed"] == tables and summary["desyncs"] == 0
            and summary["errors"] == 0)


def test_players_in_their_own_namespace_play_through_a_room_on_another_node(cluster: Cluster) -> None:
    assert cluster.target.startswith(cluster.bed.address("head") + ":")
    summary = cluster.bots(tables=3, seed=1)
    assert clean(summary, 3), summary

    nodes = [node for node in cluster.status()["nodes"] if node["alive"]]
    # Rooms serve only where the node names its address: the room node's, never the head's.
    endpoints = {room["endpoint"].rsplit(":", 1)[0] for node in nodes for room in node["rooms"]
                 if room["state"] == "ready"}
    assert endpoints == {cluster.bed.address("room1")}, nodes

    # Cut off (shorter than Ray's failure detection): the room's port is silent to players.
    endpoint = next(room["endpoint"] for node in nodes for room in node["rooms"] if room["state"] == "ready")
    cluster.bed.partition("room1")
    assert connect(cluster.bed, "client", endpoint) == "TimeoutError"
    cluster.bed.heal("room1")
    wait_for(lambda: connect(cluster.bed, "client", endpoint) == "connected", 30, "the room reachable again")
    after = cluster.bots(tables=2, seed=2)
    assert clean(after, 2), after


CONNECT = """
import socket, sys
host, port = sys.argv[1].rsplit(":", 1)
try:
    socket.create_connection((host, int(port)), timeout=1.5).close()
    print("connected")
except OSError as error:
    print(type(error).__name__)
"""


def connect(bed: NetBed, node: str, endpoint: str) -> str:
    return bed.run(node, [sys.executable, "-c", CONNECT, endpoint], timeout=30).stdout.strip()


def test_load_agents_on_every_node_play_across_the_bed_and_the_rooms_count_the_same(cluster: Cluster,
                                                                                    tmp_path: Path) -> None:
    """`tablehost loadtest` joined to the bed's Ray puts an agent on every node (the head
    and the room node), each playing from its own namespace; its report against the rooms'
    own Prometheus counters, scraped from the client namespace."""
    exit_code, report = cluster.loadtest(tables=8, out=tmp_path / "loadtest")
    totals = report["totals"]
    assert exit_code == 0 and report["ok"], report["error_messages"]
    assert (totals["games_completed"], totals["desyncs"], totals["errors"]) == (8, 0, 0)
    agent_nodes = {node["node_id"] for node in report["nodes"]}
    assert totals["agents"] == 2 and len(agent_nodes) == 2
    counters = cluster.room_counters()
    assert counters["tablehost_games_finished_total{game=bigtwo}"] == totals["games_completed"]
    assert counters["tablehost_moves_total{game=bigtwo,kind=player}"] == totals["moves"]
    assert counters.get("tablehost_desyncs_total{game=bigtwo}", 0) == 0


@pytest.fixture
def cluster_on_tls(tmp_path: Path) -> Iterator[Cluster]:
    """The host over TLS, each node with a certificate of its own for its own address:
    the front door the head's, the room node's read by its rooms from a path in an
    environment variable of that node."""
    bed = NetBed.create(["head", "room1", "client"])
    authority = trustme.CA()
    authority.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    issued = {}
    for node in ("head", "room1"):
        served = authority.issue_cert(bed.address(node))
        issued[node] = (tmp_path / f"{node}-cert.pem", tmp_path / f"{node}-key.pem")
        served.cert_chain_pems[0].write_to_path(str(issued[node][0]))
        served.private_key_pem.write_to_path(str(issued[node][1]))
    cluster = Cluster(bed, tmp_path, tls_ca=tmp_path / "ca.pem",
                      door_args=("--tls-cert", str(issued["head"][0]), "--tls-key", str(issued["head"][1]),
                                 "--room-tls-cert", "env:NODE_TLS_CERT", "--room-tls-key", "env:NODE_TLS_KEY"),
                      node_env={"room1": {"NODE_TLS_CERT": str(issued["room1"][0]),
                                          "NODE_TLS_KEY": str(issued["room1"][1])}})
    try:
        yield cluster.start()
    finally:
        bed.destroy()
        cluster.keep_logs_and_clean_up()


PEER_NAMES = """
import socket, ssl, sys
host, port = sys.argv[1].rsplit(":", 1)
context = ssl.create_default_context(cafile=sys.argv[2])
context.set_alpn_protocols(["h2"])
with socket.create_connection((host, int(port)), timeout=5) as raw, context.wrap_socket(raw, server_hostname=host) as tls:
    print(",".join(value for kind, value in tls.getpeercert()["subjectAltName"]))
"""


def test_over_tls_each_node_serves_a_certificate_of_its_own(cluster_on_tls: Cluster) -> None:
    cluster = cluster_on_tls
    summary = cluster.bots(tables=2, seed=3)
    assert clean(summary, 2), summary
    # What each node presents to a player, verified against the authority: its own address.
    room_endpoints = {room["endpoint"] for room in cluster.rooms() if room["state"] == "ready"}
    assert room_endpoints
    for endpoint in [cluster.target, *room_endpoints]:
        names = cluster.bed.run("client", [sys.executable, "-c", PEER_NAMES, endpoint, str(cluster.tls_ca)],
                                timeout=30)
        assert names.returncode == 0, names.stderr[-2000:]
        assert names.stdout.strip() == endpoint.rsplit(":", 1)[0]
