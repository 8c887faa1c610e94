"""Kingdoms' trigger timings, named after the seed's FreeKill timings, and
the data their handlers may edit.

The game flow's timings that the engine already names (game prepared,
initial cards, game and round start, turn start and end, the phase
timings, the draw phase's draw count) are the engine's, with the engine's
data classes but for the rounds' (RoundData here also names the player who
bears the timing, as the seed's round end needs); this module adds the
seed's timings the engine lacks and the timings of card use, damage,
dying and judgements that generals' skills listen to. A handler edits the
data in place (`DrawNCardsData.count += 1`), marks it `skipped`, or
returns True to stop the event; the flow reads it back.

Every timing has a bearer (the seed's 承担者), the player it concerns:
the data's `seat` (or `player_id`, `target`, `from_seat`); the game-wide timings
(GAME_PREPARED, BEFORE_GAME_START) have none.

Seed name → constant:
    fk.GamePrepared           GAME_PREPARED            (GameData)
    游戏开始前                  BEFORE_GAME_START        (GameData)
    fk.DrawInitialCards       DRAW_INITIAL_CARDS       (DrawInitialData)
    fk.AfterDrawInitialCards  AFTER_DRAW_INITIAL_CARDS (DrawInitialData)
    fk.GameStart              GAME_START               (RoundData)
    fk.RoundStart             ROUND_START              (RoundData)
    fk.RoundEnd               ROUND_END                (RoundData)
    fk.AfterRoundEnd          AFTER_ROUND_END          (RoundData)
    fk.PreTurnStart           PRE_TURN_START           (TurnData)
    fk.BeforeTurnStart        BEFORE_TURN_START        (TurnData)
    fk.TurnStart              TURN_START               (TurnData)
    fk.TurnEnd                TURN_END                 (TurnData)
    fk.EventTurnChanging      TURN_CHANGING            (TurnChangingData)
    fk.EventPhaseChanging     PHASE_CHANGING           (PhaseData)
    fk.EventPhaseSkipping     PHASE_SKIPPING           (PhaseData)
    fk.EventPhaseSkipped      PHASE_SKIPPED            (PhaseData)
    fk.EventPhaseStart        PHASE_START              (PhaseData)
    fk.EventPhaseProceeding   PHASE_PROCEEDING         (PhaseData)
    fk.EventPhaseEnd          PHASE_END                (PhaseData)
    fk.DrawNCards             DRAW_N_CARDS             (DrawNCardsData)
    fk.AfterDrawNCards        AFTER_DRAW_N_CARDS       (DrawNCardsData)

Beyond the seed's game flow, named after FreeKill's timings:
    fk.CardUsing              CARD_USED                (CardUseData)
    fk.Damaged                DAMAGED                  (DamageData)
    fk.AskForPeachesDone      ASK_FOR_PEACHES_DONE     (DyingData)
    fk.AskForRetrial          ASK_FOR_RETRIAL          (JudgeData)
    fk.FinishJudge            FINISH_JUDGE             (JudgeData)
"""

from __future__ import annotations

from dataclasses import dataclass

from tablehost.games.engine import timings as engine_timings
from tablehost.games.engine.timings import DrawInitialData, DrawNCardsData, GameData, PhaseData, TurnData

