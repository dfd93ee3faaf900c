"""A crawl of the freshly loaded demo (issue 13 "Done when"): every link reachable from ``/`` and
``/live/``, and the director's pages signed in as the demo director, answers without a 5xx, and
the spectator home shows tables in play.

Runs on PostgreSQL in the default run and on SQLite in the embedded run (``TEST_DATABASE=sqlite``,
``make test``), where the vendor-only queries used to answer 500.
"""

from __future__ import annotations

import re
from collections import deque
from html.parser import HTMLParser
from io import StringIO
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

pytestmark = pytest.mark.django_db

# Not crawled: Django's admin (not our pages), signing out (ends the session mid-crawl), a
# referee's private link (it would sign the crawler in as that referee), static files.
SKIP = re.compile(r"^/(admin/|accounts/logout|logout|ref/|static/|media/)")
MAX_PAGES = 600


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.assets: list[str] = []
        self.ids: list[str] = []
        # Ids that attributes point at (a label's for, aria-describedby and the like).
        self.refs: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.append(str(found["id"]))
        for name in REF_ATTRIBUTES:
            for ref in (found.get(name) or "").split():
                self.refs.append((name, ref))
        if tag == "a" and found.get("href"):
            self.links.append(str(found["href"]))
        # Stylesheets, icons, manifests, scripts and images the page asks the browser to load.
        ref = found.get("href") if tag == "link" else found.get("src")
        if tag in ("link", "script", "img") and ref and ref.startswith("/static/"):
            self.assets.append(ref)


REF_ATTRIBUTES = ("for", "aria-describedby", "aria-labelledby", "aria-controls", "form", "list")
ASSETS: set[str] = set()
# Pages with an attribute naming an id that no element has: a field's help text or error a
# screen reader never reads out (help ids once ended "_help" where Django's fields say
# "_helptext"), a label that labels nothing.
DANGLING_REFS: dict[str, list[str]] = {}
# Pages whose HTML gives two elements the same id (labels, aria and scripts then find the wrong
# one: a second form's checkbox shadowed the import form's "check in").
DUPLICATE_IDS: dict[str, list[str]] = {}


def crawl(client: Client, starts: list[str]) -> dict[str, int]:
    """Status of every same-site page reachable from ``starts`` by GET links."""
    seen: dict[str, int] = {}
    todo = deque(starts)
    while todo and len(seen) < MAX_PAGES:
        path = todo.popleft()
        if path in seen:
            continue
        response = client.get(path, HTTP_ACCEPT="text/html")
        seen[path] = response.status_code
        if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
            continue
        parser = _Links()
        parser.feed(response.content.decode())
        ASSETS.update(parser.assets)
        repeated = sorted({i for i in parser.ids if parser.ids.count(i) > 1})
        if repeated:
            DUPLICATE_IDS[path] = repeated
        dangling = sorted({f"{name}={ref}" for name, ref in parser.refs if ref not in parser.ids})
        if dangling:
            DANGLING_REFS[path] = dangling
        for href in parser.links:
            url, _ = urldefrag(urljoin(path, href))
            parts = urlsplit(url)
            if parts.scheme not in ("", "http") or parts.netloc not in ("", "testserver"):
                continue
            target = parts.path + (f"?{parts.query}" if parts.query else "")
            if not SKIP.match(parts.path) and target not in seen:
                todo.append(target)
    assert len(seen) < MAX_PAGES, "the crawl did not end: a link generator?"
    return seen


def test_demo_crawl_answers_no_5xx_and_shows_tables_in_play() -> None:
    out = StringIO()
    call_command("demo_load", stdout=out)
    assert "Demo ready" in out.getvalue()

    anonymous = crawl(Client(), ["/", "/live/"])
    errors = {p: s for p, s in anonymous.items() if s >= 500}
    assert not errors, errors
    # Every kind of spectator page was reached (the ones that used to 500 on SQLite).
    for page in ("/live/demo-open/", "/live/demo-open/tables/", "/live/demo-open/projector/"):
        assert anonymous.get(page) == 200, page
    assert any(re.match(r"^/live/demo-open/matches/\d+/$", p) for p in anonymous)
    assert any(re.match(r"^/live/demo-open/players/\d+/$", p) for p in anonymous)

    home = Client().get("/live/demo-open/").content.decode()
    assert re.search(r"[1-9]\d* in play", home), "the spectator home shows no table in play"
    assert "No tables in play" not in home

    director = Client()
    director.force_login(get_user_model().objects.get(username="director"))
    signed_in = crawl(director, ["/", "/director/tournaments/demo-open/"])
    errors = {p: s for p, s in signed_in.items() if s >= 500}
    assert not errors, errors
    assert signed_in.get("/director/tournaments/demo-open/") == 200
    assert len(signed_in) > len(anonymous) // 2

    # Every stylesheet, icon, manifest and script a crawled page references exists (a page
    # that names a missing file shows up as a 404 in the browser console, e.g. the favicon).
    assert "/static/icons/domino.svg" in ASSETS
    missing = {a: s for a in sorted(ASSETS) if (s := Client().get(a).status_code) != 200}
    assert not missing, missing
    assert not DUPLICATE_IDS, DUPLICATE_IDS
    assert not DANGLING_REFS, DANGLING_REFS
