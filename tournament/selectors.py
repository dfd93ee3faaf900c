"""Reads of the tournament app: roles, scoped querysets, lookups (HackSoft selectors).

Every list a view exposes is built here and filtered explicitly by tournament (PITFALLS.md: DRF
object permissions are not applied to lists).
"""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from core.exceptions import ApplicationError, NotFoundError
from tournament.models import (
    ActionLog,
    DirectorInvitation,
    Entry,
    Player,
    RefereeToken,
    Table,
    Tournament,
    TournamentRole,
)
from tournament.principal import holds_permission
from tournament.referee_names import (
    person_name,
    referee_name_key,
    referee_name_of,
    referee_username_prefix,
)
from tournament.slugs import RESERVED_SLUGS

UserLike = AbstractBaseUser | AnonymousUser | Any


def _user_id(user: UserLike | None) -> int | None:
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return int(getattr(user, "pk", 0) or 0) or None


def user_directs_any(*, user: UserLike | None, by_invitation: bool = True) -> bool:
    """Whether ``user`` directs some tournament. ``by_invitation=False`` leaves out the
    director roles that a co-director invitation granted: such a role directs its one
    tournament and gives nothing site-wide (creating tournaments, docs/security.md)."""
    uid = _user_id(user)
    if uid is None:
        return False
    roles = TournamentRole.objects.filter(user_id=uid, role=TournamentRole.Role.DIRECTOR)
    if not by_invitation:
        roles = roles.filter(invitation__isnull=True)
    return roles.exists()


def director_invitations_pending(*, tournament: Tournament) -> QuerySet[DirectorInvitation]:
    """The tournament's invitations that still work: not used, not revoked, not expired
    (newest first, with who issued each)."""
    return (
        DirectorInvitation.objects.filter(
            tournament=tournament,
            used_at__isnull=True,
            revoked_at__isnull=True,
            expires_at__gt=timezone.now(),
        )
        .select_related("issued_by")
        .order_by("-created_at", "-id")
    )


def tournament_visible(*, user: UserLike | None, prefix: str = "") -> Q:
    """THE rule of who sees a tournament: drafts only to their directors and to the accounts
    that may view tournaments in the admin (``tournament.view_tournament``; superusers), not to
    the staff flag alone (docs/security.md). ``prefix`` applies it through a relation
    (``"tournament__"`` on entries)."""
    if holds_permission(user, "tournament.view_tournament"):
        return Q()
    uid = _user_id(user) if user is not None and not hasattr(user, "credential_id") else None
    visible = ~Q(**{f"{prefix}status": Tournament.Status.DRAFT})
    if uid is not None:
        visible |= Q(
            **{
                f"{prefix}pk__in": TournamentRole.objects.filter(
                    user_id=uid, role=TournamentRole.Role.DIRECTOR
                ).values("tournament_id")
            }
        )
    return visible


def tournament_list(*, user: UserLike | None = None) -> QuerySet[Tournament]:
    """Tournaments the caller may see (:func:`tournament_visible`)."""
    return (
        Tournament.objects.all()
        .order_by("-starts_on", "name", "id")
        .filter(tournament_visible(user=user))
    )


def tournament_slug_taken(*, slug: str) -> bool:
    """Whether a tournament holds ``slug`` already, whatever its case (tournament.slugs)."""
    return Tournament.objects.filter(slug__iexact=slug).exists()


def tournament_slug_free(*, name: str) -> str:
    """A link slug made from ``name`` that no tournament uses yet ("Café Open 2027" ->
    "cafe-open-2027", then "cafe-open-2027-2", ...); "" when the name has no letter or digit
    to make one from. The service still refuses a slug taken in between (``slug_taken``)."""
    # Underscores too become hyphens: a slug is letters, digits and hyphens (tournament.slugs).
    base = re.sub(r"[^a-z0-9]+", "-", slugify(name)).strip("-")[:72].strip("-")
    if not base:
        return ""
    taken = {
        slug.lower()
        for slug in Tournament.objects.filter(slug__istartswith=base).values_list("slug", flat=True)
    }
    taken |= RESERVED_SLUGS  # "New" makes "new-2", never a word of the site's links
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def player_public() -> Exists:
    """THE rule of a public player: entered in a tournament that is not a draft (a draft's
    entries are its directors' business until it is published; docs/security.md). The players
    directory, the profile page and the player API all read it."""
    return Exists(
        Entry.objects.filter(player_id=OuterRef("pk")).exclude(
            tournament__status=Tournament.Status.DRAFT
        )
    )


