"""The OpenAPI schema documents the errors every operation can answer, in the one error shape.

drf-spectacular documents what a view declares; the errors come from elsewhere (DRF's
authentication and permissions, the services' :class:`core.exceptions.ApplicationError`),
so left alone most operations would list only their success. :class:`AutoSchema` adds, to
every operation, each error it can answer that its ``@extend_schema`` does not already name
(an operation's own description of a status is more specific and wins):

* 400 for every operation: a write's body or the services' rules (a round not over yet, a
  token already revoked...), a read's filters, and on any request a path or query string
  carrying a NUL byte or a lone surrogate (core.request_limits): the message names the field
  or parameter, and the rule where one applies;
* 401 wherever the view authenticates (DRF authenticates every request, so a bad token is
  refused even on a public read), and 429 where an authentication class is rate-limited
  (wrong referee tokens, per client address);
* 403 for a write (nobody writes anonymously; the services decide who may: directors their
  own tournaments, referees their own matches) and for a private read (:func:`private_read`);
* 404 when its path names an object (another tournament's object is a 404 too: no IDOR);
* 415 when it reads a body, sent in a content type it does not read.

Other statuses (409 conflicts...) are the operation's own to declare.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import OpenApiResponse

from core.api.serializers import ErrorOutput

F = TypeVar("F", bound=Callable[..., Any])

_PRIVATE_READ = "api_private_read"
RATE_LIMITED = "rate_limited"  # an authentication class with this attribute True answers 429

ERROR_DESCRIPTIONS = {
    400: "Rejected: the message names the field, and the rule where one applies",
    401: "Not signed in, or an unknown or revoked token",
    403: "Signed in, but not allowed to do this",
    404: "No such object (in this tournament)",
    415: "The body is not in a content type the operation reads (send application/json)",
    429: "Too many wrong tokens from this address: wait and retry",
}


def private_read(handler: F) -> F:
    """Mark a GET handler whose data only some signed-in users may read (it answers 401 and
    403 like a write); the handler itself, or a decorator around it, enforces that."""
    setattr(handler, _PRIVATE_READ, True)
    return handler


def error_response(status: int, description: str | None = None) -> OpenApiResponse:
    """A documented error response: the error shape, with a description of this status."""
    return OpenApiResponse(ErrorOutput, description=description or ERROR_DESCRIPTIONS[status])


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
        return operation

    def _errors(self, operation: dict[str, Any]) -> list[int]:
        parameters = operation.get("parameters", [])
        write = self.method not in ("GET", "HEAD", "OPTIONS")
        errors: list[int] = []
        errors.append(400)  # any request: core.request_limits refuses NUL/surrogates with 400
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
