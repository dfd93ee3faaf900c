"""The product's own rules reference (``docs/rules.md``, ``docs/rules.es.md``) as a page.

Every rule citation a page shows ("R31a", "T3", "§9") links to its anchor on ``/rules/``:
one anchor per rule number (``#R31`` for R31(a) to (e), ``#s9`` for section 9). The markdown is
rendered once per language and process with markdown-it-py (CommonMark, raw HTML allowed: the
files are ours and carry the ``<a id>`` anchors, which GitHub keeps too).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from markdown_it import MarkdownIt

DOCS = Path(settings.BASE_DIR) / "docs"
FILES = {"en": "rules.md", "es": "rules.es.md"}

# R1…R46 (with an optional sub-rule letter), T1…T11, §0…§12.
CITATION = re.compile(r"(?<![\w/#])(?:([RT])(\d{1,2})([a-e]?)|§(\d{1,2}))(?![\w])")


def rules_language(language: str | None = None) -> str:
    code = (language or get_language() or "en").split("-")[0]
    return code if code in FILES else "en"


@lru_cache(maxsize=4)
def rules_html(language: str) -> str:
    """The rules file of ``language`` as HTML (trusted: it is our own file)."""
    text = (DOCS / FILES[rules_language(language)]).read_text(encoding="utf-8")
    # The files link each other for readers of the repository; on the site, the twin is the
    # same page in the other language.
    text = text.replace("](rules.es.md)", "](?lang=es)").replace("](rules.md)", "](?lang=en)")
    html: str = MarkdownIt("commonmark", {"html": True}).enable("table").render(text)
    return html


def rule_anchor(citation: str) -> str | None:
    """``"R31a"`` → ``"R31"``, ``"T3"`` → ``"T3"``, ``"§9"`` → ``"s9"``; else ``None``."""
    found = CITATION.fullmatch(citation.strip())
    if not found:
        return None
    letter, number, _sub, section = found.groups()
    return f"s{int(section)}" if section is not None else f"{letter}{int(number)}"


def rule_links(text: object) -> SafeString:
    """``text`` escaped, with every rule citation made a link to the rules page."""
    base = reverse("rules")
    escaped = str(escape(str(text)))

    def link(found: re.Match[str]) -> str:
        anchor = rule_anchor(found.group(0))
        return f'<a class="rule-link" href="{base}#{anchor}">{found.group(0)}</a>'

    return mark_safe(CITATION.sub(link, escaped))  # noqa: S308 -- escaped above
