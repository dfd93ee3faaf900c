"""The one application error every service raises for an expected failure.

The API exception handler turns it into ``{"error": {"code", "message", "rule", "fields"}}``
with its status (400 unless said otherwise); pages show ``message``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

#: A rule of RULES.md (R31, T3, §9): what a reader can look up. Other ``rule`` values
#: ("lifecycle", "confirmation") label the API's error for programs, not for a reader.
RULE_NUMBER = re.compile(r"^(R\d+|T\d+|§\d+)")


def readable_rule(rule: str | None) -> str | None:
    """``rule`` when a page may name it to a reader (a RULES.md number), else ``None``: a
    page says "[rule T7]", never "[rule lifecycle]"."""
    return rule if rule and RULE_NUMBER.match(rule) else None


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


def application_error_merged(refusals: Sequence[ApplicationError]) -> ApplicationError:
    """ONE refusal naming every refused field of a submission, so that a director or an API
    client fixes them in one go (the director's forms show every mistake at once). A single
    refusal is itself (its code, rule and status); several answer ``invalid`` (400) with every
    message and every field, and the rule when they all name the same one."""
    if not refusals:
        raise ValueError("no refusal to merge")
    if len(refusals) == 1:
        return refusals[0]
    fields: dict[str, list[str]] = {}
    for refusal in refusals:
        for field, texts in refusal.fields.items():
            shown = fields.setdefault(field, [])
            shown.extend(text for text in texts if text not in shown)
    rules = {refusal.rule for refusal in refusals}
    return ApplicationError(
        " ".join(refusal.message for refusal in refusals),
        code="invalid",
        rule=rules.pop() if len(rules) == 1 else None,
        fields=fields,
        status=400,
    )
