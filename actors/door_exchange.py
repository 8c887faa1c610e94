"""The lobby's side of the front doors: joins, leaves and answers come in
with each door's `door_exchange`; proposals, seatings and players let go
wait in the door's mailbox for its next `door_poll`.

Players never wait in the lobby: their front door holds each one's call,
and the lobby holds only tickets in its matchmaker (actors/matchmaking.py).
A group every door confirmed goes to whoever the lobby gave as
`on_confirmed` (the table opener). Plain asyncio, no Ray: tested in process."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tablehost.actors.client_input import brief
from tablehost.actors.client_limits import ClientLimits
from tablehost.actors.config import LobbyConfig
from tablehost.actors.matchmaking import Entrant, Group, LobbyRefused, Matchmaker, Refusal
from tablehost.games.engine.rng import Random
from tablehost.games.engine.rules import GameRules, InvalidJoin
from tablehost.games.registry import GameCatalog, UnknownGame, UnknownVariant
from tablehost.v1 import lobby_pb2

log = logging.getLogger("tablehost.lobby")

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
# A private table's turn timer, when its creator sets one: from a bot's
# tenth of a second to an hour.
MIN_TURN_TIMEOUT_MS = 100
MAX_TURN_TIMEOUT_MS = 3_600_000


@dataclass(frozen=True, slots=True)
class DoorMail:
    """What a front door's `door_poll` brings back: proposals to confirm
    (group, ticket), players seated (each the TableAssignment its JoinQueue
    answers with), players let go (ticket, refusal, message), and the
    lobby's incarnation."""

    proposals: list[tuple[int, str]]
    seated: list[lobby_pb2.TableAssignment]
    dropped: list[tuple[str, str, str]]
    lobby: str


@dataclass(frozen=True, slots=True)
class DoorJoin:
    """One player's join as its front door sends it to the lobby: to a
    queue (`game`, `variant`, `seats`; 0 seats: the game's default) or, with
    a `code`, to a private table. `join` is the player's join data, which
    the game checks here; `client` is who the front door counts it against."""

    ticket: str
    name: str
    join: dict[str, Any]
    client: str = ""
    game: str = ""
    variant: str = ""
    seats: int = 0
    code: str = ""


@dataclass(frozen=True, slots=True)
class DoorReply:
    """The lobby's answer to a `door_exchange`: the joins it refused, by
    ticket (refusal, message), and its incarnation."""

    refused: dict[str, tuple[str, str]]
    lobby: str


@dataclass(frozen=True, slots=True)
class PrivateTable:
    """A private table just created: the code its creator shares, its game
    and its seats."""

    code: str
    game: str
    seats: int


@dataclass(frozen=True, slots=True)
class QueueStatus:
    """One public queue, for the lobby's status: its game, variant, seats and
    partition, the players waiting and those being seated."""

    game: str
    variant: str
    seats: int
    partition: str
    waiting: int
    proposed: int


@dataclass(eq=False)
class DoorMailbox:
    """What the lobby has for one front door until its next poll."""

    door_id: str
    last_seen: float
    proposals: list[tuple[int, str]] = field(default_factory=list)
    seated: list[lobby_pb2.TableAssignment] = field(default_factory=list)
    dropped: list[tuple[str, str, str]] = field(default_factory=list)
    wake: asyncio.Event = field(default_factory=asyncio.Event)

    def post(self) -> None:
        self.wake.set()

    def take(self, incarnation: str) -> DoorMail:
        mail = DoorMail(self.proposals, self.seated, self.dropped, incarnation)
        self.proposals, self.seated, self.dropped = [], [], []
        self.wake.clear()
        return mail

    @property
    def empty(self) -> bool:
        return not (self.proposals or self.seated or self.dropped)


def game_rules(catalog: GameCatalog, game: str, variant: str) -> GameRules:
    """The rules of a game a request names; refused if the host has no such game or variant."""
    try:
        catalog.check_variant(game, variant)
    except (UnknownGame, UnknownVariant) as error:
        raise LobbyRefused(Refusal.INVALID_ARGUMENT, str(error.args[0])) from None
    return catalog.rules(game)


def table_seats(rules: GameRules, asked: int) -> int:
    """The seats of a table a request asks for (0: the game's usual table)."""
    try:
        return rules.table_seats(asked)
    except ValueError as error:
        raise LobbyRefused(Refusal.INVALID_ARGUMENT, str(error)) from None


def checked_join(rules: GameRules, data: Any) -> tuple[dict[str, Any], str]:
    """A player's join data as the game accepts it, and its partition."""
    try:
        checked = rules.accepted_join(data)
        return checked, str(rules.join_partition(checked))
    except InvalidJoin as error:
        raise LobbyRefused(Refusal.INVALID_ARGUMENT, f"join data refused by {rules.name}: {error}") from None


