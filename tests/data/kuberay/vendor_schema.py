"""Vendor the RayCluster schema of one KubeRay release for
tests/unit/test_deploy_manifests.py, which checks deploy/kuberay against it.

The CRD repeats the whole Kubernetes pod spec for the head and every worker
group, and the container spec within each pod spec several times, so the
vendored file keeps every subschema that occurs more than once (and is not
tiny) once, under `$defs`, and refers to it with `$ref`: the same schema,
validating exactly the same documents, at under half the size.

    .venv/bin/python tests/data/kuberay/vendor_schema.py v1.7.0 59d663aeec13760646da3db9c1cf8cfe883e30b7

reads the CRD of that release (its tag and commit) from GitHub and writes
raycluster-<tag>.schema.json beside this script.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

REPOSITORY = "https://github.com/ray-project/kuberay"
CRD_PATH = "ray-operator/config/crd/bases/ray.io_rayclusters.yaml"
# Repeated subschemas smaller than this stay inline: a reference would not be shorter.
MIN_SHARED_BYTES = 400

Schema = dict[str, Any]


def canonical(schema: Schema) -> str:
    return json.dumps(schema, sort_keys=True, separators=(",", ":"))


def child_schemas(schema: Schema) -> list[tuple[str, Schema]]:
    """The subschemas directly inside `schema`, each with a name hint: only
    places that hold a schema (a `properties` map holds names, not one)."""
    children: list[tuple[str, Schema]] = []
    for name, child in schema.get("properties", {}).items():
        children.append((name, child))
    for keyword in ("items", "additionalProperties", "not"):
        if isinstance(schema.get(keyword), dict):
            children.append((keyword, schema[keyword]))
    for keyword in ("anyOf", "allOf", "oneOf"):
        children.extend((keyword, child) for child in schema.get(keyword, []))
    return children


def count_subschemas(schema: Schema, counts: Counter[str]) -> None:
    counts[canonical(schema)] += 1
    for _hint, child in child_schemas(schema):
        count_subschemas(child, counts)


class Sharer:
    """Replaces every shared subschema by a reference to its one copy."""

    def __init__(self, counts: Counter[str]) -> None:
        self.shared = {text for text, count in counts.items() if count > 1 and len(text) >= MIN_SHARED_BYTES}
        self.defs: dict[str, Schema] = {}
        self.names: dict[str, str] = {}

    def rewrite(self, schema: Schema, hint: str) -> Schema:
        text = canonical(schema)
        if text in self.shared:
            if text not in self.names:
                name = f"{hint}-{hashlib.sha256(text.encode()).hexdigest()[:10]}"
                self.names[text] = name
                self.defs[name] = self.rewrite_inside(schema)
            return {"$ref": f"#/$defs/{self.names[text]}"}
        return self.rewrite_inside(schema)

    def rewrite_inside(self, schema: Schema) -> Schema:
        rewritten = dict(schema)
        if "properties" in schema:
            rewritten["properties"] = {name: self.rewrite(child, name) for name, child in schema["properties"].items()}
        for keyword in ("items", "additionalProperties", "not"):
            if isinstance(schema.get(keyword), dict):
                rewritten[keyword] = self.rewrite(schema[keyword], keyword)
        for keyword in ("anyOf", "allOf", "oneOf"):
            if keyword in schema:
                rewritten[keyword] = [self.rewrite(child, keyword) for child in schema[keyword]]
        return rewritten


def vendored(crd: dict[str, Any], source: str) -> Schema:
    [version] = [v for v in crd["spec"]["versions"] if v["name"] == "v1"]
    schema = version["schema"]["openAPIV3Schema"]
    counts: Counter[str] = Counter()
    count_subschemas(schema, counts)
    sharer = Sharer(counts)
    root = sharer.rewrite_inside(schema)
    return {
        "$comment": (f"The RayCluster ray.io/v1 openAPIV3Schema of {source}, with every repeated subschema of "
                     f"{MIN_SHARED_BYTES} bytes or more kept once under $defs (tests/data/kuberay/vendor_schema.py)."),
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **root,
        "$defs": sharer.defs,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tag", help="a KubeRay release tag, e.g. v1.7.0")
    parser.add_argument("commit", help="the commit the tag names (the file records it)")
    args = parser.parse_args()
    with urllib.request.urlopen(f"https://raw.githubusercontent.com/ray-project/kuberay/{args.commit}/{CRD_PATH}") as answer:
        crd = yaml.safe_load(answer.read())
    schema = vendored(crd, f"{REPOSITORY}/blob/{args.commit}/{CRD_PATH} (KubeRay {args.tag})")
    out = Path(__file__).with_name(f"raycluster-{args.tag}.schema.json")
    out.write_text(json.dumps(schema, indent=1, sort_keys=True) + "\n")
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