def player_visible(*, user: UserLike | None) -> Q:
    """The players ``user`` may look up by id or name: the public ones (:func:`player_public`);
    for staff every player; for a director also the players entered in a tournament they
    direct, drafts included, and those entered nowhere yet (whom any director may enter and
    edit, ``player_editable``). A referee credential sees the public ones only. "Staff" is
    an account that may view players in the admin (``tournament.view_player``; superusers),
    not the staff flag alone."""
    if holds_permission(user, "tournament.view_player"):
        return Q()
    rule = Q(player_public())
    uid = _user_id(user) if user is not None and not hasattr(user, "credential_id") else None
    if uid is None:
        return rule
    directed = TournamentRole.objects.filter(user_id=uid, role=TournamentRole.Role.DIRECTOR)
    if not directed.exists():
        return rule
    entries = Entry.objects.filter(player_id=OuterRef("pk"))
    return (
        rule
        | Q(Exists(entries.filter(tournament_id__in=directed.values("tournament_id"))))
        | ~Q(Exists(entries))
    )


def player_find(*, player_id: int, user: UserLike | None) -> Player | None:
    """The player with this id if ``user`` may see it (:func:`player_visible`), else ``None``,
    exactly as for an id that does not exist. Every field naming an existing player by id (an
    entry's, a partnership's, a substitute's) reads it through here: otherwise entering a
    player of another director's draft would publish them, and the answer would tell hidden
    ids from missing ones (docs/security.md)."""
    return Player.objects.filter(player_visible(user=user), pk=player_id).first()


def player_get(*, player_id: int, user: UserLike | None) -> Player:
    """The player with this id if ``user`` may see it (:func:`player_visible`), else the same
    404 as for an id that does not exist."""
    player = player_find(player_id=player_id, user=user)
    if player is None:
        raise NotFoundError(f"No player {player_id}.", code="not_found")
    return player


def player_unknown(*, field: str) -> ApplicationError:
    """THE refusal of an entry's player id that names no player the caller may see: the same
    whether no player has that id or the player is hidden from them (:func:`player_find`)."""
    message = _("Unknown player.")
    return ApplicationError(message, code="unknown_player", fields={field: [message]})


def player_list(*, search: str | None = None, user: UserLike | None = None) -> QuerySet[Player]:
    """The players ``user`` may see (:func:`player_visible`) whose name or nickname contains
    ``search``."""
    qs = Player.objects.filter(player_visible(user=user)).order_by("name", "id")
    if search:
        qs = qs.filter(Q(name__icontains=search) | Q(nickname__icontains=search))
    return qs


def entry_list(*, tournament: Tournament) -> QuerySet[Entry]:
    return (
        Entry.objects.filter(tournament=tournament)
        .select_related("player")
        .order_by("seed", "player__name", "id")
    )


def table_list(*, tournament: Tournament) -> QuerySet[Table]:
    return Table.objects.filter(tournament=tournament).order_by("number")


def role_list(*, tournament: Tournament) -> QuerySet[TournamentRole]:
    return (
        TournamentRole.objects.filter(tournament=tournament)
        .select_related("user")
        .order_by("role", "user__username")
    )


def referee_token_list(*, tournament: Tournament) -> QuerySet[RefereeToken]:
    return (
        RefereeToken.objects.filter(role__tournament=tournament)
        .select_related("role__user")
        .order_by("-created_at", "id")
    )


def referees_without_link(*, tournament: Tournament, user_ids: set[int]) -> set[int]:
    """Those of ``user_ids`` (the referees of a round's tables) who hold no working referee
    link for ``tournament``: none issued yet, or every one revoked. They cannot record a hand
    until the director hands them one (docs/director-guide.md, section 5). A director of the
    tournament records on their own session and needs none. One query."""
    if not user_ids:
        return set()
    working = RefereeToken.objects.filter(role=OuterRef("pk"), revoked_at__isnull=True)
    covered = TournamentRole.objects.filter(tournament=tournament, user_id__in=user_ids).filter(
        Q(role=TournamentRole.Role.DIRECTOR) | Q(role=TournamentRole.Role.REFEREE) & Exists(working)
    )
    return user_ids - set(covered.values_list("user_id", flat=True))


