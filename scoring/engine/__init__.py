"""Pure-Python rules engine for Cut-Throat dominoes (RULES.md).

Nothing here imports Django or any third-party package. Public names are re-exported from the
modules below; see each module's docstring for the rules it implements.

Modules:
    tiles, rules, deal   -- the double-six set (R1), rulesets (section 1), dealing (R2, R5).
    moves, hand, turns   -- one hand move by move: moves (R12), positions and legal moves,
                            applying a move (R5-R20); positions builds known positions.
    llave                -- la llave decided from the board (R22-R24).
    record, playlog      -- a hand as an outcome record or a play log (section 9).
    match, match_state, validate -- the match reducer, its values and record checks
                            (sections 3, 7, 8, 9).
    partners             -- the fold of a partnership match (section 12, R42-R46).
    placing              -- placing at the table by score (T3/T4).
    simulate, seats      -- seeded bots playing hands and matches; seat letters.
"""

from scoring.engine.deal import Deal, check_deal, deal_tiles, forced_opener
from scoring.engine.errors import (
    EngineError,
    IllegalMove,
    InvalidRecord,
    InvalidRuleset,
    RuleViolation,
)
from scoring.engine.hand import (
    HandRules,
    HandState,
    hand_outcome,
    hand_start,
    is_blocked,
    legal_moves,
    pip_count,
)
from scoring.engine.llave import is_llave
from scoring.engine.match import match_apply, match_fold, match_start
from scoring.engine.match_state import (
    HandScored,
    MatchState,
    NextHand,
    PlayerStats,
    first_partner_after,
    team_name,
)
from scoring.engine.moves import End, Move, MoveKind, PoseRequirement
from scoring.engine.playlog import PlayLog, replay_play_log, replay_states
from scoring.engine.positions import position
from scoring.engine.record import EndKind, HandRecord, block_result, lowest_seats
from scoring.engine.rules import (
    DEFAULT_PRESET,
    PRESETS,
    AfterResetOpener,
    AllOnes,
    Boneyard,
    DealKind,
    Llave,
    Opening,
    PartnerCredit,
    ReplayLeaderLoss,
    ResetRule,
    Ruleset,
    Scoring,
    Teams,
    TieOpener,
    TieValue,
)
from scoring.engine.seats import seat_name
from scoring.engine.simulate import (
    BOTS,
    Bot,
    SimulatedMatch,
    heuristic_bot,
    random_bot,
    simulate_hand,
    simulate_match,
)
from scoring.engine.snapshot import InvalidSnapshot, state_from_json, state_to_json
from scoring.engine.tiles import ALL_TILES, DOUBLE_BLANK, DOUBLE_SIX, FULL_SET_MASK, Tile
from scoring.engine.turns import apply

__all__ = [
    "ALL_TILES",
    "BOTS",
    "DEFAULT_PRESET",
    "DOUBLE_BLANK",
    "DOUBLE_SIX",
    "FULL_SET_MASK",
    "PRESETS",
    "AfterResetOpener",
    "AllOnes",
    "Boneyard",
    "Bot",
    "Deal",
    "DealKind",
    "End",
    "EndKind",
    "EngineError",
    "HandRecord",
    "HandRules",
    "HandScored",
    "HandState",
    "IllegalMove",
    "InvalidRecord",
    "InvalidRuleset",
    "InvalidSnapshot",
    "Llave",
    "MatchState",
    "Move",
    "MoveKind",
    "NextHand",
    "Opening",
    "PartnerCredit",
    "PlayLog",
    "PlayerStats",
    "PoseRequirement",
    "ReplayLeaderLoss",
    "ResetRule",
    "RuleViolation",
    "Ruleset",
    "Scoring",
    "SimulatedMatch",
    "Teams",
    "TieOpener",
    "TieValue",
    "Tile",
    "apply",
    "block_result",
    "check_deal",
    "deal_tiles",
    "first_partner_after",
    "forced_opener",
    "hand_outcome",
    "hand_start",
    "heuristic_bot",
    "is_blocked",
    "is_llave",
    "legal_moves",
    "lowest_seats",
    "match_apply",
    "match_fold",
    "match_start",
    "pip_count",
    "position",
    "random_bot",
    "replay_play_log",
    "replay_states",
    "seat_name",
    "simulate_hand",
    "simulate_match",
    "state_from_json",
    "state_to_json",
    "team_name",
]
