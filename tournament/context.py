"""The ONE tournament context: which tournament a request is about, who is asking, and what
they may do there (issue 12; docs/security.md).

Every API view, director/referee/spectator page, websocket consumer and service decides access
through this module:

* :class:`Principal` - the caller (defined in :mod:`tournament.principal`), resolved once per
  request by :func:`principal_from_request`: a site account (session or API login), a referee
  credential (``Authorization: Token`` or a session opened from a referee link, which stores
  only the credential's id and is re-checked on every request), or nobody.
* :data:`PERMISSIONS` - the permission table, role x action. The code and the generated test
  (tests/security/test_permission_table.py) both read it; :data:`ROUTES` names the action of
  every route in ``config/urls.py`` (the test fails on a route without an entry).
* :data:`STATUS_GATES` - the lifecycle gate of each action (draft -> registration -> running
  -> finished): a finished tournament is read-only for everyone.
* :class:`TournamentContext` + :func:`require` - one check: role in the table, then the gate.

A referee credential is a CAPABILITY, never a login: it never becomes ``request.user`` as a
site account. Its actor (:class:`RefereeActor`) carries the tournament-scoped referee identity's
id (``Match.referee`` stays a user foreign key) and nothing else: no staff flag, no permission,
no role outside its one tournament.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy

from core.api.versioning import RELEASES as API_VERSIONS
from core.exceptions import ApplicationError, NotFoundError, PermissionDeniedError
from tournament.models import Tournament

# The caller and its roles live in tournament.principal; re-exported: this is the one context.
from tournament.principal import (
    SESSION_CREDENTIAL_KEY as SESSION_CREDENTIAL_KEY,
)
from tournament.principal import (
    Principal as Principal,
)
from tournament.principal import (
    RefereeActor as RefereeActor,
)
from tournament.principal import (
    Role as Role,
)
from tournament.principal import (
    actor_roles as actor_roles,
)
from tournament.principal import (
    credential_usable as credential_usable,
)
from tournament.principal import (
    holds_permission as holds_permission,
)
from tournament.principal import (
    principal_from_request as principal_from_request,
)
from tournament.principal import (
    session_referee as session_referee,
)
from tournament.principal import (
    user_roles_in as user_roles_in,
)

Status = Tournament.Status


class Action(enum.StrEnum):
    # public
    VIEW_PUBLIC = "view_public"  # live pages, public API reads of a visible tournament
    SIGN_IN = "sign_in"  # login/logout, referee link exchange, who-am-I, health, docs
    # a referee credential's whole capability (plus VIEW_PUBLIC)
    VIEW_MATCH = "view_match"  # the referee page of an assigned match
    RECORD_HAND = "record_hand"  # record a hand / start the match (assigned matches)
    UNDO_HAND = "undo_hand"  # void the last hand (assigned matches)
    # directors of this tournament
    VIEW_PRIVATE = "view_private"  # director pages, roles, credentials, action log, previews
    MANAGE = "manage"  # edit tournament, entries, tables, stages, rounds, matches
    DECIDE_MATCH = "decide_match"  # override, forfeit, assign referee
    MANAGE_REFEREES = "manage_referees"  # referees, their credentials, removing roles (+ rules)
    GRANT_ROLE = "grant_role"  # make an EXISTING account a co-director: staff, with permission
    INVITE_DIRECTOR = "invite_director"  # issue/revoke one-time links that make a NEW account
    CHANGE_STATUS = "change_status"  # move the lifecycle forward
    REOPEN = "reopen"  # reopen a finished tournament (with a reason, logged)
    # site level (no tournament in the URL)
    CREATE_TOURNAMENT = "create_tournament"
    CREATE_PLAYER = "create_player"
    EDIT_PLAYER = "edit_player"  # + the object rule: directs EVERY tournament the player played
    ADMIN = "admin"  # Django admin: staff only (Django's own checks)


_EVERYONE = frozenset(Role)
_REFEREE_OR_DIRECTOR = frozenset({Role.REFEREE, Role.DIRECTOR})
_DIRECTOR = frozenset({Role.DIRECTOR})

#: THE permission table: which roles may take each action. Read by :func:`require`, by the
#: services (:func:`actor_may`) and by the generated test.
PERMISSIONS: dict[Action, frozenset[Role]] = {
    Action.VIEW_PUBLIC: _EVERYONE,
    Action.SIGN_IN: _EVERYONE,
    Action.VIEW_MATCH: _REFEREE_OR_DIRECTOR,
    Action.RECORD_HAND: _REFEREE_OR_DIRECTOR,
    Action.UNDO_HAND: _REFEREE_OR_DIRECTOR,
    Action.VIEW_PRIVATE: _DIRECTOR,
    Action.MANAGE: _DIRECTOR,
    Action.DECIDE_MATCH: _DIRECTOR,
    Action.MANAGE_REFEREES: _DIRECTOR,
    Action.GRANT_ROLE: frozenset({Role.STAFF}),
    Action.INVITE_DIRECTOR: _DIRECTOR,
    Action.CHANGE_STATUS: _DIRECTOR,
    Action.REOPEN: _DIRECTOR,
    Action.CREATE_TOURNAMENT: frozenset({Role.STAFF, Role.DIRECTOR}),  # director of any
    Action.CREATE_PLAYER: frozenset({Role.STAFF, Role.DIRECTOR}),  # director of any
    Action.EDIT_PLAYER: frozenset({Role.STAFF, Role.DIRECTOR}),  # see player_update
    Action.ADMIN: frozenset({Role.STAFF}),
}

#: What the ``staff`` column of :data:`PERMISSIONS` asks, action by action: the Django
#: permission the account must hold (superusers hold every one; staff are given them in the
#: admin). The staff flag alone holds none: it opens the admin, where the same permissions
#: decide, and nothing else. ``ADMIN`` is the admin's own (Django checks its permissions).
STAFF_PERMISSIONS: dict[Action, str] = {
    Action.GRANT_ROLE: "tournament.add_tournamentrole",
    Action.CREATE_TOURNAMENT: "tournament.add_tournament",
    Action.CREATE_PLAYER: "tournament.add_player",
    Action.EDIT_PLAYER: "tournament.change_player",
}
assert set(STAFF_PERMISSIONS) == {
    a
    for a, roles in PERMISSIONS.items()
    if Role.STAFF in roles and roles != _EVERYONE and a != Action.ADMIN
}

#: Who sees a draft besides its directors: the accounts that may see it in the admin too.
VIEW_DRAFTS_PERMISSION = "tournament.view_tournament"

_ALL = frozenset(Status)
_NOT_FINISHED = frozenset({Status.DRAFT, Status.REGISTRATION, Status.RUNNING})
_RUNNING = frozenset({Status.RUNNING})

#: The lifecycle gate: in which tournament statuses an action is possible at all (for anyone).
STATUS_GATES: dict[Action, frozenset[str]] = {
    Action.VIEW_PUBLIC: _ALL,  # drafts: only to their directors (see TournamentContext)
    Action.SIGN_IN: _ALL,
    Action.VIEW_MATCH: _ALL,
    Action.RECORD_HAND: _RUNNING,
    Action.UNDO_HAND: _RUNNING,
    Action.VIEW_PRIVATE: _ALL,
    Action.MANAGE: _NOT_FINISHED,
    Action.DECIDE_MATCH: _RUNNING,
    Action.MANAGE_REFEREES: _NOT_FINISHED,
    Action.GRANT_ROLE: _NOT_FINISHED,
    Action.INVITE_DIRECTOR: _NOT_FINISHED,
    Action.CHANGE_STATUS: _NOT_FINISHED,
    Action.REOPEN: frozenset({Status.FINISHED}),
    Action.CREATE_TOURNAMENT: _ALL,
    Action.CREATE_PLAYER: _ALL,
    Action.EDIT_PLAYER: _ALL,
    Action.ADMIN: _ALL,
}

#: What a gated action is, in the caller's language: the lifecycle gate's message names it
#: ("... is finished: issuing referee links is no longer possible").
GATED_ACTION_WORDS: dict[Action, Promise] = {
    Action.RECORD_HAND: gettext_lazy("recording a hand"),
    Action.UNDO_HAND: gettext_lazy("undoing a hand"),
    Action.MANAGE: gettext_lazy("changing the tournament"),
    Action.DECIDE_MATCH: gettext_lazy("deciding a match"),
    Action.MANAGE_REFEREES: gettext_lazy("managing referees and issuing their links"),
    Action.GRANT_ROLE: gettext_lazy("granting a role"),
    Action.INVITE_DIRECTOR: gettext_lazy("inviting a co-director"),
    Action.CHANGE_STATUS: gettext_lazy("changing the status"),
    Action.REOPEN: gettext_lazy("reopening the tournament"),
}
assert set(GATED_ACTION_WORDS) == {a for a, gate in STATUS_GATES.items() if gate != _ALL}

#: The statuses in which a tournament is visible to the anonymous principal: the live layer's
#: fast lookup (live/scope.py, the hottest query of the site) reads this instead of building a
#: full context, so a draft is invisible there by the same rule as everywhere else.
PUBLIC_STATUSES = tuple(s for s in Status if s != Status.DRAFT)

#: A referee credential may do these and nothing else, whatever else the table grows.
REFEREE_CAPABILITY = frozenset(
    {Action.VIEW_PUBLIC, Action.SIGN_IN, Action.VIEW_MATCH, Action.RECORD_HAND, Action.UNDO_HAND}
)
assert all(Role.REFEREE not in roles or a in REFEREE_CAPABILITY for a, roles in PERMISSIONS.items())

#: Every route of ``config/urls.py`` (URL name, ``*`` for a whole namespace) -> the action of
#: each HTTP method ("*" for any method). The generated permission test asserts that no route
#: is missing here and checks every role against these actions.
_R = "*"
ROUTES: dict[str, dict[str, Action]] = {
    "healthz": {_R: Action.SIGN_IN},
    "readyz": {_R: Action.SIGN_IN},
    "metrics": {_R: Action.SIGN_IN},
    "rules": {_R: Action.VIEW_PUBLIC},
    # The referee app's service worker script (static code, no data).
    "service-worker": {_R: Action.VIEW_PUBLIC},
    "favicon": {_R: Action.VIEW_PUBLIC},  # a redirect to the site's icon (static, no data)
    "referee-card": {
        _R: Action.VIEW_PUBLIC
    },  # operations endpoint (deploy restricts who reaches it)
    "player-rating": {_R: Action.VIEW_PUBLIC},
    "ratings:*": {_R: Action.VIEW_PUBLIC},
    "ratings:player-duplicates": {_R: Action.ADMIN},
    "circuit-standings": {_R: Action.VIEW_PUBLIC},
    "circuits:*": {_R: Action.VIEW_PUBLIC},
    "set_language": {_R: Action.SIGN_IN},
    "admin:*": {_R: Action.ADMIN},
    "login": {_R: Action.SIGN_IN},
    "logout": {_R: Action.SIGN_IN},
    "api-schema": {_R: Action.SIGN_IN},
    "api-docs": {_R: Action.SIGN_IN},
    "api-schema-v1": {_R: Action.SIGN_IN},
    "api-schema-v2": {_R: Action.SIGN_IN},
    "api-docs-v2": {_R: Action.SIGN_IN},
    "home": {_R: Action.VIEW_PUBLIC},
    # tournament API
    "tournament-api:session-login": {_R: Action.SIGN_IN},
    "tournament-api:session-logout": {_R: Action.SIGN_IN},
    "tournament-api:me": {_R: Action.SIGN_IN},
    "tournament-api:tournament-list": {"GET": Action.VIEW_PUBLIC, "POST": Action.CREATE_TOURNAMENT},
    "tournament-api:tournament": {"GET": Action.VIEW_PUBLIC, "PATCH": Action.MANAGE},
    "tournament-api:tournament-status": {"POST": Action.CHANGE_STATUS},
    "tournament-api:tournament-reopen": {"POST": Action.REOPEN},
    "tournament-api:player-list": {"GET": Action.VIEW_PUBLIC, "POST": Action.CREATE_PLAYER},
    "tournament-api:player": {"GET": Action.VIEW_PUBLIC, "PATCH": Action.EDIT_PLAYER},
    "tournament-api:entry-list": {"GET": Action.VIEW_PUBLIC, "POST": Action.MANAGE},
    "tournament-api:entry": {"GET": Action.VIEW_PUBLIC, "PATCH": Action.MANAGE},
    "tournament-api:entry-withdraw": {"POST": Action.MANAGE},
    "tournament-api:entry-disqualify": {"POST": Action.MANAGE},
    "tournament-api:table-list": {"GET": Action.VIEW_PUBLIC, "POST": Action.MANAGE},
    "tournament-api:role-list": {"GET": Action.VIEW_PRIVATE, "POST": Action.GRANT_ROLE},
    "tournament-api:role": {"DELETE": Action.MANAGE_REFEREES},
    "tournament-api:referee-create": {"POST": Action.MANAGE_REFEREES},
    "tournament-api:referee-token-list": {
        "GET": Action.VIEW_PRIVATE,
        "POST": Action.MANAGE_REFEREES,
    },
    "tournament-api:referee-token-revoke": {"POST": Action.MANAGE_REFEREES},
    "tournament-api:action-log": {"GET": Action.VIEW_PRIVATE},
    # scoring API
    "scoring-api:match-list": {"GET": Action.VIEW_PUBLIC, "POST": Action.MANAGE},
    "scoring-api:match": {"GET": Action.VIEW_PUBLIC},
    "scoring-api:match-start": {"POST": Action.RECORD_HAND},
    "scoring-api:match-referee": {"POST": Action.DECIDE_MATCH},
    "scoring-api:hand-list": {"GET": Action.VIEW_PUBLIC, "POST": Action.RECORD_HAND},
    "scoring-api:hand-void-last": {"POST": Action.UNDO_HAND},
    "scoring-api:hand-check": {"POST": Action.RECORD_HAND},  # a dry run: writes nothing
    "scoring-api:table-feature": {"POST": Action.MANAGE},
    "scoring-api:match-override": {"POST": Action.DECIDE_MATCH},
    "scoring-api:match-forfeit": {"POST": Action.DECIDE_MATCH},
    # confirmation at the table (issue 15): players confirm on the referee's phone
    "scoring-api:hand-confirm": {"POST": Action.RECORD_HAND},
    "scoring-api:hand-dispute": {"POST": Action.RECORD_HAND},
    "scoring-api:dispute-resolve": {"POST": Action.DECIDE_MATCH},
    "scoring-api:dispute-list": {"GET": Action.VIEW_PRIVATE},
    "scoring:dispute-queue": {"GET": Action.VIEW_PRIVATE, "POST": Action.DECIDE_MATCH},
    "tournament-api:entry-check-in": {"POST": Action.MANAGE},
    # the table QR (issue 15): public; a referee's session is sent on to its own match
    "live:table-join": {_R: Action.VIEW_PUBLIC},
    # brackets API: reads public (previews private), writes for directors
    "brackets-api:stage-list": {"GET": Action.VIEW_PUBLIC, "POST": Action.MANAGE},
    "brackets-api:stage": {"GET": Action.VIEW_PUBLIC, "PATCH": Action.MANAGE},
    "brackets-api:stage-seed": {"POST": Action.MANAGE},
    "brackets-api:stage-reorder": {"POST": Action.MANAGE},
    "brackets-api:stage-entrants": {"GET": Action.VIEW_PUBLIC, "POST": Action.MANAGE},
    "brackets-api:stage-entrant-withdraw": {"POST": Action.MANAGE},
    "brackets-api:stage-standings": {"GET": Action.VIEW_PUBLIC},
    "brackets-api:stage-preview": {"GET": Action.VIEW_PRIVATE},
    "brackets-api:stage-publish": {"POST": Action.MANAGE},
    "brackets-api:stage-advance": {"POST": Action.MANAGE},
    "brackets-api:stage-rounds": {"GET": Action.VIEW_PUBLIC},
    "brackets-api:round": {"GET": Action.VIEW_PUBLIC},
    "brackets-api:round-close": {"POST": Action.MANAGE},
    "brackets-api:round-advance": {"POST": Action.MANAGE},
    "brackets-api:round-clock": {"POST": Action.MANAGE},
    "brackets-api:round-call-time": {"POST": Action.MANAGE},
    "brackets-api:round-replace": {"POST": Action.MANAGE},
    "brackets-api:placings": {"GET": Action.VIEW_PUBLIC},
    # pairs events (T9-T11)
    "brackets-api:pair-list": {"GET": Action.VIEW_PUBLIC, "POST": Action.MANAGE},
    "brackets-api:pair-substitute": {"POST": Action.MANAGE},
    "brackets-api:entry-format": {"POST": Action.MANAGE},
    "brackets-api:stage-pair-standings": {"GET": Action.VIEW_PUBLIC},
    "brackets-api:pair-placings": {"GET": Action.VIEW_PUBLIC},
    # live API and pages: public (drafts invisible)
    "live-api:*": {_R: Action.VIEW_PUBLIC},
    "live:*": {_R: Action.VIEW_PUBLIC},
    # pages
    "tournament:referee-link": {_R: Action.SIGN_IN},
    "tournament:director-home": {_R: Action.SIGN_IN},
    "tournament:lifecycle": {"GET": Action.VIEW_PRIVATE, "POST": Action.CHANGE_STATUS},
    "tournament:referees": {"GET": Action.VIEW_PRIVATE, "POST": Action.MANAGE_REFEREES},
    "tournament:directors": {"GET": Action.VIEW_PRIVATE, "POST": Action.INVITE_DIRECTOR},
    # a co-director invitation's sign-up page: the key (in the fragment, then the POST body)
    # is the only credential; a signed-in caller is refused
    "tournament:director-invitation": {_R: Action.SIGN_IN},
    "scoring:match-referee": {_R: Action.VIEW_MATCH},
    "scoring:match-panel": {_R: Action.VIEW_MATCH},
    "scoring:match-moves": {_R: Action.VIEW_MATCH},
    "scoring:referee-home": {_R: Action.SIGN_IN},
    "scoring:director-dashboard": {_R: Action.VIEW_PRIVATE},
    "scoring:director-dashboard-rows": {_R: Action.VIEW_PRIVATE},
    "brackets:tournament-create": {
        "GET": Action.CREATE_TOURNAMENT,
        "POST": Action.CREATE_TOURNAMENT,
    },
    "brackets:*": {"GET": Action.VIEW_PRIVATE, "POST": Action.MANAGE},
    # webhooks (endpoints, delivery log) and players' e-mail addresses: director pages
    "notify:*": {"GET": Action.VIEW_PRIVATE, "POST": Action.MANAGE},
    "notify:webhook-ping": {"POST": Action.MANAGE},  # a signed test event to one endpoint
    # the webhooks API: the same, for a director's scripts (the secret is shown once)
    "notify-api:webhook-list": {"GET": Action.VIEW_PRIVATE, "POST": Action.MANAGE},
    "notify-api:webhook": {"GET": Action.VIEW_PRIVATE},
    "notify-api:webhook-disable": {"POST": Action.MANAGE},
    "notify-api:webhook-ping": {"POST": Action.MANAGE},
    "notify-api:webhook-deliveries": {"GET": Action.VIEW_PRIVATE},
    # the tournament's ZIP archive (every table of its data): its directors
    "archive:download": {"GET": Action.VIEW_PRIVATE},
    "archive:round-results": {_R: Action.VIEW_PUBLIC},  # printable results sheet of a round
}


def route_actions(name: str) -> dict[str, Action] | None:
    """The :data:`ROUTES` entry of a URL name (``ns:name``), or of its namespace (``ns:*``).

    An API route under ``/api/v1/`` or ``/api/v2/`` (``v1:ns:name``, core.api.versioning) is
    the same route as under ``/api/``: the same entry."""
    version, _, rest = name.partition(":")
    if rest and version in API_VERSIONS:
        name = rest
    if name in ROUTES:
        return ROUTES[name]
    ns = name.split(":", 1)[0] if ":" in name else None
    return ROUTES.get(f"{ns}:*") if ns else None


# -- the tournament context -----------------------------------------------------------------------


@dataclass
class TournamentContext:
    """One tournament, the caller, and the caller's roles there."""

    tournament: Tournament
    principal: Principal

    @property
    def roles(self) -> frozenset[Role]:
        return self.principal.roles_in(self.tournament.pk)

    @property
    def is_director(self) -> bool:
        return Role.DIRECTOR in self.roles

    @property
    def actor(self) -> Any:
        return self.principal.actor

    def roles_for(self, action: Action) -> frozenset[Role]:
        """The caller's roles as they count for ``action`` (:func:`roles_for_action`)."""
        return roles_for_action(self.principal.user, self.roles, action)

    def visible(self) -> bool:
        """A draft exists only for its directors (and the accounts that may view tournaments
        in the admin: ``VIEW_DRAFTS_PERMISSION``, not the staff flag alone)."""
        if self.tournament.status != Status.DRAFT:
            return True
        return Role.DIRECTOR in self.roles or holds_permission(
            self.principal.user, VIEW_DRAFTS_PERMISSION
        )

    def can(self, action: Action) -> bool:
        return (
            self.visible()
            and bool(self.roles_for(action) & PERMISSIONS[action])
            and self.tournament.status in STATUS_GATES[action]
        )


