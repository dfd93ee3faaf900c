"""Translated labels of the codes the live documents carry (statuses, kinds, T5 keys).

The documents hold language-neutral codes (they are cached once per version, in no language);
pages translate them here, through the ``label`` template filter.
"""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

LABELS: dict[str, dict[str, Promise]] = {
    "tournament": {
        "draft": _("Draft"),
        "registration": _("Registration open"),
        "running": _("In play"),
        "finished": _("Finished"),
    },
    "match": {
        "scheduled": pgettext_lazy("match", "Waiting to start"),
        "in_progress": pgettext_lazy("match", "In play"),
        "finished": pgettext_lazy("match", "Finished"),
        "void": pgettext_lazy("match", "Void"),
    },
    "confirmation_hold": {
        "awaiting": _("Awaiting confirmation"),
        "disputed": _("Result disputed: with the director"),
    },
    "end_reason": {
        "normal": _("played out"),
        "time": _("time called (T3)"),
        "forfeit": _("forfeit (T7)"),
        "override": _("director's decision"),
    },
    "stage_kind": {
        "qualifying": _("Qualifying"),
        "knockout": _("Knockout"),
        # A knockout stage whose field is the previous stage's cut: the final table itself (T6).
        "final_only": _("Final table only"),
        # A pairs stage's knockout (T10): partnerships two to a table, to the final between
        # the top two partnerships; with a cut of two the stage is that final alone.
        "knockout_pairs": _("Partnership knockout to the final"),
        "final_only_pairs": _("The final only (top two partnerships)"),
    },
    "stage": {
        "pending": pgettext_lazy("stage", "Not started"),
        "seeded": pgettext_lazy("stage", "Seeded"),
        "running": pgettext_lazy("stage", "In play"),
        "finished": pgettext_lazy("stage", "Finished"),
    },
    "round_kind": {
        "swiss": _("Qualifying round"),
        "knockout": _("Knockout round"),
        "final": _("Final table"),
        "playoff": _("Play-off table"),
        # A pairs event's final: one match between two partnerships (T10).
        "final_pairs": _("The final (two partnerships)"),
    },
    "round": {
        "published": pgettext_lazy("round", "In play"),
        "closed": pgettext_lazy("round", "Complete"),
    },
    "outlook": {
        "clinched": _("Clinched"),
        "advanced": _("Advanced"),
        "eliminated": _("Eliminated"),
        "champion": _("Champion"),
        # A pairs event's champion is a partnership (T9, T10): worded as the home page words it.
        "champion_pair": _("Champion partnership"),
        "final_table": _("Final table"),
        # A withdrawn or disqualified player or partnership (T7): out, but not by the results,
        # so the row does not read "Eliminated" (ranked after everyone still in).
        "withdrawn": pgettext_lazy("outlook", "Withdrawn"),
        "disqualified": pgettext_lazy("outlook", "Disqualified"),
    },
    "entrant": {
        "active": pgettext_lazy("entrant", "Playing"),
        "advanced": pgettext_lazy("entrant", "Advanced"),
        "eliminated": pgettext_lazy("entrant", "Eliminated"),
        "withdrawn": pgettext_lazy("entrant", "Withdrawn"),
    },
    "decided_by": {
        "match_wins": _("match wins"),
        "hands_won": _("hands won"),
        "six_loves_given": _("six-loves given"),
        "head_to_head": _("head-to-head"),
        "playoff": _("play-off needed"),
        # The play-off table (T6) was played out: it, not the T5 keys, decided the line.
        "playoff_played": _("decided by the play-off"),
    },
    "end": {
        "domino": _("domino"),
        "block": _("block"),
    },
}

TABLE_PLACINGS: dict[int, Promise] = {
    1: _("1st"),
    2: _("2nd"),
    3: _("3rd"),
    4: _("4th"),
}


def label(group: str, code: object) -> str:
    """The translated label of ``code`` in ``group``; the code itself if unknown."""
    found = LABELS.get(group, {}).get(str(code))
    return str(found) if found is not None else str(code or "")
