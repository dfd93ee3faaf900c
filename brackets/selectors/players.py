"""Who a name typed by a director may already be: known players of the same name.

Players are shared between events (one person, one :class:`~tournament.models.Player`). A
name typed on the Players or Partnerships page that matches a known player only in another
spelling (accents, case) or with no club beside theirs would otherwise become a second person
silently; :func:`players_same_name` lists those players so the page can ask the director.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Prefetch

from ratings.selectors import accent_insensitive_pattern
from tournament.models import Entry, Player
from tournament.selectors import UserLike, player_visible, tournament_visible

#: How many of a player's events the warning names (newest first); the rest are counted.
EVENTS_SHOWN = 5

_SPACES = re.compile(r"\s+")


def name_fold(text: str) -> str:
    """A name or club as people compare them: no accents, no case, single spaces.

    >>> name_fold("  José   PÉREZ ")
    'jose perez'
    """
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _SPACES.sub(" ", bare).strip().casefold()


def clubs_tell_apart(club: str, other: str) -> bool:
    """Two players of one name are told apart by their clubs only when both have one and the
    clubs differ (accents and case aside): a missing club distinguishes nobody.

    >>> clubs_tell_apart("Bayamón", "bayamon"), clubs_tell_apart("", "Ponce")
    (False, False)
    >>> clubs_tell_apart("Bayamón", "Ponce")
    True
    """
    a, b = name_fold(club), name_fold(other)
    return bool(a and b and a != b)


def _name_pattern(name: str) -> str:
    """The whole name, accent- and case-insensitive, any spacing between its words."""
    words = name.split()
    return r"^\s*" + r"\s+".join(accent_insensitive_pattern(w) for w in words) + r"\s*$"


@dataclass(frozen=True, slots=True)
class SameNamePlayer:
    """A known player a typed name may be: what the director needs to tell them apart."""

    id: int
    name: str
    nickname: str
    club: str
    country: str
    events: tuple[str, ...]  # the tournaments they entered, newest first (EVENTS_SHOWN)
    more_events: int  # how many more
    entered_here: bool


def players_same_name(
    *, name: str, club: str, tournament_id: int, user: UserLike | None, exclude: Iterable[int] = ()
) -> list[SameNamePlayer]:
    """Known players named ``name`` (accents, case and spacing aside) whom no club tells
    apart from a player of club ``club`` (:func:`clubs_tell_apart`), by name then id.
    ``entered_here``: already entered in ``tournament_id``.

    Only players ``user`` may see (``tournament.selectors.player_visible``), and of their
    events only those ``user`` may see (``tournament_visible``), named and counted: a player
    entered only in another director's draft is not mentioned at all, and a draft's name
    never shows (docs/security.md). Their namesake typed here is simply a new player."""
    if not name.strip():
        return []
    folded = name_fold(name)
    entries = (
        Entry.objects.filter(tournament_visible(user=user, prefix="tournament__"))
        .select_related("tournament")
        .order_by("-tournament__created_at", "-id")
    )
    players = (
        Player.objects.filter(player_visible(user=user), name__iregex=_name_pattern(name))
        .exclude(pk__in=list(exclude))
        .prefetch_related(Prefetch("entries", queryset=entries))
        .order_by("name", "id")
    )
    found = []
    for player in players:
        # The pattern narrows in the database; the fold decides, as it does for the clubs.
        if name_fold(player.name) != folded or clubs_tell_apart(club, player.club):
            continue
        events = [e.tournament.name for e in player.entries.all()]
        found.append(
            SameNamePlayer(
                id=player.pk,
                name=player.name,
                nickname=player.nickname,
                club=player.club,
                country=player.country,
                events=tuple(events[:EVENTS_SHOWN]),
                more_events=max(len(events) - EVENTS_SHOWN, 0),
                entered_here=any(e.tournament_id == tournament_id for e in player.entries.all()),
            )
        )
    return found