def action_log_list(*, tournament: Tournament) -> QuerySet[ActionLog]:
    return (
        ActionLog.objects.filter(tournament=tournament)
        .select_related("actor")
        .order_by("-created_at", "-id")
    )


def user_get_or_400(*, user_id: int, field: str = "user") -> Any:
    """The user with ``user_id``, or a 400 naming ``field`` (a bad id in a request body)."""
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.filter(pk=user_id).first()
    if user is None:
        raise ApplicationError(
            f"No user {user_id}.", code="unknown_user", fields={field: ["Unknown user."]}
        )
    return user


def referee_unknown(*, field: str) -> ApplicationError:
    """THE refusal of a user id that is not a referee of the tournament, whether no account has
    that id or the account is not this tournament's referee (a director, a superuser, another
    event's referee): it names no one, so ids (sequential) cannot be mapped to usernames."""
    return ApplicationError(
        _("No referee of this tournament has that id."),
        code="not_referee",
        fields={field: [_("Create a referee for this tournament first.")]},
    )


def referee_name_taken(*, tournament_id: int, name: str) -> str | None:
    """The name of a referee of the tournament that ``name`` would repeat (case does not
    count: "Ana" and "ana" are one name), or None. Only this tournament's referees count:
    the identities named in its namespace (a removed referee's too: its matches still show
    its name) and those holding its referee role (one made before names were per tournament
    may keep its old user name). Never a site account, so nothing is learnt about those
    (docs/security.md). One query."""
    from django.contrib.auth import get_user_model

    key = referee_name_key(name)
    usernames = (
        get_user_model()
        .objects.filter(
            Q(username__startswith=referee_username_prefix(tournament_id))
            | Q(
                tournament_roles__tournament_id=tournament_id,
                tournament_roles__role=TournamentRole.Role.REFEREE,
            )
        )
        .values_list("username", flat=True)
        .distinct()
    )
    for username in usernames:
        taken = referee_name_of(username)
        if referee_name_key(taken) == key:
            return taken
    return None


def referee_user_or_400(*, user_id: int, field: str) -> Any:
    """The account with ``user_id`` for a field that names a referee, or the 400 of
    :func:`referee_unknown` (the same as for an account that is no referee here, which the
    services refuse with it)."""
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.filter(pk=user_id).first()
    if user is None:
        raise referee_unknown(field=field)
    return user


def directed_tournament_ids(*, user: UserLike) -> QuerySet[Any, Any]:
    """Ids of the tournaments ``user`` directs (a values queryset; every one for superusers)."""
    if getattr(user, "is_superuser", False):
        return Tournament.objects.values("pk")
    return TournamentRole.objects.filter(
        user_id=_user_id(user) or 0, role=TournamentRole.Role.DIRECTOR
    ).values("tournament_id")


def referee_match_ids(*, tournament_id: int, user_id: int) -> list[int]:
    """The matches assigned to a referee identity in one tournament (scoring's table, read by
    name so this layer does not import scoring)."""
    from django.apps import apps

    match_model = apps.get_model("scoring", "Match")
    return list(
        match_model.objects.filter(tournament_id=tournament_id, referee_id=user_id)
        .order_by("id")
        .values_list("id", flat=True)
    )


def signed_in_name(*, user: UserLike | None = None, credential_id: int | None = None) -> str:
    """Who a referee page says is signed in: a referee credential's identity by its display
    name, else the name its director typed (never its internal user name,
    ``tournament.referee_names``), else the credential's label (one query); a site account by
    its full name or username (no query)."""
    if credential_id is not None:
        token = RefereeToken.objects.select_related("role__user").filter(pk=credential_id).first()
        if token is None:
            return ""
        return person_name(token.role.user) or token.label
    if user is None or not getattr(user, "is_authenticated", False):
        return ""
    return person_name(user)
