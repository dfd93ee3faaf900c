"""``{{ match|match_title }}``: where a match is played, in the page's language
(:func:`core.titles.match_title`)."""

from __future__ import annotations

from typing import Any

from django import template

from core import titles

register = template.Library()


@register.filter
def match_title(match: Any) -> str:
    return titles.match_title(match)
