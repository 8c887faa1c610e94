"""Whole Kingdoms games between random legal players, 2 to 8 of them,
over random seeds: every game ends with exactly one result; at every step
every card is in exactly one zone, nobody is above their maximum health,
no judgement area holds two delayed tricks of one name, no view carries a
card its viewer may not see (another's hand, the deck), and what a seat
sees and who is asked by when do not change when the cards it cannot see
are dealt again; the command log replays to the same final state hash;
and a table of silent players, every request left to its timer, ends too."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablehost.games.engine.fairness import TableSeed
from tablehost.games.engine.match import Command, Match, MatchHeader, replay
from tablehost.games.engine.plugin import Action
from tablehost.games.engine.views import canonical_bytes, decode
from tablehost.games.kingdoms import cards, table
from tablehost.games.kingdoms.cards import CARDS
from tablehost.games.kingdoms.game import RULES
from tablehost.games.engine.state import seat_player_id

OPTIONS = {"turn_timeout_ms": 1_000, "response_timeout_ms": 500}

game_seeds = st.integers(min_value=0, max_value=2**64 - 1)
bot_seeds = st.integers(min_value=0, max_value=2**32 - 1)
player_counts = st.integers(min_value=2, max_value=8)


def bounded(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play_out(seed: int, bot_seed: int, players: int,
             at_each_step: Callable[[Match], None] = lambda match: None) -> Match:
    """A whole game: each move a random listed action of a random asked
    seat (its default when none is listed), or now and then the timer's."""
    match = Match(RULES, TableSeed.numbered(seed), [f"n{seat}" for seat in range(players)], dict(OPTIONS), 0,
                  keep_events=True)
    bot = random.Random(bot_seed)
    now_ms = 0
    while match.result is None:
        at_each_step(match)
        if bot.random() < 0.05:
            now_ms = match.deadline_ms
            match.act_automatically(match.next_expired(now_ms), now_ms)
        else:
            request = bot.choice(match.requests)
            now_ms += 1
            match.act(request.seat, bot.choice(request.legal_actions or [request.default]), now_ms)
    at_each_step(match)
    return match


def wire(card_id: str) -> bytes:
    """A card id as msgpack writes it (a fixstr)."""
    encoded = card_id.encode()
    return bytes([0xA0 | len(encoded)]) + encoded


@given(game_seeds, bot_seeds, player_counts)
@bounded(20)
def test_every_card_stays_in_one_zone_and_nobody_exceeds_their_maximum_health(
    seed: int, bot_seed: int, players: int
) -> None:
    def check(match: Match) -> None:
        state = match.state
        everywhere = [card for zone in state["zones"].values() for card in zone["cards"]]
        assert sorted(everywhere) == sorted(CARDS)
        for seat in range(players):
            record = table.player(state, seat)
            assert record["health"] <= record["max_health"]
            assert len(table.equipment(state, seat)) <= 3
            delayed = [cards.card(card_id).name for card_id in table.judgements(state, seat)]
            assert len(delayed) == len(set(delayed)), f"seat {seat}'s judgement area holds {delayed}"

    play_out(seed, bot_seed, players, check)


@given(game_seeds, bot_seeds, player_counts)
@bounded(20)
def test_every_game_ends_with_exactly_one_result_that_fits_the_identities(
    seed: int, bot_seed: int, players: int
) -> None:
    match = play_out(seed, bot_seed, players)
    result = match.result
    assert [event.type for event in match.events].count("GAME_OVER") == 1
    assert match.requests == [] and match.deadline_ms is None
    identities = result["identities"]
    if result["draw"]:
        assert result["winners"] == [] and result["scores"] == [0] * players
    else:
        side = {"lord": {"lord", "loyalist"}, "rebel": {"rebel"}, "renegade": {"renegade"}}[result["side"]]
        assert result["winners"] and all(identities[seat] in side for seat in result["winners"])
        winners = len(result["winners"])
        assert sorted(result["scores"]) == sorted([1] * winners + [-1] * (players - winners))


@given(game_seeds, bot_seeds, player_counts)
@bounded(12)
def test_replaying_the_command_log_gives_the_same_final_state_hash(seed: int, bot_seed: int, players: int) -> None:
    match = play_out(seed, bot_seed, players)
    logged = [Command.from_plain(decode(canonical_bytes(command.to_plain()))) for command in match.commands]
    again = replay(RULES, MatchHeader.from_plain(decode(canonical_bytes(match.header().to_plain()))), logged,
                   keep_events=True)
    assert again.state_hash() == match.state_hash()
    assert again.events == match.events


