"""The deployment files in deploy/ are checked here, since nothing in the
suite builds the image or starts a cluster: every YAML file parses; the
RayCluster is valid against KubeRay's own schema (the oldest and the newest
release the manifests claim), refusing unknown fields as the API server's
strict field validation does; every `tablehost serve`, `tablehost drain` (the
room pods' preStop hook) and `ray start` command line parses with the real
flags; the ports agree between the flags, the containers, the Services, the
firewall and Prometheus, which scrapes each front door on its own; the
image's Ray is the Ray installed here, within pyproject.toml's range; and the
commands and roles the README and docs/operations.md give are the ones the
files are made for."""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import shlex
import textwrap
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import click
import jsonschema
import pytest
import ray
import trustme
import yaml
from packaging.specifiers import SpecifierSet
from prometheus_client import ProcessCollector
from ray.scripts.scripts import start as ray_start

from tablehost.actors import metrics
from tablehost.actors.placement import ROOM_RESOURCE
from tablehost.actors.room_server import ROOM_GAUGES
from tablehost.host import config_flags
from tablehost.host.config import HostConfig
from tablehost.host.door_metrics import DOOR_GAUGES
from tablehost.host.drain import add_drain_arguments
from tablehost.host.server import LOG_ROTATION

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
KUBERAY = DEPLOY / "kuberay"
TLS_COMPONENT = KUBERAY / "tls"
DOCKERFILE = DEPLOY / "Dockerfile"
DOCKERIGNORE = DEPLOY / "Dockerfile.dockerignore"
ENTRYPOINT = DEPLOY / "entrypoint.sh"
COMPOSE = DEPLOY / "docker-compose.yml"
RAY_CLUSTER = DEPLOY / "ray-cluster.yaml"
PROMETHEUS = DEPLOY / "prometheus" / "prometheus.yml"
PROMETHEUS_COMPOSE = DEPLOY / "prometheus" / "prometheus.compose.yml"
ALERTS = DEPLOY / "prometheus" / "tablehost-alerts.yml"
GRAFANA_PROVISIONING = DEPLOY / "grafana" / "provisioning"
GUIDE = ROOT / "docs" / "operations.md"
README = ROOT / "README.md"
KUBERAY_SCHEMAS = sorted((ROOT / "tests" / "data" / "kuberay").glob("raycluster-*.schema.json"))
RAY_CLUSTER_SCHEMA = Path(ray.__file__).parent / "autoscaler" / "ray-schema.json"

# What a manifest leaves to run time (a secret from a Kubernetes Secret or
# the operator's shell, an address the node finds when it starts) stands
# here as what `openssl rand -hex 32` prints: long enough for any secret, and
# a valid host name.
RUNTIME_VALUE = "0" * 64
# Made by the operator, never committed: kustomize reads them, the suite cannot.
OPERATOR_MADE = {KUBERAY / "secrets.env", TLS_COMPONENT / "tls.crt", TLS_COMPONENT / "tls.key"}
# The commands the README and the operator's guide give, each with the file
# whose own header documents it too.
DOCUMENTED_COMMANDS = {
    "docker build -f deploy/Dockerfile -t tablehost .": DOCKERFILE,
    "docker compose -f deploy/docker-compose.yml up --build": COMPOSE,
    "kubectl apply -k deploy/kuberay": KUBERAY / "kustomization.yaml",
    "ray up deploy/ray-cluster.yaml": RAY_CLUSTER,
}


# -- reading the files ---------------------------------------------------------------------------


def documents(path: Path) -> list[Any]:
    return [document for document in yaml.safe_load_all(path.read_text()) if document is not None]


def kustomization(folder: Path) -> dict[str, Any]:
    return yaml.safe_load((folder / "kustomization.yaml").read_text())


def kuberay_objects() -> dict[tuple[str, str], dict[str, Any]]:
    """Every object the KubeRay kustomization's own files declare, by kind and name."""
    objects: dict[tuple[str, str], dict[str, Any]] = {}
    for resource in kustomization(KUBERAY)["resources"]:
        path = KUBERAY / resource
        if path.is_file():
            for document in documents(path):
                objects[(document["kind"], document["metadata"]["name"])] = document
    return objects


def the_one(objects: dict[tuple[str, str], dict[str, Any]], kind: str) -> dict[str, Any]:
    [found] = [document for (found_kind, _name), document in objects.items() if found_kind == kind]
    return found


