"""Who is asking: the caller of a request (:class:`Principal`), a referee credential's actor
(:class:`RefereeActor`) and the caller's roles in a tournament (:class:`Role`).

Part of the ONE tournament context (:mod:`tournament.context`, which re-exports every name
here and holds the permission table, the lifecycle gates and the routes; docs/security.md).
A referee credential is a CAPABILITY, never a login: its actor carries the tournament-scoped
referee identity's id and nothing else.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import F, Q
from django.http import HttpRequest
from django.utils import timezone

from core.sql import Columns, default_connection, prepared_cursor
from core.sql import column as sql_column
from core.sql import table as sql_table
from tournament.models import RefereeToken, Tournament, TournamentRole

SESSION_CREDENTIAL_KEY = "referee_credential_id"

#: How long after its tournament finished a session opened from a referee link may still READ
#: (the answer to the final hand, the result on the referee's page): never a write, and no new
#: session (the link itself stops working at the finish). Setting: REFEREE_READ_AFTER_FINISH
#: (seconds).
REFEREE_READ_AFTER_FINISH = timedelta(minutes=15)

#: The methods a session may still use in that short read (nothing that changes anything).
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

Status = Tournament.Status


class Role(enum.StrEnum):
    """Who the caller is in one tournament (a caller may hold several: staff + director)."""

    ANONYMOUS = "anonymous"
    USER = "user"  # signed in, no role here (a spectator with an account)
    REFEREE = "referee"  # a referee credential of THIS tournament (token or link session)
    DIRECTOR = "director"  # a director of THIS tournament (superusers direct every one)
    # Site staff (is_staff or superuser). For an action of the permission table's staff
    # column it counts only with that action's Django permission (context.STAFF_PERMISSIONS).
    STAFF = "staff"


class RefereeActor:
    """What a referee credential acts as: the tournament-scoped referee identity, nothing more.

    ``pk`` is the identity's user id (``Match.referee``, ``Hand.recorded_by``); it is never a
    site session. No staff flag, no Django permission, one tournament.
    """

    is_authenticated = True
    is_anonymous = False
    is_active = True
    is_staff = False
    is_superuser = False

    def __init__(
        self,
        *,
        user_id: int,
        tournament_id: int,
        credential_id: int | None = None,
        read_only: bool = False,
    ):
        self.pk = self.id = user_id
        self.tournament_id = tournament_id
        self.credential_id = credential_id
        # A link session in its short read after the finish (:func:`session_referee`): it
        # only ever reaches read requests, and the lifecycle gates refuse every write anyway.
        self.read_only = read_only

    @classmethod
    def of(cls, token: RefereeToken, *, read_only: bool = False) -> RefereeActor:
        return cls(
            user_id=token.role.user_id,
            tournament_id=token.role.tournament_id,
            credential_id=token.pk,
            read_only=read_only,
        )

    def has_perm(self, perm: str, obj: Any = None) -> bool:
        return False

    def has_perms(self, perms: Any, obj: Any = None) -> bool:
        return False

    def has_module_perms(self, app_label: str) -> bool:
        return False

    def get_username(self) -> str:
        return f"referee-credential-{self.credential_id}"

    def __str__(self) -> str:
        return f"referee credential {self.credential_id}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RefereeActor) and other.pk == self.pk

    def __hash__(self) -> int:
        return hash(("referee", self.pk))


@dataclass
class Principal:
    """The caller of one request: a site account, a referee credential, or nobody."""

    user: Any = None  # an authenticated site account (never a referee identity)
    referee: RefereeActor | None = None
    _roles: dict[int, frozenset[Role]] = field(default_factory=dict, repr=False)

    @property
    def actor(self) -> Any:
        """What the services receive as ``actor``."""
        if self.referee is not None:
            return self.referee
        return self.user

    @property
    def is_anonymous(self) -> bool:
        return self.user is None and self.referee is None

    def site_roles(self) -> frozenset[Role]:
        """Roles that do not depend on a tournament."""
        if self.referee is not None:
            return frozenset()
        if self.user is None:
            return frozenset({Role.ANONYMOUS})
        roles = {Role.USER}
        if self.user.is_staff or self.user.is_superuser:
            roles.add(Role.STAFF)
        return frozenset(roles)

    def roles_in(self, tournament_id: int) -> frozenset[Role]:
        """The caller's roles in one tournament (one query for a site account, memoised)."""
        if tournament_id in self._roles:
            return self._roles[tournament_id]
        roles = set(self.site_roles())
        if self.referee is not None:
            if self.referee.tournament_id == tournament_id:
                roles.add(Role.REFEREE)
            else:
                roles.add(Role.ANONYMOUS)  # elsewhere a credential is nobody
        elif self.user is not None:
            roles |= user_roles_in(self.user, tournament_id)
        frozen = frozenset(roles)
        self._roles[tournament_id] = frozen
        return frozen


