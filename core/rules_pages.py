"""Public pages that stand on their own: the rules reference and the printable referee card."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

from core.rules_reference import rules_html, rules_language


@require_GET
def rules_page(request: HttpRequest) -> HttpResponse:
    """``/rules/``: docs/rules.md (or its Spanish twin), one anchor per rule number."""
    language = rules_language(request.GET.get("lang"))
    body = mark_safe(rules_html(language))  # noqa: S308 -- our own file, rendered once
    return render(request, "core/rules.html", {"body": body, "rules_language": language})


@require_GET
def referee_card(request: HttpRequest) -> HttpResponse:
    """``/rules/referee-card/``: one printable page with a table referee's essentials."""
    return render(request, "core/referee_card.html")
