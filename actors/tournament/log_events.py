"""The events of a tournament's log as typed records: what the front door
creates and the actor appends (actors/store/event_log.py keeps their plain
form) and kept.py folds. The plain forms are what logs have always held, so
a log written before a field existed still reads.

The plain forms:
    {"kind": "created", "spec", "name", "options", "max_players", "no_show_after_s",
     "organiser": {"id", "name"}, "start_by_ms", "round_limit_s"}  (tournaments
     created before organisers proved themselves lack "organiser" and
     "start_by_ms"; "round_limit_s" only where one was set)
    {"kind": "core", "event": a Tournament event, "join": the player's join data (a registration)}
    {"kind": "start"}, {"kind": "paused"}, {"kind": "resumed"}"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from tablehost.actors.tournament.records import TournamentSpec


@dataclass(frozen=True, slots=True)
class TournamentOrganiser:
    """Who created the tournament, as their organiser token named them."""

    organiser_id: str
    name: str


@dataclass(frozen=True, slots=True)
class CreatedEvent:
    """The tournament's first event, made by the front door with its defaults."""

    KIND: ClassVar[str] = "created"
    spec: TournamentSpec
    name: str
    max_players: int
    no_show_after_s: int
    options: dict[str, Any] = field(default_factory=dict)  # the tables' (turn_timeout_ms)
    organiser: TournamentOrganiser | None = None  # None: created before organisers proved themselves
    start_by_ms: int | None = None  # when it expires unless started (epoch ms); None: never
    round_limit_s: float | None = None  # None: kept.DEFAULT_ROUND_LIMIT_S

    def to_plain(self) -> dict[str, Any]:
        plain: dict[str, Any] = {"kind": self.KIND, "spec": self.spec.to_dict(), "name": self.name,
                                 "options": self.options, "max_players": self.max_players,
                                 "no_show_after_s": self.no_show_after_s}
        if self.organiser is not None:
            plain["organiser"] = {"id": self.organiser.organiser_id, "name": self.organiser.name}
        if self.start_by_ms is not None:
            plain["start_by_ms"] = self.start_by_ms
        if self.round_limit_s is not None:
            plain["round_limit_s"] = self.round_limit_s
        return plain

    @classmethod
    def from_plain(cls, plain: dict[str, Any]) -> CreatedEvent:
        organiser = plain.get("organiser")
        return cls(TournamentSpec.from_dict(plain["spec"]), plain["name"], plain["max_players"],
                   plain["no_show_after_s"], plain.get("options", {}),
                   TournamentOrganiser(organiser["id"], organiser["name"]) if organiser is not None else None,
                   plain.get("start_by_ms"), plain.get("round_limit_s"))


@dataclass(frozen=True, slots=True)
class CoreEvent:
    """A change of the core (tournament.py's event); a registration carries
    the player's join data as the game accepted it."""

    KIND: ClassVar[str] = "core"
    event: dict[str, Any]
    join: dict[str, Any] | None = None

    def to_plain(self) -> dict[str, Any]:
        plain = {"kind": self.KIND, "event": self.event}
        if self.join is not None:
            plain["join"] = self.join
        return plain

    @classmethod
    def from_plain(cls, plain: dict[str, Any]) -> CoreEvent:
        return cls(plain["event"], plain.get("join"))


@dataclass(frozen=True, slots=True)
class _Mark:
    """An event that is its kind alone."""

    KIND: ClassVar[str]

    def to_plain(self) -> dict[str, Any]:
        return {"kind": self.KIND}

    @classmethod
    def from_plain(cls, plain: dict[str, Any]) -> Self:
        return cls()


@dataclass(frozen=True, slots=True)
class StartEvent(_Mark):
    """The organiser started it: round 1 is paired next."""

    KIND: ClassVar[str] = "start"


@dataclass(frozen=True, slots=True)
class PausedEvent(_Mark):
    """An administrator paused it: no round starts until resumed."""

    KIND: ClassVar[str] = "paused"


@dataclass(frozen=True, slots=True)
class ResumedEvent(_Mark):
    KIND: ClassVar[str] = "resumed"


LogEvent = CreatedEvent | CoreEvent | StartEvent | PausedEvent | ResumedEvent
_BY_KIND: dict[str, type[LogEvent]] = {
    kind.KIND: kind for kind in (CreatedEvent, CoreEvent, StartEvent, PausedEvent, ResumedEvent)}


def event_from_plain(plain: dict[str, Any]) -> LogEvent:
    """The typed event of a plain one as the log keeps it; ValueError for a
    kind no tournament writes."""
    name = plain.get("kind")
    kind = _BY_KIND.get(name) if isinstance(name, str) else None
    if kind is None:
        raise ValueError(f"a tournament's log holds no events of kind {name!r} "
                         f"(its kinds: {', '.join(_BY_KIND)})")
    return kind.from_plain(plain)
