"""A player's fields and their one rule, whatever path writes them.

The Players page's *Add a player* and *Edit*, the CSV imports, the Partnerships page's typed
players and substitutes, and the JSON API all end in ``player_create`` / ``player_update``
(``tournament.services.people``), which check every value here; the CSV check
(``brackets.csv_import``) reads the same limits and words, so a row, a form and an API call
are refused alike: a name with something visible in it (``core.visible_text``), an ISO 3166-1
alpha-2 country code, a typed rating from 0 to :data:`RATING_MAX` (it seeds every event the
player entered and is where their ratings start, T8).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import CharField
from django.utils.translation import gettext as _

from core.exceptions import ApplicationError
from core.visible_text import name_clean, name_problem
from tournament.models import Player


def _column_limit(name: str) -> int:
    column = Player._meta.get_field(name)
    assert isinstance(column, CharField), name
    assert column.max_length is not None, name
    return int(column.max_length)


# The limits of the player's text columns, read from tournament.Player itself (the one place
# they are written down): the CSV check, the add-a-player form and the pairs forms use these.
MAX_LENGTHS = {name: _column_limit(name) for name in ("name", "nickname", "club")}
RATING_MAX = 9999

# ISO 3166-1 alpha-2, officially assigned codes (249).
COUNTRY_CODES = frozenset(
    """
    AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ
    BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM
    DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS
    GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN
    KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ
    MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM
    PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV
    SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI
    VN VU WF WS YE YT ZA ZM ZW
    """.split()  # noqa: SIM905 - a readable block of codes
)


def field_labels() -> dict[str, str]:
    """Each field's label, as the Players page shows it (translated)."""
    return {
        "name": _("Name"),
        "nickname": _("Nickname"),
        "country": _("Country"),
        "club": _("Club"),
        "rating": _("Rating"),
    }


def country_problem(value: str) -> str | None:
    """Why ``value`` (as typed, any case) is not a country, or ``None`` (blank is allowed)."""
    typed = value.strip()
    if typed and typed.upper() not in COUNTRY_CODES:
        return _(
            "%(value)s is not an ISO 3166-1 alpha-2 country code (two letters, e.g. PR, DO, US)."
        ) % {"value": repr(typed)}
    return None


def rating_problem(value: int, *, typed: str | None = None) -> str | None:
    """Why the whole number ``value`` is not a typed rating (0 to :data:`RATING_MAX`), or
    ``None``; ``typed``: the text it was read from, shown in the message."""
    shown = typed if typed is not None else str(value)
    if value > RATING_MAX:
        return _("At most %(max)s (%(value)s).") % {"max": RATING_MAX, "value": shown}
    if value < 0:
        return _("%(value)s is not a whole number from 0 to %(max)s.") % {
            "value": repr(shown),
            "max": RATING_MAX,
        }
    return None


def player_field_problems(data: Mapping[str, Any]) -> dict[str, str]:
    """Field -> why its value is refused (without the label), for the fields present in
    ``data``; the name is required when present. Text values are checked as they will be
    stored (see :func:`player_fields_clean`)."""
    problems: dict[str, str] = {}
    for key in ("name", "nickname", "club"):
        value = data.get(key)
        if not isinstance(value, str):
            continue
        problem = name_problem(value, required=key == "name")
        if problem is None and len(value.strip()) > MAX_LENGTHS[key]:
            problem = _("At most %(max)s characters (%(length)s).") % {
                "max": MAX_LENGTHS[key],
                "length": len(value.strip()),
            }
        if problem is not None:
            problems[key] = problem
    country = data.get("country")
    if isinstance(country, str):
        problem = country_problem(country)
        if problem is not None:
            problems["country"] = problem
    rating = data.get("rating")
    if isinstance(rating, int) and not isinstance(rating, bool):
        problem = rating_problem(rating)
        if problem is not None:
            problems["rating"] = problem
    return problems


def player_fields_clean(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` checked and as it is stored: text without outer spaces (a name with nothing
    visible is refused, a nickname or club with nothing visible is empty), the country in
    capitals. Raises one :class:`ApplicationError` naming every refused field in the words
    the Players page uses ("Country: 'ZZ' is not an ISO 3166-1 alpha-2 country code ...")."""
    problems = player_field_problems(data)
    if problems:
        labels = field_labels()
        fields = {key: [f"{labels[key]}: {reason}"] for key, reason in problems.items()}
        raise ApplicationError(
            " ".join(messages[0] for messages in fields.values()), code="invalid", fields=fields
        )
    cleaned = dict(data)
    for key in ("name", "nickname", "club"):
        if isinstance(cleaned.get(key), str):
            cleaned[key] = name_clean(cleaned[key])
    if isinstance(cleaned.get("country"), str):
        cleaned["country"] = cleaned["country"].strip().upper()
    return cleaned


__all__ = [
    "COUNTRY_CODES",
    "MAX_LENGTHS",
    "RATING_MAX",
    "country_problem",
    "field_labels",
    "player_field_problems",
    "player_fields_clean",
    "rating_problem",
]
