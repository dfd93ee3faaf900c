"""Writes of the tournament app (HackSoft services: ``<entity>_<action>``, keyword-only, typed).

Every service checks who may do it (a director manages their own tournaments only) and raises
:class:`core.exceptions.ApplicationError` subclasses for expected failures. Director actions
that change results or seating are written to :class:`ActionLog` in the same transaction.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from datetime import date
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from core.exceptions import ApplicationError, NotFoundError, PermissionDeniedError
from core.sql import column as sql_column
from core.sql import table as sql_table
from scoring.engine import InvalidRuleset, Ruleset
from tournament.models import (
    ActionLog,
    Entry,
    Player,
    RefereeToken,
    Table,
    Tournament,
    TournamentRole,
)
from tournament.selectors import user_directs_any, user_is_director

User = Any  # the project's user model instance (AbstractBaseUser); kept loose for mypy plugins

# Forward-only status order (draft -> registration -> running -> finished).
_STATUS_ORDER = [s.value for s in Tournament.Status]


class RefereeTokenInvalidError(ApplicationError):
    """Unknown or revoked referee token (counted towards the per-address failure limit)."""

    status_code = 401


class RefereeTokenThrottledError(ApplicationError):
    """Too many failed token lookups from one client address (PITFALLS.md)."""

    status_code = 429


# -- permission helpers -------------------------------------------------------------------------


def _require_authenticated(actor: User) -> None:
    if actor is None or not getattr(actor, "is_authenticated", False):
        raise PermissionDeniedError("Sign in first.", code="not_authenticated")


def require_director(*, actor: User, tournament: Tournament) -> None:
    """Raise 403 unless ``actor`` directs ``tournament`` (superusers manage every tournament)."""
    _require_authenticated(actor)
    if getattr(actor, "is_superuser", False):
        return
    if not user_is_director(user=actor, tournament_id=tournament.pk):
        raise PermissionDeniedError(
            f"Only a director of {tournament.name} may do this.", code="not_director"
        )


def _ruleset_effective(preset: str, overrides: Mapping[str, object] | None) -> dict[str, object]:
    """The engine's effective ruleset as JSON; InvalidRuleset -> 400 naming the key (§1)."""
    if overrides is not None and not isinstance(overrides, Mapping):
        raise ApplicationError(
            "ruleset_overrides must be an object of ruleset keys (§1).",
            code="bad_type",
            rule="§1",
            fields={"ruleset_overrides": ["Must be an object."]},
        )
    try:
        return Ruleset.from_preset(preset, dict(overrides or {})).to_json()
    except InvalidRuleset as exc:
        field = "ruleset_preset" if exc.field == "preset" else f"ruleset_overrides.{exc.field}"
        raise ApplicationError(
            exc.message, code=exc.code, rule=exc.rule, fields={field: [exc.message]}
        ) from exc


def action_log_record(
    *,
    tournament: Tournament,
    actor: User,
    verb: str,
    target: Any = None,
    reason: str = "",
    data: Mapping[str, Any] | None = None,
) -> ActionLog:
    """Append one entry to the tournament's action log (director actions, brackets' too)."""
    target_type = target._meta.label_lower if target is not None else ""
    target_id = str(target.pk) if target is not None else ""
    return ActionLog.objects.create(
        tournament=tournament,
        actor=actor if actor is not None and actor.is_authenticated else None,
        verb=verb,
        target_type=target_type,
        target_id=target_id,
        reason=reason,
        # Dates, decimals, UUIDs... as JSON text (a tournament edit logs its starts_on).
        data=json.loads(json.dumps(dict(data or {}), cls=DjangoJSONEncoder)),
    )


# -- tournaments --------------------------------------------------------------------------------


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
    """Create a tournament in ``draft``; the creator becomes its director.

    Who may create: staff, users with ``tournament.add_tournament``, or anyone who already
    directs a tournament.
    """
    _require_authenticated(actor)
    if not (
        actor.is_staff
        or actor.has_perm("tournament.add_tournament")
        or user_directs_any(user=actor)
    ):
        raise PermissionDeniedError(
            "Only staff or tournament directors may create tournaments.", code="not_director"
        )
    if Tournament.objects.filter(slug=slug).exists():
        raise ApplicationError(
            f"The slug {slug!r} is taken.", code="slug_taken", fields={"slug": ["Taken."]}
        )
    _check_dates(starts_on, ends_on)
    tournament = Tournament.objects.create(
        name=name,
        slug=slug,
        venue=venue,
        starts_on=starts_on,
        ends_on=ends_on,
        ruleset_preset=ruleset_preset,
        ruleset_overrides=dict(ruleset_overrides or {}),
        ruleset=_ruleset_effective(ruleset_preset, ruleset_overrides),
    )
    TournamentRole.objects.create(
        tournament=tournament, user=actor, role=TournamentRole.Role.DIRECTOR
    )
    return tournament


