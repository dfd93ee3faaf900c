"""The :class:`Ruleset` value and the presets of RULES.md section 1 (the options and their
validation helpers are in :mod:`dominoes.options`; the decisions are listed there)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Final

from dominoes.errors import InvalidRuleset
from dominoes.options import (
    _HAND_SIZES,
    _HEAVIEST_FIRST,
    _SET_WITHOUT_BLANK,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PARTNERSHIP_PLAYERS,
    AfterResetOpener,
    AllOnes,
    Boneyard,
    DealKind,
    Llave,
    Opening,
    PartnerCredit,
    ReplayLeaderLoss,
    ResetRule,
    Scoring,
    Teams,
    TieOpener,
    TieValue,
    _check_type,
    _coerce,
    _invalid,
)
from dominoes.tiles import FULL_SET_MASK

MAX_POINTS: Final = 1000
"""The largest target, play-off value and tie value cap a ruleset takes: far above any real
game (block to 100-250 points, pips to 500), and a match to it can still end."""


@dataclass(frozen=True, slots=True)
class Ruleset:
    """One complete, validated set of the options in RULES.md section 1.

    Build it with :meth:`from_preset` (a preset plus overrides) or :meth:`from_json`; the
    constructor validates too and raises :class:`InvalidRuleset` naming the offending key.

    >>> r = Ruleset.from_preset("wsod", {"tie_value": "flat2"})
    >>> r.tie_value, r.target_for(4), r.hand_size(3)
    (<TieValue.FLAT2: 'flat2'>, 6, 9)
    """

    preset: str
    scoring: Scoring
    target: int | None
    reset_rule: ResetRule
    all_ones: AllOnes
    playoff_value: int
    tie_value: TieValue
    tie_value_cap: int | None
    tie_opener: TieOpener
    replay_leader_loss: ReplayLeaderLoss
    after_reset_opener: AfterResetOpener
    llave: Llave
    sporting_allowed: bool
    opening: Opening
    deal: DealKind
    boneyard: Boneyard | None
    draw_when_playable: bool
    boneyard_reserve: int
    teams: Teams = Teams.NONE
    partner_credit: PartnerCredit = PartnerCredit.NET

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.name != "preset":
                _check_type(f.name, getattr(self, f.name))
        if not isinstance(self.preset, str) or not self.preset:
            raise _invalid("bad_value", "preset", "preset must be a non-empty preset name.")
        self._check_combinations()

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def from_preset(cls, name: str, overrides: Mapping[str, object] | None = None) -> Ruleset:
        """The preset ``name`` with single keys overridden (RULES.md section 1).

        Raises :class:`InvalidRuleset` for an unknown preset, an unknown key, a value of the
        wrong type or outside the allowed values (the message lists them), or a nonsense
        combination.
        """
        base = PRESETS.get(name) if isinstance(name, str) else None
        if base is None:
            raise _invalid(
                "unknown_preset",
                "preset",
                f"Unknown preset {name!r}; choose one of {', '.join(PRESETS)} (§1).",
            )
        return base.with_overrides(overrides) if overrides else base

    def with_overrides(self, overrides: Mapping[str, object]) -> Ruleset:
        """A copy with the given keys changed; the preset name is kept (section 1)."""
        if not overrides:
            return self
        changes: dict[str, object] = {}
        for key, raw in overrides.items():
            if key == "preset" or key not in _FIELD_NAMES:
                raise _invalid(
                    "unknown_key",
                    str(key),
                    f"Unknown ruleset key {key!r}; known keys: {', '.join(_OPTION_KEYS)} (§1).",
                )
            changes[key] = _coerce(key, raw)
        return replace(self, **changes)  # type: ignore[arg-type]

    def to_json(self) -> dict[str, object]:
        """Every key as plain JSON values (enums as their string values)."""
        out: dict[str, object] = {}
        for name in _FIELD_NAMES:
            value = getattr(self, name)
            out[name] = value.value if isinstance(value, StrEnum) else value
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Ruleset:
        """Inverse of :meth:`to_json` (lossless). Missing keys take the named preset's value."""
        if not isinstance(data, Mapping):
            raise _invalid("bad_type", "ruleset", "A ruleset must be a JSON object (§1).")
        preset = data.get("preset", DEFAULT_PRESET)
        if not isinstance(preset, str):
            raise _invalid("bad_type", "preset", "preset must be a string (§1).")
        overrides = {k: v for k, v in data.items() if k != "preset"}
        return cls.from_preset(preset, overrides)

    def overrides(self) -> dict[str, object]:
        """The keys (JSON values) that differ from the preset this ruleset was derived from."""
        base = PRESETS.get(self.preset)
        mine = self.to_json()
        if base is None:
            return {k: v for k, v in mine.items() if k != "preset"}
        theirs = base.to_json()
        return {k: v for k, v in mine.items() if k != "preset" and theirs[k] != v}

    # -- per player count ---------------------------------------------------------------------

    def validate_for_players(self, n_players: int) -> None:
        """Reject a ruleset that cannot be played by ``n_players`` (R2, R16).

        Raises :class:`InvalidRuleset` for a player count outside 2..4, a ``seven`` deal for 4
        players, or a ``draw`` boneyard that holds no more than ``boneyard_reserve`` tiles.
        """
        self.hand_size(n_players)  # player count and deal (R2)
        if self.teams is Teams.PARTNERS and n_players != PARTNERSHIP_PLAYERS:
            raise InvalidRuleset(
                code="partners_need_four",
                rule="R42",
                field="teams",
                message=(
                    "teams=partners needs exactly 4 players in two partnerships (AC against "
                    f"BD), not {n_players} (R42)."
                ),
            )
        left = self._left_over(n_players)
        if self.boneyard_for(n_players) is Boneyard.DRAW and left <= self.boneyard_reserve:
            raise InvalidRuleset(
                code="empty_boneyard",
                rule="R16",
                field="boneyard_reserve",
                message=(
                    f"A draw boneyard of {left} tiles with boneyard_reserve="
                    f"{self.boneyard_reserve} never allows a draw for {n_players} players (R16)."
                ),
            )

    def target_for(self, n_players: int) -> int:
        """The winning score (R30-R32; R41: 100 for two players, 61 for three or four; R45:
        100 for partnerships)."""
        if self.target is not None:
            return self.target
        if self.scoring is Scoring.PIPS:
            return 100 if n_players == 2 or self.teams is Teams.PARTNERS else 61
        return 6

    def hand_size(self, n_players: int) -> int:
        """Tiles dealt to each player (R2); :class:`InvalidRuleset` if the deal is impossible."""
        if not (isinstance(n_players, int) and MIN_PLAYERS <= n_players <= MAX_PLAYERS):
            raise InvalidRuleset(
                code="bad_player_count",
                rule="R2",
                field="n_players",
                message=f"A table seats 2, 3 or 4 players, not {n_players!r} (R2).",
            )
        size = _HAND_SIZES[self.deal].get(n_players)
        if size is None:
            raise InvalidRuleset(
                code="impossible_deal",
                rule="R2",
                field="deal",
                message=(
                    f"deal={self.deal.value} is for 2 or 3 players; {n_players} players use "
                    "deal=standard (7 each) (R2)."
                ),
            )
        return size

    def set_mask(self, n_players: int) -> int:
        """Mask of the tiles in use: without 0-0 for 3 players in the standard deal (R2)."""
        if self.deal is DealKind.STANDARD and n_players == 3:
            return _SET_WITHOUT_BLANK
        return FULL_SET_MASK

    def deals_all_tiles(self, n_players: int) -> bool:
        """True when every tile of the set in use is dealt (R2)."""
        return self._left_over(n_players) == 0

    def boneyard_for(self, n_players: int) -> Boneyard:
        """Effective boneyard: ``none`` when everything is dealt, else the option (R2)."""
        if self.deals_all_tiles(n_players):
            return Boneyard.NONE
        return self.boneyard if self.boneyard is not None else Boneyard.SLEEPING

    def max_count(self, n_players: int) -> int:
        """The heaviest possible hand for the deal (section 9).

        That is the ``hand_size`` heaviest tiles of the set in use; with a ``draw`` boneyard a
        hand can also grow by every tile that may be drawn (R16: all but ``boneyard_reserve``).
        """
        size = self.hand_size(n_players)
        if self.boneyard_for(n_players) is Boneyard.DRAW:
            size += max(0, self._left_over(n_players) - self.boneyard_reserve)
        in_use = self.set_mask(n_players)
        tiles = [t for t in _HEAVIEST_FIRST if in_use >> t.index & 1]
        return sum(t.pips for t in tiles[:size])

    # -- internals ----------------------------------------------------------------------------

    def _left_over(self, n_players: int) -> int:
        return self.set_mask(n_players).bit_count() - n_players * self.hand_size(n_players)

    def _check_combinations(self) -> None:
        if self.target is not None and not 1 <= self.target <= MAX_POINTS:
            raise _invalid(
                "out_of_range",
                "target",
                f"target must be >= 1 and <= {MAX_POINTS}, not {self.target}.",
            )
        if not 1 <= self.playoff_value <= MAX_POINTS:
            raise _invalid(
                "out_of_range",
                "playoff_value",
                f"playoff_value must be >= 1 and <= {MAX_POINTS}, not {self.playoff_value} (R26).",
                rule="R26",
            )
        if self.tie_value_cap is not None and not 1 <= self.tie_value_cap <= MAX_POINTS:
            raise _invalid(
                "out_of_range",
                "tie_value_cap",
                f"tie_value_cap must be null or >= 1 and <= {MAX_POINTS}, "
                f"not {self.tie_value_cap} (R26).",
                rule="R26",
            )
        if not 0 <= self.boneyard_reserve <= 28:
            raise _invalid(
                "out_of_range",
                "boneyard_reserve",
                f"boneyard_reserve must be >= 0 and <= 28, not {self.boneyard_reserve} (R16).",
                rule="R16",
            )
        if self.scoring is Scoring.PIPS and self.llave is not Llave.OFF:
            raise _invalid(
                "nonsense_combination",
                "llave",
                (
                    f"llave={self.llave.value} adjusts a hand value (R24), but scoring=pips has "
                    "no hand value (R40); use llave=off."
                ),
                rule="R24",
            )
        if self.deal is DealKind.STANDARD and self.boneyard in (Boneyard.SLEEPING, Boneyard.DRAW):
            raise _invalid(
                "nonsense_combination",
                "boneyard",
                (
                    f"boneyard={self.boneyard.value} needs tiles left over, but deal=standard "
                    "deals every tile (R2); use boneyard=null or a seven/block deal."
                ),
                rule="R2",
            )
        if self.deal is not DealKind.STANDARD and self.boneyard is Boneyard.NONE:
            raise _invalid(
                "nonsense_combination",
                "boneyard",
                (
                    f"deal={self.deal.value} leaves tiles over (R2); choose boneyard=sleeping "
                    "or draw (or null for sleeping)."
                ),
                rule="R2",
            )


