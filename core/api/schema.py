"""The OpenAPI schema documents the errors every operation can answer, in the one error shape.

drf-spectacular documents what a view declares; the errors come from elsewhere (DRF's
authentication and permissions, the services' :class:`core.exceptions.ApplicationError`),
so left alone most operations would list only their success. :class:`AutoSchema` adds, to
every operation, each error it can answer that its ``@extend_schema`` does not already name
(an operation's own description of a status is more specific and wins):

* 400 everywhere: a write (its body, or the services' rules: a round not over yet, a token
  already revoked...), a read's filter, and for any request a NUL byte or lone surrogate in
  its path or query string (core.request_limits): the message names the field, and the rule
  where one applies;
* 401 wherever the view authenticates (DRF authenticates every request, so a bad token is
  refused even on a public read), and 429 where an authentication class is rate-limited
  (wrong referee tokens, per client address);
* 403 for a write (nobody writes anonymously; the services decide who may: directors their
  own tournaments, referees their own matches) and for a private read (:func:`private_read`);
* 404 when its path names an object (another tournament's object is a 404 too: no IDOR);
* 415 when it reads a body, sent in a content type it does not read.

Other statuses (409 conflicts...) are the operation's own to declare.

It also documents what the server sends besides bodies (issue 20): the ``WWW-Authenticate``
header of every 401 (the referee token's keyword, so a client learns the scheme). Request bodies are
JSON only (the API's one parser: ``REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]``), so each body
has one content type, required when its schema has a required field.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.plumbing import get_doc
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers

from core.api.serializers import ErrorOutput, error_output_with

F = TypeVar("F", bound=Callable[..., Any])

_PRIVATE_READ = "api_private_read"
RATE_LIMITED = "rate_limited"  # an authentication class with this attribute True answers 429

ERROR_DESCRIPTIONS = {
    400: (
        "Rejected: the message names the field, and the rule where one applies (also a NUL "
        "byte or lone surrogate in the path or query string)"
    ),
    401: "Not signed in, or an unknown or revoked token",
    403: "Signed in, but not allowed to do this",
    404: "No such object (in this tournament)",
    415: "The body is not in a content type the operation reads (send application/json)",
    429: "Too many wrong tokens from this address: wait and retry",
}


WWW_AUTHENTICATE = {
    "description": (
        "The authentication scheme to retry with: `Token` (a referee credential in "
        "`Authorization: Token <credential>`)."
    ),
    "schema": {"type": "string", "example": "Token"},
}


def private_read(handler: F) -> F:
    """Mark a GET handler whose data only some signed-in users may read (it answers 401 and
    403 like a write); the handler itself, or a decorator around it, enforces that."""
    setattr(handler, _PRIVATE_READ, True)
    return handler


def error_response(status: int, description: str | None = None) -> OpenApiResponse:
    """A documented error response: the error shape, with a description of this status."""
    return OpenApiResponse(ErrorOutput, description=description or ERROR_DESCRIPTIONS[status])


def conflict_response(
    description: str, name: str, **state: serializers.Field[Any, Any, Any, Any]
) -> OpenApiResponse:
    """A documented 409 whose ``error`` carries the current state a client recovers from."""
    return OpenApiResponse(error_output_with(name, **state), description=description)


class AutoSchema(SpectacularAutoSchema):
    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        operation: dict[str, Any] | None = super().get_operation(*args, **kwargs)
        if operation is None:
            return None
        responses = operation.setdefault("responses", {})
        for status in self._errors(operation):
            if str(status) not in responses:
                responses[str(status)] = self._get_response_for_code(  # type: ignore[no-untyped-call]
                    error_response(status), str(status)
                )
        operation["responses"] = dict(sorted(responses.items()))
        if "401" in responses and "$ref" not in responses["401"]:
            responses["401"].setdefault("headers", {})["WWW-Authenticate"] = WWW_AUTHENTICATE
        return operation

    def get_auth(self) -> list[dict[str, Any]]:
        """A public read (a GET not marked :func:`private_read`) says that its credentials are
        optional (``{}``, OpenAPI's "no authentication"): anonymous callers get the same 200.
        DRF's own permission classes get this from drf-spectacular; ours (the route table) do
        not, and schemathesis' ``ignored_auth`` check reads a required scheme as enforced."""
        auths: list[dict[str, Any]] = list(super().get_auth())
        handler = getattr(self.view, self.method.lower(), None)
        public_read = self.method in ("GET", "HEAD") and not getattr(handler, _PRIVATE_READ, False)
        if public_read and auths and {} not in auths:
            auths.append({})
        return auths

    def get_description(self) -> str:  # type: ignore[override]
        """The handler's docstring (or ``@extend_schema(description=...)``), else the view
        class's own docstring, never one inherited from a base class: those are notes for this
        project's developers (issue 20: one was published as an operation's description)."""
        handler = getattr(self.view, self.method.lower(), None)
        own_class_doc = self.view.__class__.__dict__.get("__doc__") or ""
        return (get_doc(handler) if handler is not None else "") or inspect.cleandoc(own_class_doc)

    def _errors(self, operation: dict[str, Any]) -> list[int]:
        parameters = operation.get("parameters", [])
        write = self.method not in ("GET", "HEAD", "OPTIONS")
        errors: list[int] = []
        # Every request: a NUL byte or lone surrogate in the path or query string is refused
        # before the view (core.request_limits); and a write's body, a filter, a rule...
        errors.append(400)
        authentication = getattr(self.view, "authentication_classes", [])
        if authentication:  # DRF authenticates every request: a bad token is a 401 even on a GET
            errors.append(401)
        handler = getattr(self.view, self.method.lower(), None)
        if write or getattr(handler, _PRIVATE_READ, False):
            errors.append(403)
        if any(getattr(a, RATE_LIMITED, False) for a in authentication):
            errors.append(429)
        if any(p["in"] == "path" for p in parameters):
            errors.append(404)
        if "requestBody" in operation:
            errors.append(415)
        return errors