def _check_dates(starts_on: date | None, ends_on: date | None) -> None:
    if starts_on and ends_on and ends_on < starts_on:
        raise ApplicationError(
            "The tournament cannot end before it starts.",
            code="bad_dates",
            fields={"ends_on": ["Before starts_on."]},
        )


_UPDATABLE = frozenset(
    {"name", "venue", "starts_on", "ends_on", "status", "ruleset_preset", "ruleset_overrides"}
)


@transaction.atomic
def tournament_update(
    *, tournament: Tournament, actor: User, data: Mapping[str, Any]
) -> Tournament:
    """Change a tournament's fields. Status only moves forward (draft → … → finished).

    A ruleset change applies to matches started afterwards: started matches keep the ruleset
    they froze (RULES.md §1). A finished tournament is read-only.
    """
    require_director(actor=actor, tournament=tournament)
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    unknown = set(data) - _UPDATABLE
    if unknown:
        field = sorted(unknown)[0]
        raise ApplicationError(
            f"{field} cannot be changed.", code="read_only", fields={field: ["Read-only."]}
        )
    if tournament.status == Tournament.Status.FINISHED:
        raise ApplicationError(
            "A finished tournament cannot be changed.", code="tournament_finished"
        )
    if "status" in data and data["status"] != tournament.status:
        new = data["status"]
        if new not in _STATUS_ORDER or _STATUS_ORDER.index(new) < _STATUS_ORDER.index(
            tournament.status
        ):
            raise ApplicationError(
                f"Status cannot go from {tournament.status} to {new}.",
                code="bad_status_transition",
                fields={"status": [f"Only forward from {tournament.status}."]},
            )
    preset = data.get("ruleset_preset", tournament.ruleset_preset)
    overrides = data.get("ruleset_overrides", tournament.ruleset_overrides)
    changed = []
    if "ruleset_preset" in data or "ruleset_overrides" in data:
        tournament.ruleset = _ruleset_effective(preset, overrides)
        changed.append("ruleset")
    for key, value in data.items():
        setattr(tournament, key, value)
        changed.append(key)
    _check_dates(tournament.starts_on, tournament.ends_on)
    tournament.save(update_fields=[*changed, "updated_at"])
    if "status" in data or "ruleset" in changed:
        action_log_record(
            tournament=tournament,
            actor=actor,
            verb="tournament.update",
            target=tournament,
            data={k: v for k, v in data.items() if k != "name"},
        )
    tournament_version_bump(tournament_id=tournament.pk)
    return tournament


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
        raise NotFoundError("No such tournament.", code="not_found")
    return int(row[0])


# -- players ------------------------------------------------------------------------------------


def _require_player_manager(actor: User) -> None:
    _require_authenticated(actor)
    if actor.is_staff or user_directs_any(user=actor):
        return
    raise PermissionDeniedError("Only directors may manage players.", code="not_director")


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
    """Register a player (players are shared between tournaments); directors and staff."""
    _require_player_manager(actor)
    return Player.objects.create(
        name=name,
        nickname=nickname,
        country=country.upper(),
        club=club,
        rating=rating,
        user=user,
    )


@transaction.atomic
def player_update(*, player: Player, actor: User, data: Mapping[str, Any]) -> Player:
    """Edit a player: staff, or a director of a tournament the player is entered in."""
    _require_authenticated(actor)
    if not (
        actor.is_staff
        or TournamentRole.objects.filter(
            user=actor,
            role=TournamentRole.Role.DIRECTOR,
            tournament__entries__player=player,
        ).exists()
    ):
        raise PermissionDeniedError(
            "Only a director of a tournament this player entered may edit them.",
            code="not_director",
        )
    allowed = {"name", "nickname", "country", "club", "rating"}
    for key, value in data.items():
        if key not in allowed:
            raise ApplicationError(
                f"{key} cannot be changed.", code="read_only", fields={key: ["Read-only."]}
            )
        setattr(player, key, value.upper() if key == "country" else value)
    with transaction.atomic():
        player.save()
        # Live pages of every tournament the player entered show the name: their cached
        # documents are keyed by the tournament version, so bump it.
        Tournament.objects.filter(entries__player=player).update(version=F("version") + 1)
    return player