GAME_PREPARED = engine_timings.GAME_PREPARED
BEFORE_GAME_START = "kingdoms.before_game_start"
DRAW_INITIAL_CARDS = engine_timings.DRAW_INITIAL_CARDS
AFTER_DRAW_INITIAL_CARDS = engine_timings.AFTER_DRAW_INITIAL_CARDS
GAME_START = engine_timings.GAME_START
ROUND_START = engine_timings.ROUND_START
ROUND_END = engine_timings.ROUND_END
AFTER_ROUND_END = "kingdoms.after_round_end"
PRE_TURN_START = "kingdoms.pre_turn_start"
BEFORE_TURN_START = "kingdoms.before_turn_start"
TURN_START = engine_timings.TURN_START
TURN_END = engine_timings.TURN_END
TURN_CHANGING = "kingdoms.turn_changing"
PHASE_CHANGING = engine_timings.PHASE_CHANGING
PHASE_SKIPPING = engine_timings.PHASE_SKIPPING
PHASE_SKIPPED = engine_timings.PHASE_SKIPPED
PHASE_START = engine_timings.PHASE_START
PHASE_PROCEEDING = engine_timings.PHASE_PROCEEDING
PHASE_END = engine_timings.PHASE_END
DRAW_N_CARDS = engine_timings.DRAW_N_CARDS
AFTER_DRAW_N_CARDS = engine_timings.AFTER_DRAW_N_CARDS

# Beyond the game flow: what skills react to.
CARD_USED = "kingdoms.card_used"
DAMAGED = "kingdoms.damaged"
ASK_FOR_PEACHES_DONE = "kingdoms.ask_for_peaches_done"
ASK_FOR_RETRIAL = "kingdoms.ask_for_retrial"
FINISH_JUDGE = "kingdoms.finish_judge"

# Every timing of the game flow, in the order the seed lists them.
FLOW_TIMINGS = (
    GAME_PREPARED, BEFORE_GAME_START, DRAW_INITIAL_CARDS, AFTER_DRAW_INITIAL_CARDS,
    GAME_START, ROUND_START, ROUND_END, AFTER_ROUND_END,
    PRE_TURN_START, BEFORE_TURN_START, TURN_START, TURN_END, TURN_CHANGING,
    PHASE_CHANGING, PHASE_SKIPPING, PHASE_SKIPPED, PHASE_START, PHASE_PROCEEDING, PHASE_END,
    DRAW_N_CARDS, AFTER_DRAW_N_CARDS,
)
ALL_TIMINGS = (*FLOW_TIMINGS, CARD_USED, DAMAGED, ASK_FOR_PEACHES_DONE, ASK_FOR_RETRIAL, FINISH_JUDGE)


@dataclass(slots=True)
class RoundData:
    """Round `round`, borne by `seat`: the current player for GAME_START and
    ROUND_START, the current player's previous player (上家) for ROUND_END
    and AFTER_ROUND_END, as the seed says."""

    round: int
    seat: int
    skipped: bool = False


@dataclass(slots=True)
class TurnChangingData:
    """The turn passes from `from_seat` to `to_seat` (a handler may give the
    next turn to someone else); `skip_round_plus` keeps the round from
    ending at this change, so the next turn counts in the same round."""

    from_seat: int
    to_seat: int
    skip_round_plus: bool = False


@dataclass(slots=True)
class CardUseData:
    """`seat` used `card` (a card id) on `targets` (seats; empty when the
    card names none), before it takes effect."""

    seat: int
    card: str
    targets: list[int]


@dataclass(slots=True)
class DamageData:
    """`target` lost `amount` health to `source` (None: no one, as Lightning)
    through `card` (None: no card)."""

    source: int | None
    target: int
    amount: int
    card: str | None


@dataclass(slots=True)
class DyingData:
    """Nobody saved the dying `seat` (brought down by `source`, None: no
    one); a handler returning True keeps it from dying (it must then leave
    the player in some other state, as Nirvana's rest)."""

    seat: int
    source: int | None


@dataclass(slots=True)
class JudgeData:
    """`seat`'s judgement for `reason` (a card name or a skill) turned up
    `card`; before it takes effect (ASK_FOR_RETRIAL) a skill may replace
    the card, which FINISH_JUDGE then sees."""

    seat: int
    card: str
    reason: str


__all__ = [
    "CardUseData", "DamageData", "DrawInitialData", "DrawNCardsData", "DyingData", "GameData", "JudgeData",
    "PhaseData", "RoundData", "TurnChangingData", "TurnData",
]
