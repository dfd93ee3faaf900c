"""The models' choice labels, marked for translation without changing the models.

Choice labels are plain strings in the models (a lazy label would be a migration in every app);
pages translate them where they show them, with ``{% translate obj.get_status_display %}``, and
presenters with :func:`choice_label`.
This module only puts them in the message catalog (``makemessages`` finds them here); keep it
in step with the models' choices (tests/core/test_choice_labels.py checks it).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Choices
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy, gettext_noop, pgettext


def choice_label(choices: type[Choices], value: str) -> str:
    """The label of ``value`` among ``choices`` in the active language; "" for "" and the
    value itself when it is not a choice (never the catalogue's header, ``gettext("")``).

    The model's name is the translation's context where the catalogue has one: Spanish
    agrees the label with the noun ("Finished" is *Terminada* for a match or a stage, *la
    partida*, *la fase*, and *Terminado* for a tournament); elsewhere the plain label."""
    if not value:
        return ""
    label = dict(choices.choices).get(value)
    if label is None:
        return value
    text = str(label)
    context = choices.__qualname__.split(".", 1)[0].lower()
    agreed = pgettext(context, text)
    return agreed if agreed != text else gettext(text)


def status_label(obj: Any) -> str:
    """``obj.status`` as :func:`choice_label` words it (``{{ match|status_label }}``)."""
    choices = getattr(type(obj), "Status", None)
    if choices is None:
        return str(getattr(obj, "status", ""))
    return choice_label(choices, obj.status)


def form_choices(choices: type[Choices]) -> list[tuple[str, Promise]]:
    """``choices`` for a form's select, each label translated when the form is shown."""
    return [(str(value), gettext_lazy(str(label))) for value, label in choices.choices]


def choice_phrase(choices: type[Choices], value: str) -> str:
    """:func:`choice_label` for the middle of a sentence: the first letter lower-cased, rule
    references such as "(T7)" as they are."""
    label = choice_label(choices, value)
    return label[:1].lower() + label[1:]


CHOICE_LABELS = (
    gettext_noop("A bye counts as a match win"),
    gettext_noop("A bye counts for nothing"),
    gettext_noop("Active"),
    gettext_noop("Advanced to the next stage"),
    gettext_noop("At match end: every player confirms the result"),
    gettext_noop("Balanced (T8)"),
    gettext_noop("Block (R19)"),
    gettext_noop("By rating"),
    gettext_noop("Cancelled"),
    gettext_noop("Closed (all results in)"),
    gettext_noop("Corrected: the player's version replaces it"),
    gettext_noop("Delivered"),
    gettext_noop("Director"),
    gettext_noop("Director override"),
    gettext_noop("Disqualified"),
    gettext_noop("Domino (R18)"),
    gettext_noop("Draft"),
    gettext_noop("Eliminated"),
    gettext_noop("Every hand: every player confirms each hand"),
    gettext_noop("Failed"),
    gettext_noop("Final table"),
    gettext_noop("Finished"),
    gettext_noop("Forfeit (T7)"),
    gettext_noop("Hand recorded"),
    gettext_noop("In progress"),
    gettext_noop("Individual players"),
    gettext_noop("Knockout round"),
    gettext_noop("Manual order"),
    gettext_noop("Match finished"),
    gettext_noop("Normal"),
    gettext_noop("Off: the referee's record is final"),
    gettext_noop("Open: the match is frozen"),
    gettext_noop("Partnerships (T9)"),
    gettext_noop("Pending"),
    gettext_noop("Pending (no entrants yet)"),
    gettext_noop("Play-off table (T6)"),
    gettext_noop("Published (in play)"),
    gettext_noop("Qualifying (Swiss-style)"),
    gettext_noop("Qualifying round"),
    gettext_noop("Random"),
    gettext_noop("Random (recorded seed)"),
    gettext_noop("Referee"),
    gettext_noop("Registration"),
    gettext_noop("Round published"),
    gettext_noop("Running"),
    gettext_noop("Scheduled"),
    gettext_noop("Seeded"),
    gettext_noop("Standings of the previous stage"),
    gettext_noop("Table knockout to a final table"),
    gettext_noop("Test event (ping)"),
    gettext_noop("Time (T3)"),
    gettext_noop("Upheld: the recorded version stands"),
    gettext_noop("Void"),
    gettext_noop("Withdrawn"),
    gettext_noop("Withdrawn or disqualified (T7)"),
)

# Messages other modules pass to a page as values (the page translates them on show).
PAGE_MESSAGES = (
    gettext_noop(
        "This referee link is not valid. It may have been revoked or mistyped: "
        "ask the tournament director for a new one."
    ),
    gettext_noop("Too many wrong referee tokens from this address; try again later."),
)