# -- entries ------------------------------------------------------------------------------------


@transaction.atomic
def entry_create(
    *, tournament: Tournament, actor: User, player: Player, seed: int | None = None
) -> Entry:
    """Enter ``player`` in ``tournament`` (unique per tournament; seed unique when given)."""
    require_director(actor=actor, tournament=tournament)
    if tournament.status == Tournament.Status.FINISHED:
        raise ApplicationError("The tournament is finished.", code="tournament_finished")
    if Entry.objects.filter(tournament=tournament, player=player).exists():
        raise ApplicationError(
            f"{player} is already entered.",
            code="already_entered",
            fields={"player": ["Already entered in this tournament."]},
        )
    if seed is not None and Entry.objects.filter(tournament=tournament, seed=seed).exists():
        raise ApplicationError(
            f"Seed {seed} is taken.", code="seed_taken", fields={"seed": ["Taken."]}
        )
    try:
        with transaction.atomic():
            entry = Entry.objects.create(tournament=tournament, player=player, seed=seed)
    except IntegrityError:  # a concurrent request won the race
        raise ApplicationError(
            f"{player} is already entered (or the seed is taken).", code="already_entered"
        ) from None
    tournament_version_bump(tournament_id=tournament.pk)
    return entry


@transaction.atomic
def entry_update(*, entry: Entry, actor: User, data: Mapping[str, Any]) -> Entry:
    """Change an entry's seed or check-in."""
    require_director(actor=actor, tournament=entry.tournament)
    for key, value in data.items():
        if key == "seed":
            if (
                value is not None
                and Entry.objects.filter(tournament_id=entry.tournament_id, seed=value)
                .exclude(pk=entry.pk)
                .exists()
            ):
                raise ApplicationError(
                    f"Seed {value} is taken.", code="seed_taken", fields={"seed": ["Taken."]}
                )
            entry.seed = value
        elif key == "checked_in":
            entry.checked_in = bool(value)
            entry.checked_in_at = timezone.now() if value else None
        else:
            raise ApplicationError(
                f"{key} cannot be changed here.", code="read_only", fields={key: ["Read-only."]}
            )
    entry.save()
    tournament_version_bump(tournament_id=entry.tournament_id)
    return entry


def _entry_set_status(*, entry: Entry, actor: User, status: str, reason: str) -> Entry:
    require_director(actor=actor, tournament=entry.tournament)
    if not reason.strip():
        raise ApplicationError(
            "Give a reason.", code="reason_required", fields={"reason": ["Required."]}
        )
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    if entry.status != Entry.Status.ACTIVE:
        raise ApplicationError(f"The entry is already {entry.status}.", code="entry_not_active")
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


# -- tables and roles ---------------------------------------------------------------------------


@transaction.atomic
def table_create(*, tournament: Tournament, actor: User, number: int, label: str = "") -> Table:
    require_director(actor=actor, tournament=tournament)
    if Table.objects.filter(tournament=tournament, number=number).exists():
        raise ApplicationError(
            f"Table {number} exists.", code="table_exists", fields={"number": ["Taken."]}
        )
    table = Table.objects.create(tournament=tournament, number=number, label=label)
    tournament_version_bump(tournament_id=tournament.pk)
    return table


@transaction.atomic
def role_grant(*, tournament: Tournament, actor: User, user: User, role: str) -> TournamentRole:
    """Give ``user`` a role in ``tournament`` (idempotent: an existing role is returned)."""
    require_director(actor=actor, tournament=tournament)
    if role not in TournamentRole.Role.values:
        raise ApplicationError(
            f"Unknown role {role!r}.", code="bad_role", fields={"role": ["director or referee"]}
        )
    obj, _ = TournamentRole.objects.get_or_create(tournament=tournament, user=user, role=role)
    return obj


@transaction.atomic
def role_revoke(*, role: TournamentRole, actor: User) -> None:
    """Remove a role (logged); its referee tokens are deleted with it."""
    require_director(actor=actor, tournament=role.tournament)
    if (
        role.role == TournamentRole.Role.DIRECTOR
        and TournamentRole.objects.filter(
            tournament_id=role.tournament_id, role=TournamentRole.Role.DIRECTOR
        ).count()
        == 1
    ):
        raise ApplicationError("A tournament keeps at least one director.", code="last_director")
    action_log_record(
        tournament=role.tournament,
        actor=actor,
        verb="role.revoke",
        target=role,
        data={"user_id": role.user_id, "role": role.role},
    )
    role.delete()  # its referee tokens go with it (cascade): they stop working at once