def holds_permission(user: Any, permission: str) -> bool:
    """Whether a signed-in site account holds a Django permission (``"app.codename"``; an
    active superuser holds every one). The staff flag alone holds none; a referee credential
    and an anonymous caller hold none."""
    if user is None or isinstance(user, RefereeActor):
        return False
    if not getattr(user, "is_authenticated", False):
        return False
    return bool(user.has_perm(permission))


def user_roles_in(user: Any, tournament_id: int) -> set[Role]:
    """An account's roles in a tournament from its role rows (one query; a superuser directs
    every tournament). A REFEREE row is only ever held by a tournament-scoped referee identity
    (inactive, no password: it never has a session), so for a signed-in account it is inert;
    the services see it when a credential acts as that identity."""
    if getattr(user, "is_superuser", False):
        return {Role.DIRECTOR}
    rows = TournamentRole.objects.filter(tournament_id=tournament_id, user_id=user.pk)
    return {Role(r) for r in rows.values_list("role", flat=True)}


def actor_roles(actor: Any, tournament_id: int) -> frozenset[Role]:
    """The roles of a service's ``actor`` (a site account or a :class:`RefereeActor`)."""
    if isinstance(actor, RefereeActor):
        return Principal(referee=actor).roles_in(tournament_id)
    if actor is None or not getattr(actor, "is_authenticated", False):
        return frozenset({Role.ANONYMOUS})
    return Principal(user=actor).roles_in(tournament_id)


def principal_from_request(request: HttpRequest) -> Principal:
    """The caller, once per request (cached on the request).

    DRF puts a :class:`RefereeActor` in ``request.user`` for a credential (token or link
    session); Django's session gives a site account; a session opened from a referee link holds
    only the credential id, re-checked here on every request.
    """
    cached = getattr(request, "_principal", None)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    user = getattr(request, "user", None)
    if isinstance(user, RefereeActor):
        principal = Principal(referee=user)
    elif user is not None and user.is_authenticated:
        principal = Principal(user=user)
    else:
        actor = session_referee(request)
        principal = Principal(referee=actor) if actor is not None else Principal()
    request._principal = principal  # type: ignore[attr-defined]
    return principal


def session_referee(request: HttpRequest) -> RefereeActor | None:
    """The referee credential of a session opened from a link, re-checked now: revoked or not
    running -> the session forgets it at once.

    One exception, read-only and short: when the credential's tournament has just FINISHED
    (the referee's own last hand may have finished it), a read request (GET/HEAD/OPTIONS) still
    acts as a read-only credential for :data:`REFEREE_READ_AFTER_FINISH`, so the phone can load
    the result of the hand it just recorded. A write is never accepted then: it gets no
    credential at all (and the lifecycle gates refuse writes in a finished tournament for
    everyone). The session forgets the credential once that window has passed.
    """
    session = getattr(request, "session", None)
    if session is None:
        return None
    credential_id = session.get(SESSION_CREDENTIAL_KEY)
    if credential_id is None:
        return None
    token = credential_usable(credential_id=credential_id)
    if token is not None:
        credential_touch(token)
        return RefereeActor.of(token)
    # Only off the running path: the hand POST of a running tournament never gets here.
    reader = credential_readable_after_finish(credential_id=credential_id)
    if reader is None:
        session.pop(SESSION_CREDENTIAL_KEY, None)
        return None
    if request.method not in READ_METHODS:
        return None  # never a write after the finish; the session keeps its short read
    return RefereeActor.of(reader, read_only=True)


def revoked_at_finish(token: RefereeToken, tournament: Tournament) -> bool:
    """Whether ``token`` was revoked by its (finished) tournament's finish: finishing revokes
    every credential still active at the very moment it finishes, its ``updated_at``
    (``tournament.services.referee_tokens_revoke_at_finish``; a finished tournament is
    read-only, so nothing moves that moment, and no director can revoke a credential of a
    finished one). Such a credential keeps what the finish leaves a referee: the short read of
    its own match and the link's "your work is done". Any other revoked credential, and every
    one once the tournament is reopened, keeps nothing."""
    return (
        token.revoked_at is not None
        and tournament.status == Status.FINISHED
        and token.revoked_at == tournament.updated_at
    )


