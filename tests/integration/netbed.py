"""A test bed of real nodes on one machine: one Linux network namespace per node, each
with its own address from 198.18.0.0/15 (the range set aside for network tests), joined
by a bridge, so what a cluster test sends crosses a network instead of loopback.

The bridge lives in a namespace of its own (the bed's "switch"), not in the machine's:
the bed adds nothing to the root namespace, has no route out, and deleting its
namespaces removes every link it made. A node is cut off by taking its link on the
bridge down: packets to and from it are then dropped silently, as on a real partition
(a process sees no error, only silence), and healed by taking it up again; it is cut
off from some nodes only by giving each side a hardware address for the other that
nobody has (`cut`, `mend`). Delay and
loss are not here (this machine has no `tc netem`): a userspace proxy gives those
(tests/integration/fault_proxy.py).

    bed = NetBed.create(["head", "room1", "client"])
    proc = bed.start("room1", [sys.executable, "-m", "http.server", "--bind", bed.address("room1")])
    bed.partition("room1"); bed.heal("room1")
    bed.destroy()   # processes ended by PID, namespaces deleted; safe to call twice

    sudo .venv/bin/python tests/integration/netbed.py up head room1 client   # by hand
    sudo .venv/bin/python tests/integration/netbed.py down BED_ID

Needs root (CAP_NET_ADMIN) and iproute2's `ip`.
"""

from __future__ import annotations

import ipaddress
import itertools
import os
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Sequence

from ray_processes import stop_process_trees

# 198.18.0.0/15 holds 512 /24s: a bed takes one, chosen from its id, so beds of
# concurrent test sessions do not share a subnet.
BED_RANGE = ipaddress.ip_network("198.18.0.0/15")
PREFIX = "thb"  # every namespace and link of a bed starts with it
# A locally administered unicast hardware address that no link of a bed has.
NOBODYS_HARDWARE_ADDRESS = "02:00:de:ad:00:01"
_beds_made = itertools.count()


class BedError(RuntimeError):
    """The bed could not be built or changed; the message carries `ip`'s own."""


def _ip(*args: str, namespace: str | None = None) -> None:
    argv = ["ip", *(["-n", namespace] if namespace else []), *args]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise BedError(f"{' '.join(argv)}: {done.stderr.strip() or done.returncode}")


@dataclass
class Node:
    name: str
    namespace: str
    address: str
    link: str  # the node's end of its veth pair, inside its namespace
    port: str  # the bridge's end, in the switch namespace: down = partitioned


