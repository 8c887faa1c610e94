"""The dashboard and scrape configuration we ship name only metrics the host
serves, and every metric the host serves is documented in the README: a
renamed metric fails here, not on an operator's empty panel."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import yaml
from prometheus_client import ProcessCollector

from tablehost.actors import metrics
from tablehost.actors.room_server import ROOM_GAUGES
from tablehost.host.door_metrics import DOOR_GAUGES

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "deploy" / "grafana" / "tablehost-dashboard.json"
SCRAPE_CONFIG = ROOT / "deploy" / "prometheus" / "prometheus.yml"
ALERTS = ROOT / "deploy" / "prometheus" / "tablehost-alerts.yml"


def served_names() -> set[str]:
    """Every sample name a room or front door exposes, as PromQL sees it
    (Python's process metrics included)."""
    names = {name for name, _help, _labels in ROOM_GAUGES + DOOR_GAUGES}
    names |= {sample.name for family in ProcessCollector(registry=None).collect() for sample in family.samples}
    for metric in vars(metrics).values():
        for family in metric.describe() if isinstance(metric, metrics.Counter) else ():
            names.add(f"{family.name}_total")
        for family in metric.describe() if isinstance(metric, metrics.Histogram) else ():
            names |= {f"{family.name}_{suffix}" for suffix in ("bucket", "count", "sum")}
    return names


def exported_families() -> set[str]:
    """The families, by the name the README documents them under."""
    families = {name for name, _help, _labels in ROOM_GAUGES + DOOR_GAUGES}
    for metric in vars(metrics).values():
        if isinstance(metric, (metrics.Counter, metrics.Histogram)):
            for family in metric.describe():
                families.add(f"{family.name}_total" if isinstance(metric, metrics.Counter) else family.name)
    return families


def test_every_dashboard_query_names_a_served_metric() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    served = served_names()
    expressions = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    assert expressions
    used = {name for expr in expressions for name in re.findall(r"\b(?:tablehost|process)_[a-z_]+", expr)}
    assert used <= served, f"the dashboard asks for metrics nobody serves: {sorted(used - served)}"
    assert len({panel["id"] for panel in dashboard["panels"]}) == len(dashboard["panels"])


def test_the_scrape_configuration_finds_rooms_where_the_front_doors_list_them() -> None:
    config = yaml.safe_load(SCRAPE_CONFIG.read_text())
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    [doors] = jobs["tablehost-front-door"]["dns_sd_configs"]
    rooms = urlsplit(jobs["tablehost-room"]["http_sd_configs"][0]["url"])
    assert (rooms.port, rooms.path) == (doors["port"], "/targets")


def test_what_every_front_door_reads_from_the_lobby_is_not_added_up_across_doors() -> None:
    """Prometheus scrapes each front door: a gauge every door reads from the
    one lobby (tables, rooms, queues) comes once per door, so a dashboard or
    an alert takes its max over the doors; only a door's own gauges add up."""
    lobby_wide = {name for name, help_text, _labels in DOOR_GAUGES if "this front door" not in help_text}
    assert {"tablehost_tables_running", "tablehost_queue_waiting"} <= lobby_wide
    assert "tablehost_door_waiting" not in lobby_wide
    dashboard = json.loads(DASHBOARD.read_text())
    expressions = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    expressions += [rule["expr"] for group in yaml.safe_load(ALERTS.read_text())["groups"] for rule in group["rules"]]
    for expr in expressions:
        for name in lobby_wide:
            used = len(re.findall(rf"\b{name}\b", expr))
            taken_once = len(re.findall(rf"\b(?:max|min|avg)(?:\s+by\s*\([^)]*\))?\s*\(\s*{name}\b", expr))
            assert used == taken_once, f"{expr}: {name} is the same on every front door; take its max over them"


def test_the_readme_documents_every_metric() -> None:
    readme = (ROOT / "README.md").read_text()
    missing = sorted(name for name in exported_families() if f"`{name}`" not in readme)
    assert not missing, f"README.md does not document {missing}"
