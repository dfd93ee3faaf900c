"""``{{ user|person_name }}`` and ``{{ user|shown_username }}``: a person as pages name them,
a referee by the name its director typed, never its internal user name
(:mod:`tournament.referee_names`)."""

from __future__ import annotations

from typing import Any

from django import template

from tournament import referee_names
from tournament.player_names import player_display_html

register = template.Library()


@register.filter
def person_name(user: Any) -> str:
    return referee_names.person_name(user)


@register.filter
def shown_username(user: Any) -> str:
    return referee_names.shown_username(user)


@register.filter
def with_nickname(name: Any, nickname: Any) -> str:
    """``{{ player.name|with_nickname:player.nickname }}``: the name and, muted, the nickname
    in quotes, as every page shows a nickname (:mod:`tournament.player_names`)."""
    return player_display_html(str(name or ""), str(nickname or ""))