def roles_for_action(user: Any, roles: frozenset[Role], action: Action) -> frozenset[Role]:
    """``roles`` as they count for ``action``: for an action of :data:`STAFF_PERMISSIONS`, the
    ``staff`` role is held by an account holding that Django permission (superusers hold every
    one), whatever its staff flag, and by no one else."""
    permission = STAFF_PERMISSIONS.get(action)
    if permission is None:
        return roles
    if holds_permission(user, permission):
        return roles | {Role.STAFF}
    return roles - {Role.STAFF}


def require(ctx: TournamentContext, action: Action) -> None:
    """THE check: 404 for an invisible tournament, 401/403 by the table, 409 by the gate."""
    require_visible(ctx)
    if not ctx.roles_for(action) & PERMISSIONS[action]:
        if ctx.principal.is_anonymous:
            raise PermissionDeniedError("Sign in first.", code="not_authenticated", status=401)
        raise PermissionDeniedError(_denied_message(action, ctx.tournament), code=_code(action))
    require_status(ctx.tournament, action)


def require_visible(ctx: TournamentContext, *, missing: str | None = None) -> None:
    """404 unless the caller may see the tournament at all (a draft: its directors and staff).

    ``missing``: the message of the 404 of a route addressed by an object's id with no
    tournament slug in its path (``/api/matches/<id>/``): there, an object of a draft the
    caller may not see answers exactly as an id that does not exist (the same status, code and
    message, naming neither the tournament nor its slug), so sequential ids cannot tell a
    hidden draft's objects from missing ones."""
    if not ctx.visible():
        raise NotFoundError(
            missing if missing is not None else f"No tournament {ctx.tournament.slug!r}.",
            code="not_found",
        )