_FIELD_NAMES: Final = tuple(f.name for f in fields(Ruleset))
_OPTION_KEYS: Final = tuple(n for n in _FIELD_NAMES if n != "preset")

#: RULES.md §1's dash cells: the keys a scoring never reads. The stored ruleset still carries
#: a value for them (``wsod``'s), but a director's override of one changes nothing, so forms
#: say so instead of listing the value as if it applied.
_SIX_LOVE_ONLY: Final = frozenset({"reset_rule", "all_ones", "playoff_value", "after_reset_opener"})
NO_EFFECT: Final[Mapping[Scoring, frozenset[str]]] = MappingProxyType(
    {
        Scoring.SIX_LOVE: frozenset(),
        Scoring.STRAIGHT_SIX: _SIX_LOVE_ONLY,
        # R40-R41: a pip match knows no replay value cap, replay opener or leader's loss.
        Scoring.PIPS: _SIX_LOVE_ONLY | {"tie_value_cap", "tie_opener", "replay_leader_loss"},
    }
)


_WSOD: Final = Ruleset(
    preset="wsod",
    scoring=Scoring.SIX_LOVE,
    target=6,
    reset_rule=ResetRule.ALL_SCORED,
    all_ones=AllOnes.RESET,
    playoff_value=2,
    tie_value=TieValue.ESCALATE,
    tie_value_cap=None,
    tie_opener=TieOpener.LEADER,
    replay_leader_loss=ReplayLeaderLoss.RESET,
    after_reset_opener=AfterResetOpener.SIX_SIX_HOLDER,
    llave=Llave.OFF,
    sporting_allowed=False,
    opening=Opening.FORCED_SIX_SIX,
    deal=DealKind.STANDARD,
    boneyard=None,
    draw_when_playable=False,
    boneyard_reserve=0,
)