def _credential(
    credential_id: Any, *, at_finish: bool = False, **tournament: Any
) -> RefereeToken | None:
    """The credential with this id, not revoked (or, ``at_finish``, revoked by its tournament's
    finish: :func:`revoked_at_finish`), its referee role standing, its tournament matching
    ``tournament`` (``role__tournament__`` lookups); one query."""
    try:
        pk = int(credential_id)
    except (TypeError, ValueError):
        return None
    standing = Q(revoked_at__isnull=True)
    if at_finish:
        standing |= Q(
            revoked_at=F("role__tournament__updated_at"), role__tournament__status=Status.FINISHED
        )
    return (
        RefereeToken.objects.select_related("role")
        .filter(
            standing,
            pk=pk,
            role__role=TournamentRole.Role.REFEREE,
            **{f"role__tournament__{k}": v for k, v in tournament.items()},
        )
        .first()
    )


_TOKEN_COLUMNS: Columns[RefereeToken] = Columns(RefereeToken, alias="c")
_ROLE_COLUMNS: Columns[TournamentRole] = Columns(TournamentRole, alias="r")


@functools.lru_cache(maxsize=4)
def _usable_statement(vendor: str) -> str:
    """The statement of :func:`credential_usable` (params: id, referee role, running)."""
    role, tournament = sql_table(TournamentRole), sql_table(Tournament)
    return (
        f"SELECT {_TOKEN_COLUMNS.sql}, {_ROLE_COLUMNS.sql} "  # noqa: S608 (names from _meta)
        f"FROM {sql_table(RefereeToken)} c "
        f"JOIN {role} r ON r.{sql_column(TournamentRole, 'id')} = "
        f"c.{sql_column(RefereeToken, 'role')} "
        f"JOIN {tournament} t ON t.{sql_column(Tournament, 'id')} = "
        f"r.{sql_column(TournamentRole, 'tournament')} "
        f"WHERE c.{sql_column(RefereeToken, 'id')} = %s "
        f"AND c.{sql_column(RefereeToken, 'revoked_at')} IS NULL "
        f"AND r.{sql_column(TournamentRole, 'role')} = %s "
        f"AND t.{sql_column(Tournament, 'status')} = %s"
    )


def credential_usable(*, credential_id: Any) -> RefereeToken | None:
    """The credential with this id when it may still act: not revoked, its role standing, its
    tournament running (one query, with its role).

    Every request from a referee link's session asks this (:func:`session_referee`), so the
    statement is precompiled and prepared (``core.sql``): through the ORM, compiling it cost
    about half the CPU of a referee's request (bench/bench_hands.py). The same filter as
    :func:`_credential` with ``status=RUNNING`` (the tests hold both to it).
    """
    try:
        pk = int(credential_id)
    except (TypeError, ValueError):
        return None
    params: list[Any] = [pk, TournamentRole.Role.REFEREE.value, Status.RUNNING.value]
    with prepared_cursor() as cursor:
        cursor.execute(_usable_statement(default_connection().vendor), params)
        row = cursor.fetchone()
    if row is None:
        return None
    n = len(_TOKEN_COLUMNS.attnames)
    token = _TOKEN_COLUMNS.instance(row[:n])
    token.role = _ROLE_COLUMNS.instance(row[n:])
    return token


#: How stale ``RefereeToken.last_used_at`` may get before a request writes it again.
LAST_USED_RESOLUTION = timedelta(minutes=1)


def credential_touch(token: RefereeToken) -> None:
    """Record that ``token`` acted now, at most once a minute: the director's Referees page
    shows when each credential was last used (a phone signed in from the link keeps using it
    through its session, so the link's opening alone would read "last used" hours ago)."""
    now = timezone.now()
    if token.last_used_at is not None and now - token.last_used_at < LAST_USED_RESOLUTION:
        return
    RefereeToken.objects.filter(pk=token.pk).update(last_used_at=now)
    token.last_used_at = now


def read_after_finish() -> timedelta:
    """:data:`REFEREE_READ_AFTER_FINISH`, or the ``REFEREE_READ_AFTER_FINISH`` setting
    (seconds)."""
    seconds = getattr(settings, "REFEREE_READ_AFTER_FINISH", None)
    return REFEREE_READ_AFTER_FINISH if seconds is None else timedelta(seconds=int(seconds))


def credential_readable_after_finish(*, credential_id: Any) -> RefereeToken | None:
    """The credential with this id when its tournament finished less than
    :func:`read_after_finish` ago (revoked by that finish and nothing else, its role
    standing): it may still read, never write (one query). A finished tournament is
    read-only, so its ``updated_at`` is the time it finished (the finish and a reopen both
    write it; version bumps do not)."""
    return _credential(
        credential_id,
        at_finish=True,
        status=Status.FINISHED,
        updated_at__gte=timezone.now() - read_after_finish(),
    )
