"""Rulesets: the options and presets of RULES.md section 1, and the deal sizes of R2.

Glossary:
    preset   -- a named, complete ruleset from the table in RULES.md section 1 (``wsod`` is the
                default); a tournament picks one and may override single keys.
    override -- one key of section 1 set to a value other than the preset's.
    set      -- the tiles in use: the full double-six set, or the set without 0-0 for three
                players in the standard deal (R2).
    boneyard -- the tiles not dealt: ``none`` (everything dealt), ``sleeping`` (never used) or
                ``draw`` (R16).

A :class:`Ruleset` is an immutable value. It is validated when built, so every instance in
circulation is a sensible combination; :meth:`Ruleset.validate_for_players` adds the checks
that depend on the number of players at a table (R2).

Decisions (where RULES.md section 1 leaves something open):
    * Keys marked "-" in the preset table have no effect under that preset's scoring; the
      stored ruleset still carries the ``wsod`` value for them (RULES.md section 1), so every
      ruleset serialises the same keys and a preset whose ``scoring`` is overridden behaves
      like ``wsod`` with the same overrides (``block`` therefore stores
      ``replay_leader_loss = reset``).
    * ``target = null`` means "the default for the scoring": 6 for ``six_love`` and
      ``straight_six``, 100 for two players and 61 for three or four under ``pips`` (R41).
    * ``boneyard = null`` means "per R2": nothing left over in the standard deal, ``sleeping``
      when tiles are left over. Setting ``sleeping`` or ``draw`` with ``deal = standard`` is
      rejected because the standard deal leaves no tile over (R2); ``none`` with a ``seven`` or
      ``block`` deal is rejected because those deals always leave tiles over.
    * Three players remove 0-0 only in the standard deal (9 each, R2); the ``seven`` deal for
      three players uses the full set and leaves 7 tiles over.
    * ``max_count`` (the §9 bound on a count) includes the tiles a player may draw from a
      ``draw`` boneyard (R16), since a hand grows by drawing.
    * ``seven`` with four players is rejected (R2 offers 7-each only to 2 and 3 players; with
      four the standard deal already gives 7 each).
    * ``pips`` scoring with ``llave != off`` is rejected: R24 adjusts the value of a
      six-love/straight-six hand and pip scoring (R40) has no hand value to adjust.
    * ``pips`` with ``opening = forced_six_six`` is accepted (R41): the first hand is forced,
      a decided hand's winner poses the next hand (R7), and after a tied hand its poser poses
      again, freely (R41; ``tie_opener`` is not consulted).
    * ``sporting_allowed = true`` is a valid value (informal play, R11); the tournament layer,
      not the engine, decides whether an event may use it.
    * ``teams = partners`` is a valid value for any scoring; a table of other than 4 players
      is refused by :meth:`Ruleset.validate_for_players` (R42). ``partner_credit`` is carried
      by every ruleset and only read under ``teams = partners`` with ``pips`` (R45).
      Under ``pips`` a partnership's default target is 100 (R45).
    * ``tie_value_cap`` must be null or 1..1000, ``playoff_value`` and ``target`` 1..1000
      (``ruleset.MAX_POINTS``: a match to the target can end), ``boneyard_reserve`` 0..28.
      Booleans are not accepted where an int is expected.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Final

from dominoes.errors import InvalidRuleset
from dominoes.tiles import ALL_TILES, DOUBLE_BLANK, FULL_SET_MASK

SECTION: Final = "§1"  # rule reference for ruleset errors (RULES.md section 1)


class Scoring(StrEnum):
    """How a match is scored (R25-R34 for ``six_love``/``straight_six``, R40-R41 for ``pips``)."""

    SIX_LOVE = "six_love"
    STRAIGHT_SIX = "straight_six"
    PIPS = "pips"


class ResetRule(StrEnum):
    """When a six-love match resets (R31 ``all_scored``, R32 ``any_challenger``)."""

    ALL_SCORED = "all_scored"
    ANY_CHALLENGER = "any_challenger"


class AllOnes(StrEnum):
    """What all-ones scores cause (R31d): a plain reset or a play-off hand."""

    RESET = "reset"
    PLAYOFF = "playoff"


class TieValue(StrEnum):
    """Value of a replay after k tied hands (R26)."""

    ESCALATE = "escalate"
    FLAT2 = "flat2"
    NONE = "none"


class TieOpener(StrEnum):
    """Who poses a replay (R10)."""

    LEADER = "leader"
    SIX_SIX_HOLDER = "six_six_holder"
    PREVIOUS_OPENER = "previous_opener"


class ReplayLeaderLoss(StrEnum):
    """What happens when a unique leader loses a replay (R31a)."""

    RESET = "reset"
    AWARD = "award"


class AfterResetOpener(StrEnum):
    """Who poses after a reset (R8)."""

    SIX_SIX_HOLDER = "six_six_holder"
    HAND_WINNER = "hand_winner"


class Llave(StrEnum):
    """Bonus for a llave win (R24)."""

    OFF = "off"
    PLUS_ONE = "plus_one"
    FLAT_TWO = "flat_two"


class Opening(StrEnum):
    """Who poses the first and later hands (R6)."""

    FORCED_SIX_SIX = "forced_six_six"
    LOT_THEN_ROTATE = "lot_then_rotate"


class Teams(StrEnum):
    """Individual play or two partnerships, AC (seats 0, 2) against BD (seats 1, 3) (R42)."""

    NONE = "none"
    PARTNERS = "partners"


class PartnerCredit(StrEnum):
    """What a winning partnership is credited under pip scoring (R45)."""

    NET = "net"
    OPPONENTS = "opponents"


class DealKind(StrEnum):
    """Deal sizes (R2).

    ``standard``: 4 players 7 each, 3 players 9 each without 0-0, 2 players 14 each.
    ``seven``: 7 each for 2 or 3 players, the rest per ``boneyard``.
    ``block``: 7 each for 2 players, 5 each for 3 or 4; the rest per ``boneyard``.
    """

    STANDARD = "standard"
    SEVEN = "seven"
    BLOCK = "block"


class Boneyard(StrEnum):
    """The tiles not dealt (R2, R15, R16)."""

    NONE = "none"
    SLEEPING = "sleeping"
    DRAW = "draw"


MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 4
PARTNERSHIP_PLAYERS: Final = 4  # R42

_HAND_SIZES: Final[Mapping[DealKind, Mapping[int, int]]] = MappingProxyType(
    {
        DealKind.STANDARD: MappingProxyType({2: 14, 3: 9, 4: 7}),
        DealKind.SEVEN: MappingProxyType({2: 7, 3: 7}),
        DealKind.BLOCK: MappingProxyType({2: 7, 3: 5, 4: 5}),
    }
)
_SET_WITHOUT_BLANK: Final = FULL_SET_MASK & ~DOUBLE_BLANK.mask
_HEAVIEST_FIRST: Final = tuple(sorted(ALL_TILES, key=lambda t: t.pips, reverse=True))

# Key -> (kind, enum class or None, nullable). Kind is "enum", "int" or "bool".
_ENUM_KEYS: Final[Mapping[str, type[StrEnum]]] = MappingProxyType(
    {
        "scoring": Scoring,
        "reset_rule": ResetRule,
        "all_ones": AllOnes,
        "tie_value": TieValue,
        "tie_opener": TieOpener,
        "replay_leader_loss": ReplayLeaderLoss,
        "after_reset_opener": AfterResetOpener,
        "llave": Llave,
        "opening": Opening,
        "deal": DealKind,
        "boneyard": Boneyard,
        "teams": Teams,
        "partner_credit": PartnerCredit,
    }
)
_INT_KEYS: Final = frozenset({"target", "playoff_value", "tie_value_cap", "boneyard_reserve"})
_BOOL_KEYS: Final = frozenset({"sporting_allowed", "draw_when_playable"})
_NULLABLE_KEYS: Final = frozenset({"target", "tie_value_cap", "boneyard"})


def _invalid(code: str, field: str, message: str, *, rule: str = SECTION) -> InvalidRuleset:
    return InvalidRuleset(code=code, rule=rule, field=field, message=message)


def _allowed(key: str) -> str:
    if key in _ENUM_KEYS:
        values = ", ".join(m.value for m in _ENUM_KEYS[key])
        return values + (", null" if key in _NULLABLE_KEYS else "")
    if key in _BOOL_KEYS:
        return "true, false"
    return "an integer" + (" or null" if key in _NULLABLE_KEYS else "")


def _coerce(key: str, raw: object) -> object:
    """Turn a JSON-ish value into the field's type; InvalidRuleset listing allowed values."""
    if raw is None:
        if key in _NULLABLE_KEYS:
            return None
    elif key in _ENUM_KEYS:
        enum_cls = _ENUM_KEYS[key]
        if isinstance(raw, enum_cls):
            return raw
        if isinstance(raw, str):
            try:
                return enum_cls(raw)
            except ValueError:
                pass
    elif key in _BOOL_KEYS:
        if isinstance(raw, bool):
            return raw
    elif isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    raise _invalid(
        "bad_value",
        key,
        f"{key}={raw!r} is not allowed; allowed values: {_allowed(key)} (§1).",
    )


def _check_type(key: str, value: object) -> None:
    if _coerce(key, value) is not value:
        # An enum member passed as a plain string, for instance: construct through from_preset.
        raise _invalid(
            "bad_type",
            key,
            f"{key}={value!r} has the wrong type; allowed values: {_allowed(key)} (§1).",
        )
