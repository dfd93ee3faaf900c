"""Request input limits, in one place: no input makes a 500 (issue 12, "no 500 on any input").

* :class:`RequestLimitsMiddleware` (first after SecurityMiddleware) answers before any view
  or parser runs:

  - **413** when ``Content-Length`` is above ``REQUEST_BODY_MAX_BYTES`` (nothing is read);
  - **400** when the path, a query-string name or value, or a cookie holds a NUL byte or a
    lone UTF-16 surrogate (PostgreSQL cannot store or compare either: they used to reach a
    query and 500; the session cookie is looked up), naming the parameter in ``fields``.

  Under ``/api/`` the answer is the API error shape ``{"error": {"code", "message",
  "fields"}}``; pages get a short plain-text answer.

* :class:`SafeJSONParser`, DRF's default JSON parser, reads at most ``REQUEST_BODY_MAX_BYTES``
  (413 above, also when no ``Content-Length`` was sent), refuses nesting deeper than
  ``API_JSON_MAX_DEPTH`` (400, not ``RecursionError``) and NUL bytes or lone surrogates in any
  key or string (400 naming the field path, e.g. ``ruleset_overrides.<key>``), and integers of
  more than ``JSON_INT_MAX_DIGITS`` digits (400 naming the field: Python's own refusal of a
  5,000-digit integer told clients about ``sys.set_int_max_str_digits()``).

HTML forms need nothing more: Django's form ``CharField`` refuses NUL already, and a
urlencoded or multipart body cannot carry a lone surrogate (it is decoded with replacement).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils import translation
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError, ValidationError
from rest_framework.parsers import JSONParser

# A NUL byte or a UTF-16 surrogate code point (only a lone one can be in a Python str).
BAD_CHARACTERS = re.compile("[\x00\ud800-\udfff]")
BAD_CHARACTER_MESSAGE = "Contains a NUL byte or an invalid (lone surrogate) character."


#: The largest CSV file an import reads (players, partnerships; ``brackets.csv_import``), kept
#: below the body limit so a too-big file gets the import page's own message.
CSV_MAX_BYTES = 2 * 1024 * 1024


def has_bad_characters(value: str) -> bool:
    return BAD_CHARACTERS.search(value) is not None


def printable(name: str) -> str:
    """``name`` fit to echo back in an error: bad characters escaped, at most 64 characters."""
    cleaned = BAD_CHARACTERS.sub(lambda m: f"\\u{ord(m.group()):04x}", name)
    return cleaned[:64]


def max_body_bytes() -> int:
    return int(settings.REQUEST_BODY_MAX_BYTES)


class RequestEntityTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"
    default_detail = "The request body is too large."


def _too_large_message() -> str:
    return f"The request body is larger than {max_body_bytes()} bytes."


def _error(
    request: HttpRequest, status_code: int, code: str, message: str, fields: Any
) -> HttpResponse:
    if request.path_info.startswith("/api/"):
        body = {"error": {"code": code, "message": message, "fields": fields}}
        return JsonResponse(body, status=status_code)
    if status_code == 413:
        return _too_large_page(request)
    return HttpResponse(message, status=status_code, content_type="text/plain; charset=utf-8")


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f}".rstrip("0").rstrip(".") + " MB"


def _too_large_page(request: HttpRequest) -> HttpResponse:
    """A page's 413 (a director's too-big upload): a page in the visitor's language saying the
    limit and what to do, not a line of plain text. Rendered before the session, locale and
    auth middleware run: the language comes from the cookie or the browser, and the template
    needs no request context."""
    language = translation.get_language_from_request(request)
    with translation.override(language):
        html = render_to_string(
            "413.html",
            {
                "limit": _megabytes(max_body_bytes()),
                "csv_limit": _megabytes(CSV_MAX_BYTES),
                "LANGUAGE_CODE": translation.get_language(),
            },
        )
    return HttpResponse(html, status=413)


class RequestLimitsMiddleware:
    """Refuse oversized bodies (413) and NUL/surrogates in the path, query or cookies (400),
    early."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        refused = self.refusal(request)
        return refused if refused is not None else self.get_response(request)

    def refusal(self, request: HttpRequest) -> HttpResponse | None:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return _error(request, 400, "invalid", "Content-Length is not a number.", {})
        if length > max_body_bytes():
            return _error(request, 413, "too_large", _too_large_message(), {})
        if has_bad_characters(request.path):
            return _bad_characters(request, "path")
        for name, values in request.GET.lists():
            if has_bad_characters(name) or any(has_bad_characters(v) for v in values):
                return _bad_characters(request, printable(name) or "query")
        # The session cookie is looked up in the database (a NUL was a DataError on
        # PostgreSQL); no browser sends one in any cookie.
        for name, value in request.COOKIES.items():
            if has_bad_characters(name) or has_bad_characters(value):
                return _bad_characters(request, f"cookie {printable(name)}")
        return None


