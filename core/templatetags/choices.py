"""``{{ obj|status_label }}``: a model's status in the page's language, agreed with the noun
(``core.choice_labels.choice_label``)."""

from __future__ import annotations

from typing import Any

from django import template

from core.choice_labels import status_label as _status_label

register = template.Library()


@register.filter
def status_label(obj: Any) -> str:
    return _status_label(obj)