PRESETS: Final[Mapping[str, Ruleset]] = MappingProxyType(
    {
        "wsod": _WSOD,
        "wsod_playoff": replace(_WSOD, preset="wsod_playoff", all_ones=AllOnes.PLAYOFF),
        "straight_six": replace(
            _WSOD,
            preset="straight_six",
            scoring=Scoring.STRAIGHT_SIX,
            replay_leader_loss=ReplayLeaderLoss.AWARD,
        ),
        "jamaican": replace(
            _WSOD,
            preset="jamaican",
            tie_value=TieValue.NONE,
            tie_opener=TieOpener.SIX_SIX_HOLDER,
            replay_leader_loss=ReplayLeaderLoss.AWARD,
            llave=Llave.PLUS_ONE,
        ),
        "block": replace(
            _WSOD,
            preset="block",
            scoring=Scoring.PIPS,
            target=None,
            tie_value=TieValue.NONE,
            opening=Opening.LOT_THEN_ROTATE,
            deal=DealKind.BLOCK,
            boneyard=Boneyard.SLEEPING,
        ),
        "wsod_partners": replace(_WSOD, preset="wsod_partners", teams=Teams.PARTNERS),
        "partnership_block": replace(
            _WSOD,
            preset="partnership_block",
            scoring=Scoring.PIPS,
            target=100,
            tie_value=TieValue.NONE,
            opening=Opening.LOT_THEN_ROTATE,
            deal=DealKind.BLOCK,
            boneyard=Boneyard.SLEEPING,
            teams=Teams.PARTNERS,
            partner_credit=PartnerCredit.NET,
        ),
    }
)
"""The presets of RULES.md section 1, by name."""

DEFAULT_PRESET: Final = "wsod"
