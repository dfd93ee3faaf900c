"""Writes of the tournament app (HackSoft services: ``<entity>_<action>``, keyword-only, typed).

Every service checks who may do it (a director manages their own tournaments only) and raises
:class:`core.exceptions.ApplicationError` subclasses for expected failures. Director actions
that change results or seating are written to :class:`ActionLog` in the same transaction.
"""

from __future__ import annotations

import hashlib
import hmac
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
from tournament.selectors import user_directs_any

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


def require_director(*, actor: User, tournament: Tournament, action: Any = None) -> None:
    """Raise unless ``actor`` may take a director ``action`` (default MANAGE) in ``tournament``:
    the permission table and the lifecycle gate of :mod:`tournament.context`."""
    from tournament.context import Action, require_actor

    require_actor(actor, tournament, action or Action.MANAGE)


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
        actor_id=actor.pk if actor is not None and actor.is_authenticated else None,
        verb=verb,
        target_type=target_type,
        target_id=target_id,
        reason=reason,
        # Dates, decimals, UUIDs... as JSON text (a tournament edit logs its starts_on).
        data=json.loads(json.dumps(dict(data or {}), cls=DjangoJSONEncoder)),
    )


# -- tournaments --------------------------------------------------------------------------------


@transaction.atomic
def tournament_create_allowed(*, actor: Any) -> bool:
    """Whether ``actor`` may create a tournament (``Action.CREATE_TOURNAMENT``): staff, users
    with ``tournament.add_tournament``, or anyone who already directs a tournament; never a
    referee credential."""
    if isinstance(actor, _referee_actor_class()) or not getattr(actor, "is_authenticated", False):
        return False
    return bool(
        actor.is_staff
        or actor.has_perm("tournament.add_tournament")
        or user_directs_any(user=actor)
    )


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
    if not tournament_create_allowed(actor=actor):
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
    if "status" in data or "ruleset" in changed or "confirmation" in data:
        action_log_record(
            tournament=tournament,
            actor=actor,
            verb="tournament.update",
            target=tournament,
            data={k: v for k, v in data.items() if k != "name"},
        )
    tournament_version_bump(tournament_id=tournament.pk)
    return tournament


# -- lifecycle ------------------------------------------------------------------------------------