def pod_templates(objects: dict[tuple[str, str], dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every pod template, named by where it is."""
    templates = {f"{kind}/{name}": document["spec"]["template"]
                 for (kind, name), document in objects.items() if kind in ("Deployment", "StatefulSet")}
    templates.update({f"CronJob/{name}": document["spec"]["jobTemplate"]["spec"]["template"]
                      for (kind, name), document in objects.items() if kind == "CronJob"})
    cluster = the_one(objects, "RayCluster")
    templates["RayCluster head"] = cluster["spec"]["headGroupSpec"]["template"]
    for group in cluster["spec"]["workerGroupSpecs"]:
        templates[f"RayCluster group {group['groupName']}"] = group["template"]
    return templates


def container_env(container: dict[str, Any]) -> dict[str, str]:
    """A container's environment as the process sees it; what Kubernetes
    fills in at run time (a Secret's key, a field of the pod) is RUNTIME_VALUE."""
    return {variable["name"]: variable.get("value", RUNTIME_VALUE) for variable in container.get("env", [])}


def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


def compose_value(text: str) -> str:
    """A compose value after interpolation: `${NAME:-default}` is its default,
    `${NAME:?error}` (a value the operator must give) RUNTIME_VALUE."""
    return re.sub(r"\$\{\w+(?::([-?])([^}]*))?\}",
                  lambda match: match[2] if match[1] == "-" else RUNTIME_VALUE, text)


def compose_published_ports(service: dict[str, Any]) -> list[tuple[int, int]]:
    """(host port, container port) pairs of a service's `ports`, ranges expanded."""
    pairs: list[tuple[int, int]] = []
    for entry in service.get("ports", []):
        host, container = str(entry).split(":")[-2:]
        hosts, containers = port_range(host), port_range(container)
        assert len(hosts) == len(containers), f"{entry}: the host and container ranges differ in size"
        pairs.extend(zip(hosts, containers))
    return pairs


def port_range(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def ray_cluster() -> dict[str, Any]:
    return yaml.safe_load(RAY_CLUSTER.read_text())


def without_command_substitutions(text: str) -> str:
    """A shell command line with each `$(...)` (its parentheses balanced)
    replaced by RUNTIME_VALUE: what the node works out when it starts."""
    out, index = [], 0
    while (begin := text.find("$(", index)) >= 0:
        out.append(text[index:begin])
        depth, end = 0, begin + 1
        while True:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            if depth == 0:
                break
            end += 1
        out.append(RUNTIME_VALUE)
        index = end + 1
    return "".join(out) + text[index:]


def shell_exports(command: str) -> dict[str, str]:
    return dict(re.findall(r'export (\w+)="([^"]*)"', without_command_substitutions(command)))


def ray_cluster_command(commands: list[str], marker: str) -> str:
    [command] = [command for command in commands if marker in command]
    return command


def entrypoint_cases() -> set[str]:
    """The roles deploy/entrypoint.sh takes (its `case` labels)."""
    labels = re.findall(r"^ {4}([a-z|\- ]+)\)$", ENTRYPOINT.read_text(), re.MULTILINE)
    return {role.strip() for label in labels for role in label.split("|")}


def entrypoint_serve_flags() -> list[str]:
    """The flags the entrypoint puts before the manifest's own on `tablehost serve`."""
    [line] = re.findall(r'exec tablehost serve (.*) "\$@"$', ENTRYPOINT.read_text(), re.MULTILINE)
    return shlex.split(line)


def entrypoint_roles() -> set[str]:
    """The roles deploy/entrypoint.sh takes, each by its first name (`help`, not its aliases)."""
    labels = re.findall(r"^ {4}([a-z|\- ]+)\)$", ENTRYPOINT.read_text(), re.MULTILINE)
    return {label.split("|")[0].strip() for label in labels}


def entrypoint_usage_roles() -> set[str]:
    """The roles the entrypoint's opening comment (what `help` prints) describes."""
    opening = ENTRYPOINT.read_text().split("\nset -euo pipefail", 1)[0]
    return set(re.findall(r"^# {3}([a-z][a-z-]*)\b", opening, re.MULTILINE))


def entrypoint_drain_flags() -> list[str]:
    """The flags the entrypoint's drain-node puts before the caller's on
    `tablehost drain`, the node id it finds at run time as RUNTIME_VALUE."""
    [line] = re.findall(r'exec tablehost drain (.*) "\$@"$', ENTRYPOINT.read_text(), re.MULTILINE)
    return [RUNTIME_VALUE if word == "$node_id" else word for word in shlex.split(line)]


def guide_table(first_header: str) -> list[list[str]]:
    """The rows of docs/operations.md's table whose first column is headed `first_header`, as cells."""
    lines = GUIDE.read_text().splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    rows = []
    for line in lines[start + 2:]:  # after the header and its |---| line
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def split_head_command(arguments: list[str]) -> tuple[list[str], list[str]]:
    """`head RAY FLAGS -- SERVE FLAGS` (deploy/entrypoint.sh): the two parts."""
    assert arguments[0] == "head" and "--" in arguments, f"not a head that serves: {arguments}"
    separator = arguments.index("--")
    return arguments[1:separator], arguments[separator + 1:]


# -- the `tablehost serve` command lines ---------------------------------------------------------


@dataclass(frozen=True)
class ServeCommand:
    """A `tablehost serve` command line a deployment runs: where it is, its
    flags (the entrypoint's included) and the environment it runs in."""

    origin: str
    flags: list[str]
    env: dict[str, str] = field(default_factory=dict)


def front_door_container(deployment: dict[str, Any]) -> dict[str, Any]:
    [container] = deployment["spec"]["template"]["spec"]["containers"]
    return container


def kuberay_front_door(deployment: dict[str, Any], origin: str) -> ServeCommand:
    container = front_door_container(deployment)
    role, *flags = container["args"]
    assert role == "front-door"
    return ServeCommand(origin, entrypoint_serve_flags() + flags, container_env(container))


def serve_commands() -> list[ServeCommand]:
    objects = kuberay_objects()
    commands = [kuberay_front_door(objects[("Deployment", "front-door")], "deploy/kuberay front-door")]
    head = compose()["services"]["ray-head"]
    _ray_flags, serve_flags = split_head_command(head["command"])
    commands.append(ServeCommand("deploy/docker-compose.yml ray-head", entrypoint_serve_flags() + serve_flags,
                                 {name: compose_value(value) for name, value in head["environment"].items()}))
    command = ray_cluster_command(ray_cluster()["head_start_ray_commands"], "entrypoint.sh head")
    [arguments] = re.findall(r"entrypoint\.sh (head .*?) < /dev/null", without_command_substitutions(command))
    _ray_flags, serve_flags = split_head_command(shlex.split(arguments))
    commands.append(ServeCommand("deploy/ray-cluster.yaml head", entrypoint_serve_flags() + serve_flags,
                                 shell_exports(command)))
    return commands


SERVE_COMMANDS = serve_commands()


def isolated_environment(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    """Only the deployment's TABLEHOST_* variables, not this machine's."""
    for name in [name for name in os.environ if name.startswith("TABLEHOST_")]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        if name.startswith("TABLEHOST_"):
            monkeypatch.setenv(name, value)


def host_config(command: ServeCommand, monkeypatch: pytest.MonkeyPatch) -> HostConfig:
    """The HostConfig `tablehost serve` builds from the command line, as the CLI
    does (config_flags.add_arguments, then config_from_args). Flags must be spelled in
    full: an abbreviation that happens to match today breaks when a flag is added."""
    isolated_environment(monkeypatch, command.env)
    parser = argparse.ArgumentParser(prog="tablehost serve", allow_abbrev=False)
    config_flags.add_arguments(parser)
    args, unknown = parser.parse_known_args(command.flags)
    assert not unknown, f"{command.origin}: `tablehost serve` has no flags {unknown}"
    return config_flags.config_from_args(args)


def drain_arguments(flags: list[str], origin: str) -> argparse.Namespace:
    """A `tablehost drain` command line parsed with the CLI's own flags
    (add_drain_arguments), spelled in full."""
    parser = argparse.ArgumentParser(prog="tablehost drain", allow_abbrev=False)
    add_drain_arguments(parser)
    args, unknown = parser.parse_known_args(flags)
    assert not unknown, f"{origin}: `tablehost drain` has no flags {unknown}"
    return args


def deployment_config(origin: str, monkeypatch: pytest.MonkeyPatch) -> HostConfig:
    """The HostConfig of the front door `origin` (a ServeCommand's) runs."""
    [command] = [command for command in SERVE_COMMANDS if command.origin == origin]
    return host_config(command, monkeypatch)


def the_cluster_config(monkeypatch: pytest.MonkeyPatch) -> HostConfig:
    """The settings every deployment shares (test_every_deployment_serves_with_the_same_settings),
    as the Kubernetes front doors run them."""
    return deployment_config("deploy/kuberay front-door", monkeypatch)


def compose_config(monkeypatch: pytest.MonkeyPatch) -> HostConfig:
    return deployment_config("deploy/docker-compose.yml ray-head", monkeypatch)


def config_env_names() -> set[str]:
    """Every TABLEHOST_* variable the host's configuration reads."""
    source = (ROOT / "host" / "config_flags.py").read_text()
    return {f"TABLEHOST_{name}" for name in re.findall(r'_env\("([A-Z_]+)"', source)}


# -- schemas ---------------------------------------------------------------------------------------


def strict(schema: Any) -> Any:
    """Kubernetes refuses a field its schema does not know (kubectl validates
    strictly by default); JSON Schema accepts one unless told. Tell it, on
    every object schema that lists its fields and does not keep unknown ones."""
    if isinstance(schema, list):
        return [strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    strict_schema = {key: strict(value) for key, value in schema.items()}
    if (schema.get("type") == "object" and isinstance(schema.get("properties"), dict)
            and "additionalProperties" not in schema and not schema.get("x-kubernetes-preserve-unknown-fields")):
        strict_schema["additionalProperties"] = False
    return strict_schema


def kuberay_schema(path: Path) -> dict[str, Any]:
    return strict(json.loads(path.read_text()))


def problems(schema: dict[str, Any], instance: Any) -> list[str]:
    """Every way `instance` breaks `schema`, under the draft the schema names."""
    validator = jsonschema.validators.validator_for(schema)(schema)
    return [f"{'/'.join(map(str, error.absolute_path))}: {error.message}" for error in validator.iter_errors(instance)]


def pod_template_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Kubernetes' PodTemplateSpec as the RayCluster CRD embeds it (its head
    group's template), able to check any pod template."""
    template = schema["properties"]["spec"]["properties"]["headGroupSpec"]["properties"]["template"]
    return {"$schema": schema["$schema"], "$defs": schema["$defs"], **template}


def apply_json_patch(document: Any, operations: list[dict[str, Any]]) -> Any:
    """RFC 6902's test, add and replace, which the kustomize patches use."""
    patched = copy.deepcopy(document)
    for operation in operations:
        *parents, last = [part.replace("~1", "/").replace("~0", "~") for part in operation["path"].split("/")[1:]]
        target = patched
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        if operation["op"] == "test":
            found = target[int(last)] if isinstance(target, list) else target[last]
            assert found == operation["value"], f"patch test {operation['path']}: {found!r} != {operation['value']!r}"
        elif operation["op"] == "add" and isinstance(target, list):
            target.insert(len(target) if last == "-" else int(last), operation["value"])
        elif operation["op"] in ("add", "replace"):
            if isinstance(target, list):
                target[int(last)] = operation["value"]
            else:
                assert operation["op"] == "add" or last in target, f"patch replaces a missing {operation['path']}"
                target[last] = operation["value"]
        else:
            raise AssertionError(f"a patch operation this test does not know: {operation['op']}")
    return patched


def tls_patched(objects: dict[tuple[str, str], dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """The KubeRay objects with the TLS component's patches applied."""
    patched = dict(objects)
    for patch in kustomization(TLS_COMPONENT)["patches"]:
        key = (patch["target"]["kind"], patch["target"]["name"])
        assert key in objects, f"the TLS component patches {key}, which deploy/kuberay does not declare"
        patched[key] = apply_json_patch(objects[key], yaml.safe_load((TLS_COMPONENT / patch["path"]).read_text()))
    return patched


# -- every YAML file parses ------------------------------------------------------------------------


YAML_FILES = sorted([*DEPLOY.rglob("*.yaml"), *DEPLOY.rglob("*.yml")])


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda path: str(path.relative_to(DEPLOY)))
def test_every_yaml_file_in_deploy_parses(path: Path) -> None:
    parsed = documents(path)
    assert parsed and all(isinstance(document, (dict, list)) for document in parsed)


# -- KubeRay --------------------------------------------------------------------------------------


@pytest.mark.parametrize("schema_path", KUBERAY_SCHEMAS, ids=lambda path: path.stem)
def test_the_raycluster_is_valid_against_kuberays_schema(schema_path: Path) -> None:
    cluster = the_one(kuberay_objects(), "RayCluster")
    assert cluster["apiVersion"] == "ray.io/v1"
    found = problems(kuberay_schema(schema_path), cluster)
    assert not found, f"{schema_path.name}: " + "; ".join(found)


def test_the_schema_check_refuses_a_misspelled_field() -> None:
    cluster = copy.deepcopy(the_one(kuberay_objects(), "RayCluster"))
    cluster["spec"]["gcsFaultToleranceOptions"]["redisAdress"] = "ray-gcs-redis:6379"
    cluster["spec"]["workerGroupSpecs"][0]["template"]["spec"]["hostNetwrok"] = True
    found = problems(kuberay_schema(KUBERAY_SCHEMAS[0]), cluster)
    assert any("redisAdress" in problem for problem in found) and any("hostNetwrok" in problem for problem in found)


def test_the_schemas_span_the_kuberay_releases_the_manifests_claim() -> None:
    assert [path.stem for path in KUBERAY_SCHEMAS] == ["raycluster-v1.3.0.schema", "raycluster-v1.7.0.schema"]
    assert "KubeRay 1.3 or later" in (KUBERAY / "raycluster.yaml").read_text()
    for path in KUBERAY_SCHEMAS:
        source = json.loads(path.read_text())["$comment"]
        assert re.search(r"github\.com/ray-project/kuberay/blob/[0-9a-f]{40}/", source), source


def test_the_raycluster_follows_the_rules_kuberay_checks_itself() -> None:
    """What KubeRay's controller refuses beyond the schema (its validation.go)."""
    cluster = the_one(kuberay_objects(), "RayCluster")
    assert re.fullmatch(r"[a-z]([-a-z0-9]*[a-z0-9])?", cluster["metadata"]["name"])
    assert len(cluster["metadata"]["name"]) <= 53
    head = cluster["spec"]["headGroupSpec"]
    assert head["template"]["spec"]["containers"]
    assert not {"RAY_REDIS_ADDRESS", "REDIS_PASSWORD"} & set(container_env(head["template"]["spec"]["containers"][0]))
    assert "redis-password" not in head["rayStartParams"]
    for group in cluster["spec"]["workerGroupSpecs"]:
        assert group["template"]["spec"]["containers"]
        assert 0 <= group["minReplicas"] <= group["replicas"] <= group["maxReplicas"]


@pytest.mark.parametrize("schema_path", KUBERAY_SCHEMAS, ids=lambda path: path.stem)
def test_every_pod_template_is_a_valid_pod_spec(schema_path: Path) -> None:
    """The Deployment's and StatefulSets' pods too, against the pod spec the CRD embeds."""
    schema = pod_template_schema(kuberay_schema(schema_path))
    templates = pod_templates(kuberay_objects())
    assert {"Deployment/front-door", "StatefulSet/tablehost-store", "StatefulSet/ray-gcs-redis"} <= set(templates)
    for where, template in templates.items():
        found = problems(schema, template)
        assert not found, f"{where}: " + "; ".join(found)


def test_workloads_and_services_select_the_pods_they_mean() -> None:
    objects = kuberay_objects()
    labels = {(kind, name): document["spec"]["template"]["metadata"]["labels"]
              for (kind, name), document in objects.items() if kind in ("Deployment", "StatefulSet")}
    for (kind, name), document in objects.items():
        if kind in ("Deployment", "StatefulSet"):
            assert document["spec"]["selector"]["matchLabels"].items() <= labels[(kind, name)].items(), name
        if kind == "Service":
            selector = document["spec"]["selector"].items()
            chosen = [workload for workload, pod_labels in labels.items() if selector <= pod_labels.items()]
            assert len(chosen) == 1, f"Service {name} selects {chosen}"


def test_every_disruption_budget_covers_one_workload_and_leaves_it_serving() -> None:
    """A node drained for an upgrade takes one pod of each at a time: the
    front doors, the room pods (KubeRay's), the store's servers and its
    sentinels (two of three: a quorum)."""
    objects = kuberay_objects()
    labels = {name: document["spec"]["template"]["metadata"]["labels"]
              for (kind, name), document in objects.items() if kind in ("Deployment", "StatefulSet")}
    [rooms] = the_one(objects, "RayCluster")["spec"]["workerGroupSpecs"]
    labels["rooms"] = rooms["template"]["metadata"]["labels"]
    budgets = {name: document["spec"] for (kind, name), document in objects.items() if kind == "PodDisruptionBudget"}
    covered = {}
    for name, budget in budgets.items():
        selector = budget["selector"]["matchLabels"].items()
        [covered[name]] = [workload for workload, pod_labels in labels.items() if selector <= pod_labels.items()]
        assert budget == {"maxUnavailable": 1, "selector": budget["selector"]}, name
    assert sorted(covered.values()) == ["front-door", "rooms", "tablehost-sentinel", "tablehost-store"]


def test_the_kuberay_ports_agree_with_the_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    config = the_cluster_config(monkeypatch)
    objects = kuberay_objects()
    ports = {port["name"]: port["containerPort"] for port in front_door_container(objects[("Deployment", "front-door")])["ports"]}
    assert ports == {"grpc": config.port, "metrics": config.metrics_port, "admin": config.admin_port,
                     "console": config.console_port, "web": config.web_port}
    lobby, metrics_service = objects[("Service", "tablehost-lobby")], objects[("Service", "front-door")]
    assert lobby["spec"]["type"] == "LoadBalancer"
    assert [(p["port"], p["targetPort"]) for p in lobby["spec"]["ports"]] == [(config.port, "grpc"),
                                                                              (config.web_port, "web")]
    # The admin plane never behind the players' load balancer: a Service inside the cluster.
    admin = objects[("Service", "tablehost-admin")]
    assert admin["spec"]["type"] == "ClusterIP" and config.admin_host == "0.0.0.0"
    assert [(p["port"], p["targetPort"]) for p in admin["spec"]["ports"]] == [(config.admin_port, "admin"),
                                                                               (config.console_port, "console")]
    assert metrics_service["spec"]["type"] == "ClusterIP"
    assert [(p["port"], p["targetPort"]) for p in metrics_service["spec"]["ports"]] == [(config.metrics_port, "metrics")]
    [rooms] = the_one(objects, "RayCluster")["spec"]["workerGroupSpecs"]
    assert rooms["template"]["spec"]["hostNetwork"] is True
    [worker] = rooms["template"]["spec"]["containers"]
    declared = [(port["containerPort"], port["hostPort"]) for port in worker["ports"]]
    room_range = list(range(config.room_port_min, config.room_port_max + 1))
    assert declared == list(zip(room_range, room_range))


def test_room_pods_drain_their_node_before_they_stop() -> None:
    """A room pod deleted or evicted (an upgrade, `kubectl drain`, its group
    scaled down) first drains its Ray node, so its tables move while their
    rooms still run. The hook runs the image's entrypoint, its command line
    parses with `tablehost drain`'s own flags, and it ends before Kubernetes
    kills the pod."""
    [rooms] = the_one(kuberay_objects(), "RayCluster")["spec"]["workerGroupSpecs"]
    [worker] = rooms["template"]["spec"]["containers"]
    program, role, *flags = worker["lifecycle"]["preStop"]["exec"]["command"]
    [image_entrypoint] = [json.loads(argument) for instruction, argument in dockerfile_instructions()
                          if instruction == "ENTRYPOINT"]
    assert [program] == image_entrypoint and role == "drain-node" and role in entrypoint_roles()
    args = drain_arguments(entrypoint_drain_flags() + flags, "deploy/kuberay rooms preStop")
    assert args.node == RUNTIME_VALUE and not args.rooms
    # Besides the drain's own timeout: the Ray driver that learns the node's id, and Ray's stop.
    assert args.timeout + 20 <= rooms["template"]["spec"]["terminationGracePeriodSeconds"]


def test_the_drain_check_refuses_a_misspelled_flag() -> None:
    with pytest.raises(AssertionError, match="--timout"):
        drain_arguments(["--node", "a-node", "--timout", "90"], "a test")


def test_the_addresses_in_the_flags_name_services_of_the_manifests(monkeypatch: pytest.MonkeyPatch) -> None:
    config = the_cluster_config(monkeypatch)
    objects = kuberay_objects()

    def serves(address: str) -> bool:
        host, _, port = address.partition(":")
        service = objects.get(("Service", host))
        return service is not None and int(port) in [p["port"] for p in service["spec"]["ports"]]

    # The store is the primary its sentinels name: each sentinel one pod of a
    # StatefulSet, by its name under the StatefulSet's headless Service.
    store = re.fullmatch(r"redis\+sentinel://([^/]+)/(\w+)", config.store or "")
    assert store
    sentinels = store[1].split(",")
    for address in sentinels:
        pod, _, service = address.partition(":")[0].partition(".")
        workload = objects[("StatefulSet", pod.rpartition("-")[0])]["spec"]
        assert workload["serviceName"] == service and int(pod.rpartition("-")[2]) < workload["replicas"]
        assert serves(f"{service}:{address.partition(':')[2]}")
    assert len(sentinels) == 3
    cluster = the_one(objects, "RayCluster")
    assert serves(cluster["spec"]["gcsFaultToleranceOptions"]["redisAddress"])
    head_address = container_env(front_door_container(objects[("Deployment", "front-door")]))["RAY_HEAD_ADDRESS"]
    head_ports = [p["containerPort"] for p in cluster["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"]
                  if p["name"] == "gcs-server"]
    # KubeRay names the head's Service after the cluster.
    assert head_address == f"{cluster['metadata']['name']}-head-svc:{head_ports[0]}"


def test_every_tablehost_container_runs_the_image_the_kustomization_renames() -> None:
    [image] = kustomization(KUBERAY)["images"]
    # Third-party images are pinned by tag; ours is the one the kustomization names.
    names = [container["image"] for template in pod_templates(kuberay_objects()).values()
             for container in template["spec"]["containers"] if ":" not in container["image"]]
    assert len(names) == 3 and set(names) == {image["name"]}


def test_the_kustomizations_read_files_that_exist_and_secrets_that_stay_out_of_git() -> None:
    ignored = (KUBERAY / ".gitignore").read_text().split()
    for folder in (KUBERAY, TLS_COMPONENT, DEPLOY / "prometheus", DEPLOY / "grafana"):
        spec = kustomization(folder)
        for resource in spec.get("resources", []):
            assert (folder / resource).is_file() or (folder / resource / "kustomization.yaml").is_file(), resource
        for generator in spec.get("configMapGenerator", []) + spec.get("secretGenerator", []):
            for entry in generator.get("files", []) + generator.get("envs", []):
                path = folder / entry.split("=")[-1]
                if path in OPERATOR_MADE:
                    assert str(path.relative_to(KUBERAY)) in ignored, f"{path} must be in deploy/kuberay/.gitignore"
                else:
                    assert path.is_file(), path
        for patch in spec.get("patches", []):
            assert (folder / patch["path"]).is_file()


def test_the_secrets_the_manifests_read_are_the_ones_the_guide_makes() -> None:
    referenced = {(variable["valueFrom"]["secretKeyRef"]["name"], variable["valueFrom"]["secretKeyRef"]["key"])
                  for template in pod_templates(kuberay_objects()).values()
                  for container in template["spec"]["containers"] for variable in container.get("env", [])
                  if "secretKeyRef" in variable.get("valueFrom", {})}
    [generator] = kustomization(KUBERAY)["secretGenerator"]
    for text in (GUIDE.read_text(), (KUBERAY / "kustomization.yaml").read_text()):
        [written] = re.findall(r"printf '([^']*)'", text)
        made = {(generator["name"], key) for key in re.findall(r"(?:^|\\n)([\w-]+)=%s", written)}
        assert referenced == made


def test_the_tls_component_serves_tls_and_names_rooms_by_their_nodes(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    objects = tls_patched(kuberay_objects())
    cluster = the_one(objects, "RayCluster")
    for schema_path in KUBERAY_SCHEMAS:
        assert not problems(kuberay_schema(schema_path), cluster)
    worker_env = cluster["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["env"]
    names = [variable["name"] for variable in worker_env]
    # Kubernetes expands $(NODE_NAME) only from a variable listed before.
    assert names.index("NODE_NAME") < names.index("ROOM_ADDRESS")
    assert worker_env[names.index("ROOM_ADDRESS")]["value"].startswith("$(NODE_NAME).")
    deployment = objects[("Deployment", "front-door")]
    assert not problems(pod_template_schema(kuberay_schema(KUBERAY_SCHEMAS[0])), deployment["spec"]["template"])
    container = front_door_container(deployment)
    [mount] = [m for m in container["volumeMounts"] if m["name"] == "tls"]
    [volume] = [v for v in deployment["spec"]["template"]["spec"]["volumes"] if v["name"] == "tls"]
    [generator] = kustomization(TLS_COMPONENT)["secretGenerator"]
    assert volume["secret"]["secretName"] == generator["name"]
    env = container_env(container)
    # The files Kubernetes mounts are where the flags look; here, a real pair.
    authority = trustme.CA()
    authority.issue_cert("lobby.rooms.example.com").private_key_and_cert_chain_pem.write_to_path(tmp_path / "both.pem")
    files = {}
    for variable in ("TABLEHOST_TLS_CERT", "TABLEHOST_TLS_KEY"):
        path = Path(env[variable])
        assert path.parent == Path(mount["mountPath"]) and path.name in generator["files"]
        files[variable] = str(tmp_path / "both.pem")
    command = kuberay_front_door(deployment, "deploy/kuberay/tls front-door")
    config = host_config(ServeCommand(command.origin, command.flags, {**command.env, **files}), monkeypatch)
    assert config.tls_cert_pem and config.tls_key_pem
    # Kubernetes' gRPC probe cannot speak TLS: readiness asks the plain HTTP metrics port.
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "metrics"}


def test_the_guides_dns_names_for_rooms_without_tls_are_the_tls_components_patch() -> None:
    """docs/operations.md tells how to advertise a DNS name per room node
    without TLS: by the TLS component's own patch, which the TLS test checks."""
    [block] = re.findall(r"^( {6}patches:\n(?: {8}.*\n)+)", GUIDE.read_text(), re.MULTILINE)
    [documented] = yaml.safe_load(textwrap.dedent(block))["patches"]
    [component] = [patch for patch in kustomization(TLS_COMPONENT)["patches"] if patch["target"]["kind"] == "RayCluster"]
    assert documented["target"] == component["target"]
    assert (KUBERAY / documented["path"]).resolve() == (TLS_COMPONENT / component["path"]).resolve()


# -- every `tablehost serve` command line ----------------------------------------------------------


@pytest.mark.parametrize("command", SERVE_COMMANDS, ids=lambda command: command.origin)
def test_every_serve_command_line_parses_with_the_real_flags(
        command: ServeCommand, monkeypatch: pytest.MonkeyPatch) -> None:
    config = host_config(command, monkeypatch)
    assert config.ray_address == "auto"  # the Ray node the entrypoint started
    assert (config.host, config.room_host) == ("0.0.0.0", "0.0.0.0")
    assert config.advertise_host == "env:ROOM_ADDRESS"
    # Sentinel where the layout runs it (Kubernetes, compose); one server on the `ray up` head.
    assert config.store is not None and config.store.startswith(("redis+sentinel://", "redis://"))
    assert config.metrics_port and config.log_format == "json"


def test_every_deployment_serves_with_the_same_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    def settings(command: ServeCommand) -> tuple[Any, ...]:
        config = host_config(command, monkeypatch)
        return (config.port, config.metrics_port, config.room_port_min, config.room_port_max, config.advertise_host,
                config.tables_per_room, config.rooms_per_cpu)

    assert len({settings(command) for command in SERVE_COMMANDS}) == 1


def test_deployments_set_only_variables_the_host_reads() -> None:
    set_here = {name for command in SERVE_COMMANDS for name in command.env if name.startswith("TABLEHOST_")}
    set_here |= {variable["name"] for document in tls_patched(kuberay_objects()).values()
                 if document["kind"] == "Deployment"
                 for variable in front_door_container(document).get("env", [])
                 if variable["name"].startswith("TABLEHOST_")}
    assert "TABLEHOST_TOKEN_SECRET" in set_here
    assert set_here <= config_env_names(), f"nothing reads {sorted(set_here - config_env_names())}"


def test_only_room_nodes_set_the_address_rooms_advertise(monkeypatch: pytest.MonkeyPatch) -> None:
    """A room the lobby tries to start anywhere else fails to start, saying so."""
    variable = the_cluster_config(monkeypatch).advertise_host.removeprefix("env:")
    templates = pod_templates(kuberay_objects())
    for where, template in templates.items():
        has_it = any(variable in container_env(container) for container in template["spec"]["containers"])
        assert has_it == (where == "RayCluster group rooms"), where
    services = compose()["services"]
    assert [name for name, service in services.items() if variable in service.get("environment", {})] == ["ray-worker"]
    config = ray_cluster()
    assert variable in shell_exports(ray_cluster_command(config["worker_start_ray_commands"], "ray start"))
    assert not any(variable in shell_exports(command) for command in config["head_start_ray_commands"])



def test_every_ray_node_rotates_its_logs() -> None:
    """What `tablehost serve` sets for a Ray of its own, so whatever clients
    make the lobby and rooms log, a node's disk holds a bounded amount."""
    environments = [container_env(template["spec"]["containers"][0])
                    for where, template in pod_templates(kuberay_objects()).items()
                    if where.startswith("RayCluster") or where == "Deployment/front-door"]
    environments += [service["environment"] for name, service in compose()["services"].items() if name.startswith("ray-")]
    run_options = ray_cluster()["docker"]["run_options"]
    environments.append(dict(option.removeprefix("--env ").split("=", 1) for option in run_options
                             if option.startswith("--env ")))
    assert len(environments) == 6
    for environment in environments:
        assert LOG_ROTATION.items() <= environment.items()

# -- Docker Compose -------------------------------------------------------------------------------


def test_the_compose_ports_agree_with_the_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    config = compose_config(monkeypatch)
    services = compose()["services"]
    assert (config.port, config.port) in compose_published_ports(services["ray-head"])
    room_range = list(range(config.room_port_min, config.room_port_max + 1))
    assert compose_published_ports(services["ray-worker"]) == list(zip(room_range, room_range))
    assert compose_value(services["ray-worker"]["environment"]["ROOM_ADDRESS"]) == "127.0.0.1"
    assert all(str(entry).startswith("127.0.0.1:") for service in services.values() for entry in service.get("ports", []))
    store = re.fullmatch(r"redis\+sentinel://([^/]+)/tablehost", config.store or "")
    assert store and all(address.partition(":")[0] in services for address in store[1].split(","))


def test_the_compose_prometheus_scrapes_the_front_door_and_finds_the_rooms_on_the_worker(
        monkeypatch: pytest.MonkeyPatch) -> None:
    config = compose_config(monkeypatch)
    shared = yaml.safe_load(PROMETHEUS.read_text())
    local = yaml.safe_load(PROMETHEUS_COMPOSE.read_text())
    jobs = {job["job_name"]: job for job in local["scrape_configs"]}
    assert set(jobs) == {job["job_name"] for job in shared["scrape_configs"]}
    door = f"ray-head:{config.metrics_port}"
    assert jobs["tablehost-front-door"]["static_configs"][0]["targets"] == [door]
    assert jobs["tablehost-room"]["http_sd_configs"][0]["url"] == f"http://{door}/targets"
    [relabel] = jobs["tablehost-room"]["relabel_configs"]
    rewritten = re.sub(f"^{relabel['regex']}$", relabel["replacement"].replace("$1", r"\1"), "127.0.0.1:41234")
    assert rewritten == "ray-worker:41234"
    services = compose()["services"]
    mounts = {target: source for source, target in (volume.split(":")[:2] for volume in services["prometheus"]["volumes"])}
    assert (DEPLOY / mounts["/etc/prometheus/prometheus.yml"]).resolve() == PROMETHEUS_COMPOSE
    [rules] = local["rule_files"]
    assert (DEPLOY / mounts[f"/etc/prometheus/{rules}"]).resolve() == ALERTS


def test_grafana_is_provisioned_with_prometheus_and_the_dashboard() -> None:
    services = compose()["services"]
    mounts = {target: (DEPLOY / source).resolve()
              for source, target in (volume.split(":")[:2] for volume in services["grafana"]["volumes"])}
    for folder in ("datasources", "dashboards"):
        assert mounts[f"/etc/grafana/provisioning/{folder}"] == GRAFANA_PROVISIONING / folder
    [source] = yaml.safe_load((GRAFANA_PROVISIONING / "datasources" / "prometheus.yml").read_text())["datasources"]
    assert source["type"] == "prometheus" and source["isDefault"]
    assert source["url"] == "http://prometheus:9090"
    assert "127.0.0.1:9090:9090" in services["prometheus"]["ports"]
    [provider] = yaml.safe_load((GRAFANA_PROVISIONING / "dashboards" / "tablehost.yml").read_text())["providers"]
    dashboards = [target for target, source_path in mounts.items() if source_path.suffix == ".json"]
    assert dashboards and all(Path(target).parent == Path(provider["options"]["path"]) for target in dashboards)
    dashboard = json.loads(mounts[dashboards[0]].read_text())
    assert {variable["query"] for variable in dashboard["templating"]["list"] if variable["type"] == "datasource"} == {"prometheus"}


# -- Prometheus and the alerts --------------------------------------------------------------------


def test_prometheus_scrapes_every_front_door_on_its_own_and_asks_a_ready_one_for_the_rooms(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Front doors behind one load-balanced address would be scraped one at
    random per scrape: a door's own metrics and the alerts on them need each
    door at its own address, a door that is not ready (its lobby away)
    included. The rooms' list is asked of a ready door: one that cannot reach
    the lobby lists none."""
    config = the_cluster_config(monkeypatch)
    objects = kuberay_objects()
    doors = objects[("Deployment", "front-door")]
    door_labels = doors["spec"]["template"]["metadata"]["labels"].items()
    jobs = {job["job_name"]: job for job in yaml.safe_load(PROMETHEUS.read_text())["scrape_configs"]}
    assert set(jobs["tablehost-front-door"]) == {"job_name", "dns_sd_configs"}  # no load-balanced target
    [discovery] = jobs["tablehost-front-door"]["dns_sd_configs"]
    [name] = discovery["names"]
    every_door = objects[("Service", name)]["spec"]
    assert discovery["type"] == "A" and discovery["port"] == config.metrics_port
    assert every_door["clusterIP"] == "None" and every_door["publishNotReadyAddresses"] is True
    assert every_door["selector"].items() <= door_labels
    assert [(p["port"], p["targetPort"]) for p in every_door["ports"]] == [(config.metrics_port, "metrics")]
    [rooms] = jobs["tablehost-room"]["http_sd_configs"]
    url = urlsplit(rooms["url"])
    assert (url.scheme, url.port, url.path) == ("http", config.metrics_port, "/targets")
    a_ready_door = objects[("Service", url.hostname)]["spec"]
    assert a_ready_door["type"] == "ClusterIP" and "clusterIP" not in a_ready_door
    assert not a_ready_door.get("publishNotReadyAddresses", False)
    assert a_ready_door["selector"].items() <= door_labels
    assert [(p["port"], p["targetPort"]) for p in a_ready_door["ports"]] == [(config.metrics_port, "metrics")]


def served_metric_names() -> set[str]:
    """Every sample name a room or a front door exposes, as PromQL sees it."""
    names = {name for name, _help, _labels in ROOM_GAUGES + DOOR_GAUGES}
    names |= {sample.name for family in ProcessCollector(registry=None).collect() for sample in family.samples}
    for metric in vars(metrics).values():
        if isinstance(metric, metrics.Counter):
            names |= {f"{family.name}_total" for family in metric.describe()}
        elif isinstance(metric, metrics.Histogram):
            names |= {f"{family.name}_{suffix}" for family in metric.describe() for suffix in ("bucket", "count", "sum")}
    return names


def alert_rules() -> list[dict[str, Any]]:
    return [rule for group in yaml.safe_load(ALERTS.read_text())["groups"] for rule in group["rules"]]


def test_every_alert_names_a_served_metric_and_a_scraped_job() -> None:
    rules = alert_rules()
    jobs = {job["job_name"] for job in yaml.safe_load(PROMETHEUS.read_text())["scrape_configs"]}
    used = {name for rule in rules for name in re.findall(r"\b(?:tablehost|process)_[a-z_]+", rule["expr"])}
    assert used and used <= served_metric_names(), f"no process serves {sorted(used - served_metric_names())}"
    named_jobs = {job for rule in rules for job in re.findall(r'job="([^"]+)"', rule["expr"])}
    assert named_jobs and named_jobs <= jobs


def test_the_guide_explains_every_alert_the_rules_raise() -> None:
    in_rules = {rule["alert"] for rule in alert_rules()}
    in_guide = set(re.findall(r"^\| (Tablehost\w+)", GUIDE.read_text(), re.MULTILINE))
    assert in_rules == in_guide


# -- ray start, and the cluster launcher ----------------------------------------------------------


def ray_start_accepts(arguments: list[str]) -> None:
    """Parse a `ray start` command line with Ray's own CLI: an unknown or
    misspelled flag raises."""
    try:
        ray_start.make_context("ray start", list(arguments))
    except click.UsageError as error:
        raise AssertionError(f"ray start {' '.join(arguments)}: {error.format_message()}") from None


def ray_start_command_lines() -> Iterator[tuple[str, list[str]]]:
    text = ENTRYPOINT.read_text()
    constants = dict(re.findall(r"^readonly (\w+)=(\S+)$", text, re.MULTILINE))
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    for line in re.findall(r"ray start (.*)$", code, re.MULTILINE):
        arguments = [re.sub(r"\$(\w+)", lambda match: constants.get(match[1], RUNTIME_VALUE), word)
                     for word in shlex.split(line.replace('"$address"', "head:6379")) if "@" not in word]
        yield "deploy/entrypoint.sh", arguments
    services = compose()["services"]
    ray_flags, _serve_flags = split_head_command(services["ray-head"]["command"])
    yield "deploy/docker-compose.yml ray-head", ["--head", *ray_flags]
    role, *worker_flags = services["ray-worker"]["command"]
    assert role == "worker"
    yield "deploy/docker-compose.yml ray-worker", ["--address=ray-head:6379", *worker_flags]
    config = ray_cluster()
    command = ray_cluster_command(config["head_start_ray_commands"], "entrypoint.sh head")
    [arguments] = re.findall(r"entrypoint\.sh (head .*?) < /dev/null", without_command_substitutions(command))
    ray_flags, _serve_flags = split_head_command(shlex.split(arguments))
    yield "deploy/ray-cluster.yaml head", ["--head", *ray_flags]
    command = ray_cluster_command(config["worker_start_ray_commands"], "ray start")
    [arguments] = re.findall(r"ray start (.*)$", without_command_substitutions(command))
    yield "deploy/ray-cluster.yaml worker", shlex.split(arguments)
    cluster = the_one(kuberay_objects(), "RayCluster")
    groups = [("--head", cluster["spec"]["headGroupSpec"])]
    groups += [("--address=tablehost-head-svc:6379", group) for group in cluster["spec"]["workerGroupSpecs"]]
    for first, group in groups:
        yield "deploy/kuberay rayStartParams", [first, *(f"--{key}={value}" for key, value in group["rayStartParams"].items())]


def test_every_ray_start_command_line_parses_with_rays_flags() -> None:
    command_lines = list(ray_start_command_lines())
    assert len(command_lines) >= 10
    for _origin, arguments in command_lines:
        ray_start_accepts(arguments)


def test_the_ray_start_check_refuses_a_misspelled_flag() -> None:
    with pytest.raises(AssertionError, match="num-cpu"):
        ray_start_accepts(["--head", "--num-cpu=0"])


def test_nodes_that_hold_no_rooms_give_ray_no_cpus() -> None:
    """The lobby starts rooms by CPUs: none on the head or a front door."""
    [front_door] = re.findall(r"^ {4}front-door\)$(.*?)^ {8};;$", ENTRYPOINT.read_text(), re.MULTILINE | re.DOTALL)
    assert "--num-cpus=0" in front_door
    assert the_one(kuberay_objects(), "RayCluster")["spec"]["headGroupSpec"]["rayStartParams"]["num-cpus"] == "0"
    assert "--num-cpus=0" in compose()["services"]["ray-head"]["command"]
    config = ray_cluster()
    assert config["available_node_types"][config["head_node_type"]]["resources"] == {"CPU": 0}
    assert "--num-cpus=0" in ray_cluster_command(config["head_start_ray_commands"], "entrypoint.sh head")


def test_the_cluster_launcher_config_is_valid_and_opens_only_the_players_ports(
        monkeypatch: pytest.MonkeyPatch) -> None:
    config = ray_cluster()
    found = problems(json.loads(RAY_CLUSTER_SCHEMA.read_text()), config)
    assert not found, "; ".join(found)
    host = the_cluster_config(monkeypatch)
    opened = {port for rule in config["provider"]["security_group"]["IpPermissions"]
              for port in range(rule["FromPort"], rule["ToPort"] + 1)}
    assert opened == {host.port, host.web_port, *range(host.room_port_min, host.room_port_max + 1)}
    # Room nodes follow demand: rooms ask for the tablehost_room slots the room node type declares.
    assert host.rooms_follow_demand
    for name, node_type in config["available_node_types"].items():
        if name != config["head_node_type"]:
            assert node_type["resources"][ROOM_RESOURCE] >= 1 and node_type["min_workers"] < node_type["max_workers"]
    assert config["max_workers"] == sum(node_type.get("max_workers", 0)
                                        for node_type in config["available_node_types"].values())


def test_kubernetes_sizes_room_pods_and_front_doors_by_demand(monkeypatch: pytest.MonkeyPatch) -> None:
    """KubeRay's autoscaler adds room pods for rooms that ask for a room slot
    (the pods declare them, the front doors follow demand), and front doors
    follow their CPU."""
    objects = kuberay_objects()
    cluster = the_one(objects, "RayCluster")["spec"]
    [rooms] = cluster["workerGroupSpecs"]
    assert cluster["enableInTreeAutoscaling"] is True and rooms["minReplicas"] < rooms["maxReplicas"]
    declared = json.loads(json.loads(rooms["rayStartParams"]["resources"]))
    assert declared[ROOM_RESOURCE] >= 1
    config = host_config(kuberay_front_door(objects[("Deployment", "front-door")], "deploy/kuberay front-door"),
                         monkeypatch)
    assert config.rooms_follow_demand
    scaler = objects[("HorizontalPodAutoscaler", "front-door")]["spec"]
    assert scaler["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "front-door"}
    assert 1 <= scaler["minReplicas"] < scaler["maxReplicas"]
    # On the players waiting: an external metric the adapter's rule makes from a gauge the doors serve.
    [waiting] = [metric["external"] for metric in scaler["metrics"] if metric["type"] == "External"]
    [rule] = yaml.safe_load((DEPLOY / "prometheus" / "prometheus-adapter.yaml").read_text())["externalRules"]
    assert rule["name"]["as"] == waiting["metric"]["name"] == "tablehost_door_waiting"
    assert "tablehost_door_waiting" in {name for name, _help, _labels in DOOR_GAUGES}
    assert rule["metricsQuery"].startswith("sum(tablehost_door_waiting") and float(waiting["target"]["averageValue"]) > 0


# -- the image ------------------------------------------------------------------------------------


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(instruction, its arguments) for every line of the Dockerfile that is not a comment."""
    instructions = []
    for line in DOCKERFILE.read_text().splitlines():
        if line and not line.startswith("#"):
            instruction, _, arguments = line.partition(" ")
            instructions.append((instruction, arguments.strip()))
    return instructions


def ray_image_version(image: str) -> str:
    match = re.fullmatch(r"rayproject/ray:(\d+\.\d+\.\d+)-py(\d)(\d+)", image)
    assert match, f"not Ray's official image for a Python: {image}"
    return match[1]


def test_the_ray_image_is_the_installed_ray_within_pyprojects_range() -> None:
    [base] = [argument for instruction, argument in dockerfile_instructions() if instruction == "FROM"]
    version = ray_image_version(base)
    assert version == ray.__version__
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    [requirement] = [dependency for dependency in project["dependencies"] if re.match(r"ray\b", dependency)]
    assert version in SpecifierSet(requirement.removeprefix("ray").split(";")[0])
    python = re.search(r"-py(\d)(\d+)$", base)
    assert python and f"{python[1]}.{python[2]}" in SpecifierSet(project["requires-python"])
    assert ray_cluster()["docker"]["image"] == base
    assert the_one(kuberay_objects(), "RayCluster")["spec"]["rayVersion"] == version


def package_sources() -> set[str]:
    """What pip builds the package from: pyproject.toml's package folder, the
    folders its links lead to, its metadata and the README it names."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    roots = {folder.split("/")[0] for folder in setuptools["package-dir"].values()}
    linked = {os.readlink(entry).removeprefix("../").split("/")[0]
              for root in roots for entry in (ROOT / root).iterdir() if entry.is_symlink()}
    return roots | linked | {"pyproject.toml", "README.md"}


def docker_ignores(path: str) -> bool:
    """Whether the build context leaves `path` out: the last pattern that
    matches it, or a folder holding it, decides (Docker's rules)."""
    ignored = False
    for pattern in DOCKERIGNORE.read_text().splitlines():
        if not pattern or pattern.startswith("#"):
            continue
        keep = pattern.startswith("!")
        pattern = pattern.removeprefix("!")
        prefixes = ["/".join(path.split("/")[:depth]) for depth in range(1, path.count("/") + 2)]
        if any(fnmatch(prefix, pattern) or fnmatch(prefix, pattern.removeprefix("**/")) for prefix in prefixes):
            ignored = not keep
    return ignored


def test_the_image_is_built_from_the_package_sources_and_nothing_else() -> None:
    copied = [argument.split() for instruction, argument in dockerfile_instructions() if instruction == "COPY"]
    sources = {source for words in copied for source in words[:-1] if not source.startswith("--")}
    assert sources == package_sources() | {"deploy/entrypoint.sh", "requirements.lock"}
    for source in sources:
        assert (ROOT / source).exists() and not docker_ignores(source), source
    for left_out in (".venv", ".git", "tests", "docs", "actors/__pycache__", "deploy/kuberay/secrets.env"):
        assert docker_ignores(left_out), left_out
    mounted = {remote.removeprefix("~/tablehost/") for remote in ray_cluster()["file_mounts"] if remote.startswith("~/tablehost/")}
    assert mounted == sources


def test_the_image_runs_the_entrypoint_as_its_ray_user() -> None:
    instructions = dockerfile_instructions()
    [user] = [argument for instruction, argument in instructions if instruction == "USER"]
    assert user == "ray"
    [entrypoint] = [json.loads(argument) for instruction, argument in instructions if instruction == "ENTRYPOINT"]
    [copied] = [argument.split() for instruction, argument in instructions
                if instruction == "COPY" and "deploy/entrypoint.sh" in argument]
    assert entrypoint == [Path(copied[-1]).name] and "--chmod=0755" in copied
    assert os.access(ENTRYPOINT, os.X_OK)
    assert re.search(r"pip install --no-cache-dir -c \S+ /tmp/tablehost\b", DOCKERFILE.read_text())  # not editable
    roles_used = {front_door_container(kuberay_objects()[("Deployment", "front-door")])["args"][0]}
    roles_used |= {service["command"][0] for name, service in compose()["services"].items() if name.startswith("ray-")}
    assert roles_used == {"front-door", "head", "worker"} and roles_used <= entrypoint_cases()


def test_the_dockerfile_exposes_the_ports_the_deployments_use(monkeypatch: pytest.MonkeyPatch) -> None:
    config = the_cluster_config(monkeypatch)
    [exposed] = [argument.split() for instruction, argument in dockerfile_instructions() if instruction == "EXPOSE"]
    ports = {port for entry in exposed for port in port_range(entry)}
    assert ports == {config.port, config.admin_port, config.console_port, config.web_port, config.metrics_port,
                     *range(config.room_port_min, config.room_port_max + 1)}


# -- the documentation ----------------------------------------------------------------------------


def test_the_roles_documented_are_the_roles_the_entrypoint_takes() -> None:
    """docs/operations.md's table of the image's roles (`docker run
    tablehost ROLE ...`) and the entrypoint's own usage against its `case`:
    a role added, renamed or removed in one place fails here until the
    others say so too."""
    documented = set()
    for first_cell, *_rest in guide_table("role"):
        match = re.fullmatch(r"`([a-z][a-z-]*)\b[^`]*`.*", first_cell)
        assert match, f"not a role: {first_cell}"
        documented.add(match[1])
    assert documented == entrypoint_roles()
    assert entrypoint_usage_roles() == entrypoint_roles() - {"help"}  # help prints the usage


@pytest.mark.parametrize("command", sorted(DOCUMENTED_COMMANDS))
def test_the_readme_and_the_guide_give_the_commands_the_files_are_made_for(command: str) -> None:
    for path in (DOCUMENTED_COMMANDS[command], GUIDE, README):
        assert command in path.read_text(), f"{path.relative_to(ROOT)} does not say `{command}`"
    target = ROOT / next(word for word in command.split() if word.startswith("deploy/"))
    assert target.exists()