class DoorExchange:
    """The waiting players' queues and private tables, and a mailbox per
    front door, behind the lobby's two door calls and LeaveQueue."""

    def __init__(self, config: LobbyConfig, catalog: GameCatalog, rng: Random, incarnation: str,
                 on_confirmed: Callable[[Group], None]) -> None:
        self.config = config
        self.catalog = catalog
        self.rng = rng
        self.incarnation = incarnation
        self.matchmaker = Matchmaker()
        self.client_limits = ClientLimits()
        self.mailboxes: dict[str, DoorMailbox] = {}
        self._on_confirmed = on_confirmed

    def exchange(self, door_id: str, joins: list[DoorJoin], leaves: list[str],
                 answers: list[tuple[int, str, bool]]) -> DoorReply:
        """One batch from a front door: players who left (processed first),
        players who joined, and its answers to proposals (does it still hold
        that player?). Each player's step that fails costs that step alone."""
        self._door(door_id)
        for ticket in leaves:
            _each("a leave", lambda: self.matchmaker.leave(ticket))
        refused: dict[str, tuple[str, str]] = {}
        for join in joins:
            try:
                self._join(join, door_id)
            except LobbyRefused as refusal:
                refused[join.ticket] = (refusal.refusal.value, refusal.message)
            except Exception:  # a bug met by one player's join: that player alone is refused
                log.exception("the join of ticket %s failed", brief(join.ticket))
                refused[join.ticket] = (Refusal.INTERNAL.value, "this join could not be taken; join again")
        for group_id, ticket, present in answers:
            _each("an answer to a proposal", lambda: self._answer(group_id, ticket, present))
        self.propose()
        return DoorReply(refused, self.incarnation)

    async def poll(self, door_id: str, timeout_s: float) -> DoorMail:
        """Wait up to `timeout_s` for mail for this front door."""
        door = self._door(door_id)
        if door.empty:
            try:
                await asyncio.wait_for(door.wake.wait(), timeout_s)
            except TimeoutError:
                pass
        door.last_seen = time.monotonic()
        return door.take(self.incarnation)

    def leave(self, ticket: str) -> bool:
        """Take a waiting ticket out; its own front door ends its JoinQueue with CANCELLED."""
        entrant = self.matchmaker.leave(ticket)
        if entrant is None:
            return False
        self.drop(entrant, Refusal.CANCELLED, "left the queue")
        log.info("ticket %s left %s", ticket, entrant.key.label)
        self.propose()
        return True

    def create_private_table(self, game: str, variant: str, turn_timeout_ms: int, seats: int,
                             client: str) -> PrivateTable:
        """A private table waiting for players, its code for its creator; a
        client keeps a few waiting at most (actors/client_limits.py)."""
        rules = game_rules(self.catalog, game, variant)
        seats = table_seats(rules, seats)
        if turn_timeout_ms and not MIN_TURN_TIMEOUT_MS <= turn_timeout_ms <= MAX_TURN_TIMEOUT_MS:
            raise LobbyRefused(Refusal.INVALID_ARGUMENT,
                               f"turn_timeout_ms is 0 (the host's setting) or {MIN_TURN_TIMEOUT_MS} to "
                               f"{MAX_TURN_TIMEOUT_MS}, not {turn_timeout_ms}")
        if self.matchmaker.private_count >= self.config.max_private_tables:
            raise LobbyRefused(Refusal.RESOURCE_EXHAUSTED, "too many private tables are waiting to fill; try later")
        code = self._new_code()
        self.client_limits.admit_private_table(client, code, self._private_table_waits)
        overrides = {"turn_timeout_ms": turn_timeout_ms} if turn_timeout_ms else {}
        self.matchmaker.open_private(code, game, seats, self.options_for(game, overrides), time.monotonic())
        log.info("private %s table %s created", game, code)
        return PrivateTable(code, game, seats)

    def seated(self, entrant: Entrant, assignment: lobby_pb2.TableAssignment) -> None:
        """Tell the player's front door where it sits; a door that is gone
        leaves the seat to wait out its grace period."""
        door = self.mailboxes.get(entrant.door)
        if door is not None:
            door.seated.append(assignment)
            door.post()

    def drop(self, entrant: Entrant, refusal: Refusal, message: str) -> None:
        door = self.mailboxes.get(entrant.door)
        if door is not None:
            door.dropped.append((entrant.ticket, refusal.value, message))
            door.post()

    def fail_group(self, group: Group, refusal: Refusal, message: str) -> None:
        for entrant in group.entrants:
            self.drop(entrant, refusal, message)

    def propose(self) -> None:
        """Groups the queues can make now, each player's front door asked to confirm."""
        for group in self.matchmaker.propose(time.monotonic()):
            for entrant in group.entrants:
                door = self.mailboxes.get(entrant.door)
                if door is not None:
                    door.proposals.append((group.group_id, entrant.ticket))
                    door.post()

    def tidy(self, now: float) -> None:
        """Let go of what timed out: unconfirmed groups, front doors that
        stopped polling (with their players), private tables never filled."""
        for dropped in self.matchmaker.expire(now, self.config.confirm_timeout_s):
            self.drop(dropped.entrant, dropped.refusal, dropped.message)
        for door in [d for d in self.mailboxes.values() if now - d.last_seen >= self.config.door_timeout_s]:
            gone = self.matchmaker.drop_door(door.door_id)
            del self.mailboxes[door.door_id]
            log.warning("front door %s stopped polling; %d waiting players left with it", door.door_id, len(gone))
        for code in self.matchmaker.private_codes_older_than(now - self.config.private_table_ttl_s):
            for entrant in self.matchmaker.close_private(code):
                self.drop(entrant, Refusal.NOT_FOUND, f"private table {code} expired before it filled")
        self.matchmaker.prune_empty_queues()
        self.client_limits.tidy(self._private_table_waits)
        self.propose()

    def queues(self) -> list[QueueStatus]:
        """The public queues, for the lobby's status."""
        return [
            QueueStatus(key.game, key.variant, key.seats, key.partition, len(g.waiting), g.proposed * g.seats)
            for key, g in sorted(self.matchmaker.gatherings.items(), key=lambda item: item[0].label)
            if not key.code
        ]

    def options_for(self, game: str, overrides: dict[str, Any]) -> dict[str, Any]:
        """A table's options: the host's for its game, under the table's own."""
        return {**self.config.game_options.get(game, {}), **overrides}

    def _door(self, door_id: str) -> DoorMailbox:
        door = self.mailboxes.get(door_id)
        if door is None:
            door = self.mailboxes[door_id] = DoorMailbox(door_id, time.monotonic())
            log.info("front door %s connected", door_id)
        door.last_seen = time.monotonic()
        return door

    def _join(self, join: DoorJoin, door_id: str) -> Entrant:
        """A player into a queue (split by the partition the game gives its
        join data) or a private table (which must be compatible with it)."""
        known = self.matchmaker.entrants.get(join.ticket)
        if known is not None and known.door == door_id:
            return known  # sent again by its front door (its last exchange failed): already waiting
        self.client_limits.check_join(join.client)
        if join.code:
            gathering = self.matchmaker.private_gathering(join.code)
            if gathering is None:
                raise LobbyRefused(Refusal.NOT_FOUND, f"no private table {join.code} is waiting for players")
            rules = self.catalog.rules(gathering.key.game)
            data, partition = checked_join(rules, join.join)
            if gathering.partition is not None and partition != gathering.partition:
                raise LobbyRefused(Refusal.INVALID_ARGUMENT,
                                   f"your join data is not compatible with private table {join.code}'s players")
            gathering.partition = partition
        else:
            rules = game_rules(self.catalog, join.game, join.variant)
            data, partition = checked_join(rules, join.join)
            gathering = self.matchmaker.queue(join.game, join.variant, table_seats(rules, join.seats),
                                              self.options_for(join.game, {}), time.monotonic(), partition)
        return self.matchmaker.join(gathering, join.ticket, join.name or join.ticket, door_id, data, join.client)

    def _answer(self, group_id: int, ticket: str, present: bool) -> None:
        if not present:
            self.matchmaker.decline(group_id, ticket)
            return
        group = self.matchmaker.confirm(group_id, ticket)
        if group is not None:
            self._on_confirmed(group)

    def _private_table_waits(self, code: str) -> bool:
        return self.matchmaker.private_gathering(code) is not None

    def _new_code(self) -> str:
        while True:
            code = "".join(CODE_ALPHABET[self.rng.below(len(CODE_ALPHABET))] for _ in range(CODE_LENGTH))
            if self.matchmaker.private_gathering(code) is None:
                return code


def _each(what: str, step: Callable[[], object]) -> None:
    """One player's step of a front door's batch: a bug met by it is logged
    and costs that step alone, never the batch (every other player's join,
    leave and answer in it goes on)."""
    try:
        step()
    except Exception:
        log.exception("%s of a front door's batch failed", what)