@transaction.atomic
def tournament_status_change(
    *, tournament: Tournament, actor: User, status: str, reason: str = ""
) -> Tournament:
    """Move a tournament forward (draft -> registration -> running -> finished), logged.

    The system also moves it by itself: the first published round makes it running
    (:func:`tournament_mark_running`), the final table's end makes it finished
    (:func:`tournament_mark_finished`). Finished is read-only; see :func:`tournament_reopen`.
    """
    require_director(actor=actor, tournament=tournament, action=_action("CHANGE_STATUS"))
    locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if status not in _STATUS_ORDER or _STATUS_ORDER.index(status) <= _STATUS_ORDER.index(
        locked.status
    ):
        raise ApplicationError(
            f"Status cannot go from {locked.status} to {status}.",
            code="bad_status_transition",
            rule="lifecycle",
            fields={"status": [f"Only forward from {locked.status}."]},
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
    tournament_version_bump(tournament_id=locked.pk)
    return locked


@transaction.atomic
def tournament_reopen(*, tournament: Tournament, actor: User, reason: str) -> Tournament:
    """A director reopens a finished tournament (back to running) with a reason, logged."""
    require_director(actor=actor, tournament=tournament, action=_action("REOPEN"))
    if not isinstance(reason, str) or not reason.strip():
        raise ApplicationError(
            "Give a reason to reopen a finished tournament.",
            code="reason_required",
            fields={"reason": ["Required."]},
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
    tournament_version_bump(tournament_id=locked.pk)
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
    """The final table has played (champion decided): finished, read-only (logged)."""
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
        raise NotFoundError("No such tournament.", code="not_found")
    return int(row[0])


# -- players ------------------------------------------------------------------------------------


def _referee_actor_class() -> type:
    from tournament.context import RefereeActor

    return RefereeActor


def _require_player_manager(actor: User) -> None:
    _require_authenticated(actor)
    if isinstance(actor, _referee_actor_class()):
        raise PermissionDeniedError(
            "Referee credentials cannot manage players.", code="not_director"
        )
    if actor.is_staff or actor.is_superuser or user_directs_any(user=actor):
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


IDENTITY_FIELDS = frozenset({"name", "nickname", "country", "club"})


@transaction.atomic
def player_update(*, player: Player, actor: User, data: Mapping[str, Any]) -> Player:
    """Edit a player (players are shared between tournaments).

    Identity fields (name, nickname, country, club) change the player in EVERY tournament, so
    only staff or someone who directs every tournament the player has entered may change them
    (issue 12 finding 5: adding a player to your own tournament gives no power over their
    name elsewhere). The rating: staff or a director of a tournament the player entered. A
    player not entered anywhere: staff or any director.
    """
    _require_authenticated(actor)
    staff = bool(getattr(actor, "is_staff", False) or getattr(actor, "is_superuser", False))
    if not staff:
        if isinstance(actor, _referee_actor_class()):
            raise PermissionDeniedError(
                "Referee credentials cannot edit players.", code="not_director"
            )
        entered = set(Entry.objects.filter(player=player).values_list("tournament_id", flat=True))
        directed = set(
            TournamentRole.objects.filter(
                user_id=actor.pk, role=TournamentRole.Role.DIRECTOR
            ).values_list("tournament_id", flat=True)
        )
        if not entered:
            allowed_edit = bool(directed)
        elif IDENTITY_FIELDS & set(data):
            allowed_edit = entered <= directed
        else:
            allowed_edit = bool(entered & directed)
        if not allowed_edit:
            raise PermissionDeniedError(
                "Only staff or a director of every tournament this player has entered may "
                "change their name, nickname, country or club.",
                code="not_director_of_every_tournament",
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
    """Make an EXISTING account a co-director of ``tournament`` (idempotent).

    Only staff may do this (docs/security.md: a director cannot hand a role to an arbitrary
    account, whose id is public). Staff and superuser accounts never get a tournament role
    this way, and the referee role is never granted to an account: referees are
    tournament-scoped identities created by :func:`referee_create`.
    """
    require_director(actor=actor, tournament=tournament, action=_action("GRANT_ROLE"))
    if role not in TournamentRole.Role.values:
        raise ApplicationError(
            f"Unknown role {role!r}.", code="bad_role", fields={"role": ["director or referee"]}
        )
    if role == TournamentRole.Role.REFEREE:
        raise ApplicationError(
            "The referee role is not given to an account: create a referee for this "
            "tournament (POST referees/) and issue them a credential.",
            code="referee_is_not_an_account",
            fields={"role": ["Create a referee instead."]},
        )
    if getattr(user, "is_staff", False) or getattr(user, "is_superuser", False):
        raise ApplicationError(
            "Staff and superuser accounts are never given a tournament role.",
            code="privileged_account",
            fields={"user": ["A staff or superuser account."]},
        )
    if not getattr(user, "is_active", False):
        raise ApplicationError(
            "This account cannot sign in (a referee identity?).",
            code="inactive_account",
            fields={"user": ["Inactive account."]},
        )
    obj, created = TournamentRole.objects.get_or_create(tournament=tournament, user=user, role=role)
    if created:
        action_log_record(
            tournament=tournament,
            actor=actor,
            verb="role.grant",
            target=obj,
            data={"user_id": user.pk, "role": role},
        )
    return obj


def _action(name: str) -> Any:
    from tournament.context import Action

    return Action[name]


@transaction.atomic
def role_revoke(*, role: TournamentRole, actor: User) -> None:
    """Remove a role (logged); its referee credentials are deleted with it."""
    require_director(actor=actor, tournament=role.tournament, action=_action("MANAGE_REFEREES"))
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
    role.delete()  # its credentials go with it (cascade): they stop working at once


@transaction.atomic
def referee_create(
    *, tournament: Tournament, actor: User, username: str, display_name: str = ""
) -> TournamentRole:
    """Create a NEW tournament-scoped referee identity (docs/security.md).

    It is a user row only so that ``Match.referee`` and ``Hand.recorded_by`` keep pointing at
    a user (the hot-path SQL is unchanged): no password, not staff, **inactive** (Django never
    signs it in), one referee role in this one tournament. It acts only through a credential
    (:func:`referee_token_issue`).
    """
    require_director(actor=actor, tournament=tournament, action=_action("MANAGE_REFEREES"))
    user_model = get_user_model()
    if user_model.objects.filter(username=username).exists():
        raise ApplicationError(
            f"The name {username!r} is taken; choose another.",
            code="username_taken",
            fields={"username": ["Taken."]},
        )
    user = user_model(
        username=username, first_name=display_name[:150], is_active=False, is_staff=False
    )
    user.set_unusable_password()
    user.save()
    role = TournamentRole.objects.create(
        tournament=tournament, user=user, role=TournamentRole.Role.REFEREE
    )
    action_log_record(
        tournament=tournament,
        actor=actor,
        verb="referee.create",
        target=role,
        data={"user_id": user.pk, "username": username},
    )
    return role


# -- referee credentials --------------------------------------------------------------------------

KEY_SEPARATOR = "."


def credential_hash(key: str) -> str:
    """SHA-256 of the whole key (hex): enough for a 192-bit random secret (no slow hash)."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def _new_key() -> tuple[str, str]:
    prefix = secrets.token_urlsafe(9)  # 12 characters, not secret: the lookup
    return prefix, f"{prefix}{KEY_SEPARATOR}{secrets.token_urlsafe(24)}"  # + 192 secret bits


@transaction.atomic
def referee_token_issue(
    *, tournament: Tournament, actor: User, user: User, label: str = ""
) -> RefereeToken:
    """Issue a credential to a referee of ``tournament``.

    The returned instance carries ``key`` (``<prefix>.<secret>``) for this one answer; only
    its hash is stored. The key doubles as the private link ``/ref/#<key>`` (and its QR code).
    """
    require_director(actor=actor, tournament=tournament, action=_action("MANAGE_REFEREES"))
    role = TournamentRole.objects.filter(
        tournament=tournament, user=user, role=TournamentRole.Role.REFEREE
    ).first()
    if (
        role is None
        or getattr(user, "is_staff", False)
        or getattr(user, "is_superuser", False)
        or TournamentRole.objects.filter(user=user).exclude(pk=role.pk).exists()
    ):  # a credential's identity is a referee of one tournament and nothing else
        raise ApplicationError(
            f"{user} is not a referee of {tournament.name}.",
            code="not_referee",
            fields={"user": ["Create a referee for this tournament first."]},
        )
    prefix, key = _new_key()
    token = RefereeToken.objects.create(
        role=role, prefix=prefix, key_hash=credential_hash(key), label=label, issued_by=actor
    )
    action_log_record(
        tournament=tournament,
        actor=actor,
        verb="referee_token.issue",
        target=token,
        data={"user_id": user.pk, "prefix": prefix},
    )
    token.key = key  # type: ignore[attr-defined]  # shown once, never stored
    return token


@transaction.atomic
def referee_token_revoke(*, token: RefereeToken, actor: User) -> RefereeToken:
    """Revoke a credential at once (idempotent): the key and every session opened through its
    link are refused from the next request on."""
    tournament = token.role.tournament
    require_director(actor=actor, tournament=tournament, action=_action("MANAGE_REFEREES"))
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.revoked_by = actor
        token.save(update_fields=["revoked_at", "revoked_by", "updated_at"])
        action_log_record(
            tournament=tournament,
            actor=actor,
            verb="referee_token.revoke",
            target=token,
            data={"user_id": token.role.user_id},
        )
    return token


def _failure_key(client_ip: str) -> str:
    return f"referee-token-failures:{client_ip}"


def _count_failure(client_ip: str) -> None:
    """One more wrong key from this address; 429 once over the limit (fixed window)."""
    limit = int(settings.REFEREE_TOKEN_MAX_FAILURES)
    window = int(settings.REFEREE_TOKEN_FAILURE_WINDOW)
    counter = _failure_key(client_ip)
    cache.add(counter, 0, timeout=window)
    try:
        count = cache.incr(counter)
    except ValueError:  # expired between add and incr
        cache.add(counter, 1, timeout=window)
        count = 1
    if count > limit:
        raise RefereeTokenThrottledError(
            "Too many wrong referee keys from this address; try again later.",
            code="throttled",
        )


def referee_token_resolve(*, key: str, client_ip: str) -> RefereeToken:
    """The usable credential for ``key``, or an error.

    A VALID key is always checked and accepted, whatever the address did before (one venue
    behind one NAT must not lock its referees out). Only wrong keys count towards
    ``REFEREE_TOKEN_MAX_FAILURES`` per ``REFEREE_TOKEN_FAILURE_WINDOW`` seconds per client
    address, and only they get 429 once over it. The lookup is by the non-secret prefix; the
    hash is compared with :func:`hmac.compare_digest`. Unknown and revoked keys answer the same
    401; a valid key of a tournament that is not running gets its own 401 (and is no failure).
    """
    prefix = key.split(KEY_SEPARATOR, 1)[0] if isinstance(key, str) else ""
    token = (
        RefereeToken.objects.select_related("role__tournament")
        .filter(prefix=prefix, role__role=TournamentRole.Role.REFEREE)
        .first()
        if isinstance(key, str) and KEY_SEPARATOR in key and 0 < len(key) <= 128 and prefix
        else None
    )
    if (
        token is None
        or not hmac.compare_digest(token.key_hash, credential_hash(key))
        or token.revoked_at is not None
    ):
        _count_failure(client_ip)
        raise RefereeTokenInvalidError("Unknown or revoked referee key.", code="invalid_token")
    if token.role.tournament.status != Tournament.Status.RUNNING:
        raise RefereeTokenInvalidError(
            f"{token.role.tournament.name} is {token.role.tournament.status}: referee keys "
            "work only while it is running.",
            code="tournament_not_running",
        )
    now = timezone.now()
    # Write at most once a minute: the credential is read on every request of the referee.
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        RefereeToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
