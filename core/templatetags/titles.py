"""``{{ match|match_title }}``: where a match is played, in the page's language ("Qualifying ·
Qualifying round 2 · Table 3"), from its round and table; a match outside the bracket shows
its own label. The label stored with a bracket match is written once, in the server's
language, so pages never show it (a Spanish director read "Final table 1 · table 1")."""

from __future__ import annotations

from typing import Any

from django import template
from django.core.exceptions import ObjectDoesNotExist
from django.utils.translation import gettext as _

from core.choice_labels import choice_label

register = template.Library()


@register.filter
def match_title(match: Any) -> str:
    try:
        link = match.round_link  # brackets.RoundMatch (reverse one-to-one; no import upward)
    except (ObjectDoesNotExist, AttributeError):
        link = None
    if link is None:
        table = getattr(match, "table", None)
        if match.label:
            return str(match.label)
        if table is not None:
            return _("Table %(n)s") % {"n": table.number}
        return _("Match %(n)s") % {"n": match.pk}
    rnd = link.round
    kind = choice_label(type(rnd).Kind, rnd.kind)
    where = kind if rnd.kind == "final" else f"{kind} {rnd.number}"
    table = _("Table %(n)s") % {"n": link.table_number}
    if rnd.stage.name.strip().casefold() == where.casefold():  # a stage named "Final table"
        return f"{where} · {table}"
    return f"{rnd.stage.name} · {where} · {table}"
