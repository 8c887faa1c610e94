"""One game in progress: the authoritative object a room holds, and what a
replay rebuilds. It turns a seat's wire action (a msgpack map such as
{"type": "play", "cards": ["3C"]}) into an engine action, keeps the command
log, answers views, and says who is asked to act (the game's requests).
Time is handed in as `now_ms`; nothing here reads a clock, so a log replays
to the same hash.

A game may wait for its deal: until then every seat sees the commitment to
the table's seed (games/engine/fairness.py) and nothing else of the game,
and the host gathers the seats' entropy. The deal is the log's first
command, made by the dealer (seat -1), so a replay deals the same cards.
Every view carries "fairness": the commitment, then the entropy mixed into
the game's random key, and once the game is over the seed and salt.

Seats have ids the host assigns (`p0`, `p1`, ...): the engine's zones and
events use them. Display names are for display only and may repeat; each
player's join data (a deck, a class) is checked by the game, kept in its
player record and in the header (`MatchHeader`), so a replay reproduces the
game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import InitVar, dataclass, field
from typing import Any

from tablehost.games.engine.engine import Engine
from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.fairness import MAX_ENTROPY_BYTES, TableSeed
from tablehost.games.engine.plugin import Action, Event
from tablehost.games.engine.rules import GameRules, Request
from tablehost.games.engine.state import State
from tablehost.games.engine.views import View, canonical_bytes, view_hash

# The seat of the log's deal command: the host, not a player.
DEALER_SEAT = -1
DEAL = "deal"
# What every seat's view says while the game waits for its deal.
DEALING_STAGE = "dealing"


def seat_id(seat: int) -> str:
    """The id the host gives a seat: never anything a player typed."""
    return f"p{seat}"


@dataclass(frozen=True, slots=True)
class Command:
    """One accepted command, as the log stores it."""

    seat: int
    action: dict[str, Any]
    now_ms: int
    automatic: bool = False

    def to_plain(self) -> dict[str, Any]:
        return {"seat": self.seat, "action": self.action, "now_ms": self.now_ms, "automatic": self.automatic}

    @classmethod
    def from_plain(cls, plain: dict[str, Any]) -> Command:
        return cls(plain["seat"], plain["action"], plain["now_ms"], plain.get("automatic", False))


@dataclass(frozen=True, slots=True)
class MatchHeader:
    """Everything besides the commands that a replay needs. Its plain form
    is what the store's header and a game's record keep."""

    game: str
    seed: TableSeed
    players: tuple[str, ...]  # display names by seat
    join: tuple[dict[str, Any], ...]  # each seat's join data, as the game checked it
    options: dict[str, Any]
    started_ms: int
    deal_deadline_ms: int | None  # None: dealt at once

    def to_plain(self) -> dict[str, Any]:
        return {"game": self.game, "seed": self.seed.seed, "salt": self.seed.salt, "players": list(self.players),
                "join": [dict(data) for data in self.join], "options": dict(self.options),
                "started_ms": self.started_ms, "deal_deadline_ms": self.deal_deadline_ms}

    @classmethod
    def from_plain(cls, plain: Mapping[str, Any]) -> MatchHeader:
        """Headers written before join data and deals were kept have neither:
        no join data, dealt at once."""
        return cls(plain["game"], TableSeed(plain["seed"], plain["salt"]), tuple(plain["players"]),
                   tuple(dict(data) for data in plain.get("join", [])), dict(plain["options"]),
                   plain["started_ms"], plain.get("deal_deadline_ms"))


@dataclass(slots=True)
class Match:
    rules: GameRules
    seed: TableSeed
    # Display names by seat (they may repeat), and each seat's join data.
    players: list[str]
    options: dict[str, Any]
    started_ms: int
    join: list[dict[str, Any]] | None = None
    # A checkpointed state to continue from instead of setting the game up
    # (the commands before it are then not in `commands`).
    from_state: InitVar[State | None] = None
    # None: dealt at once, with no entropy. Else the game waits for its deal
    # (`deal`) and the deal's deadline is shown until then.
    deal_deadline_ms: int | None = None
    # Every event of the game, from its setup on, is kept in `events` only
    # when asked (a test reading a game's history): a table never reads
    # them, and each move returns its own.
    keep_events: bool = False
    # None until the deal.
    state: State | None = field(init=False)
    events: list[Event] = field(init=False, default_factory=list)
    commands: list[Command] = field(init=False, default_factory=list)
    _engine: Engine = field(init=False, repr=False)
    _requests: tuple[State | None, list[Request]] = field(init=False, repr=False, default=(None, []))
    _fairness: dict[str, Any] = field(init=False, repr=False)

    def __post_init__(self, from_state: State | None) -> None:
        if not self.rules.min_seats <= len(self.players) <= self.rules.max_seats:
            raise ValueError(
                f"{self.rules.name} seats {self.rules.min_seats}-{self.rules.max_seats} players, "
                f"got {len(self.players)}"
            )
        join = self.join if self.join is not None else [{} for _ in self.players]
        if len(join) != len(self.players):
            raise ValueError(f"join data for {len(join)} seats, but {len(self.players)} players")
        self.join = [self.rules.accepted_join(data) for data in join]
        self._engine = self.rules.engine()
        self._fairness = {"commitment": self.seed.commitment}
        self.state = None
        if from_state is not None:
            self._dealt(from_state)
        elif self.deal_deadline_ms is None:
            self._set_up((), self.started_ms)

    # -- the deal -----------------------------------------------------------------

    @property
    def dealt(self) -> bool:
        return self.state is not None

    def deal(self, entropy: Sequence[bytes], now_ms: int) -> list[Event]:
        """Set the game up with a random key that mixes the table's seed with
        each seat's entropy (empty bytes for a seat that sent none), logged
        as the dealer's command."""
        if self.dealt:
            raise RuleError(Reason.PROTOCOL, "the cards are dealt already")
        if len(entropy) != len(self.players) or any(len(e) > MAX_ENTROPY_BYTES for e in entropy):
            raise ValueError(f"a deal takes at most {MAX_ENTROPY_BYTES} bytes of entropy for each of "
                             f"{len(self.players)} seats")
        events = self._set_up(tuple(entropy), now_ms)
        self.commands.append(Command(DEALER_SEAT, {"type": DEAL, "entropy": [e.hex() for e in entropy]}, now_ms,
                                     automatic=True))
        return events

    def _set_up(self, entropy: tuple[bytes, ...], now_ms: int) -> list[Event]:
        join = self.join or []
        seats = [
            {"id": seat_id(seat), "name": name, "seat": seat, "status": "active", "join": join[seat], "data": {}}
            for seat, name in enumerate(self.players)
        ]
        state, events = self._engine.create_game(
            self.rules.name, seats, self.seed.random_key(entropy), now_ms, self.rules.initial_variables(self.options)
        )
        if self.keep_events:
            self.events.extend(events)
        # Kept in the state, so a checkpoint carries the deal's public inputs.
        state["deal"] = {"entropy": [e.hex() for e in entropy], "dealt_ms": now_ms}
        self._dealt(state)
        return events

    def _dealt(self, state: State) -> None:
        self.state = state
        self._fairness = {"commitment": self.seed.commitment, "entropy": list(state["deal"]["entropy"])}

    # -- who acts ------------------------------------------------------------------

    @property
    def requests(self) -> list[Request]:
        """Who is asked to act now, by seat (computed once per state)."""
        computed_for, requests = self._requests
        if computed_for is not self.state:
            requests = [] if self.state is None else sorted(self.rules.requests(self.state), key=lambda r: r.seat)
            self._requests = (self.state, requests)
        return requests

    def request_for(self, seat: int) -> Request | None:
        return next((request for request in self.requests if request.seat == seat), None)

    @property
    def deadline_ms(self) -> int | None:
        """The earliest deadline of the open requests, or the deal's."""
        if not self.dealt:
            return self.deal_deadline_ms
        deadlines = [request.deadline_ms for request in self.requests if request.deadline_ms is not None]
        return min(deadlines) if deadlines else None

    @property
    def result(self) -> dict[str, Any] | None:
        return self.rules.result(self.state) if self.state is not None else None

    # -- acting -------------------------------------------------------------------

    def act(self, seat: int, action: Any, now_ms: int, automatic: bool = False) -> list[Event]:
        """Apply a seat's action or raise RuleError with the state unchanged."""
        engine_action = self._validate_envelope(seat, action)
        assert self.state is not None  # the envelope refuses every action before the deal
        self.state, events = self._engine.dispatch(self.state, engine_action, now_ms)
        self.commands.append(Command(seat, action, now_ms, automatic))
        if self.keep_events:
            self.events.extend(events)
        return events

    def next_expired(self, now_ms: int) -> Request | None:
        """The request whose deadline passed first (ties: the lowest seat),
        if any has a default the host can take."""
        expired = [r for r in self.requests if r.deadline_ms is not None and r.deadline_ms <= now_ms and r.default]
        return min(expired, key=lambda request: (request.deadline_ms, request.seat), default=None)

    def act_automatically(self, request: Request, now_ms: int) -> list[Event]:
        """Take the game's default for a request whose deadline passed. A
        default the rules refuse is the game's own bug: it is raised."""
        if request.default is None:
            raise ValueError(f"seat {request.seat}'s request has no default action")
        return self.act(request.seat, request.default, now_ms, automatic=True)

    # -- what seats see -----------------------------------------------------------

    def view(self, seat: int | None) -> View:
        return self.views([seat])[seat]

    def views(self, seats: Sequence[int | None]) -> dict[int | None, View]:
        """Each seat's view, with its request (if it is asked) under "request"
        and what it needs to check the deal under "fairness"; None is a
        spectator's, which carries no request."""
        if self.state is None:
            return {seat: self._dealing_view(seat) for seat in seats}
        fairness = self._fairness
        if self.result is not None:
            fairness = {**fairness, "seed": self.seed.seed, "salt": self.seed.salt}
        views = {seat: {**view, "fairness": fairness} for seat, view in self.rules.views(self.state, seats).items()}
        for request in self.requests:
            if request.seat in views:
                views[request.seat]["request"] = request.to_view()
        return views

    def _dealing_view(self, seat: int | None) -> View:
        return {"game": self.rules.name, "seat": -1 if seat is None else seat, "players": list(self.players),
                "stage": DEALING_STAGE, "deadline_ms": self.deal_deadline_ms, "fairness": self._fairness}

    def state_hash(self) -> str:
        return view_hash(self.state if self.state is not None else self.header().to_plain())

    def state_bytes(self) -> bytes:
        return canonical_bytes(self.state)

    def header(self) -> MatchHeader:
        return MatchHeader(self.rules.name, self.seed, tuple(self.players),
                           tuple(dict(data) for data in self.join or ()), dict(self.options), self.started_ms,
                           self.deal_deadline_ms)

    def _validate_envelope(self, seat: int, action: Any) -> Action:
        if self.result is not None:
            raise RuleError(Reason.GAME_OVER, "the game is over")
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise RuleError(Reason.MALFORMED, "an action is a map with a string 'type'")
        if action["type"] not in self.rules.player_actions:
            raise RuleError(Reason.UNKNOWN_ACTION, f"{self.rules.name} has no action {action['type']!r}")
        if not 0 <= seat < len(self.players):
            raise RuleError(Reason.MALFORMED, f"no seat {seat} at this table")
        if not self.dealt:
            raise RuleError(Reason.NOT_YOUR_TURN, "the cards are not dealt yet: the table waits for every seat")
        if self.request_for(seat) is None:
            asked = [request.seat for request in self.requests]
            if len(asked) == 1:
                raise RuleError(Reason.NOT_YOUR_TURN, f"it is seat {asked[0]}'s turn, not seat {seat}'s")
            raise RuleError(Reason.NOT_YOUR_TURN, f"seat {seat} is not asked to act; the table waits for seats {asked}")
        payload = {key: value for key, value in action.items() if key != "type"}
        return Action(action["type"], seat_id(seat), payload, seat)


def replay(
    rules: GameRules, header: MatchHeader, commands: Sequence[Command], from_state: State | None = None,
    keep_events: bool = False,
) -> Match:
    """Rebuild a game from its header and logged commands (the deal among
    them): same seed, seats, join data and commands give the same state and
    events. With `from_state` (a checkpoint), `commands` are those after it."""
    match = Match(rules, header.seed, list(header.players), dict(header.options), header.started_ms,
                  [dict(data) for data in header.join] or None, from_state, header.deal_deadline_ms, keep_events)
    for command in commands:
        if command.seat == DEALER_SEAT:
            match.deal([bytes.fromhex(e) for e in command.action["entropy"]], command.now_ms)
        else:
            match.act(command.seat, command.action, command.now_ms, command.automatic)
    return match
