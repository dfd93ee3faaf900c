"""Where a match is played, in the page's language, composed in one place for every page.

"Qualifying · Round 2 · Table 3", "Final table · Table 1": the stage (when a page shows it),
the round by its kind and number, and the table. The label stored with a bracket match is
written once, in the server's language, so pages never show it for a match in a round (a
Spanish director read "Final table 1 · table 1"); a match outside any round shows its label.

The round is the brackets app's, reached through the ``round_link`` relation brackets
declares on the match (no import upward: core sits below every app).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

#: A round's name by its kind (brackets.Round.Kind); the final and a play-off have one table.
ROUND_NAMES: dict[str, Promise] = {
    "swiss": gettext_lazy("Round %(n)s"),
    "knockout": gettext_lazy("Knockout round %(n)s"),
    "final": gettext_lazy("Final table"),
    "playoff": gettext_lazy("Play-off table"),
}
#: A pairs stage's final is one match between the top two partnerships (T10), not a final
#: table of four players (T6); the bracket and the director's pages name it so too.
FINAL_PAIRS = gettext_lazy("The final (two partnerships)")


def round_title(kind: str, number: int, stage: str = "", *, pairs: bool = False) -> str:
    """ "Qualifying · Round 2"; the round alone without ``stage``, or when the stage is named
    like the round (a stage called "Final table"). ``pairs``: the round is a pairs stage's,
    whose final is "The final (two partnerships)" (T10)."""
    found = FINAL_PAIRS if pairs and kind == "final" else ROUND_NAMES.get(kind)
    name = str(found or ROUND_NAMES["swiss"])
    if "%(n)s" in name:
        name = name % {"n": number}
    if not stage.strip() or stage.strip().casefold() == name.casefold():
        return name
    return f"{stage} · {name}"


def table_title(number: int | None) -> str:
    """ "Table 3", or "Match" for a match with no table."""
    return _("Table %(n)s") % {"n": number} if number else _("Match")


def _link(match: Any) -> Any:
    try:
        return match.round_link  # brackets.RoundMatch (reverse one-to-one)
    except (ObjectDoesNotExist, AttributeError):
        return None


def match_round_title(match: Any) -> str:
    """The round of a match with its stage ("Qualifying · Round 2"); "" outside any round."""
    link = _link(match)
    if link is None:
        return ""
    rnd = link.round
    return round_title(rnd.kind, rnd.number, rnd.stage.name, pairs=bool(rnd.stage.pairs))


def match_title(match: Any) -> str:
    """The stage, round and table of a match; its own label outside any round."""
    link = _link(match)
    if link is None:
        if match.label:
            return str(match.label)
        table = getattr(match, "table", None)
        if table is None:
            return _("Match %(n)s") % {"n": match.pk}
        return table_title(table.number)
    return f"{match_round_title(match)} · {table_title(link.table_number)}"
