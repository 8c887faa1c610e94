"""The committed protobuf code is what `python scripts/gen_protos.py` makes
from protos/ now: a .proto edited without regenerating fails here."""

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gen_protos.py"


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_protos", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_generated_code_matches_the_protos() -> None:
    generator = load_generator()
    assert generator.SOURCES, "no .proto files found"
    assert generator.stale_files() == []


def test_a_changed_proto_is_reported_stale(tmp_path, monkeypatch) -> None:
    generator = load_generator()
    copy = tmp_path / "protos"
    for source in generator.PROTOS.rglob("*"):
        if source.is_file():
            target = copy / source.relative_to(generator.PROTOS)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    edited = copy / "tablehost" / "v1" / "table.proto"
    edited.write_text(edited.read_text().replace("uint64 last_seq = 2;", "uint64 last_seq = 2;\n  string extra = 9;"))
    monkeypatch.setattr(generator, "PROTOS", copy)
    monkeypatch.setattr(generator, "ROOT", tmp_path)
    monkeypatch.setattr(generator, "SOURCES", sorted(copy.glob("tablehost/v1/*.proto")))
    ts_copy = tmp_path / "clients" / "ts" / "src" / "generated" / "protos.ts"
    ts_copy.parent.mkdir(parents=True)
    ts_copy.write_bytes(generator.TS_PROTOS.read_bytes())
    monkeypatch.setattr(generator, "TS_PROTOS", ts_copy)
    stale = generator.stale_files()
    assert "protos/tablehost/v1/table_pb2.py" in stale
    assert any(path.endswith("clients/ts/src/generated/protos.ts") for path in stale)
