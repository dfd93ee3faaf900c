"""Pairs events: the entry format, registering partnerships, reading them (T9).

Writes follow the tournament services' shape (``entity_verb``, keyword-only, director only,
atomic, action log, version bump). Substitution (T11) and seeding need the rounds, so they live
in :mod:`brackets.services.pairs`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from core.choice_labels import choice_phrase
from core.exceptions import ApplicationError
from core.visible_text import name_clean, names_check
from tournament.models import Entry, Partnership, PartnershipMember, Player, Tournament
from tournament.services import (
    action_log_record,
    entry_create,
    entry_update,
    require_director,
    tournament_version_bump,
)

PAIRS = "pairs"
INDIVIDUAL = "individual"
ENTRY_FORMATS = (INDIVIDUAL, PAIRS)


def is_partnership_ruleset(ruleset: dict[str, Any] | None) -> bool:
    """R42: ``teams = partners`` in the tournament's effective ruleset."""
    return (ruleset or {}).get("teams") == "partners"


def is_pairs_event(tournament: Tournament) -> bool:
    return tournament.entry_format == PAIRS


@transaction.atomic
def tournament_entry_format_set(
    *, tournament: Tournament, actor: Any, entry_format: str
) -> Tournament:
    """Make the tournament a pairs event, or an individual one again (T9).

    ``pairs`` needs a partnership ruleset (R42, ``teams = partners``); the format cannot change
    once partnerships are registered (back to individual) or a stage has played a round.
    """
    require_director(actor=actor, tournament=tournament)
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if entry_format not in ENTRY_FORMATS:
        raise ApplicationError(
            _("Entry format must be individual or pairs (T9)."),
            code="bad_choice",
            rule="T9",
            fields={"entry_format": [_("Entry format must be individual or pairs (T9).")]},
        )
    if entry_format == tournament.entry_format:
        return tournament
    if entry_format == PAIRS and not is_partnership_ruleset(tournament.ruleset):
        message = _("A pairs event needs a partnership ruleset (teams = partners, R42, T9).")
        raise ApplicationError(
            message, code="not_partnership_ruleset", rule="T9", fields={"entry_format": [message]}
        )
    if entry_format == INDIVIDUAL and tournament.partnerships.exists():
        message = _("Partnerships are registered: the event stays a pairs event (T9).")
        raise ApplicationError(
            message, code="partnerships_registered", rule="T9", fields={"entry_format": [message]}
        )
    if tournament.matches.exists():
        message = _("Matches have been played: the entry format cannot change (T9).")
        raise ApplicationError(
            message, code="tournament_started", rule="T9", fields={"entry_format": [message]}
        )
    before = tournament.entry_format
    tournament.entry_format = entry_format
    tournament.save(update_fields=["entry_format", "updated_at"])
    action_log_record(
        tournament=tournament,
        actor=actor,
        verb="tournament.entry_format",
        target=tournament,
        data={"before": before, "after": entry_format},
    )
    tournament_version_bump(tournament_id=tournament.pk)
    return tournament


def _refuse(field: str, message: str, code: str, rule: str = "T9") -> ApplicationError:
    return ApplicationError(message, code=code, rule=rule, fields={field: [message]})


def entry_for_partnership(
    *, tournament: Tournament, actor: Any, player: Player, field: str, check_in: bool
) -> Entry:
    """The player's entry in ``tournament`` (created if needed), free to join a partnership."""
    entry = Entry.objects.filter(tournament=tournament, player=player).first()
    if entry is None:
        entry = entry_create(tournament=tournament, actor=actor, player=player)
    elif entry.status != Entry.Status.ACTIVE:
        raise _refuse(
            field,
            _("%(player)s is %(status)s in this tournament (T9).")
            % {"player": player, "status": choice_phrase(Entry.Status, entry.status)},
            "not_active",
        )
    if PartnershipMember.objects.filter(entry=entry).exists():
        raise _refuse(
            field,
            _("%(player)s already plays in a partnership of this event (T9).") % {"player": player},
            "in_partnership",
        )
    if check_in and not entry.checked_in:
        from django.utils import timezone

        Entry.objects.filter(pk=entry.pk).update(checked_in=True, checked_in_at=timezone.now())
        entry.checked_in = True
    return entry


