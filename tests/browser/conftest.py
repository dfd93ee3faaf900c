"""Real-browser fixtures: Playwright (sync API) driving Debian's Chromium against a live server.

Reuse them in any browser test under ``tests/browser/``::

    @pytest.mark.browser
    def test_something(page, live_server, artifacts_dir):
        page.goto("/some/page/")           # relative to live_server.url (base_url)
        page.screenshot(path=artifacts_dir / "something.png")

    @pytest.mark.browser
    def test_two_devices(browser_context, live_server, django_user_model):
        director = browser_context(viewport=DESKTOP, user=director_user)   # logged in
        referee = browser_context()                                         # phone, anonymous
        ...

Fixtures:
    ``browser``          -- one Chromium per test session (PITFALLS.md: no download is possible,
                            always Debian's binary with the background-networking flags).
    ``browser_context``  -- a factory; every call opens a fresh, isolated context (its own
                            cookies) at a phone viewport unless told otherwise, optionally
                            logged in as a Django user, with ``base_url`` = the live server.
                            Contexts close when the test ends.
    ``page``             -- one page in a fresh phone-sized context (360 x 740, touch).
    ``artifacts_dir``    -- ``test-artifacts/`` (gitignored), for screenshots.

Uncaught JavaScript exceptions in any page fail the test at teardown: a page that throws is
broken even when the assertion under test happened to pass.

The live server is pytest-django's ``live_server`` (transactional database, PostgreSQL; a test
marked ``embedded`` also runs on the embedded run's SQLite file database); it serves static
files through the finders, so no ``collectstatic`` is needed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Page,
    Playwright,
    Route,
    expect,
    sync_playwright,
)
from playwright.sync_api import Error as PlaywrightError

# Playwright's sync API runs an event loop in the main thread; Django's async-safety check would
# then refuse ORM calls made by the test itself (test data set-up). The ORM is only used from
# the test thread here, never concurrently from the loop, so the check does not apply.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
# ``BrowserContext.set_offline`` does not reach the service worker's own requests in Chromium
# (Playwright issue 2311): a page opened "offline" could still be fetched fresh through the
# worker, and its queued hand sent. With the worker's network events on, ``set_offline`` below
# also aborts every request the worker makes, as a phone without signal would.
os.environ.setdefault("PW_EXPERIMENTAL_SERVICE_WORKER_NETWORK_EVENTS", "1")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE: dict[str, int] = {"width": 360, "height": 740}
DESKTOP: dict[str, int] = {"width": 1280, "height": 900}
DEFAULT_TIMEOUT_MS = 10_000

ContextFactory = Callable[..., BrowserContext]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in this folder is a browser test (``-m "not browser"`` skips them)."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


# Module scope, not session: Playwright's sync API keeps an event loop running in the main
# thread while it is started, which breaks every later test that uses ``async_to_sync`` (and a
# second ``sync_playwright()`` elsewhere). Stopping it after each module gives the thread back.
@pytest.fixture(scope="module")
def playwright_instance() -> Iterator[Playwright]:
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="module")
def browser(playwright_instance: Playwright) -> Iterator[Browser]:
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium (see .ci/run)")
    instance = playwright_instance.chromium.launch(
        executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
    )
    yield instance
    instance.close()


@pytest.fixture
def artifacts_dir() -> Path:
    path = Path(settings.BASE_DIR) / "test-artifacts"
    path.mkdir(exist_ok=True)
    return path


def _no_signal(route: Route) -> None:
    route.abort("internetdisconnected")


def set_offline(context: BrowserContext, offline: bool) -> None:
    """Cut (or restore) the whole network of ``context``: its pages *and* its service worker.

    Use this, not ``context.set_offline``, in every offline test (see the note at the top).
    """
    context.set_offline(offline)
    if offline:
        context.route("**/*", _no_signal)
    else:
        context.unroute("**/*", _no_signal)


_CONTROLLED = "() => !!(navigator.serviceWorker && navigator.serviceWorker.controller)"


def controlled_by_service_worker(page: Page) -> None:
    """Wait until the referee page's service worker controls ``page``, as on a phone after its
    first visit. From then on Chromium sends the page's requests past ``page.route``: a test
    that intercepts them must use ``page.context.route`` (it sees both)."""
    # Polled from here: wait_for_function evaluates a string in the page, which its CSP forbids.
    # A page still on its way (the link's sign-in navigates) is asked again.
    for _ in range(100):
        try:
            if page.evaluate(_CONTROLLED):
                return
        except PlaywrightError as exc:
            if "context was destroyed" not in str(exc):
                raise
        page.wait_for_timeout(100)
    raise AssertionError("the service worker did not take control of the page within 10 s")


def session_cookie_for(user: Any, base_url: str) -> dict[str, Any]:
    """A Django session cookie logging ``user`` in, ready for ``BrowserContext.add_cookies``."""
    client = Client()
    client.force_login(user)
    return {
        "name": settings.SESSION_COOKIE_NAME,
        "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
        "url": base_url,
    }


@pytest.fixture
def browser_context(browser: Browser, live_server: Any) -> Iterator[ContextFactory]:
    """Factory of isolated browser contexts against ``live_server`` (phone viewport default).

    ``browser_context(viewport=DESKTOP, user=some_user, locale="es-ES", **playwright_kwargs)``
    """
    contexts: list[BrowserContext] = []
    page_errors: list[str] = []

    def make(
        *,
        viewport: dict[str, int] | None = None,
        user: Any = None,
        locale: str = "en-US",
        **kwargs: Any,
    ) -> BrowserContext:
        viewport = viewport or PHONE
        phone = viewport["width"] < 700
        options: dict[str, Any] = {
            "viewport": viewport,
            "base_url": live_server.url,
            "locale": locale,
            "is_mobile": phone,
            "has_touch": phone,
            "device_scale_factor": 2 if phone else 1,
        }
        options.update(kwargs)
        context = browser.new_context(**options)
        context.set_default_timeout(DEFAULT_TIMEOUT_MS)
        context.on(
            "page",
            lambda p: p.on("pageerror", lambda exc: page_errors.append(f"{p.url}: {exc}")),
        )
        if user is not None:
            context.add_cookies([session_cookie_for(user, live_server.url)])  # type: ignore[list-item]
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()
    if page_errors:
        pytest.fail("Uncaught JavaScript errors:\n" + "\n".join(page_errors))


@pytest.fixture
def page(browser_context: ContextFactory) -> Page:
    """A page in a fresh phone-sized (360 x 740) context against the live server."""
    return browser_context().new_page()


def tap_domino_hand(
    page: Page, payload: dict[str, Any], number: int, *, queued: bool = False
) -> None:
    """On the referee's phone, tap hand ``number`` in as a domino (poser, pose tile, winner of
    ``payload``) and *Record* it; ``queued``: then wait until the phone's queue holds it."""
    expect(page.locator("#match-panel")).to_have_attribute("data-number", str(number))
    page.locator(f"#hand-form input[name='poser'][value='{payload['poser']}'] + span").tap()
    page.select_option("#pose-tile", payload["pose_tile"])
    page.locator("#hand-form input[name='end'][value='domino'] + span").tap()
    page.locator(f"#hand-form input[name='winner'][value='{payload['winner']}'] + span").tap()
    page.locator("#confirm-hand").tap()
    if queued:
        entry = page.locator(f"#queue-list li[data-number='{number}'][data-kind='hand']")
        expect(entry).to_have_count(1)
