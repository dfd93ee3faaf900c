"""The ruleset a tournament plays: the engine's, less what tournament play forbids (§1).

The engine accepts every value RULES.md §1 lists, informal play included; the tournament
layer decides what an event may use. Every event this system runs is tournament play, so
``sporting_allowed`` stays false: RULES.md §1 marks it "never in tournament play" and R11
allows sporting "only in informal play" (README, Rule decisions). The services, the director's
form and the admin all read a tournament's ruleset through :func:`tournament_ruleset`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from django.utils.translation import gettext as _

from dominoes import InvalidRuleset, Ruleset

#: Ruleset keys a tournament may not change from the presets' value (all presets: false).
NOT_IN_TOURNAMENT_PLAY: Final = frozenset({"sporting_allowed"})


def tournament_ruleset(preset: str, overrides: Mapping[str, object] | None = None) -> Ruleset:
    """The engine's ruleset for ``preset`` with ``overrides``, refused (InvalidRuleset naming
    the key and the rule) where the engine refuses it or where tournament play forbids it."""
    ruleset = Ruleset.from_preset(preset, dict(overrides or {}))
    if ruleset.sporting_allowed:
        raise InvalidRuleset(
            code="not_in_tournament_play",
            rule="R11",
            field="sporting_allowed",
            message=_(
                "Sporting is never allowed in tournament play (R11, §1): every event here is "
                "tournament play, so sporting_allowed stays false."
            ),
        )
    return ruleset
