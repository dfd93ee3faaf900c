"""Names people read on a page: one rule for forms, CSV imports, services and the API.

Two ways a typed name misleads a reader:

* **Nothing visible.** A name made only of zero-width spaces (U+200B) or other format
  characters (Unicode category ``Cf``) and spaces is stored, and every page then shows a blank
  name. Such a value counts as empty: "required" where a name is required, nothing where it
  is optional (:func:`name_clean`).
* **Text-direction controls.** A right-to-left override (U+202E) and the other embedding,
  override and isolate controls (U+202A-U+202E, U+2066-U+2069) reorder the text around the
  name on every page that shows it. They are refused (never silently stripped), with a
  message naming the field, so templates need not isolate user names.

Pure string functions; :func:`names_check` raises the one :class:`ApplicationError`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping

from django.utils.translation import gettext as _

from core.exceptions import ApplicationError

#: Embedding, override and isolate controls: LRE RLE PDF LRO RLO, LRI RLI FSI PDI.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")

#: Categories that draw nothing: format characters, controls, separators.
_INVISIBLE_CATEGORIES = frozenset({"Cf", "Cc", "Zs", "Zl", "Zp"})


def has_visible(value: str) -> bool:
    """Whether ``value`` holds one character a reader sees (not a space, not a format or
    control character).

    >>> has_visible("Ana"), has_visible("\\u200b\\u200b"), has_visible(" \\u2060 "), has_visible("")
    (True, False, False, False)
    """
    return any(
        not ch.isspace() and unicodedata.category(ch) not in _INVISIBLE_CATEGORIES for ch in value
    )


def name_clean(value: str) -> str:
    """``value`` without outer spaces, or ``""`` when nothing in it is visible."""
    return value.strip() if has_visible(value) else ""


def bidi_control(value: str) -> str | None:
    """The first text-direction control character in ``value``, or ``None``."""
    return next((ch for ch in value if ch in BIDI_CONTROLS), None)


def name_problem(value: str, *, required: bool = False) -> str | None:
    """Why ``value`` may not be a name (without the field's label), or ``None``:
    "Required." for a required name with nothing visible, or a text-direction control."""
    control = bidi_control(value)
    if control is not None:
        return _(
            "No text-direction control characters (U+%(code)04X): they reorder the text "
            "around the name."
        ) % {"code": ord(control)}
    if required and not has_visible(value):
        return _("Required.")
    return None


def names_check(
    values: Mapping[str, object],
    *,
    labels: Mapping[str, str],
    required: Iterable[str] = (),
) -> None:
    """Refuse, naming every field, the names in ``values`` (field -> typed text) that
    :func:`name_problem` refuses; ``labels``: field -> its label ("Name"). Values that are
    not strings (absent fields, ``None``) are left to the caller's other checks."""
    must = set(required)
    fields: dict[str, list[str]] = {}
    for key, value in values.items():
        if not isinstance(value, str):
            continue
        problem = name_problem(value, required=key in must)
        if problem is not None:
            fields[key] = [f"{labels.get(key, key)}: {problem}"]
    if fields:
        raise ApplicationError(
            " ".join(messages[0] for messages in fields.values()), code="invalid", fields=fields
        )


__all__ = [
    "BIDI_CONTROLS",
    "bidi_control",
    "has_visible",
    "name_clean",
    "name_problem",
    "names_check",
]
