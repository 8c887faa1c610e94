"""Re-drawing what one viewer cannot see, one function per game: the other
half of the non-interference tests (test_noninterference.py).

Each function takes a state, a viewer (a seat, or None for a spectator) and
a `random.Random`, and returns a new state (the given one is left alone)
that the viewer cannot tell from the first by anything it may know: every
count it can see is kept, and everything it cannot see is drawn again:

- Big Two: the cards of the other hands, dealt again between those hands
  and the deck;
- Duel: for each side but the viewer's, the cards in its hand (except the
  Lucky Coin, whose place every seat sees), its deck and its unrevealed
  secrets, dealt again between them (the secrets stay secrets, of distinct
  names); the viewer's own deck is shuffled, since nobody sees a deck's
  order;
- Kingdoms: the cards of the other hands and the deck, dealt again; the
  identities not yet revealed, permuted among the players whose identity
  the viewer does not know (the lord's is public, a dead player's
  revealed, a resting player's not); the generals offered to and chosen by
  players who have not shown them yet, offered and chosen again;
- trio: the other seats' picks, until they are shown;
- every game: the random key, which decides all of the game's future draws.

With `held_only=True` only the cards other seats hold are drawn again (the
other hands among themselves, or, where a seat has a deck of its own as in
Duel, between its hand and its deck). What a move may reveal by the rules
is kept: the shared deck's order (a judgement turns up its top card), the
random key, secrets, identities and picks. So a move applied to both states
may show different cards, but must ask the same seats: whether a seat is
asked must not depend on the cards it holds."""

from __future__ import annotations

import random

from tablehost.games.duel import board as duel_board
from tablehost.games.duel.cards import SECRET
from tablehost.games.duel.catalog import spec_of as duel_spec
from tablehost.games.engine.state import State, copy_state, player_hand_zone_id
from tablehost.games.kingdoms import table as kingdoms_table
from tablehost.games.kingdoms.generals import GENERALS

KEY_BYTES = 32


def redraw_bigtwo(state: State, viewer: int | None, rng: random.Random, *, held_only: bool = False) -> State:
    redrawn = copy_state(state)
    zones = [_hand_zone(redrawn, seat) for seat in _others(redrawn, viewer)]
    if not held_only:
        zones.append("deck")
    _deal_again(redrawn, zones, rng)
    if not held_only:
        _fresh_key(redrawn, rng)
    return redrawn


def redraw_duel(state: State, viewer: int | None, rng: random.Random, *, held_only: bool = False) -> State:
    redrawn = copy_state(state)
    for seat in range(duel_board.SEATS):
        deck = duel_board.deck(redrawn, seat)
        if seat == viewer:
            if not held_only:
                rng.shuffle(deck)
            continue
        hand = duel_board.hand(redrawn, seat)
        # Cards an effect made (the Lucky Coin) stay where they are: "has_coin" is public.
        dealt_places = [index for index, card in enumerate(hand) if not _made_by_an_effect(card)]
        pool = [hand[index] for index in dealt_places] + deck
        if not held_only:
            secrets = duel_board.secrets(redrawn, seat)
            pool += secrets
            secrets[:] = _distinct_secrets(redrawn, pool, len(secrets), rng)
            pool = [card for card in pool if card not in secrets]
        rng.shuffle(pool)
        for index in dealt_places:
            hand[index] = pool.pop()
        deck[:] = pool
    if not held_only:
        _fresh_key(redrawn, rng)
    return redrawn


def redraw_kingdoms(state: State, viewer: int | None, rng: random.Random, *, held_only: bool = False) -> State:
    redrawn = copy_state(state)
    others = _others(redrawn, viewer)
    zones = [kingdoms_table.hand_zone(redrawn, seat) for seat in others]
    if not held_only:
        zones.append(kingdoms_table.DECK)
    _deal_again(redrawn, zones, rng)
    if not held_only:
        _permute_hidden_identities(redrawn, others, rng)
        _offer_hidden_generals_again(redrawn, viewer, others, rng)
        _fresh_key(redrawn, rng)
    return redrawn


def redraw_trio(state: State, viewer: int | None, rng: random.Random, *, held_only: bool = False) -> State:
    redrawn = copy_state(state)
    if not held_only:
        variables = redrawn["variables"]
        if variables["phase"] == "pick":
            picks = variables["picks"]
            for seat in _others(redrawn, viewer):
                if picks[seat] is not None:
                    picks[seat] = rng.choice((1, 2, 3))
        _fresh_key(redrawn, rng)
    return redrawn


