"""DrawPlugin, ported from the decklet card engine (its src/plugins/DrawPlugin.ts)
with Python names. Behaviour, defaults, events, payloads and error
messages are the seed's; only the spelling of names changed."""

from __future__ import annotations

from typing import Any

from tablehost.games.engine.engine import Context
from tablehost.games.engine.errors import Reason, RuleError
from tablehost.games.engine.plugin import Action, ActionHandler, Plugin
from tablehost.games.engine.rng import Random
from tablehost.games.engine.state import State, add_zone, create_zone, move_card, player_hand_zone_id

DRAW_CARD_ACTION = "DRAW_CARD"
CARD_DRAWN = "CARD_DRAWN"
DECK_RESHUFFLED = "DECK_RESHUFFLED"
DRAW_VAR_RESHUFFLE_FROM = "draw.reshuffleFrom"
DRAW_VAR_RESHUFFLE_KEEP_TOP = "draw.reshuffleKeepTop"

__all__ = [
    "CARD_DRAWN",
    "DECK_RESHUFFLED",
    "DRAW_CARD_ACTION",
    "DRAW_VAR_RESHUFFLE_FROM",
    "DRAW_VAR_RESHUFFLE_KEEP_TOP",
    "DrawPlugin",
    "create_draw_card_action",
    "player_hand_zone_id",
]


def create_draw_card_action(
    player_id: str | None,
    count: int,
    from_zone_id: str | None = None,
    to_zone_id: str | None = None,
) -> Action:
    payload: dict[str, object] = {"count": count}
    if from_zone_id is not None:
        payload["from_zone_id"] = from_zone_id
    if to_zone_id is not None:
        payload["to_zone_id"] = to_zone_id
    return Action(DRAW_CARD_ACTION, player_id, payload)


def _default(value: object, default: object) -> Any:
    return default if value is None else value


def _reshuffle_into_deck(
    state: State, deck_zone_id: str, discard_zone_id: str, keep_top: bool, random: Random
) -> int:
    """Move the discard pile (all but its top card when keep_top) under the
    deck, shuffled. Returns how many cards moved; 0 when there was nothing to
    move or either zone is missing."""
    deck = state["zones"].get(deck_zone_id)
    discard = state["zones"].get(discard_zone_id)
    if deck is None or discard is None:
        return 0
    movable = discard["cards"][:-1] if keep_top else list(discard["cards"])
    if not movable:
        return 0
    random.shuffle(movable)
    deck["cards"].extend(movable)
    discard["cards"] = [discard["cards"][-1]] if keep_top else []
    return len(movable)


def _draw(action: Action, ctx: Context) -> None:
    next_state = ctx.state
    payload = action.payload
    # The seed's `??` defaults: only a missing or null value takes the default.
    count = _default(payload.get("count"), 1)
    from_zone_id = _default(payload.get("from_zone_id"), "deck")
    to_zone_id = _default(
        payload.get("to_zone_id"),
        player_hand_zone_id(action.player_id) if action.player_id is not None else "hand",
    )
    if to_zone_id not in next_state["zones"]:
        add_zone(next_state, create_zone(to_zone_id, "hand", action.player_id))

    drawn_card_ids: list[str] = []
    reshuffled = False
    for i in range(count):
        from_zone = next_state["zones"].get(from_zone_id)
        if from_zone is None:
            raise RuleError(Reason.ILLEGAL_MOVE, f"Cannot draw: source zone {from_zone_id} not found")
        if not from_zone["cards"]:
            reshuffle_from = next_state["variables"].get(DRAW_VAR_RESHUFFLE_FROM)
            if isinstance(reshuffle_from, str):
                keep_top = _default(next_state["variables"].get(DRAW_VAR_RESHUFFLE_KEEP_TOP), True)
                moved = _reshuffle_into_deck(next_state, from_zone_id, reshuffle_from, keep_top, ctx.random("draw.reshuffle"))
                if moved == 0:
                    raise RuleError(
                        Reason.ILLEGAL_MOVE,
                        f"Cannot draw {count} cards: zone {from_zone_id} ran out after drawing {i}"
                        " (discard pile also empty)",
                    )
                reshuffled = True
            else:
                raise RuleError(
                    Reason.ILLEGAL_MOVE,
                    f"Cannot draw {count} cards: zone {from_zone_id} ran out after drawing {i}",
                )
        card_id = from_zone["cards"][0]
        move_card(next_state, card_id, from_zone_id, to_zone_id)
        drawn_card_ids.append(card_id)

    if reshuffled:
        ctx.emit(DECK_RESHUFFLED, {"from_zone_id": from_zone_id, "count": len(next_state["zones"][from_zone_id]["cards"])})
    if action.player_id is not None:
        ctx.emit(CARD_DRAWN, {"player_id": action.player_id, "card_ids": drawn_card_ids, "count": count},
                 action.player_id)
    else:
        ctx.emit(CARD_DRAWN, {"card_ids": drawn_card_ids, "count": count})


DrawPlugin = Plugin(
    id="draw",
    name="Draw Cards",
    version="1.0.0",
    actions=(ActionHandler(DRAW_CARD_ACTION, _draw),),
)
