"""``{{ text|rule_links }}``: rule citations (R5, R31a, T3, §9) as links to ``/rules/``."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from core.rules_reference import rule_links as _rule_links

register = template.Library()


@register.filter(is_safe=True)
def rule_links(text: object) -> SafeString:
    return _rule_links(text)