# -- shared steps ---------------------------------------------------------------------


def _others(state: State, viewer: int | None) -> list[int]:
    return [seat for seat in range(len(state["players"])) if seat != viewer]


def _hand_zone(state: State, seat: int) -> str:
    return player_hand_zone_id(state["players"][seat]["id"])


def _deal_again(state: State, zone_ids: list[str], rng: random.Random) -> None:
    """The cards of `zone_ids` shuffled together and dealt back, each zone
    getting as many as it had (the counts are what a viewer sees)."""
    zones = [state["zones"][zone_id] for zone_id in zone_ids if zone_id in state["zones"]]
    pool = [card for zone in zones for card in zone["cards"]]
    rng.shuffle(pool)
    for zone in zones:
        count = len(zone["cards"])
        zone["cards"], pool = pool[:count], pool[count:]


def _fresh_key(state: State, rng: random.Random) -> None:
    state["rng"]["key"] = rng.randbytes(KEY_BYTES).hex()


# -- Duel -----------------------------------------------------------------------------


def _made_by_an_effect(card_id: str) -> bool:
    """Effects make cards with ids of their own (`p1.t01`); dealt cards
    are numbered by their place in the deck list (`p1.07`)."""
    return ".t" in card_id


def _distinct_secrets(state: State, pool: list[str], count: int, rng: random.Random) -> list[str]:
    """`count` secret cards of `pool` with distinct names, as the rules
    allow; the secrets in play are such a choice, so there always is one."""
    candidates = [card for card in pool if duel_spec(duel_board.card_name(state, card)).kind == SECRET]
    rng.shuffle(candidates)
    chosen: list[str] = []
    for card in candidates:
        if len(chosen) == count:
            break
        if all(duel_board.card_name(state, card) != duel_board.card_name(state, other) for other in chosen):
            chosen.append(card)
    assert len(chosen) == count, "the secrets in play were not of distinct names"
    return chosen


# -- Kingdoms -------------------------------------------------------------------------


def identity_hidden(state: State, seat: int) -> bool:
    """Whether the table does not see `seat`'s identity: the lord's is
    public, a dead player's revealed; a living or a resting player's is not."""
    record = kingdoms_table.player(state, seat)
    return record["identity"] != kingdoms_table.LORD and not kingdoms_table.dead(state, seat)


def _permute_hidden_identities(state: State, others: list[int], rng: random.Random) -> None:
    hidden = [seat for seat in others if identity_hidden(state, seat)]
    identities = [kingdoms_table.player(state, seat)["identity"] for seat in hidden]
    rng.shuffle(identities)
    for seat, identity in zip(hidden, identities):
        kingdoms_table.player(state, seat)["identity"] = identity


def _offer_hidden_generals_again(state: State, viewer: int | None, others: list[int], rng: random.Random) -> None:
    """Offers are dealt again as the game deals them, no general offered to
    two players: from the generals the viewer does not see anywhere (its own
    offer and every general shown are out), the lord's first (keeping the
    general the lord showed), then those of the others who have not shown
    theirs; a general chosen but not shown is chosen again from the new
    offer."""
    records = [kingdoms_table.player(state, seat) for seat in range(len(state["players"]))]
    seen = {record["general"] for record in records if record["shown"]}
    if viewer is not None:
        seen.update(records[viewer]["offered"])
    unseen = [name for name in sorted(GENERALS) if name not in seen]
    lord = kingdoms_table.lord(state)
    hidden = [seat for seat in sorted(others, key=lambda seat: seat != lord)
              if records[seat]["offered"] and (seat == lord or not records[seat]["shown"])]
    kept = {seat: [records[seat]["general"]] if records[seat]["shown"] else [] for seat in hidden}
    wanted = {seat: len(records[seat]["offered"]) - len(kept[seat]) for seat in hidden}
    pool = list(unseen)
    rng.shuffle(pool)
    for seat in hidden:
        record = records[seat]
        fresh, pool = pool[:wanted[seat]], pool[wanted[seat]:]
        record["offered"] = kept[seat] + fresh
        if not record["shown"] and record["general"] is not None:
            record["general"] = rng.choice(record["offered"])
