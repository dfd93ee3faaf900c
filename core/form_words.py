"""Form refusals that name their field: Django's own ("Ensure this value has at most 500
characters (it has 5000).", "Null characters are not allowed.") named neither the field nor,
on a page of several forms, which input was meant. Pass these as a field's
``error_messages`` (and :func:`no_control_characters` as a validator)."""

from __future__ import annotations

import unicodedata
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy

#: Line breaks and tabs are text a textarea may hold; every other control character is not.
_TEXT_CONTROLS = frozenset("\n\r\t")

REASON_NO_CONTROLS = gettext_lazy("Reason: no control characters (such as NUL).")

#: A reason's refusals: its limit and its characters.
REASON_ERRORS = {
    "max_length": gettext_lazy(
        "Reason: at most %(limit_value)d characters (this one has %(show_value)d)."
    ),
    "null_characters_not_allowed": REASON_NO_CONTROLS,
}

#: A label's refusals (an invitation's, a credential's).
LABEL_ERRORS = {
    "max_length": gettext_lazy(
        "Label: at most %(limit_value)d characters (this one has %(show_value)d)."
    ),
}


def no_control_characters(value: str) -> None:
    """Refuse a reason holding a control character other than a line break or a tab."""
    if any(ch not in _TEXT_CONTROLS and unicodedata.category(ch) == "Cc" for ch in value):
        raise forms.ValidationError(REASON_NO_CONTROLS, code="control_characters")


def reason_field(
    *, required: bool = True, label: Any = None, max_length: int = 500
) -> forms.CharField:
    """A director's reason (logged with the action): at most ``max_length`` characters, no
    control character, each refusal naming the field."""
    return forms.CharField(
        max_length=max_length,
        required=required,
        label=gettext_lazy("Reason") if label is None else label,
        error_messages=REASON_ERRORS,
        validators=[no_control_characters],
    )


__all__ = [
    "LABEL_ERRORS",
    "REASON_ERRORS",
    "REASON_NO_CONTROLS",
    "no_control_characters",
    "reason_field",
]
