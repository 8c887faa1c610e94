"""Write deploy/kuberay/prometheus-operator/prometheus-rule.yaml, the alert rules of
deploy/prometheus/tablehost-alerts.yml as a PrometheusRule, for a Prometheus
run by the Prometheus Operator (kube-prometheus-stack, say), which loads
rules from those objects rather than from files:

    python scripts/gen_prometheus_rule.py           # write it
    python scripts/gen_prometheus_rule.py --check   # exit 1 if it is stale

The rule file stays the one source (promtool tests it; the plain
Prometheus configurations load it)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "deploy" / "prometheus" / "tablehost-alerts.yml"
OUTPUT = ROOT / "deploy" / "kuberay" / "prometheus-operator" / "prometheus-rule.yaml"
HEADER = """\
# Written by scripts/gen_prometheus_rule.py from deploy/prometheus/tablehost-alerts.yml
# (do not edit): the alert rules for a Prometheus run by the Prometheus Operator.
# Its ruleSelector must match these labels (kube-prometheus-stack's default
# selects `release: <its release name>`: add that label with a kustomize
# patch if yours does).
"""


def prometheus_rule() -> str:
    groups = yaml.safe_load(RULES.read_text())["groups"]
    rule = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": "tablehost", "labels": {"app.kubernetes.io/name": "tablehost",
                                                      "app.kubernetes.io/component": "alerts"}},
        "spec": {"groups": groups},
    }
    return HEADER + yaml.safe_dump(rule, sort_keys=False, width=120)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the written file is stale")
    args = parser.parse_args()
    text = prometheus_rule()
    if args.check:
        if not OUTPUT.exists() or OUTPUT.read_text() != text:
            print(f"{OUTPUT.relative_to(ROOT)} is stale: run python scripts/gen_prometheus_rule.py", file=sys.stderr)
            return 1
        print("the PrometheusRule is up to date")
        return 0
    OUTPUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
