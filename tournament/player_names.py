"""A player's name as every page shows it: the nickname, when there is one, after the name in
quotes (Jorge Vega “El Tigre”), never in parentheses, which pages keep for rule numbers and
notes ("(T8)", "(forfeited)").

One form everywhere a nickname is shown: the live tables and the projector (the live JSON's
``name``), the player directory and profile, the players and seeding lists, the results
sheet. Standings and brackets show the name alone: their rows are narrow on a phone.
"""

from __future__ import annotations

from django.utils.html import format_html
from django.utils.safestring import SafeString


def player_display_name(name: str, nickname: str = "") -> str:
    """``Jorge Vega “El Tigre”``; the name alone without a nickname (plain text)."""
    return f"{name} \u201c{nickname}\u201d" if nickname else name


def player_display_html(name: str, nickname: str = "") -> SafeString:
    """:func:`player_display_name` for a page: the nickname muted, both escaped."""
    if not nickname:
        return format_html("{}", name)
    return format_html('{} <span class="nickname muted">\u201c{}\u201d</span>', name, nickname)
