"""The alert rules and Alertmanager's configuration, checked by the tools
that load them: promtool checks the rules and both Prometheus
configurations and runs the rules' unit tests (each alert fires when what
it watches goes wrong, not before its `for:`); amtool checks Alertmanager's
configuration and routes each severity to its receiver. The Prometheus
Operator's copy of the rules is the rule file's own. scripts/install_services.sh
installs promtool and amtool from the distribution's packages."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PROMETHEUS = ROOT / "deploy" / "prometheus"
TOOLS_MISSING = "promtool and amtool come with scripts/install_services.sh (Debian's prometheus packages)"


def tool(name: str) -> str:
    path = shutil.which(name)
    assert path is not None, f"{name} is not installed: {TOOLS_MISSING}"
    return path


def run(*argv: str, cwd: Path = PROMETHEUS) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=120)


def test_promtool_accepts_the_rules_and_both_prometheus_configurations() -> None:
    for argv in (("check", "rules", "tablehost-alerts.yml"), ("check", "config", "prometheus.yml"),
                 ("check", "config", "prometheus.compose.yml")):
        checked = run(tool("promtool"), *argv)
        assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_rules_unit_tests_pass() -> None:
    tested = run(tool("promtool"), "test", "rules", "tablehost-alerts.test.yml")
    assert tested.returncode == 0 and "SUCCESS" in tested.stdout, tested.stdout + tested.stderr


def test_the_rules_unit_tests_catch_an_alert_that_no_longer_fires(tmp_path: Path) -> None:
    """The check above can fail: with one threshold moved, promtool says which test broke."""
    rules = (PROMETHEUS / "tablehost-alerts.yml").read_text()
    broken = rules.replace("expr: max(tablehost_tournament_rounds_overdue) > 0",
                           "expr: max(tablehost_tournament_rounds_overdue) > 5")
    assert broken != rules
    (tmp_path / "tablehost-alerts.yml").write_text(broken)
    shutil.copy(PROMETHEUS / "tablehost-alerts.test.yml", tmp_path)
    tested = run(tool("promtool"), "test", "rules", "tablehost-alerts.test.yml", cwd=tmp_path)
    assert tested.returncode != 0 and "TablehostTournamentRoundOverdue" in tested.stdout + tested.stderr


def test_every_alert_has_a_unit_test() -> None:
    alerts = {rule["alert"] for group in yaml.safe_load((PROMETHEUS / "tablehost-alerts.yml").read_text())["groups"]
              for rule in group["rules"]}
    tested = {test["alertname"] for case in yaml.safe_load((PROMETHEUS / "tablehost-alerts.test.yml").read_text())["tests"]
              for test in case["alert_rule_test"] if test.get("exp_alerts")}
    assert tested == alerts


def test_alertmanager_pages_for_critical_alerts_and_tells_the_channel_of_warnings() -> None:
    config = str(PROMETHEUS / "alertmanager.yml")
    checked = run(tool("amtool"), "check-config", config)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    for labels, receiver in ((("severity=critical", "alertname=TablehostLobbyDown"), "on-call"),
                             (("severity=warning", "alertname=TablehostDesyncs"), "team-channel")):
        routed = run(tool("amtool"), "config", "routes", "test", f"--config.file={config}", *labels)
        assert routed.returncode == 0 and routed.stdout.strip() == receiver, routed.stdout + routed.stderr


def test_the_prometheus_operators_rules_are_the_rule_files() -> None:
    checked = run(sys.executable, str(ROOT / "scripts" / "gen_prometheus_rule.py"), "--check", cwd=ROOT)
    assert checked.returncode == 0, checked.stderr
    rule = yaml.safe_load((ROOT / "deploy" / "kuberay" / "prometheus-operator" / "prometheus-rule.yaml").read_text())
    rules = yaml.safe_load((PROMETHEUS / "tablehost-alerts.yml").read_text())
    assert rule["kind"] == "PrometheusRule" and rule["spec"]["groups"] == rules["groups"]


@pytest.mark.parametrize("config", ["prometheus.yml", "prometheus.compose.yml"])
def test_prometheus_loads_the_rules_and_sends_alerts_to_alertmanager(config: str) -> None:
    loaded = yaml.safe_load((PROMETHEUS / config).read_text())
    assert [Path(path).name for path in loaded["rule_files"]] == ["tablehost-alerts.yml"]
    [manager] = loaded["alerting"]["alertmanagers"]
    assert manager["static_configs"][0]["targets"] == ["alertmanager:9093"]
