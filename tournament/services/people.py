"""Players and entries: create, update, withdraw, disqualify."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from core.events import emit_on_commit, player_rating_typed
from core.exceptions import ApplicationError, PermissionDeniedError
from tournament.models import (
    Entry,
    Player,
    Tournament,
    TournamentRole,
)
from tournament.player_fields import player_fields_clean
from tournament.principal import holds_permission
from tournament.selectors import player_unknown, player_visible, user_directs_any
from tournament.services.common import (
    User,
    _referee_actor_class,
    _require_authenticated,
    action_log_record,
    require_director,
)
from tournament.services.tournaments import tournament_version_bump

# -- players ------------------------------------------------------------------------------------


def _require_player_manager(actor: User) -> None:
    _require_authenticated(actor)
    if isinstance(actor, _referee_actor_class()):
        raise PermissionDeniedError(
            _("Referee credentials cannot manage players."), code="not_director"
        )
    # Staff: with the permission to add players (docs/security.md), not the staff flag alone.
    if holds_permission(actor, "tournament.add_player") or user_directs_any(user=actor):
        return
    raise PermissionDeniedError(_("Only directors may manage players."), code="not_director")


@transaction.atomic
def player_create(
    *,
    actor: User,
    name: str,
    nickname: str = "",
    country: str = "",
    club: str = "",
    rating: int | None = None,
    user: User | None = None,
) -> Player:
    """Register a player (players are shared between tournaments); directors and staff.

    Every field is checked by :mod:`tournament.player_fields`, the rule of the Players page
    and the CSV import (a country code, a rating from 0 to 9999, a visible name): refused with
    the field named, whichever path called.
    """
    _require_player_manager(actor)
    data = player_fields_clean(
        {"name": name, "nickname": nickname, "country": country, "club": club, "rating": rating}
    )
    return Player.objects.create(**data, user=user)


IDENTITY_FIELDS = frozenset({"name", "nickname", "country", "club"})


def player_editable(*, player: Player, actor: Any) -> bool:
    """Whether ``actor`` may change ``player`` (identity and typed rating): the rule of
    :func:`player_update`, which pages also use to offer only what will be accepted."""
    if isinstance(actor, _referee_actor_class()) or not getattr(actor, "is_authenticated", False):
        return False
    # "Staff": an account that may change players in the admin too (superusers), never the
    # staff flag alone (README "Ratings", docs/security.md).
    if holds_permission(actor, "tournament.change_player"):
        return True
    entered = set(Entry.objects.filter(player=player).values_list("tournament_id", flat=True))
    directed = set(
        TournamentRole.objects.filter(
            user_id=actor.pk, role=TournamentRole.Role.DIRECTOR
        ).values_list("tournament_id", flat=True)
    )
    if not entered:
        return bool(directed)
    return entered <= directed


@transaction.atomic
def player_update(
    *,
    player: Player,
    actor: User,
    data: Mapping[str, Any],
    tournament: Tournament | None = None,
) -> Player:
    """Edit a player (players are shared between tournaments).

    ``tournament``: where the edit was made (a director's page); the change, field by field
    before and after, goes to its action log.

    Identity fields (name, nickname, country, club) change the player in EVERY tournament, so
    only staff allowed to change players (``tournament.change_player``, as in the admin; the
    staff flag alone is not enough) or someone who directs every tournament the player has
    entered may change them
    (issue 12 finding 5: adding a player to your own tournament gives no power over their
    name elsewhere). The typed rating follows the same rule: until the player has a rated
    match it is what every event they entered seeds them by (T8), so a director who enters
    another event's player must not move that event's seeding. A player not entered
    anywhere: staff or any director.
    """
    _require_authenticated(actor)
    if isinstance(actor, _referee_actor_class()):
        raise PermissionDeniedError(
            _("Referee credentials cannot edit players."), code="not_director"
        )
    allowed = IDENTITY_FIELDS | {"rating"}
    if not player_editable(player=player, actor=actor):
        reason = _(
            "Only staff or a director of every tournament this player has entered may "
            "change their name, nickname, country, club or rating."
        )
        raise PermissionDeniedError(
            reason,
            code="not_director_of_every_tournament",
            fields={key: [reason] for key in data if key in allowed},
        )
    changes: dict[str, dict[str, Any]] = {}
    for key in data:
        if key not in allowed:
            raise ApplicationError(
                _("%(field)s cannot be changed.") % {"field": key},
                code="read_only",
                fields={key: [_("Read-only.")]},
            )
    for key, value in player_fields_clean(data).items():  # the rule of player_create
        if getattr(player, key) != value:
            changes[key] = {"before": getattr(player, key), "after": value}
        setattr(player, key, value)
    with transaction.atomic():
        player.save()
        if tournament is not None and changes:
            action_log_record(
                tournament=tournament,
                actor=actor,
                verb="player.update",
                target=player,
                data=changes,
            )
        player_changed(player=player, fields=changes)
    return player


def player_changed(*, player: Player, fields: Iterable[str]) -> None:
    """What every saved edit of ``player`` owes, whichever path saved it (:func:`player_update`,
    the Django admin): the live pages, player pages and circuit standings of every tournament
    the player entered show their name, nickname, country and club, and their cached
    documents and ETags are keyed by the tournament version, so each version is bumped; a
    changed typed rating (``fields`` names it) is where the player's ratings start (T8), so
    ``player_rating_typed`` is sent when the transaction commits (``core.events``)."""
    Tournament.objects.filter(entries__player=player).update(version=F("version") + 1)
    if "rating" in fields:
        emit_on_commit(player_rating_typed, player_id=player.pk)


# -- entries ------------------------------------------------------------------------------------


@transaction.atomic
def entry_create(
    *, tournament: Tournament, actor: User, player: Player, seed: int | None = None
) -> Entry:
    """Enter ``player`` in ``tournament`` (unique per tournament; seed unique when given).

    ``player`` must be one the actor may see (``tournament.selectors.player_visible``), or it
    is refused as an unknown player: entering a player of another director's draft would
    publish them. The callers look players up visible-only already; this is the backstop."""
    require_director(actor=actor, tournament=tournament)
    if not Player.objects.filter(player_visible(user=actor), pk=player.pk).exists():
        raise player_unknown(field="player")
    if tournament.status == Tournament.Status.FINISHED:
        raise ApplicationError(_("The tournament is finished."), code="tournament_finished")
    if Entry.objects.filter(tournament=tournament, player=player).exists():
        raise ApplicationError(
            _("%(player)s is already entered.") % {"player": player},
            code="already_entered",
            fields={"player": [_("Already entered in this tournament.")]},
        )
    if seed is not None and Entry.objects.filter(tournament=tournament, seed=seed).exists():
        raise ApplicationError(
            _("Seed %(seed)s is taken.") % {"seed": seed},
            code="seed_taken",
            fields={"seed": [_("Taken.")]},
        )
    try:
        with transaction.atomic():
            entry = Entry.objects.create(tournament=tournament, player=player, seed=seed)
    except IntegrityError:  # a concurrent request won the race
        raise ApplicationError(
            _("%(player)s is already entered (or the seed is taken).") % {"player": player},
            code="already_entered",
        ) from None
    tournament_version_bump(tournament_id=tournament.pk)
    return entry


@transaction.atomic
def entry_update(*, entry: Entry, actor: User, data: Mapping[str, Any], log: bool = True) -> Entry:
    """Change an entry's seed or check-in.

    A change is logged (``entry.check_in``, ``entry.check_out``, ``entry.seed``: who checked
    whom in, and when, is what a director is asked about at the table); a value that does
    not change logs nothing. ``log=False``: the caller logs the whole operation once (an
    import that checks its players in)."""
    require_director(actor=actor, tournament=entry.tournament)
    before = (entry.checked_in, entry.seed)
    for key, value in data.items():
        if key == "seed":
            if (
                value is not None
                and Entry.objects.filter(tournament_id=entry.tournament_id, seed=value)
                .exclude(pk=entry.pk)
                .exists()
            ):
                raise ApplicationError(
                    _("Seed %(seed)s is taken.") % {"seed": value},
                    code="seed_taken",
                    fields={"seed": [_("Taken.")]},
                )
            entry.seed = value
        elif key == "checked_in":
            entry.checked_in = bool(value)
            entry.checked_in_at = timezone.now() if value else None
        else:
            raise ApplicationError(
                _("%(field)s cannot be changed here.") % {"field": key},
                code="read_only",
                fields={key: [_("Read-only.")]},
            )
    entry.save()
    tournament_version_bump(tournament_id=entry.tournament_id)
    if log:
        _entry_changes_log(entry=entry, actor=actor, checked_in=before[0], seed=before[1])
    return entry


def _entry_changes_log(*, entry: Entry, actor: User, checked_in: bool, seed: int | None) -> None:
    """The action log of :func:`entry_update`: what changed, each once."""
    if entry.checked_in != checked_in:
        action_log_record(
            tournament=entry.tournament,
            actor=actor,
            verb="entry.check_in" if entry.checked_in else "entry.check_out",
            target=entry,  # names the player
        )
    if entry.seed != seed:
        action_log_record(
            tournament=entry.tournament,
            actor=actor,
            verb="entry.seed",
            target=entry,
            data={"before": seed, "after": entry.seed},
        )


@transaction.atomic
def entries_check_in(
    *, tournament: Tournament, actor: User, entry_ids: Collection[int] | None = None
) -> list[int]:
    """Check in, at once, every active entry of ``tournament`` not checked in yet, or only
    those of ``entry_ids`` (the seeding list's "Check in everyone" and "Check in selected").

    One transaction and one action-log entry with the count (``entries.check_in``); refused
    as one check-in is (:func:`entry_update`: a director of the tournament, the lifecycle
    gate). Entries already checked in are left alone, so a repeat changes nothing and logs
    nothing. ``entry_ids`` naming no active entry of this tournament refuses the whole request,
    naming the field, and nothing is written. Returns the ids checked in, in id order.
    """
    require_director(actor=actor, tournament=tournament)
    entries = Entry.objects.select_for_update().filter(tournament=tournament).order_by("pk")
    if entry_ids is None:
        todo = list(
            entries.filter(status=Entry.Status.ACTIVE, checked_in=False).values_list(
                "pk", flat=True
            )
        )
    else:
        wanted = set(entry_ids)
        if not wanted:
            message = _("Tick the players to check in.")
            raise ApplicationError(message, code="required", fields={"entries": [message]})
        rows = list(entries.filter(pk__in=wanted).values_list("pk", "status", "checked_in"))
        inactive = [pk for pk, status, _in in rows if status != Entry.Status.ACTIVE]
        if len(rows) < len(wanted) or inactive:
            message = _(
                "Only active players of this tournament can be checked in: reload the page "
                "and tick them again."
            )
            raise ApplicationError(message, code="entry_not_active", fields={"entries": [message]})
        todo = [pk for pk, _status, checked_in in rows if not checked_in]
    if todo:
        now = timezone.now()
        Entry.objects.filter(pk__in=todo).update(checked_in=True, checked_in_at=now, updated_at=now)
        action_log_record(
            tournament=tournament,
            actor=actor,
            verb="entries.check_in",
            target=tournament,
            data={"count": len(todo), "entry_ids": todo},
        )
        tournament_version_bump(tournament_id=tournament.pk)
    return todo


def _entry_set_status(*, entry: Entry, actor: User, status: str, reason: str) -> Entry:
    require_director(actor=actor, tournament=entry.tournament)
    if not reason.strip():
        raise ApplicationError(
            _("Give a reason."), code="reason_required", fields={"reason": [_("Required.")]}
        )
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    if entry.status != Entry.Status.ACTIVE:
        raise ApplicationError(
            _("The entry is already %(status)s.") % {"status": entry.get_status_display().lower()},
            code="entry_not_active",
        )
    entry.status = status
    entry.status_reason = reason
    entry.save(update_fields=["status", "status_reason", "updated_at"])
    action_log_record(
        tournament=entry.tournament,
        actor=actor,
        verb=f"entry.{status}",
        target=entry,
        reason=reason,
        data={"player_id": entry.player_id},
    )
    tournament_version_bump(tournament_id=entry.tournament_id)
    return entry


@transaction.atomic
def entry_withdraw(*, entry: Entry, actor: User, reason: str) -> Entry:
    """Withdraw a player; their unfinished matches are the director's call (T7 forfeit)."""
    return _entry_set_status(entry=entry, actor=actor, status=Entry.Status.WITHDRAWN, reason=reason)


@transaction.atomic
def entry_disqualify(*, entry: Entry, actor: User, reason: str) -> Entry:
    """Disqualify a player (T7); forfeit their current match with ``match_forfeit``."""
    return _entry_set_status(
        entry=entry, actor=actor, status=Entry.Status.DISQUALIFIED, reason=reason
    )
