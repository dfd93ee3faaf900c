"""Content-Security-Policy without ``unsafe-inline`` and Permissions-Policy, in a real browser.

Chromium (Playwright) opens every kind of page — spectators' live pages and the projector,
the director's pages, the admin, the referee's page through a private link, the sign-in form
and the API docs — and the test fails on any CSP violation the browser reports in the console,
and unless each page still works: live pages connect their websocket (``data-live-state`` =
``live``), the language picker and the sign-in form submit, Swagger UI renders the operations.

Twice: against uvicorn on the test database (PostgreSQL, Redis), and on the embedded default
(``config.settings.local`` with SQLite, the in-memory channel layer and ``demo_load``'s event).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from playwright.sync_api import Browser, BrowserContext, Page, expect

from brackets.models import RoundMatch
from scoring.services import match_assign_referee
from tests.browser.conftest import DESKTOP, session_cookie_for
from tests.factories import UserFactory, referee_of
from tests.live.conftest import (  # noqa: F401  (fixtures reused from the live tests)
    AsgiServer,
    _free_port,
    _isolated_namespaces,
    asgi_server,
    make_live_tournament,
    play_hands,
    start_match,
)
from tournament.services import referee_token_issue

CSP_MARKERS = ("Content Security Policy", "Content-Security-Policy")


REPORT_VIOLATIONS = """document.addEventListener("securitypolicyviolation", (e) =>
  window.__cspViolation(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
"""


class Watcher:
    """CSP violations (the DOM's ``securitypolicyviolation`` events and the console's reports)
    and uncaught errors of every page of one browser context."""

    def __init__(self, context: BrowserContext) -> None:
        self.violations: list[str] = []
        self.errors: list[str] = []
        context.expose_binding("__cspViolation", lambda _source, text: self.violations.append(text))
        context.add_init_script(REPORT_VIOLATIONS)
        context.on("page", self.attach)

    def attach(self, page: Page) -> None:
        page.on("console", lambda msg: self.console(page, msg))
        page.on("pageerror", lambda exc: self.errors.append(f"{page.url}: {exc}"))

    def console(self, page: Page, msg: Any) -> None:
        if any(marker in msg.text for marker in CSP_MARKERS):
            self.violations.append(f"{page.url}: {msg.text}")


def open_page(page: Page, url: str) -> None:
    """Go to ``url``; the document has both headers, and the CSP allows nothing inline."""
    response = page.goto(url)
    assert response is not None, url
    assert response.status == 200, (url, response.status)
    csp = response.headers.get("content-security-policy", "")
    assert "script-src 'self'" in csp, (url, csp)
    assert "unsafe-inline" not in csp, (url, csp)
    assert "unsafe-eval" not in csp, (url, csp)
    assert "camera=()" in response.headers.get("permissions-policy", ""), url
    page.wait_for_load_state("load")


def check_live(page: Page, url: str) -> None:
    open_page(page, url)
    page.wait_for_selector('#live[data-live-state="live"]')  # the websocket is connected


def check_api_docs(page: Page) -> None:
    open_page(page, "/api/docs/")
    expect(page.locator(".opblock").first).to_be_visible(timeout=15_000)


def check_sign_in_and_language(page: Page, username: str, password: str) -> None:
    open_page(page, "/accounts/login/")
    # static/js/site.js submits the form and the page reloads in the language: a full
    # round trip, which took over the default 5 s once on a loaded 2-core CI machine.
    page.select_option("#lang-select", "es")
    expect(page.locator("html")).to_have_attribute("lang", "es", timeout=15_000)
    page.select_option("#lang-select", "en")
    expect(page.locator("html")).to_have_attribute("lang", "en", timeout=15_000)
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/$"))


def inject_inline(route: Any) -> None:
    response = route.fetch()
    body = response.text().replace("<body ", "<script>1</script><body style='color:red' ", 1)
    route.fulfill(response=response, body=body)


def assert_clean(watcher: Watcher) -> None:
    assert not watcher.violations, "CSP violations:\n" + "\n".join(watcher.violations)
    assert not watcher.errors, "JavaScript errors:\n" + "\n".join(watcher.errors)


@pytest.fixture
def context(browser: Browser) -> Iterator[Any]:
    made: list[BrowserContext] = []

    def make(base_url: str, **kwargs: Any) -> tuple[BrowserContext, Watcher]:
        ctx = browser.new_context(base_url=base_url, viewport=DESKTOP, **kwargs)
        ctx.set_default_timeout(10_000)
        made.append(ctx)
        return ctx, Watcher(ctx)

    yield make
    for ctx in made:
        ctx.close()


def test_every_kind_of_page_runs_under_the_csp(context: Any, asgi_server: AsgiServer) -> None:  # noqa: F811
    lt = make_live_tournament(8, cut_size=4, slug="csp-open")
    match = lt.matches()[0]
    play_hands(match, lt.director, start_match(match, lt.director, seed=5)[:2])
    referee = referee_of(lt.tournament)
    match_assign_referee(match_id=match.pk, actor=lt.director, referee=referee)
    key = referee_token_issue(tournament=lt.tournament, actor=lt.director, user=referee).key
    lt.director.is_staff = True
    lt.director.set_password("director-pass-1")
    lt.director.save()
    slug, entry = lt.tournament.slug, match.seats.first().entry_id  # type: ignore[union-attr]
    player = match.seats.first().entry.player_id  # type: ignore[union-attr]
    round_id = RoundMatch.objects.get(match=match).round_id
    url = asgi_server.url

    # The watcher sees a violation: the same page with an inline script and style attribute.
    probe, watcher = context(url)
    probe.route("**/live/", lambda route: inject_inline(route))
    open_page(probe.new_page(), "/live/")
    assert any("script-src" in v for v in watcher.violations), watcher.violations
    assert any("style-src" in v for v in watcher.violations), watcher.violations

    spectator, watcher = context(url)
    page = spectator.new_page()
    for path in ("", "tables/", "standings/", "bracket/", "projector/"):
        check_live(page, f"/live/{slug}/{path}")
    check_live(page, f"/live/{slug}/players/{entry}/")
    check_live(page, f"/live/{slug}/matches/{match.pk}/")
    open_page(page, "/live/")
    check_api_docs(page)
    check_sign_in_and_language(page, lt.director.username, "director-pass-1")
    assert_clean(watcher)

    director, watcher = context(url)
    director.add_cookies([session_cookie_for(lt.director, url)])  # type: ignore[list-item]
    page = director.new_page()
    t = f"/director/tournaments/{slug}/"
    for path in (
        "/director/",
        t,
        f"{t}stages/",
        f"{t}stages/{lt.stage.pk}/seeding/",
        f"{t}rounds/{round_id}/",
        f"{t}rounds/{round_id}/sheets/",
        f"{t}bracket/",
        f"{t}log/",
        f"{t}players/import/",
    ):
        open_page(page, path)
    assert_clean(watcher)

    admin, watcher = context(url)
    staff = UserFactory(is_staff=True, is_superuser=True)
    admin.add_cookies([session_cookie_for(staff, url)])  # type: ignore[list-item]
    page = admin.new_page()
    for path in (
        "/admin/",
        "/admin/tournament/player/",
        f"/admin/tournament/player/{player}/change/",
    ):
        open_page(page, path)
    assert_clean(watcher)

    phone, watcher = context(url)
    page = phone.new_page()
    page.goto(f"/ref/#{key}")  # static JS posts the link's key (no inline script)
    page.wait_for_url(re.compile(rf"/matches/{match.pk}/"))
    expect(page.locator("#hand-form")).to_be_visible()
    assert_clean(watcher)


# --- the embedded default ----------------------------------------------------------------------


@pytest.fixture
def embedded_server(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """uvicorn on ``config.settings.local`` with a fresh SQLite database holding the demo."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.local",
        DJANGO_DEBUG="true",  # the embedded default: static files from the finders
        DATABASE_URL=f"sqlite:///{tmp_path / 'embedded.sqlite3'}",
        CELERY_TASK_ALWAYS_EAGER="true",
    )
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    manage = [sys.executable, "manage.py"]
    cwd = str(settings.BASE_DIR)
    subprocess.run([*manage, "migrate", "-v0"], env=env, cwd=cwd, check=True)
    demo = subprocess.run(
        [*manage, "demo_load"], env=env, cwd=cwd, check=True, capture_output=True, text=True
    ).stdout
    # A table still in play: its link lands on the match page with the hand form.
    link = re.search(r"in progress, \d+ hands.*?(/ref/#[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22,})", demo)
    assert link, demo
    server = AsgiServer(port=_free_port(), env=env)
    server.start()
    yield server.url, link.group(1)
    server.stop()


def test_the_embedded_default_runs_under_the_csp(
    context: Any, embedded_server: tuple[str, str]
) -> None:
    url, link = embedded_server
    browser_context, watcher = context(url)
    page = browser_context.new_page()
    check_live(page, "/live/demo-open/tables/")
    check_live(page, "/live/demo-open/projector/")
    check_sign_in_and_language(page, "director", "director")
    for path in ("/director/tournaments/demo-open/", "/director/tournaments/demo-open/stages/"):
        open_page(page, path)
    check_api_docs(page)
    assert_clean(watcher)

    phone, watcher = context(url)
    page = phone.new_page()
    page.goto(link)
    page.wait_for_url(re.compile(r"/matches/\d+/"))
    expect(page.locator("#hand-form")).to_be_visible()
    assert_clean(watcher)