@given(game_seeds, bot_seeds, player_counts)
@bounded(12)
def test_no_view_carries_a_hand_card_of_another_seat_or_the_deck(seed: int, bot_seed: int, players: int) -> None:
    def check(match: Match) -> None:
        state = match.state
        for viewer in (*range(players), None):
            encoded = canonical_bytes(match.view(viewer))
            hidden = list(table.cards_in(state, table.DECK))
            for seat in range(players):
                if seat != viewer:
                    hidden += table.hand(state, seat)
            for card in hidden:
                assert wire(card) not in encoded, f"viewer {viewer} sees {card}"
            if viewer is not None:
                identities = [p["identity"] for p in match.view(viewer)["players"]]
                for seat, identity in enumerate(identities):
                    record = table.player(state, seat)
                    public = record["identity"] == "lord" or table.dead(state, seat)
                    assert identity == (record["identity"] if public else None)

    play_out(seed, bot_seed, players, check)


def deal_hidden_again(state: dict, viewer: int | None, rng: random.Random, held_only: bool = False) -> dict:
    """A state `viewer` cannot tell from `state`: the other hands (and,
    unless `held_only`, the deck) dealt again with every count kept, and
    (unless `held_only`) the identities it does not know shuffled among
    the players who hide them."""
    redealt = copy.deepcopy(state)
    others = [seat for seat in range(table.seats(redealt)) if seat != viewer]
    zones = [redealt["zones"][table.hand_zone(redealt, seat)] for seat in others]
    if not held_only:
        zones.append(redealt["zones"][table.DECK])
    pool = [card for zone in zones for card in zone["cards"]]
    rng.shuffle(pool)
    for zone in zones:
        count = len(zone["cards"])
        zone["cards"], pool = pool[:count], pool[count:]
    if not held_only:
        hiding = [seat for seat in others
                  if table.player(redealt, seat)["identity"] != table.LORD and not table.dead(redealt, seat)]
        identities = [table.player(redealt, seat)["identity"] for seat in hiding]
        rng.shuffle(identities)
        for seat, identity in zip(hiding, identities):
            table.player(redealt, seat)["identity"] = identity
    return redealt


def asked_by_when(state: dict) -> list[tuple[int, int | None]]:
    return [(request.seat, request.deadline_ms) for request in RULES.requests(state)]


def own_request(state: dict, seat: int | None) -> dict | None:
    request = next((r for r in RULES.requests(state) if r.seat == seat), None)
    return None if request is None else request.to_view()


@given(game_seeds, bot_seeds, player_counts)
@bounded(10)
def test_what_a_seat_sees_and_who_is_asked_never_depend_on_cards_it_cannot_see(
    seed: int, bot_seed: int, players: int
) -> None:
    """Prompts are decided from public information: for every viewer, the
    state with everything hidden from it dealt again gives the same view,
    the same own request and the same asked seats and deadlines; and a move
    made in a state where only the cards other seats hold were dealt again
    (the mover cannot tell) asks the same seats by the same deadlines."""
    rng = random.Random(bot_seed)
    engine = RULES.engine()

    def check(match: Match) -> None:
        state = match.state
        for viewer in (*range(players), None):
            other = deal_hidden_again(state, viewer, rng)
            assert RULES.view(other, viewer) == RULES.view(state, viewer)
            assert own_request(other, viewer) == own_request(state, viewer)
            assert asked_by_when(other) == asked_by_when(state)
        requests = match.requests
        if not requests:
            return
        request = rng.choice(requests)
        move = rng.choice(request.legal_actions or [request.default])
        other = deal_hidden_again(state, request.seat, rng, held_only=True)
        action = Action(move["type"], seat_player_id(state, request.seat),
                        {k: v for k, v in move.items() if k != "type"}, request.seat)
        after, _ = engine.dispatch(state, action, match.started_ms + 7)
        other_after, _ = engine.dispatch(other, action, match.started_ms + 7)
        assert asked_by_when(other_after) == asked_by_when(after)

    play_out(seed, bot_seed, players, check)


@given(game_seeds, player_counts)
@bounded(8)
def test_a_table_of_silent_players_ends_too(seed: int, players: int) -> None:
    """Every request left to its timer: nobody uses a card, so the game
    ends by the deck running out or at round 9999; the rounds in between
    are skipped by moving the round counter on after the first two."""
    match = Match(RULES, TableSeed.numbered(seed), [f"n{seat}" for seat in range(players)], dict(OPTIONS), 0)
    moved_on = False
    for _ in range(5_000):
        if match.result is not None:
            break
        if not moved_on and match.state["position"]["round"] == 3:
            state = copy.deepcopy(match.state)
            state["position"]["round"] = 9_997
            match.state, moved_on = state, True
        now_ms = match.deadline_ms
        match.act_automatically(match.next_expired(now_ms), now_ms)
    assert match.result is not None and match.result["draw"]