@dataclass
class NetBed:
    bed_id: str
    subnet: ipaddress.IPv4Network
    switch: str
    nodes: dict[str, Node] = field(default_factory=dict)
    processes: list[subprocess.Popen] = field(default_factory=list)
    destroyed: bool = False

    @classmethod
    def create(cls, names: Sequence[str], bed_id: str | None = None) -> NetBed:
        """Namespaces for `names` (in order: .10, .11, ... of the bed's /24), each
        linked to the switch's bridge and up. Anything half built is removed if a step
        fails."""
        if len(set(names)) != len(names) or not names:
            raise ValueError(f"node names must be distinct and at least one: {list(names)}")
        if len(names) > 200:
            raise ValueError("a bed's /24 holds at most 200 nodes")
        # This process's id and how many beds it made before: two beds of one session
        # (one shared by a module's tests, one of a single test) never share names.
        bed_id = bed_id or f"{os.getpid() % 10000:04d}{next(_beds_made) % 100:02d}"
        if not bed_id.isalnum() or len(bed_id) > 6:
            raise ValueError(f"a bed id is up to 6 letters or digits: {bed_id!r}")
        subnets = list(BED_RANGE.subnets(new_prefix=24))
        subnet = subnets[int(bed_id, 36) % len(subnets)]
        bed = cls(bed_id=bed_id, subnet=subnet, switch=f"{PREFIX}{bed_id}sw")
        try:
            _ip("netns", "add", bed.switch)
            _ip("link", "add", "br0", "type", "bridge", namespace=bed.switch)
            _ip("link", "set", "br0", "up", namespace=bed.switch)
            for index, name in enumerate(names):
                bed._add_node(index, name)
        except BaseException:
            bed.destroy()
            raise
        return bed

    def _add_node(self, index: int, name: str) -> None:
        namespace = f"{PREFIX}{self.bed_id}n{index}"
        address = str(self.subnet.network_address + 10 + index)
        # veth names are at most 15 characters; both ends are created in the switch
        # namespace (so none ever exists in the machine's) and one is moved to the node.
        link, port = "eth0", f"p{index}"
        _ip("netns", "add", namespace)
        self.nodes[name] = Node(name, namespace, address, link, port)
        _ip("link", "add", port, "type", "veth", "peer", "name", f"n{index}", namespace=self.switch)
        _ip("link", "set", f"n{index}", "netns", namespace, namespace=self.switch)
        _ip("link", "set", f"n{index}", "name", link, namespace=namespace)
        _ip("addr", "add", f"{address}/{self.subnet.prefixlen}", "dev", link, namespace=namespace)
        _ip("link", "set", link, "up", namespace=namespace)
        _ip("link", "set", "lo", "up", namespace=namespace)
        _ip("link", "set", port, "master", "br0", namespace=self.switch)
        _ip("link", "set", port, "up", namespace=self.switch)

    # -- using it ------------------------------------------------------------------------------

    def address(self, name: str) -> str:
        return self.nodes[name].address

    def command(self, name: str, argv: Sequence[str]) -> list[str]:
        """`argv` as run inside the node's namespace."""
        return ["ip", "netns", "exec", self.nodes[name].namespace, *argv]

    def start(self, name: str, argv: Sequence[str], **popen: object) -> subprocess.Popen:
        """A process in the node's namespace, in a session of its own; destroy() ends it
        and everything it started."""
        process = subprocess.Popen(self.command(name, argv), start_new_session=True, **popen)  # type: ignore[call-overload]
        self.processes.append(process)
        return process

    def run(self, name: str, argv: Sequence[str], timeout: float = 60.0,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """`argv` run to its end in the node's namespace; its output captured."""
        return subprocess.run(self.command(name, argv), capture_output=True, text=True, timeout=timeout, env=env)

    def partition(self, name: str) -> None:
        """Cut the node off from every other: its port on the bridge goes down, and
        packets to and from it are dropped without a word to either side."""
        _ip("link", "set", self.nodes[name].port, "down", namespace=self.switch)

    def heal(self, name: str) -> None:
        _ip("link", "set", self.nodes[name].port, "up", namespace=self.switch)

    def cut(self, name: str, others: Sequence[str]) -> None:
        """Cut the node off from `others` only (a room node from the store, or from
        the players), in both directions and silently: each side's entry for the
        other's address names a hardware address no node has, so the bridge floods
        the frames and every node drops them as not its own. No error reaches either
        side, as with a partition."""
        for other in others:
            self._address_to_nobody(name, other)
            self._address_to_nobody(other, name)

    def mend(self, name: str, others: Sequence[str]) -> None:
        """Undo `cut`: each side learns the other's real hardware address again."""
        for other in others:
            for at, to in ((name, other), (other, name)):
                _ip("neigh", "del", self.address(to), "dev", self.nodes[at].link, namespace=self.nodes[at].namespace)

    def _address_to_nobody(self, at: str, to: str) -> None:
        _ip("neigh", "replace", self.address(to), "lladdr", NOBODYS_HARDWARE_ADDRESS, "dev", self.nodes[at].link,
            "nud", "permanent", namespace=self.nodes[at].namespace)

    # -- taking it down ------------------------------------------------------------------------

    def destroy(self) -> None:
        """End every process the bed started and all their descendants by PID (SIGTERM,
        then SIGKILL after a grace period), then delete the bed's namespaces, which
        removes their links. Idempotent."""
        stop_process_trees(self.processes)
        for node in self.nodes.values():
            _delete_namespace(node.namespace)
        _delete_namespace(self.switch)
        self.destroyed = True


def _delete_namespace(namespace: str) -> None:
    done = subprocess.run(["ip", "netns", "delete", namespace], capture_output=True, text=True, timeout=30)
    if done.returncode != 0 and "No such file" not in done.stderr:
        raise BedError(f"ip netns delete {namespace}: {done.stderr.strip()}")


def bed_namespaces(bed_id: str) -> list[str]:
    """The namespaces of a bed that exist now (to find what a crashed run left)."""
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=30).stdout
    return [line.split()[0] for line in listed.splitlines() if line.startswith(f"{PREFIX}{bed_id}")]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) >= 2 and args[0] == "up":
        bed = NetBed.create(args[1:])
        print(f"bed {bed.bed_id}: " + ", ".join(f"{n.name} {n.address} (netns {n.namespace})"
                                                for n in bed.nodes.values()))
        return 0
    if len(args) == 2 and args[0] == "down":
        for namespace in bed_namespaces(args[1]):
            _delete_namespace(namespace)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
