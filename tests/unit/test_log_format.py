"""`--log-format json`: one JSON object a line, and a line about a table
carries its table id, seq and act_id as fields a log pipeline can filter on.
The Table is the real object a room serves."""

from __future__ import annotations

import asyncio
import io
import json
import logging

import msgpack
import pytest

from tablehost.actors.log_format import JsonFormatter, configure_logging, log_fields
from tablehost.actors.table import Table
from tablehost.games.bigtwo.game import RULES as BIGTWO
from tablehost.games.engine.fairness import TableSeed


def json_lines_of(logger_name: str, scenario) -> list[dict]:
    written = io.StringIO()
    handler = logging.StreamHandler(written)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger(logger_name)
    logger.addHandler(handler)
    previous_level = logger.level
    logger.setLevel(logging.INFO)
    try:
        scenario()
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous_level)
    return [json.loads(line) for line in written.getvalue().splitlines()]


def test_a_rejection_is_one_json_line_with_the_table_seq_and_act_id() -> None:
    async def reject_one() -> None:
        table = Table("t-json", BIGTWO, TableSeed.numbered(7), ["a", "b", "c", "d"], {})
        not_to_act = (BIGTWO.to_act(table.match.state) + 1) % 4
        stream = table.subscribe(not_to_act, 0)
        table.commit(stream, "move-\"1\"", msgpack.packb({"type": "pass"}))
        table.close("done")

    lines = json_lines_of("tablehost.table", lambda: asyncio.run(reject_one()))
    rejected = [line for line in lines if line.get("event") == "rejected"]
    assert len(rejected) == 1
    line = rejected[0]
    assert (line["table_id"], line["seq"], line["act_id"], line["level"]) == ("t-json", 0, "move-\"1\"", "INFO")
    assert "NOT_YOUR_TURN" in line["message"] and line["time"].endswith("Z")


def test_an_exception_is_kept_in_its_line() -> None:
    def fail() -> None:
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            logging.getLogger("tablehost.test").exception("it failed", extra=log_fields("failure", table_id="t-9"))

    (line,) = json_lines_of("tablehost.test", fail)
    assert line["table_id"] == "t-9" and "RuntimeError: boom" in line["exception"]


def test_unknown_fields_and_formats_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown log fields"):
        log_fields("x", player="someone")
    with pytest.raises(ValueError, match="unknown log format 'xml'"):
        configure_logging("xml")
