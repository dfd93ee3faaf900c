"""No secret in Django's logs (issue 12, item 6): referee link keys, Authorization values and
session cookies are redacted by the filter on the log handler, and error reports hide the
Authorization header."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest
from django.test import Client, RequestFactory

from core.log_hygiene import RedactSecretsFilter, SafeExceptionReporterFilter, redact

KEY = "Zq3xWm9KpL2vRt7YbN4cHs8eJd"


@pytest.fixture
def console() -> Iterator[io.StringIO]:
    """What the project's console handler (settings.LOGGING) writes."""
    handlers = [
        h
        for h in logging.getLogger().handlers
        if any(isinstance(f, RedactSecretsFilter) for f in h.filters)
    ]
    assert handlers, "no log handler carries the redaction filter"
    handler = handlers[0]
    assert isinstance(handler, logging.StreamHandler)
    stream = io.StringIO()
    old = handler.setStream(stream)
    try:
        yield stream
    finally:
        handler.setStream(old)


@pytest.mark.django_db
def test_a_referee_link_key_never_reaches_the_log(console: io.StringIO) -> None:
    response = Client().get(f"/ref/{KEY}/")
    assert response.status_code == 404
    logged = console.getvalue()
    assert "/ref/[redacted]/" in logged
    assert KEY not in logged


def test_authorization_values_and_cookies_are_redacted(console: io.StringIO) -> None:
    log = logging.getLogger("tests.hygiene")
    log.warning("header Authorization: Token %s", KEY)
    log.warning("%r", {"HTTP_AUTHORIZATION": f"Bearer {KEY}", "HTTP_COOKIE": f"sessionid={KEY}"})
    try:
        raise ValueError(f"/ref/{KEY}/ failed")
    except ValueError:
        log.exception("boom")
    logged = console.getvalue()
    assert KEY not in logged
    assert logged.count("[redacted]") >= 4


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"GET /ref/{KEY}/ 404", "GET /ref/[redacted]/ 404"),
        (f"https://x.example/ref/{KEY}/?go=1", "https://x.example/ref/[redacted]/?go=1"),
        # a co-director invitation's key typed into a path instead of after its "#"
        (f"Not Found: /invite/{KEY}", "Not Found: /invite/[redacted]"),
        ("GET /invite/ 200", "GET /invite/ 200"),
        (f"Authorization: Bearer {KEY}", "Authorization: [redacted]"),
        (f"token {KEY}", "token [redacted]"),
        (f"csrftoken={KEY}; sessionid={KEY}", "csrftoken=[redacted]; sessionid=[redacted]"),
        ("GET /live/spring-open/ 200", "GET /live/spring-open/ 200"),
    ],
)
def test_redact(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_error_reports_hide_the_authorization_header() -> None:
    request = RequestFactory().get(f"/ref/{KEY}/", HTTP_AUTHORIZATION=f"Token {KEY}")
    meta = SafeExceptionReporterFilter().get_safe_request_meta(request)
    assert KEY not in str(meta)
