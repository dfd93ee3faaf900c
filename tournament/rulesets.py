"""The ruleset a tournament plays: the engine's, less what tournament play forbids (§1).

The engine accepts every value RULES.md §1 lists, informal play included; the tournament
layer decides what an event may use. Every event this system runs is tournament play, so
``sporting_allowed`` stays false: RULES.md §1 marks it "never in tournament play" and R11
allows sporting "only in informal play" (README, Rule decisions). The services, the director's
form and the admin all read a tournament's ruleset through :func:`tournament_ruleset`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
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


def tournament_ruleset_refusals(
    preset: str, overrides: Mapping[str, object] | None = None
) -> Iterator[tuple[InvalidRuleset, dict[str, object]]]:
    """EVERY refusal of ``preset`` with ``overrides``, each with the overrides it was found
    under: the director's form and the API name them all at once (§1).

    The engine names its first refusal only, so after one that names an override the caller
    set, that override is dropped (the preset's value stands in) and the rest is checked
    again: a target of -3 and a boneyard the deal cannot have (R2) are both refused at once.
    It stops when the rest is valid, when a refusal names no override left to drop (that
    refusal is still given: a preset's value the caller kept, such as block's sleeping
    boneyard under a standard deal, R2), or after as many rounds as overrides (each round
    drops one). A field is refused once: dropping a key can bring its refusal back from the
    preset's value (block's sleeping boneyard again)."""
    remaining = dict(overrides or {})
    shown: set[str | None] = set()
    for _round in range(len(remaining) + 1):
        try:
            tournament_ruleset(preset, remaining)
        except InvalidRuleset as error:
            if error.field not in shown:
                shown.add(error.field)
                yield error, dict(remaining)
            if error.field is None or error.field not in remaining:
                return
            del remaining[error.field]
        else:
            return
