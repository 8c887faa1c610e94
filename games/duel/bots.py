"""Bots that know Duel, offered to the tools by `Duel.bots()`.

Like every bot, a Duel bot chooses only among the actions the host listed
in its view's request, so it never sends an illegal move; it reads the
board from its view like a person would. It has the shape the tools expect
(a `name` and `choose(view) -> action`, made by a factory taking a seed)
without importing them. What it knows of the cards beyond the view is
whether a targeted card means harm or help (the catalog's `aim`)."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from tablehost.games.duel.catalog import CATALOG
from tablehost.games.duel.cards import AIM_ENEMY
from tablehost.games.engine.views import offered_actions
from tablehost.games.engine.rules import ActionMap

View = dict[str, Any]

# A mulligan returns cards costing more than this.
MULLIGAN_ABOVE_COST = 3


class GreedyBot:
    """In order of preference: keep a cheap opening hand; go face with every
    attack when the attacks that can reach the enemy hero are lethal; spend
    the most mana it can on cards (the costliest card of the best set
    first), aiming harm at enemies and help at friends; trade where its
    minion kills the target and survives; attack the enemy hero; use the
    hero power; end the turn."""

    name = "greedy"

    def __init__(self, seed: int = 0) -> None:
        # Deterministic, so the seed is unused: it is taken so that the
        # class itself is a bot factory like any other.
        del seed

    def choose(self, view: View) -> ActionMap:
        actions = offered_actions(view)
        if actions[0].get("type") == "mulligan":
            return self._mulligan(view, actions)
        for choose in (self._lethal, self._spend_mana, self._trade, self._face, self._hero_power):
            chosen = choose(view, actions)
            if chosen is not None:
                return chosen
        return next((a for a in actions if a.get("type") == "end_turn"), actions[-1])

    def _mulligan(self, view: View, actions: list[ActionMap]) -> ActionMap:
        costly = sorted(card["id"] for card in view.get("hand", []) if card.get("cost", 0) > MULLIGAN_ABOVE_COST)
        return next((a for a in actions if sorted(a.get("cards", [])) == costly), actions[0])

    def _lethal(self, view: View, actions: list[ActionMap]) -> ActionMap | None:
        enemy = _enemy_hero(view)
        if enemy is None:
            return None
        face = [a for a in actions if a.get("type") == "attack" and a.get("target") == enemy["id"]]
        attackers = {a["attacker"] for a in face}
        damage = sum(_attack_of(view, attacker) for attacker in attackers)
        return face[0] if face and damage >= enemy["health"] + enemy["armor"] else None

    def _spend_mana(self, view: View, actions: list[ActionMap]) -> ActionMap | None:
        plays = [a for a in actions if a.get("type") == "play"]
        if not plays:
            return None
        costs = {card["id"]: card["cost"] for card in view.get("hand", [])}
        mana = _own_hero(view)["mana"]
        playable = sorted({a["card"] for a in plays}, key=lambda card: (-costs.get(card, 0), card))
        best: tuple[str, ...] = ()
        for size in range(1, len(playable) + 1):
            for cards in combinations(playable, size):
                spent = sum(costs.get(card, 0) for card in cards)
                if spent <= mana and spent > sum(costs.get(card, 0) for card in best):
                    best = cards
        chosen = best[0] if best else playable[0]
        return _aimed(view, [a for a in plays if a["card"] == chosen])

    def _trade(self, view: View, actions: list[ActionMap]) -> ActionMap | None:
        enemy_minions = {m["id"]: m for m in _board(view, 1 - view["seat"])}
        best: tuple[int, ActionMap] | None = None
        for action in actions:
            target = enemy_minions.get(action.get("target", "")) if action.get("type") == "attack" else None
            attacker = _minion(view, action.get("attacker", ""))
            if target is None or attacker is None:
                continue
            shielded = "divine_shield" in attacker["keywords"]
            kills = attacker["attack"] >= target["health"] and "divine_shield" not in target["keywords"]
            survives = shielded or target["attack"] < attacker["health"]
            if kills and survives and (best is None or target["attack"] > best[0]):
                best = (target["attack"], action)
        return None if best is None else best[1]

    def _face(self, view: View, actions: list[ActionMap]) -> ActionMap | None:
        enemy = _enemy_hero(view)
        attacks = [a for a in actions if a.get("type") == "attack"]
        face = [a for a in attacks if enemy is not None and a.get("target") == enemy["id"]]
        # Taunt in the way: the host lists only taunt minions, so take the weakest.
        return face[0] if face else (attacks[0] if attacks else None)

    def _hero_power(self, view: View, actions: list[ActionMap]) -> ActionMap | None:
        powers = [a for a in actions if a.get("type") == "hero_power"]
        return _aimed(view, powers, enemies=True) if powers else None


def _own_hero(view: View) -> dict[str, Any]:
    return view["heroes"][view["seat"]]


def _enemy_hero(view: View) -> dict[str, Any] | None:
    heroes = view.get("heroes") or []
    seat = view.get("seat", -1)
    return heroes[1 - seat] if seat in (0, 1) and len(heroes) == 2 else None


def _board(view: View, seat: int) -> list[dict[str, Any]]:
    boards = view.get("boards") or [[], []]
    return boards[seat] if 0 <= seat < len(boards) else []


def _minion(view: View, minion_id: str) -> dict[str, Any] | None:
    return next((m for side in view.get("boards") or [] for m in side if m["id"] == minion_id), None)


def _attack_of(view: View, character: str) -> int:
    found = _minion(view, character)
    return found["attack"] if found is not None else _own_hero(view)["attack"]


def _aimed(view: View, options: list[ActionMap], enemies: bool | None = None) -> ActionMap:
    """Of the same card's (or hero power's) targets: an enemy for harm
    (the enemy hero first), a friend for help; no target when it takes none."""
    untargeted = [a for a in options if "target" not in a]
    if untargeted:
        return untargeted[0]
    if enemies is None:
        hand = {card["id"]: card["name"] for card in view.get("hand", [])}
        spec = CATALOG.get(hand.get(options[0].get("card", ""), ""))
        enemies = spec is None or spec.aim == AIM_ENEMY
    seat = view["seat"]
    own = {view["heroes"][seat]["id"], *(m["id"] for m in _board(view, seat))}
    wanted = [a for a in options if (a["target"] in own) != enemies]
    return (wanted or options)[0]


BOTS = {"greedy": GreedyBot}
