"""Organisers (host/organisers.py, host/organiser_places.py): a token is the
host's signature over who the organiser is, strictly spelt; the registry in
the store says which were issued and which revoked, to every front door
that reads it; a front door keeps what it read for a few seconds; an
organiser holds at most the host's cap of unfinished tournaments, however
many front doors create them at once."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest

from tablehost.actors.store.event_log import EventConflict, EventLog, LocalEventLog, RedisEventLog
from tablehost.actors.tokens import SeatClaim, sign_seat_token, tournament_key
from tablehost.games.engine.views import canonical_bytes
from tablehost.host import config_flags
from tablehost.host.config import HostConfig
from tablehost.host.organiser_places import CapReached, OrganiserPlaces, places_log
from tablehost.host.organisers import (MAX_ORGANISER_TOKEN_LENGTH, NotAuthenticated, NotPermitted, OrganiserClaim,
                                       OrganiserRegistry, OrganiserVerifier, UnknownOrganiser, check_organiser_token,
                                       read_organiser_token, sign_organiser_token)
from tablehost.host.tournament_service import TournamentSettings

SECRET = b"s" * 32
OTHER_SECRET = b"o" * 32
NOW = 1_800_000_000_000
DAY = 24 * 3600 * 1000
CLAIM = OrganiserClaim("0123456789abcdef", "Acme Cups", NOW + DAY)


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


@pytest.fixture(params=["local", "redis"])
def two_doors(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[EventLog, EventLog]]:
    """Two front doors' views of one store: on Redis, two clients; a local
    folder serves one front door (its appends are atomic within a process),
    so there both share its log."""
    if request.param == "local":
        shared = LocalEventLog(str(tmp_path))
        doors: tuple[EventLog, EventLog] = (shared, shared)
    else:
        url = request.getfixturevalue("redis_server").url
        RedisEventLog(url)._redis.flushdb()
        doors = (RedisEventLog(url), RedisEventLog(url))
    yield doors
    for log in doors:
        log.close()


# -- tokens -----------------------------------------------------------------------------------


def test_a_token_names_its_organiser_id_and_expiry_under_the_hosts_signature() -> None:
    token = sign_organiser_token(SECRET, CLAIM)
    assert read_organiser_token(SECRET, token) == CLAIM
    assert check_organiser_token(SECRET, token, NOW) == CLAIM
    assert len(token) < MAX_ORGANISER_TOKEN_LENGTH


def test_no_token_is_refused_saying_what_is_needed() -> None:
    with pytest.raises(NotAuthenticated, match="needs an organiser token.*tablehost organiser issue"):
        check_organiser_token(SECRET, "", NOW)


@pytest.mark.parametrize("spoil", [
    lambda t: t + "=",  # padding
    lambda t: t.replace(".", "=."),
    lambda t: t + ".x",  # a third part
    lambda t: t.replace(".", ""),
    lambda t: t[:-1] + ("B" if t[-1] == "A" else "A") + "A",  # a character too many
    lambda t: t[:-1] + chr(ord(t[-1]) + 1) if t[-1] not in "_-9zZ" else t[:-1] + "!",  # stray bits, or not base64
    lambda t: t.replace("-", "+").replace("_", "/") if "-" in t or "_" in t else t + "+",  # the other alphabet
    lambda t: "é" + t,
    lambda t: "A" * (MAX_ORGANISER_TOKEN_LENGTH + 1),
])
def test_a_token_not_spelt_exactly_as_issued_is_malformed(spoil: Any) -> None:
    token = sign_organiser_token(SECRET, CLAIM)
    with pytest.raises(NotAuthenticated):
        read_organiser_token(SECRET, spoil(token))


def test_a_token_of_another_secret_or_with_an_altered_payload_is_refused_as_forged() -> None:
    with pytest.raises(NotAuthenticated, match="not issued by this host"):
        read_organiser_token(SECRET, sign_organiser_token(OTHER_SECRET, CLAIM))
    signature = sign_organiser_token(SECRET, CLAIM).split(".")[1]
    altered = canonical_bytes({"organiser": "Mallory", "id": CLAIM.organiser_id, "exp": CLAIM.expires_ms})
    forged = base64.urlsafe_b64encode(altered).rstrip(b"=").decode() + "." + signature
    with pytest.raises(NotAuthenticated, match="not issued by this host"):
        read_organiser_token(SECRET, forged)


def test_no_other_key_or_token_of_the_host_passes_for_an_organiser_token() -> None:
    seat_token = sign_seat_token(SECRET, SeatClaim("duel-run-1-abc", 0, NOW + DAY, "run"))
    key = tournament_key(SECRET, "t-0123456789abcdef", "")
    for other in (seat_token, key, f"{key}.{key}"):
        with pytest.raises(NotAuthenticated):
            read_organiser_token(SECRET, other)


def test_a_signed_payload_of_the_wrong_shape_is_refused() -> None:
    for fields in ({"organiser": "a", "id": "not-hex", "exp": NOW}, {"organiser": "a", "id": CLAIM.organiser_id},
                   [1, 2, 3]):
        payload = msgpack.packb(fields)
        signature = __import__("hmac").new(SECRET, b"organiser-token\x00" + payload, "sha256").digest()
        token = ".".join(base64.urlsafe_b64encode(part).rstrip(b"=").decode() for part in (payload, signature))
        with pytest.raises(NotAuthenticated, match="payload"):
            read_organiser_token(SECRET, token)


def test_an_expired_token_is_not_permitted_from_its_expiry_on() -> None:
    token = sign_organiser_token(SECRET, CLAIM)
    assert check_organiser_token(SECRET, token, CLAIM.expires_ms - 1) == CLAIM
    with pytest.raises(NotPermitted, match="'Acme Cups'.*expired on"):
        check_organiser_token(SECRET, token, CLAIM.expires_ms)


# -- the registry ----------------------------------------------------------------------------


def test_issued_and_revoked_organisers_are_seen_by_every_front_door(two_doors: tuple[EventLog, EventLog]) -> None:
    operator, front_door = (OrganiserRegistry(log) for log in two_doors)
    token, acme = operator.issue(SECRET, "Acme Cups", DAY, NOW)
    _, other = operator.issue(SECRET, "Other League", 2 * DAY, NOW)
    assert check_organiser_token(SECRET, token, NOW) == OrganiserClaim(acme.organiser_id, "Acme Cups", NOW + DAY)
    assert front_door.organisers() == {acme.organiser_id: acme, other.organiser_id: other}
    revoked = operator.revoke(acme.organiser_id, NOW + 5)
    assert revoked.revoked_ms == NOW + 5 and revoked.status(NOW) == "revoked"
    assert front_door.organisers()[acme.organiser_id] == revoked
    assert front_door.organisers()[other.organiser_id].status(NOW + 2 * DAY) == "expired"


def test_revoking_twice_keeps_the_first_time_and_an_unknown_id_is_refused(two_doors: tuple[EventLog, EventLog]) -> None:
    registry = OrganiserRegistry(two_doors[0])
    _, acme = registry.issue(SECRET, "Acme Cups", DAY, NOW)
    assert registry.revoke(acme.organiser_id, NOW + 1).revoked_ms == NOW + 1
    assert registry.revoke(acme.organiser_id, NOW + 2).revoked_ms == NOW + 1
    with pytest.raises(UnknownOrganiser):
        registry.revoke("ffffffffffffffff", NOW)
    assert len(two_doors[0].read("organisers")) == 2


def test_an_organisers_name_must_be_printable_and_its_token_valid_for_some_time(tmp_path: Path) -> None:
    registry = OrganiserRegistry(LocalEventLog(str(tmp_path)))
    for name in ("", " padded ", "tab\there", "x" * 65):
        with pytest.raises(ValueError):
            registry.issue(SECRET, name, DAY, NOW)
    with pytest.raises(ValueError):
        registry.issue(SECRET, "Acme", 0, NOW)
    assert registry.organisers() == {}


class _Overtaken:
    """A store where another writer gets in first `times` times."""

    def __init__(self, log: EventLog, times: int) -> None:
        self.log, self.times = log, times

    def read(self, name: str) -> list[dict[str, Any]]:
        return self.log.read(name)

    def append(self, name: str, index: int, event: dict[str, Any]) -> None:
        if self.times:
            self.times -= 1
            self.log.append(name, index, {"kind": "issued", "id": f"{self.times:016x}", "name": "rival",
                                          "issued_ms": NOW, "expires_ms": NOW + DAY})
        self.log.append(name, index, event)


def test_an_append_another_writer_overtook_reads_again_and_lands_after_it(tmp_path: Path) -> None:
    log = LocalEventLog(str(tmp_path))
    registry = OrganiserRegistry(_Overtaken(log, 2))  # type: ignore[arg-type]
    _, acme = registry.issue(SECRET, "Acme Cups", DAY, NOW)
    assert [organiser.name for organiser in registry.organisers().values()] == ["rival", "rival", "Acme Cups"]
    with pytest.raises(EventConflict):
        OrganiserRegistry(_Overtaken(log, 100)).issue(SECRET, "Never", DAY, NOW)  # type: ignore[arg-type]


# -- a front door's check ----------------------------------------------------------------------


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_front_door_sees_a_revocation_once_its_cached_registry_is_older_than_the_cache_time(tmp_path: Path) -> None:
    registry = OrganiserRegistry(LocalEventLog(str(tmp_path)))
    token, acme = registry.issue(SECRET, "Acme Cups", DAY, NOW)
    clock = _Clock()
    verifier = OrganiserVerifier(OrganiserRegistry(LocalEventLog(str(tmp_path))), cache_s=5.0, monotonic=clock)
    claim = check_organiser_token(SECRET, token, NOW)
    assert run(verifier.organiser(claim)) == acme
    registry.revoke(acme.organiser_id, NOW + 1)
    clock.now += 4.9
    assert run(verifier.organiser(claim)) == acme  # what it read 4.9 s ago
    clock.now += 0.2
    with pytest.raises(NotPermitted, match="'Acme Cups'.*was revoked on"):
        run(verifier.organiser(claim))


def test_a_token_issued_after_the_front_door_read_the_registry_is_taken_at_once(tmp_path: Path) -> None:
    registry = OrganiserRegistry(LocalEventLog(str(tmp_path)))
    verifier = OrganiserVerifier(OrganiserRegistry(LocalEventLog(str(tmp_path))), cache_s=60.0, monotonic=_Clock())
    registry.issue(SECRET, "First", DAY, NOW)
    first = check_organiser_token(SECRET, registry.issue(SECRET, "Second", DAY, NOW)[0], NOW)
    assert run(verifier.organiser(first)).name == "Second"
    token, later = registry.issue(SECRET, "Later", DAY, NOW)
    assert run(verifier.organiser(check_organiser_token(SECRET, token, NOW))) == later
    # A genuine token the registry never held (the store was reset, say) is refused.
    unknown = OrganiserClaim("fedcba9876543210", "Ghost", NOW + DAY)
    with pytest.raises(NotPermitted, match="not in this host's registry"):
        run(verifier.organiser(unknown))


# -- places ---------------------------------------------------------------------------------


class _Tournaments:
    """Which tournaments are still open, as a front door would find out."""

    def __init__(self) -> None:
        self.finished: set[str] = set()
        self.asked: list[str] = []

    async def still_open(self, tournament_id: str, taken_ms: int) -> bool:
        self.asked.append(tournament_id)
        await asyncio.sleep(0)
        return tournament_id not in self.finished


def test_an_organiser_is_refused_a_place_beyond_the_cap_with_the_count(tmp_path: Path) -> None:
    tournaments = _Tournaments()
    places = OrganiserPlaces(LocalEventLog(str(tmp_path)), 3, tournaments.still_open)

    async def scenario() -> list[int]:
        held = [await places.take("a" * 16, "Acme", f"t-{index}", NOW) for index in range(3)]
        with pytest.raises(CapReached, match="'Acme' has 3 tournaments not yet finished, the most this host allows "
                                             r"\(3\)") as full:
            await places.take("a" * 16, "Acme", "t-3", NOW)
        assert full.value.open_tournaments == 3
        return held + [await places.take("b" * 16, "Other", "t-other", NOW)]  # another organiser's own places

    assert run(scenario()) == [1, 2, 3, 1]


def test_a_finished_tournament_frees_its_place_and_is_not_asked_about_again(tmp_path: Path) -> None:
    tournaments = _Tournaments()
    log = LocalEventLog(str(tmp_path))
    places = OrganiserPlaces(log, 2, tournaments.still_open)

    async def scenario() -> None:
        await places.take("a" * 16, "Acme", "t-1", NOW)
        await places.take("a" * 16, "Acme", "t-2", NOW)
        tournaments.finished.add("t-1")
        assert await places.take("a" * 16, "Acme", "t-3", NOW) == 2
        tournaments.asked.clear()
        with pytest.raises(CapReached):
            await places.take("a" * 16, "Acme", "t-4", NOW)
        assert sorted(tournaments.asked) == ["t-2", "t-3"]  # t-1 was marked closed in the log

    run(scenario())
    assert [event["kind"] for event in log.read(places_log("a" * 16))] == ["opened", "opened", "opened", "closed"]


def test_a_tournament_that_was_not_created_gives_its_place_back(tmp_path: Path) -> None:
    places = OrganiserPlaces(LocalEventLog(str(tmp_path)), 1, _Tournaments().still_open)

    async def scenario() -> None:
        await places.take("a" * 16, "Acme", "t-1", NOW)
        await places.free("a" * 16, "t-1")
        assert await places.take("a" * 16, "Acme", "t-2", NOW) == 1

    run(scenario())


def test_front_doors_taking_places_at_once_never_exceed_the_cap(two_doors: tuple[EventLog, EventLog]) -> None:
    tournaments = _Tournaments()
    doors = [OrganiserPlaces(log, 4, tournaments.still_open) for log in two_doors]

    async def take(index: int) -> str:
        try:
            await doors[index % 2].take("a" * 16, "Acme", f"t-{index}", NOW)
            return "taken"
        except CapReached:
            return "refused"

    async def scenario() -> list[str]:
        return list(await asyncio.gather(*(take(index) for index in range(12))))

    outcomes = run(scenario())
    assert outcomes.count("taken") == 4 and outcomes.count("refused") == 8
    opened = [event for event in two_doors[0].read(places_log("a" * 16)) if event["kind"] == "opened"]
    assert len(opened) == 4


# -- settings -------------------------------------------------------------------------------


def test_the_cap_and_the_start_limit_are_host_settings_from_flags_or_the_environment(monkeypatch) -> None:
    import argparse

    def parsed(*flags: str) -> HostConfig:
        parser = argparse.ArgumentParser()
        config_flags.add_arguments(parser)
        return config_flags.config_from_args(parser.parse_args(list(flags)))

    assert (parsed().max_tournaments_per_organiser, parsed().tournament_start_within_s) == (10, 24 * 3600.0)
    monkeypatch.setenv("TABLEHOST_MAX_TOURNAMENTS_PER_ORGANISER", "3")
    monkeypatch.setenv("TABLEHOST_TOURNAMENT_START_WITHIN_S", "600")
    config = parsed()
    assert (config.max_tournaments_per_organiser, config.tournament_start_within_s) == (3, 600.0)
    config = parsed("--max-tournaments-per-organiser", "5", "--tournament-start-within", "60")
    settings = TournamentSettings.of_host(config)
    assert (settings.max_tournaments_per_organiser, settings.start_within_s) == (5, 60.0)
    assert settings.token_secret == config.token_secret and settings.store == config.store
    for bad in (["--max-tournaments-per-organiser", "0"], ["--tournament-start-within", "0"]):
        with pytest.raises(SystemExit):
            parsed(*bad)
