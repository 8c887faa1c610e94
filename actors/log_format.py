"""How the host's processes write their log: a line for people ("text"), or
one JSON object a line ("json") for a log pipeline, chosen by the
`--log-format` flag of the host's commands and handed to every room.

A line about a table carries what identifies it as fields (`event`,
`table_id`, `seq`, `act_id`, `seat`, `room_id`), given to the logger as
`extra=log_fields(...)`: the JSON form has them as keys, so a pipeline can
follow one table or one move across rooms without parsing messages; the text
form already says them in its message.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

LOG_FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(name)s %(message)s"
# The fields a line may carry besides its message (see log_fields).
FIELDS = ("event", "table_id", "seq", "act_id", "seat", "room_id")


def log_fields(event: str, **fields: Any) -> dict[str, Any]:
    """`extra` for a log call: the event's short name and what identifies
    it (FIELDS). A field that is not one of FIELDS is a programming error."""
    unknown = set(fields) - set(FIELDS)
    if unknown:
        raise ValueError(f"unknown log fields {sorted(unknown)}; use {FIELDS}")
    return {"event": event, **fields}


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601 with milliseconds),
    level, logger, message, the record's FIELDS when it has them, and the
    exception's traceback as `exception`."""

    converter = staticmethod(time.gmtime)

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                line[name] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def configure_logging(log_format: str, level: int = logging.INFO) -> None:
    """Set this process's root handler to `log_format` ("text" or "json"),
    replacing any handler set before (a Ray worker comes with one)."""
    if log_format not in LOG_FORMATS:
        raise ValueError(f"unknown log format {log_format!r}; choose from {', '.join(LOG_FORMATS)}")
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT))
    logging.basicConfig(level=level, handlers=[handler], force=True)
