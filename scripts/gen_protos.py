"""Regenerate the Python code for protos/ (the one documented command):

    python scripts/gen_protos.py           # write protos/tablehost/v1/*_pb2*.py
    python scripts/gen_protos.py --check   # exit 1 if the committed code is stale

The generated modules sit beside their .proto files, in the `tablehost.v1`
package that pyproject.toml maps onto protos/tablehost."""

from __future__ import annotations

import argparse
import filecmp
import sys
import tempfile
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
SOURCES = sorted(PROTOS.glob("tablehost/v1/*.proto"))
GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py")


def generate(out_dir: Path) -> None:
    args = [
        "protoc",
        f"-I{PROTOS}",
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        *[str(source) for source in SOURCES],
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")


def stale_files() -> list[str]:
    """Generated files that differ from (or are missing next to) protos/."""
    with tempfile.TemporaryDirectory() as scratch:
        fresh = Path(scratch)
        generate(fresh)
        stale = []
        for path in sorted(fresh.rglob("*")):
            if path.is_file():
                committed = PROTOS / path.relative_to(fresh)
                if not committed.exists() or not filecmp.cmp(path, committed, shallow=False):
                    stale.append(str(committed.relative_to(ROOT)))
        for committed in sorted(PROTOS.rglob("*")):
            if committed.name.endswith(GENERATED_SUFFIXES) and not (fresh / committed.relative_to(PROTOS)).exists():
                stale.append(str(committed.relative_to(ROOT)))
        return stale


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the committed code is stale")
    if parser.parse_args().check:
        stale = stale_files()
        if stale:
            print("stale generated code (run python scripts/gen_protos.py):", *stale, sep="\n  ")
            sys.exit(1)
        print("generated code is up to date")
    else:
        generate(PROTOS)


if __name__ == "__main__":
    main()
