"""An API input's refusals as :class:`ApplicationError`s, beside the fields it accepted.

A view whose service checks more (a backward status, the dates in order, each ruleset key)
adds the service's refusals of the accepted fields to its input's, and answers ONE 400 naming
every refused field (:func:`core.exceptions.application_error_merged`), as the director's
forms do: a body with two bad fields names both, whichever layer refuses each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework.exceptions import ErrorDetail
from rest_framework.serializers import Serializer

from core.api.exception_handler import flatten_detail
from core.exceptions import ApplicationError


def input_split(serializer: Serializer[Any]) -> tuple[dict[str, Any], list[ApplicationError]]:
    """Validate ``serializer``: the values of the fields it accepted, and one refusal per
    refused field, worded as the API's error handler words them (``"<field>: <message>"``,
    code ``invalid``). A field that refused with a code of its own (not one of its
    ``error_messages``: the one slug rule's ``invalid_slug``) keeps that code."""
    if serializer.is_valid():
        return dict(serializer.validated_data), []
    errors = serializer.errors
    refusals = []
    for name, texts in flatten_detail(errors).items():
        code = _own_code(serializer, name)
        # A rule's own refusal names its field in its words already ("Short name in links: ").
        own = code != "invalid" or name == "non_field_errors"
        message = texts[0] if own else f"{name}: {texts[0]}"
        refusals.append(ApplicationError(message, code=code, fields={name: texts}))
    if not isinstance(serializer.initial_data, Mapping):  # a list or a string: nothing to accept
        return {}, refusals
    data = {name: value for name, value in serializer.initial_data.items() if name not in errors}
    # partial: a required field refused above is not refused again as missing.
    rest = type(serializer)(data=data, partial=True, context=serializer.context)
    accepted = dict(rest.validated_data) if rest.is_valid() else {}
    return accepted, refusals


def _own_code(serializer: Serializer[Any], name: str) -> str:
    field = serializer.fields.get(name)
    details = serializer.errors.get(name)
    if field is None or not isinstance(details, list) or not details:
        return "invalid"
    code = details[0].code if isinstance(details[0], ErrorDetail) else None
    return code if code and code not in field.error_messages else "invalid"