@transaction.atomic
def referee_create(
    *, tournament: Tournament, actor: User, username: str, display_name: str = ""
) -> TournamentRole:
    """Create a password-less user who referees ``tournament`` (signs in by token only)."""
    require_director(actor=actor, tournament=tournament)
    user_model = get_user_model()
    if user_model.objects.filter(username=username).exists():
        raise ApplicationError(
            f"User {username!r} exists; grant them the role instead.",
            code="username_taken",
            fields={"username": ["Taken."]},
        )
    user = user_model.objects.create(username=username, first_name=display_name[:150])
    user.set_unusable_password()
    user.save(update_fields=["password"])
    return TournamentRole.objects.create(
        tournament=tournament, user=user, role=TournamentRole.Role.REFEREE
    )


# -- referee tokens -----------------------------------------------------------------------------


@transaction.atomic
def referee_token_issue(
    *, tournament: Tournament, actor: User, user: User, label: str = ""
) -> RefereeToken:
    """Issue a personal token (192 random bits) to a referee of ``tournament``.

    The key doubles as the private link ``/ref/<key>/`` (and its QR code).
    """
    require_director(actor=actor, tournament=tournament)
    role = TournamentRole.objects.filter(
        tournament=tournament, user=user, role=TournamentRole.Role.REFEREE
    ).first()
    if role is None:
        raise ApplicationError(
            f"{user} is not a referee of {tournament.name}.",
            code="not_referee",
            fields={"user": ["Grant the referee role first."]},
        )
    return RefereeToken.objects.create(
        role=role, key=secrets.token_urlsafe(24), label=label, issued_by=actor
    )


@transaction.atomic
def referee_token_revoke(*, token: RefereeToken, actor: User) -> RefereeToken:
    """Revoke a token at once (idempotent)."""
    require_director(actor=actor, tournament=token.role.tournament)
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.revoked_by = actor
        token.save(update_fields=["revoked_at", "revoked_by", "updated_at"])
        action_log_record(
            tournament=token.role.tournament,
            actor=actor,
            verb="referee_token.revoke",
            target=token,
            data={"user_id": token.role.user_id},
        )
    return token


def _failure_key(client_ip: str) -> str:
    return f"referee-token-failures:{client_ip}"


def referee_token_resolve(*, key: str, client_ip: str) -> RefereeToken:
    """The active token for ``key``, or an error; failed attempts are limited per address.

    An atomic Redis counter per client address (``cache.add`` + ``cache.incr``, a fixed
    window of ``REFEREE_TOKEN_FAILURE_WINDOW`` seconds from the first failure) refuses every
    lookup, good or bad, with 429 once ``REFEREE_TOKEN_MAX_FAILURES`` failures were counted
    (PITFALLS.md: DRF throttles race and are no security control). Unknown and revoked keys
    both count as failures and answer the same 401, so a revoked key reveals nothing.
    """
    limit = int(settings.REFEREE_TOKEN_MAX_FAILURES)
    window = int(settings.REFEREE_TOKEN_FAILURE_WINDOW)
    counter = _failure_key(client_ip)
    failures = cache.get(counter) or 0
    if failures >= limit:
        raise RefereeTokenThrottledError(
            "Too many wrong referee tokens from this address; try again later.",
            code="throttled",
        )
    token = (
        RefereeToken.objects.select_related("role__user", "role__tournament")
        .filter(key=key, revoked_at__isnull=True)
        .first()
        if isinstance(key, str) and 0 < len(key) <= 64
        else None
    )
    if token is None or not token.role.user.is_active:
        cache.add(counter, 0, timeout=window)
        try:
            count = cache.incr(counter)
        except ValueError:  # expired between add and incr
            cache.add(counter, 1, timeout=window)
            count = 1
        if count > limit:
            raise RefereeTokenThrottledError(
                "Too many wrong referee tokens from this address; try again later.",
                code="throttled",
            )
        raise RefereeTokenInvalidError("Unknown or revoked referee token.", code="invalid_token")
    now = timezone.now()
    # Write at most once a minute: the token is read on every request of the referee.
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        RefereeToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