def require_actor_visible(actor: Any, tournament: Tournament, *, missing: str) -> None:
    """The services' form of :func:`require_visible` for an object addressed by its id."""
    require_visible(
        TournamentContext(tournament=tournament, principal=_principal_of(actor)), missing=missing
    )


def require_status(tournament: Tournament, action: Action) -> None:
    """The lifecycle gate alone: a 409 naming the status and what is refused, in the caller's
    language (a director page shows it as it is; the API's ``code`` stays
    ``tournament_<status>``)."""
    if tournament.status in STATUS_GATES[action]:
        return
    from core.choice_labels import choice_label

    words = {
        "name": tournament.name,
        "status": choice_label(Status, tournament.status).lower(),
        "action": GATED_ACTION_WORDS[action],
    }
    if tournament.status == Status.FINISHED:
        message = gettext(
            "%(name)s is finished: %(action)s is no longer possible. To correct it, reopen "
            "the tournament first (Lifecycle page; the reason is logged)."
        )
    elif action in (Action.RECORD_HAND, Action.UNDO_HAND, Action.DECIDE_MATCH):
        message = gettext("%(name)s has not started: %(action)s is only possible while it runs.")
    else:
        message = gettext(
            "%(name)s is %(status)s: %(action)s is only possible once it is finished."
        )
    message %= words
    raise ApplicationError(
        message,
        code=f"tournament_{tournament.status}",
        rule="lifecycle",
        status=409,
        fields={"status": [message]},
    )


