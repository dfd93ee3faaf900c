"""Duplicate players and their merge (issue 16 item 1: one player across events).

Duplicates: players whose names are equal once case, accents, punctuation and spacing are
folded, and who share a club and a country (a blank club or country matches anything). Staff
see them listed (``/players/duplicates/``); nothing is merged automatically. Below them the
page lists the other namesakes (same name, another club or country: :func:`namesake_groups`),
the players an import's or a form's namesake warning sends a director to check.

A merge keeps one player and moves the other's entries to it, then deletes the other:
* refused if both played the same tournament (two entries of one person in one event is a
  director's matter, not a merge);
* approved by staff allowed to change and delete players (``tournament.change_player`` and
  ``tournament.delete_player``, as in the admin; superusers), not the staff flag alone, or by
  a user who directs every affected tournament (every tournament either player entered);
* the rating history is recomputed from the earliest rated match of the merged player
  (``ratings_rebuild``), so it is as if that player had always been the kept one;
* every affected tournament gets an ActionLog record and a version bump (its live pages show
  the name).
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils.translation import gettext as _

from core.exceptions import ApplicationError, PermissionDeniedError
from ratings.models import RatingChange
from ratings.services import ratings_rebuild
from tournament.models import Entry, Player, Tournament, TournamentRole
from tournament.principal import holds_permission
from tournament.services import action_log_record

#: What staff need to merge players: the admin's permissions to change and to delete them.
MERGE_PERMISSIONS = ("tournament.change_player", "tournament.delete_player")

_NOT_WORD = re.compile(r"[^a-z0-9]+")


def name_key(name: str) -> str:
    """The name folded: accents removed, lower case, punctuation and spaces collapsed."""
    decomposed = unicodedata.normalize("NFKD", name.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _NOT_WORD.sub(" ", plain).strip()


def _fold(value: str) -> str:
    return name_key(value)


@dataclass(frozen=True, slots=True)
class DuplicateGroup:
    key: str
    players: list[Player]


def _same_person(a: Player, b: Player) -> bool:
    clubs = _fold(a.club), _fold(b.club)
    countries = a.country.upper(), b.country.upper()
    club_ok = not all(clubs) or clubs[0] == clubs[1]
    country_ok = not all(countries) or countries[0] == countries[1]
    return club_ok and country_ok


def duplicate_groups() -> list[DuplicateGroup]:
    """Groups of two or more players who look like one person (see module docstring)."""
    by_name: dict[str, list[Player]] = defaultdict(list)
    for player in Player.objects.order_by("id"):
        by_name[name_key(player.name)].append(player)
    groups: list[DuplicateGroup] = []
    for key, players in sorted(by_name.items()):
        if len(players) < 2 or not key:
            continue
        # Each player joins the first group whose first member matches them.
        clusters: list[list[Player]] = []
        for p in players:
            for cluster in clusters:
                if _same_person(cluster[0], p):
                    cluster.append(p)
                    break
            else:
                clusters.append([p])
        groups.extend(DuplicateGroup(key, c) for c in clusters if len(c) > 1)
    return groups


def namesake_groups() -> list[DuplicateGroup]:
    """Players of one folded name who are not all one likely person (another club or
    country): listed apart on the duplicates page for staff to check before merging. An
    import or the Players page warns of exactly these new players
    (``brackets.services.imports.ImportResult.namesakes``), so the page must show them."""
    by_name: dict[str, list[Player]] = defaultdict(list)
    for player in Player.objects.order_by("id"):
        by_name[name_key(player.name)].append(player)
    return [
        DuplicateGroup(key, players)
        for key, players in sorted(by_name.items())
        if key and len(players) > 1 and not all(_same_person(players[0], p) for p in players[1:])
    ]


def _affected(keep: Player, other: Player) -> list[int]:
    return sorted(
        set(Entry.objects.filter(player__in=[keep, other]).values_list("tournament_id", flat=True))
    )


def merge_allowed(*, actor: Any, keep: Player, other: Player) -> bool:
    """Staff allowed to change and delete players (superusers), or a director of every
    tournament either player entered. The staff flag alone is not enough (docs/security.md)."""
    if not getattr(actor, "is_authenticated", False):
        return False
    if all(holds_permission(actor, p) for p in MERGE_PERMISSIONS):
        return True
    affected = _affected(keep, other)
    directed = set(
        TournamentRole.objects.filter(
            user=actor, role=TournamentRole.Role.DIRECTOR, tournament_id__in=affected
        ).values_list("tournament_id", flat=True)
    )
    return bool(affected) and directed == set(affected)


def players_merge(*, actor: Any, keep: Player, other: Player, reason: str = "") -> Player:
    """Merge ``other`` into ``keep`` (see module docstring); returns the kept player."""
    if keep.pk == other.pk:
        raise ApplicationError(
            _("Choose two different players."),
            code="same_player",
            fields={"other": [_("Same player.")]},
        )
    if not merge_allowed(actor=actor, keep=keep, other=other):
        raise PermissionDeniedError(
            _("Only staff or a director of every affected tournament may merge these players."),
            code="not_director",
        )
    shared = sorted(
        set(Entry.objects.filter(player=keep).values_list("tournament__name", flat=True))
        & set(Entry.objects.filter(player=other).values_list("tournament__name", flat=True))
    )
    if shared:
        raise ApplicationError(
            _("Both players entered %(tournaments)s: they cannot be one person.")
            % {"tournaments": ", ".join(shared)},
            code="same_tournament",
            fields={
                "other": [
                    _("Also entered in %(tournaments)s.") % {"tournaments": ", ".join(shared)}
                ]
            },
        )
    with transaction.atomic():
        affected = _affected(keep, other)
        moved = list(Entry.objects.filter(player=other).values_list("pk", "tournament_id"))
        first = (
            RatingChange.objects.filter(player=other)
            .order_by("rated_at", "match_id")
            .values_list("rated_at", "match_id")
            .first()
        )
        Entry.objects.filter(player=other).update(player=keep)
        if other.user_id and not keep.user_id:
            user_id = other.user_id
            Player.objects.filter(pk=other.pk).update(user=None)
            Player.objects.filter(pk=keep.pk).update(user_id=user_id)
        if first is not None:
            # Every rated match of ``other`` is at or after ``first``: all its changes are
            # recomputed under ``keep``, and ``keep``'s before ``first`` stand.
            ratings_rebuild(since=(first[0], first[1]))
        other_id, other_name = other.pk, other.name
        other.delete()
        for tournament in Tournament.objects.filter(pk__in=affected):
            action_log_record(
                tournament=tournament,
                actor=actor,
                verb="player.merge",
                target=keep,
                reason=reason,
                data={
                    "kept": keep.pk,
                    "merged": other_id,
                    "merged_name": other_name,
                    "entries_moved": [pk for pk, tid in moved if tid == tournament.pk],
                },
            )
        Tournament.objects.filter(pk__in=affected).update(version=F("version") + 1)
    keep.refresh_from_db()
    return keep