def _bad_characters(request: HttpRequest, field: str) -> HttpResponse:
    """400 naming ``field``: a NUL or a lone surrogate in the path, the query or a cookie."""
    return _error(
        request,
        400,
        "invalid",
        f"{field}: {BAD_CHARACTER_MESSAGE}",
        {field: [BAD_CHARACTER_MESSAGE]},
    )


def json_problem(data: Any, max_depth: int) -> tuple[str, str] | None:
    """The first problem in parsed JSON ``data`` as ``(field path, message)``, or ``None``.

    Iterative (a document nested to the interpreter's limit must not recurse again here).
    """
    stack: list[tuple[Any, str, int]] = [(data, "", 1)]
    while stack:
        value, where, depth = stack.pop()
        if isinstance(value, (dict, list)) and depth > max_depth:
            return where or "non_field_errors", f"Nested deeper than {max_depth} levels."
        if isinstance(value, dict):
            for key, item in value.items():
                path = f"{where}.{printable(key)}" if where else printable(key)
                if has_bad_characters(key):
                    return (
                        path,
                        f"The key {BAD_CHARACTER_MESSAGE[0].lower()}{BAD_CHARACTER_MESSAGE[1:]}",
                    )
                stack.append((item, path, depth + 1))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                stack.append((item, f"{where}[{index}]" if where else f"[{index}]", depth + 1))
        elif isinstance(value, str) and has_bad_characters(value):
            return where or "non_field_errors", BAD_CHARACTER_MESSAGE
        elif isinstance(value, _TooManyDigits):
            return where or "non_field_errors", TOO_MANY_DIGITS_MESSAGE
    return None


#: Digits a JSON integer may have. Far past any column (a bigint has 19), far below Python's
#: own limit (4300), whose error named ``sys.set_int_max_str_digits()`` to API clients.
JSON_INT_MAX_DIGITS = 100
TOO_MANY_DIGITS_MESSAGE = f"A number has too many digits (at most {JSON_INT_MAX_DIGITS})."


class _TooManyDigits:
    """A JSON integer longer than :data:`JSON_INT_MAX_DIGITS`, left unconverted so that
    :func:`json_problem` names the field it was sent in."""

    __slots__ = ()


def _bounded_int(text: str) -> int | _TooManyDigits:
    if len(text.lstrip("-")) > JSON_INT_MAX_DIGITS:
        return _TooManyDigits()
    return int(text)


class SafeJSONParser(JSONParser):
    """DRF's JSON parser, bounded: body size, nesting depth, NUL and lone surrogates."""

    def parse(
        self,
        stream: Any,
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        limit = max_body_bytes()
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise RequestEntityTooLarge(_too_large_message())
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = raw.decode(encoding)
            data = json.loads(text, parse_constant=_no_constant, parse_int=_bounded_int)
        except RecursionError:
            raise ParseError(
                f"JSON parse error - nested deeper than {settings.API_JSON_MAX_DEPTH} levels."
            ) from None
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
        problem = json_problem(data, int(settings.API_JSON_MAX_DEPTH))
        if problem is not None:
            field, message = problem
            raise ValidationError({field: [message]})
        return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")
