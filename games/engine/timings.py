"""Named trigger timings (Sanguosha's game flow: game, rounds, turns, phases,
draws) and the data their handlers may edit.

A handler edits the data in place (`DrawNCardsData.count = 3`), marks it
`skipped`, or returns True to stop the event; the code that fired the timing
reads the data back."""

from __future__ import annotations

from dataclasses import dataclass

GAME_PREPARED = "game_prepared"
DRAW_INITIAL_CARDS = "draw_initial_cards"
AFTER_DRAW_INITIAL_CARDS = "after_draw_initial_cards"
GAME_START = "game_start"
ROUND_START = "round_start"
ROUND_END = "round_end"
TURN_START = "turn_start"
TURN_END = "turn_end"
PHASE_CHANGING = "phase_changing"
PHASE_SKIPPING = "phase_skipping"
PHASE_SKIPPED = "phase_skipped"
PHASE_START = "phase_start"
PHASE_PROCEEDING = "phase_proceeding"
PHASE_END = "phase_end"
DRAW_N_CARDS = "draw_n_cards"
AFTER_DRAW_N_CARDS = "after_draw_n_cards"


@dataclass(slots=True)
class GameData:
    skipped: bool = False


@dataclass(slots=True)
class DrawInitialData:
    player_id: str
    count: int
    skipped: bool = False


@dataclass(slots=True)
class RoundData:
    round: int
    skipped: bool = False


@dataclass(slots=True)
class TurnData:
    seat: int
    skipped: bool = False


@dataclass(slots=True)
class PhaseData:
    seat: int
    phase: str
    skipped: bool = False


@dataclass(slots=True)
class DrawNCardsData:
    player_id: str
    count: int
    skipped: bool = False
