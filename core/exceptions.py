"""The one application error every service raises for an expected failure.

The API exception handler turns it into ``{"error": {"code", "message", "rule", "fields"}}``
with its status (400 unless said otherwise); pages show ``message``.
"""

from __future__ import annotations

from typing import Any


class ApplicationError(Exception):
    """An expected domain error: bad input, a rule violation, a conflict."""

    status_code = 400

    def __init__(
        self,
        message: str,
        *,
        code: str = "invalid",
        rule: str | None = None,
        fields: dict[str, list[str]] | None = None,
        status: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.rule = rule
        self.fields = fields or {}
        self.extra = extra or {}
        if status is not None:
            self.status_code = status

    def as_body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message, "fields": self.fields}
        if self.rule:
            body["rule"] = self.rule
        body.update(self.extra)
        return {"error": body}


class ConflictError(ApplicationError):
    """The request was valid but raced another one (a stale hand number): 409."""

    status_code = 409


class PermissionDeniedError(ApplicationError):
    status_code = 403


class NotFoundError(ApplicationError):
    status_code = 404
