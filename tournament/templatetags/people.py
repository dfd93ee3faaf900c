"""``{{ user|person_name }}`` and ``{{ user|shown_username }}``: a person as pages name them,
a referee by the name its director typed, never its internal user name
(:mod:`tournament.referee_names`)."""

from __future__ import annotations

from typing import Any

from django import template

from tournament import referee_names

register = template.Library()


@register.filter
def person_name(user: Any) -> str:
    return referee_names.person_name(user)


@register.filter
def shown_username(user: Any) -> str:
    return referee_names.shown_username(user)
