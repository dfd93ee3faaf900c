"""``{% disputes_open_count tournament as n %}``: the open disputes of a tournament (issue 15),
for the Disputes tab of the director's menu (``brackets/_director_nav.html``): one query per
page, whatever the number of matches or disputes."""

from __future__ import annotations

from typing import Any

from django import template

from scoring import confirmation

register = template.Library()


@register.simple_tag
def disputes_open_count(tournament: Any) -> int:
    return confirmation.disputes_open_count(tournament_id=tournament.pk)