def require_actor(actor: Any, tournament: Tournament, action: Action) -> None:
    """The services' form of :func:`require`: the same table for an ``actor``."""
    require(TournamentContext(tournament=tournament, principal=_principal_of(actor)), action)


def actor_may(actor: Any, tournament_id: int, action: Action) -> bool:
    """Whether ``actor``'s roles in a tournament allow ``action`` (table only, no gate)."""
    user = None if isinstance(actor, RefereeActor) else actor
    roles = roles_for_action(user, actor_roles(actor, tournament_id), action)
    return bool(roles & PERMISSIONS[action])


def _principal_of(actor: Any) -> Principal:
    if isinstance(actor, RefereeActor):
        return Principal(referee=actor)
    if actor is None or not getattr(actor, "is_authenticated", False):
        return Principal()
    return Principal(user=actor)


def _code(action: Action) -> str:
    if action in (Action.RECORD_HAND, Action.UNDO_HAND, Action.VIEW_MATCH):
        return "not_match_referee"
    return "not_director"


def _denied_message(action: Action, tournament: Tournament) -> str:
    if action in (Action.RECORD_HAND, Action.UNDO_HAND, Action.VIEW_MATCH):
        return gettext("Only the referee assigned to this match or a director may do this.")
    return gettext("Only a director of %(name)s may do this.") % {"name": tournament.name}


def context_for(
    request: HttpRequest,
    *,
    slug: str | None = None,
    tournament: Tournament | None = None,
    missing: str | None = None,
) -> TournamentContext:
    """The request's context for one tournament (by slug or object), resolved once.

    An unknown slug, or a draft the caller may not see, is a 404; ``missing`` is that 404's
    message for a route addressed by an object's id (:func:`require_visible`).
    """
    cache: dict[Any, TournamentContext] = request.__dict__.setdefault("_tournament_ctx", {})
    key = tournament.pk if tournament is not None else ("slug", slug)
    if key in cache:
        return cache[key]
    if tournament is None:
        tournament = Tournament.objects.filter(slug=slug).first()
        if tournament is None:
            raise NotFoundError(f"No tournament {slug!r}.", code="not_found")
    ctx = TournamentContext(tournament=tournament, principal=principal_from_request(request))
    require_visible(ctx, missing=missing)
    cache[key] = cache[tournament.pk] = ctx
    return ctx