@transaction.atomic
def partnership_register(
    *,
    tournament: Tournament,
    actor: Any,
    players: Sequence[Player],
    name: str = "",
    check_in: bool = False,
) -> Partnership:
    """Register two players as one partnership of a pairs event (T9).

    Players not yet entered are entered; ``check_in`` checks both in. 400 naming the field:
    not a pairs event, not two different players, a player already in a partnership here.
    """
    require_director(actor=actor, tournament=tournament)
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)  # number race
    if not is_pairs_event(tournament):
        raise _refuse("entry_format", _("This is not a pairs event (T9)."), "not_pairs_event")
    if len(players) != 2 or players[0].pk == players[1].pk:
        raise _refuse(
            "players", _("A partnership is two different players (T9)."), "bad_partnership"
        )
    if len(name) > 120:
        raise _refuse("name", _("At most %(max)s characters.") % {"max": 120}, "too_long")
    names_check({"name": name}, labels={"name": _("Partnership name")})
    name = name_clean(name)
    entries = [
        entry_for_partnership(
            tournament=tournament,
            actor=actor,
            player=p,
            field=f"player_{'ab'[i]}",
            check_in=check_in,
        )
        for i, p in enumerate(players)
    ]
    number = (tournament.partnerships.aggregate(m=Max("number"))["m"] or 0) + 1
    try:
        with transaction.atomic():
            partnership = Partnership.objects.create(
                tournament=tournament, number=number, name=name.strip()
            )
            PartnershipMember.objects.bulk_create(
                [
                    PartnershipMember(partnership=partnership, entry=e, slot=i)
                    for i, e in enumerate(entries)
                ]
            )
    except IntegrityError:  # a concurrent registration took a player first
        raise _refuse(
            "players",
            _("A player was just registered in another partnership (T9)."),
            "in_partnership",
        ) from None
    action_log_record(
        tournament=tournament,
        actor=actor,
        verb="partnership.register",
        target=partnership,
        data={"number": number, "entries": [e.pk for e in entries]},
    )
    tournament_version_bump(tournament_id=tournament.pk)
    return partnership


@transaction.atomic
def partnership_check_in(
    *, partnership: Partnership, actor: Any, checked_in: bool = True
) -> list[Entry]:
    """Check both current players of a partnership in (or out) at once (T9: a partnership
    is seeded when both its players are checked in). Idempotent; the entries' own check-in
    (``entry_update``) does the work, so the rule and its log are the same."""
    require_director(actor=actor, tournament=partnership.tournament)
    entries = [
        m.entry
        for m in PartnershipMember.objects.filter(partnership=partnership, left_at__isnull=True)
        .select_related("entry__tournament")
        .order_by("slot")
    ]
    return [
        entry_update(entry=e, actor=actor, data={"checked_in": checked_in})
        for e in entries
        if e.checked_in != checked_in
    ]


# -- reads --------------------------------------------------------------------------------------


def partnership_label(name: str, players: Sequence[str]) -> str:
    """How pages name a partnership once (T9): both partners, "Ana & Bea", after its registered
    name when it has one, "Los Primos (Ana & Bea)"; the name alone if no player is known.

    >>> partnership_label("", ["Ana", "Bea"])
    'Ana & Bea'
    >>> partnership_label("Los Primos", ["Ana", "Bea"])
    'Los Primos (Ana & Bea)'
    """
    both = " & ".join(str(p) for p in players if p)
    if name and both:
        return f"{name} ({both})"
    return name or both


@dataclass(frozen=True, slots=True)
class PartnershipView:
    """A partnership with its current players, for pages and the API."""

    id: int
    number: int
    name: str
    status: str
    players: tuple[tuple[int, str, str], ...]  # (entry id, player name, club), slot order
    checked_in: bool

    @property
    def label(self) -> str:
        return self.name or " & ".join(p[1] for p in self.players) or f"Pair {self.number}"


def partnership_list(*, tournament_id: int) -> list[PartnershipView]:
    """Every partnership of a tournament with its current players (two queries)."""
    members: dict[int, list[PartnershipMember]] = {}
    for m in (
        PartnershipMember.objects.filter(
            partnership__tournament_id=tournament_id, left_at__isnull=True
        )
        .select_related("entry__player")
        .order_by("partnership_id", "slot")
    ):
        members.setdefault(m.partnership_id, []).append(m)
    out = []
    for p in Partnership.objects.filter(tournament_id=tournament_id).order_by("number"):
        ms = members.get(p.pk, [])
        out.append(
            PartnershipView(
                id=p.pk,
                number=p.number,
                name=p.name,
                status=p.status,
                players=tuple((m.entry_id, m.entry.player.name, m.entry.player.club) for m in ms),
                checked_in=len(ms) == 2 and all(m.entry.checked_in for m in ms),
            )
        )
    return out


def partnership_of_entries(*, tournament_id: int) -> dict[int, int]:
    """Entry id -> the partnership it plays for now, for every current member (one query)."""
    return dict(
        PartnershipMember.objects.filter(
            partnership__tournament_id=tournament_id, left_at__isnull=True
        ).values_list("entry_id", "partnership_id")
    )


def partnership_labels(*, tournament_id: int) -> dict[int, str]:
    """Entry id -> its partnership's label, for every player who ever played for one."""
    labels = {p.id: p.label for p in partnership_list(tournament_id=tournament_id)}
    return {
        entry_id: labels[pid]
        for entry_id, pid in PartnershipMember.objects.filter(
            partnership__tournament_id=tournament_id
        ).values_list("entry_id", "partnership_id")
        if pid in labels
    }
