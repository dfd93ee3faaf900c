"""Tournaments: create, update, the lifecycle (status changes, reopen) and the version bump."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core.choice_labels import choice_phrase
from core.exceptions import (
    ApplicationError,
    NotFoundError,
    PermissionDeniedError,
    application_error_merged,
)
from core.sql import column as sql_column
from core.sql import table as sql_table
from core.visible_text import names_check
from tournament.models import (
    ActionLog,
    Tournament,
    TournamentRole,
)
from tournament.principal import holds_permission
from tournament.selectors import tournament_slug_taken, user_directs_any
from tournament.services.common import (
    User,
    _action,
    _referee_actor_class,
    _require_authenticated,
    _ruleset_effective,
    action_log_record,
    require_director,
    ruleset_refusals,
)
from tournament.services.credentials import (
    director_invitations_revoke_at_finish,
    referee_tokens_revoke_at_finish,
)
from tournament.slugs import (
    tournament_slug_check,
    tournament_slug_normalized,
    tournament_slug_taken_error,
)

# -- tournaments --------------------------------------------------------------------------------


# Forward-only status order (draft -> registration -> running -> finished).
_STATUS_ORDER = [s.value for s in Tournament.Status]


@transaction.atomic
def tournament_create_allowed(*, actor: Any) -> bool:
    """Whether ``actor`` may create a tournament (``Action.CREATE_TOURNAMENT``): accounts with
    ``tournament.add_tournament`` (superusers; staff given it in the admin), or anyone who
    already directs a tournament through a role that no co-director invitation granted; never
    a referee credential, and not the staff flag alone (docs/security.md). An invitation
    makes an account that directs its one tournament and nothing more."""
    if isinstance(actor, _referee_actor_class()) or not getattr(actor, "is_authenticated", False):
        return False
    return holds_permission(actor, "tournament.add_tournament") or user_directs_any(
        user=actor, by_invitation=False
    )


@transaction.atomic
def tournament_create(
    *,
    actor: User,
    name: str,
    slug: str,
    venue: str = "",
    starts_on: date | None = None,
    ends_on: date | None = None,
    ruleset_preset: str = "wsod",
    ruleset_overrides: Mapping[str, object] | None = None,
) -> Tournament:
    """Create a tournament in ``draft``, recorded as created by ``actor`` (its owner,
    ``Tournament.created_by``), who becomes its director; a superuser gets no role row (they
    direct every tournament already, and a superuser account never holds a tournament role).

    Who may create: :func:`tournament_create_allowed`.
    """
    _require_authenticated(actor)
    if not tournament_create_allowed(actor=actor):
        raise PermissionDeniedError(
            _("Only staff or tournament directors may create tournaments."), code="not_director"
        )
    slug = tournament_create_check(
        name=name,
        slug=slug,
        starts_on=starts_on,
        ends_on=ends_on,
        ruleset_preset=ruleset_preset,
        ruleset_overrides=ruleset_overrides,
    )
    try:
        with transaction.atomic():  # a double submission raced this one to the slug
            tournament = Tournament.objects.create(
                name=name.strip(),
                slug=slug,
                venue=venue,
                starts_on=starts_on,
                ends_on=ends_on,
                ruleset_preset=ruleset_preset,
                ruleset_overrides=dict(ruleset_overrides or {}),
                ruleset=_ruleset_effective(ruleset_preset, ruleset_overrides),
                created_by=actor,
            )
    except IntegrityError:
        raise tournament_slug_taken_error(slug) from None
    if not actor.is_superuser:
        TournamentRole.objects.create(
            tournament=tournament, user=actor, role=TournamentRole.Role.DIRECTOR
        )
    return tournament


def tournament_create_check(
    *,
    name: str,
    slug: str,
    starts_on: date | None = None,
    ends_on: date | None = None,
    ruleset_preset: str = "wsod",
    ruleset_overrides: Mapping[str, object] | None = None,
) -> str:
    """The slug as it is stored, or ONE :class:`ApplicationError` naming every refused field
    at once (the slug's rule or that it is taken, the dates, the name, the ruleset): a
    director or an API client fixes them in one go instead of one per submission (user
    test). A single refusal keeps its own code (``slug_taken``, ``bad_dates`` ...); several
    answer ``invalid``."""
    refusals = tournament_create_refusals(
        data={
            "name": name,
            "slug": slug,
            "starts_on": starts_on,
            "ends_on": ends_on,
            "ruleset_preset": ruleset_preset,
            "ruleset_overrides": ruleset_overrides,
        }
    )
    if refusals:
        raise application_error_merged(refusals)
    return tournament_slug_normalized(slug)


def tournament_create_refusals(*, data: Mapping[str, Any]) -> list[ApplicationError]:
    """Every refusal of the fields of a new tournament that ``data`` holds (``name``,
    ``slug``, ``starts_on``, ``ends_on``, ``ruleset_preset``, ``ruleset_overrides``); a field
    it lacks is not checked (an API input refused it already). None: valid."""
    refusals: list[ApplicationError] = []
    if "slug" in data:
        try:
            # One rule for the page, the API and the admin (tournament.slugs): lowercase,
            # letters, digits and hyphens, no word of the site's links; taken whatever its
            # case ("UPPER-Case" and "upper-case" were two tournaments, and links in
            # lowercase found neither).
            slug = tournament_slug_check(data["slug"])
        except ApplicationError as exc:
            refusals.append(exc)
        else:
            if tournament_slug_taken(slug=slug):
                refusals.append(tournament_slug_taken_error(slug))
    try:
        _check_dates(data.get("starts_on"), data.get("ends_on"))
    except ApplicationError as exc:
        refusals.append(exc)
    return refusals + _name_and_ruleset_refusals(data, preset="wsod", overrides=None)


def _name_and_ruleset_refusals(
    data: Mapping[str, Any], *, preset: str, overrides: Any
) -> list[ApplicationError]:
    """The refusals of ``data``'s name and ruleset (a new tournament's or an edit's: the
    ruleset is checked whole, ``preset`` and ``overrides`` standing for a part ``data`` lacks)."""
    refusals: list[ApplicationError] = []
    if "name" in data:
        try:
            names_check({"name": data["name"]}, labels={"name": _("Name")}, required=["name"])
        except ApplicationError as exc:
            refusals.append(exc)
    if "ruleset_preset" in data or "ruleset_overrides" in data:
        refusals += ruleset_refusals(
            data.get("ruleset_preset", preset), data.get("ruleset_overrides", overrides)
        )
    return refusals


def _check_dates(starts_on: date | None, ends_on: date | None) -> None:
    if starts_on and ends_on and ends_on < starts_on:
        raise ApplicationError(
            _("The tournament cannot end before it starts."),
            code="bad_dates",
            fields={"ends_on": [_("Before starts_on.")]},
        )


_UPDATABLE = frozenset(
    {
        *("name", "venue", "starts_on", "ends_on", "status", "ruleset_preset"),
        *("ruleset_overrides", "confirmation"),  # confirmation at the table (issue 15)
    }
)


@transaction.atomic
def tournament_update(
    *, tournament: Tournament, actor: User, data: Mapping[str, Any]
) -> Tournament:
    """Change a tournament's fields. Status only moves forward (draft → … → finished).

    A ruleset change applies to matches started afterwards: started matches keep the ruleset
    they froze (RULES.md §1). A finished tournament is read-only. Refused: ONE error naming
    every refused field (:func:`tournament_update_refusals`), as the director's form does.
    """
    require_director(actor=actor, tournament=tournament)
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    refusals = tournament_update_refusals(tournament=tournament, data=data)
    if refusals:
        raise application_error_merged(refusals)
    if "name" in data:
        data = {**data, "name": str(data["name"]).strip()}
    preset = data.get("ruleset_preset", tournament.ruleset_preset)
    overrides = data.get("ruleset_overrides", tournament.ruleset_overrides)
    changed = []
    if "ruleset_preset" in data or "ruleset_overrides" in data:
        tournament.ruleset = _ruleset_effective(preset, overrides)
        changed.append("ruleset")
    for key, value in data.items():
        setattr(tournament, key, value)
        changed.append(key)
    tournament.save(update_fields=[*changed, "updated_at"])
    if "status" in data or "ruleset" in changed or "confirmation" in data:
        action_log_record(
            tournament=tournament,
            actor=actor,
            verb="tournament.update",
            target=tournament,
            data={k: v for k, v in data.items() if k != "name"},
        )
    if tournament.status == Tournament.Status.FINISHED:
        _credentials_revoke_at_finish(tournament=tournament, actor=actor)
    # The answer carries the version AFTER this edit (the ETag a client compares next).
    tournament.version = tournament_version_bump(tournament_id=tournament.pk)
    return tournament


def tournament_update_refusals(
    *, tournament: Tournament, data: Mapping[str, Any]
) -> list[ApplicationError]:
    """Every refusal of ``data`` as a change of ``tournament`` (none: it may be saved): the
    fields that cannot change, a backward status, the name, each refused ruleset key (§1) and
    the dates as they would be after the change. A finished tournament refuses everything,
    alone. :func:`tournament_update` raises them as one; the API adds them to the fields its
    input refused, so that one answer names every mistake (issue: the first one only)."""
    if tournament.status == Tournament.Status.FINISHED:
        return [
            ApplicationError(
                _("A finished tournament cannot be changed."), code="tournament_finished"
            )
        ]
    refusals = [
        ApplicationError(
            _("%(field)s cannot be changed.") % {"field": field},
            code="read_only",
            fields={field: [_("Read-only.")]},
        )
        for field in sorted(set(data) - _UPDATABLE)
    ]
    if "status" in data and data["status"] != tournament.status:
        new = data["status"]
        if new not in _STATUS_ORDER or _STATUS_ORDER.index(new) < _STATUS_ORDER.index(
            tournament.status
        ):
            refusals.append(
                ApplicationError(
                    _("Status cannot go from %(before)s to %(after)s.")
                    % {"before": _status_words(tournament.status), "after": _status_words(new)},
                    code="bad_status_transition",
                    fields={
                        "status": [
                            _("Only forward from %(before)s.")
                            % {"before": _status_words(tournament.status)}
                        ]
                    },
                )
            )
    refusals += _name_and_ruleset_refusals(
        data, preset=tournament.ruleset_preset, overrides=tournament.ruleset_overrides
    )
    try:
        _check_dates(
            data.get("starts_on", tournament.starts_on), data.get("ends_on", tournament.ends_on)
        )
    except ApplicationError as exc:
        refusals.append(exc)
    return refusals


# -- lifecycle ------------------------------------------------------------------------------------


def _status_words(status: Any) -> str:
    """A tournament status as the pages word it, in the request's language ("registration",
    *inscripción*), not its code; a value that is not a status, as sent."""
    return choice_phrase(Tournament.Status, str(status))


def _credentials_revoke_at_finish(*, tournament: Tournament, actor: Any) -> None:
    """What finishing ends, on every path that finishes: the referee credentials and the
    pending co-director invitations (docs/security.md: a reopen revives neither)."""
    referee_tokens_revoke_at_finish(tournament=tournament, actor=actor)
    director_invitations_revoke_at_finish(tournament=tournament, actor=actor)


@transaction.atomic
def tournament_status_change(
    *, tournament: Tournament, actor: User, status: str, reason: str = ""
) -> Tournament:
    """Move a tournament forward (draft -> registration -> running -> finished), logged.

    The system also moves it by itself: the first published round makes it running
    (:func:`tournament_mark_running`), the final table's end makes it finished
    (:func:`tournament_mark_finished`). Finished is read-only; see :func:`tournament_reopen`.
    Finishing revokes every referee credential and pending invitation
    (``_credentials_revoke_at_finish``).
    """
    require_director(actor=actor, tournament=tournament, action=_action("CHANGE_STATUS"))
    locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if status not in _STATUS_ORDER or _STATUS_ORDER.index(status) <= _STATUS_ORDER.index(
        locked.status
    ):
        raise ApplicationError(
            _("Status cannot go from %(before)s to %(after)s.")
            % {"before": _status_words(locked.status), "after": _status_words(status)},
            code="bad_status_transition",
            rule="lifecycle",
            fields={
                "status": [
                    _("Only forward from %(before)s.") % {"before": _status_words(locked.status)}
                ]
            },
        )
    before = locked.status
    locked.status = status
    locked.save(update_fields=["status", "updated_at"])
    action_log_record(
        tournament=locked,
        actor=actor,
        verb="tournament.status",
        target=locked,
        reason=reason,
        data={"before": before, "after": status},
    )
    if status == Tournament.Status.FINISHED:
        _credentials_revoke_at_finish(tournament=locked, actor=actor)
    locked.version = tournament_version_bump(tournament_id=locked.pk)
    return locked


@transaction.atomic
def tournament_reopen(*, tournament: Tournament, actor: User, reason: str) -> Tournament:
    """A director reopens a finished tournament (back to running) with a reason, logged.

    The referee credentials stay revoked (the finish revoked them all): the director issues
    new ones for the referees who are to record again."""
    require_director(actor=actor, tournament=tournament, action=_action("REOPEN"))
    if not isinstance(reason, str) or not reason.strip():
        raise ApplicationError(
            _("Give a reason to reopen a finished tournament."),
            code="reason_required",
            fields={"reason": [_("Required.")]},
        )
    locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
    locked.status = Tournament.Status.RUNNING
    locked.save(update_fields=["status", "updated_at"])
    action_log_record(
        tournament=locked,
        actor=actor,
        verb="tournament.reopen",
        target=locked,
        reason=reason.strip(),
        data={"before": Tournament.Status.FINISHED, "after": Tournament.Status.RUNNING},
    )
    locked.version = tournament_version_bump(tournament_id=locked.pk)
    return locked


def _mark(tournament_id: int, status: str, before: list[str], verb: str) -> bool:
    changed = Tournament.objects.filter(pk=tournament_id, status__in=before).update(
        status=status, updated_at=timezone.now()
    )
    if changed:
        ActionLog.objects.create(
            tournament_id=tournament_id,
            actor=None,
            verb=verb,
            target_type="tournament.tournament",
            target_id=str(tournament_id),
            data={"after": status, "by": "system"},
        )
        if status == Tournament.Status.FINISHED:
            tournament = Tournament.objects.get(pk=tournament_id)
            _credentials_revoke_at_finish(tournament=tournament, actor=None)
    return bool(changed)


def tournament_mark_running(*, tournament_id: int) -> bool:
    """A round was published: a draft or registration tournament is running now (logged)."""
    return _mark(
        tournament_id,
        Tournament.Status.RUNNING,
        [Tournament.Status.DRAFT, Tournament.Status.REGISTRATION],
        "tournament.running",
    )


def tournament_mark_finished(*, tournament_id: int) -> bool:
    """The final table has played (champion decided): finished, read-only (logged); every
    referee credential is revoked (``referee_tokens_revoke_at_finish``)."""
    return _mark(
        tournament_id,
        Tournament.Status.FINISHED,
        [Tournament.Status.DRAFT, Tournament.Status.REGISTRATION, Tournament.Status.RUNNING],
        "tournament.finished",
    )


def tournament_version_bump_sql() -> str:
    """The statement of :func:`tournament_version_bump` (one parameter: the tournament id;
    returns the new ``version``), for a caller that runs it inside a larger statement."""
    table, version = sql_table(Tournament), sql_column(Tournament, "version")
    return (
        f"UPDATE {table} SET {version} = {version} + 1 "  # noqa: S608 (names from _meta)
        f"WHERE {sql_column(Tournament, 'id')} = %s RETURNING {version}"
    )


def tournament_version_bump(*, tournament_id: int) -> int:
    """``UPDATE ... SET version = version + 1 RETURNING version`` (one query, race-free).

    Called at the END of every recording transaction so the row lock on the tournament is
    held as briefly as possible; live pages use the version as ETag and cache key.
    """
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(tournament_version_bump_sql(), [tournament_id])
        row = cursor.fetchone()
    if row is None:
        raise NotFoundError(_("No such tournament."), code="not_found")
    return int(row[0])
