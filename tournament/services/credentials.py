"""Referee credentials: issue, revoke and resolve a key, with a per-address failure limit.

The key helpers (:func:`credential_key_new`, :func:`credential_hash`) and the failure limit
(:func:`credential_failure_count`) serve co-director invitations too
(:mod:`tournament.services.invitations`)."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import datetime

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core.choice_labels import choice_label
from core.exceptions import ApplicationError
from core.visible_text import name_clean, names_check
from tournament.models import (
    DirectorInvitation,
    RefereeToken,
    Tournament,
    TournamentRole,
)
from tournament.principal import credential_touch, revoked_at_finish
from tournament.selectors import referee_unknown
from tournament.services.common import (
    User,
    _action,
    action_log_record,
    require_director,
)


class RefereeTokenInvalidError(ApplicationError):
    """Unknown or revoked referee token (counted towards the per-address failure limit)."""

    status_code = 401


class RefereeTokenThrottledError(ApplicationError):
    """Too many failed token lookups from one client address (PITFALLS.md)."""

    status_code = 429


# -- referee credentials --------------------------------------------------------------------------

KEY_SEPARATOR = "."
# What credential_key_new makes: two token_urlsafe parts (12 and 32 characters), joined by
# the separator.
# Anything else is refused before it reaches the database: a NUL is a DataError on
# PostgreSQL, a lone surrogate cannot even be encoded for the query (a 500 each, uncounted).
KEY_MAX_LENGTH = 128
KEY_FORMAT = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")


def credential_key_well_formed(key: object) -> bool:
    """True when ``key`` has the shape of an issued key (``<prefix>.<secret>``, URL-safe
    base64 characters, at most ``KEY_MAX_LENGTH``); says nothing about whether it is valid."""
    return (
        isinstance(key, str)
        and len(key) <= KEY_MAX_LENGTH
        and KEY_FORMAT.fullmatch(key) is not None
    )


def credential_hash(key: str) -> str:
    """SHA-256 of the whole key (hex): enough for a 192-bit random secret (no slow hash)."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def credential_key_new() -> tuple[str, str]:
    """A new ``(prefix, key)``: the key is ``<prefix>.<secret>`` (referee credentials and
    co-director invitations); store only the prefix and :func:`credential_hash` of the key."""
    prefix = secrets.token_urlsafe(9)  # 12 characters, not secret: the lookup
    return prefix, f"{prefix}{KEY_SEPARATOR}{secrets.token_urlsafe(24)}"  # + 192 secret bits


@transaction.atomic
def referee_token_issue(
    *,
    tournament: Tournament,
    actor: User,
    user: User,
    label: str = "",
    retire_earlier: bool = False,
) -> RefereeToken:
    """Issue a credential to a referee of ``tournament``.

    The returned instance carries ``key`` (``<prefix>.<secret>``) for this one answer; only
    its hash is stored. The key doubles as the private link ``/ref/#<key>`` (and its QR code).
    With ``retire_earlier`` the referee's other active credentials are revoked in the same
    transaction (THE revoke, :func:`_revoke`, logged with the new prefix as ``replaced_by``):
    a phone still using an earlier link is refused from its next request.
    """
    require_director(actor=actor, tournament=tournament, action=_action("MANAGE_REFEREES"))
    names_check({"label": label}, labels={"label": _("Label")})
    label = name_clean(label)
    role = TournamentRole.objects.filter(
        tournament=tournament, user=user, role=TournamentRole.Role.REFEREE
    ).first()
    if (
        role is None
        or getattr(user, "is_staff", False)
        or getattr(user, "is_superuser", False)
        or TournamentRole.objects.filter(user=user).exclude(pk=role.pk).exists()
    ):  # a credential's identity is a referee of one tournament and nothing else
        raise referee_unknown(field="user")  # names no one (user ids are sequential)
    prefix, key = credential_key_new()
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
    if retire_earlier:
        earlier = (
            RefereeToken.objects.select_for_update()
            .select_related("role")
            .filter(role=role, revoked_at__isnull=True)
            .exclude(pk=token.pk)
            .order_by("id")
        )
        now = timezone.now()
        for old in earlier:
            _revoke(old, tournament=tournament, actor=actor, at=now, replaced_by=prefix)
    token.key = key  # type: ignore[attr-defined]  # shown once, never stored
    return token


@transaction.atomic
def referee_token_revoke(*, token: RefereeToken, actor: User) -> RefereeToken:
    """Revoke a credential at once (idempotent): the key and every session opened through its
    link are refused from the next request on."""
    tournament = token.role.tournament
    require_director(actor=actor, tournament=tournament, action=_action("MANAGE_REFEREES"))
    _revoke(token, tournament=tournament, actor=actor, at=timezone.now())
    return token


def referee_tokens_revoke_at_finish(*, tournament: Tournament, actor: User | None) -> int:
    """Revoke every credential of ``tournament`` still active, as it finishes (docs/security.md:
    finishing expires them all, and a reopen revives none: the director issues new keys).

    Called by the services that finish a tournament, in their transaction, after its row is
    saved: ``revoked_at`` is the moment it finished (its ``updated_at``), which is how
    ``tournament.principal.revoked_at_finish`` tells these credentials (the referee's short
    read of the result, the link's "your work is done") from any other revoked one. ``actor``
    is the director who finished it, or ``None`` when the system did; no permission check
    here: finishing was the caller's. Each credential is logged as a revoke. Returns how many."""
    tokens = list(
        RefereeToken.objects.select_for_update()
        .select_related("role")
        .filter(role__tournament=tournament, revoked_at__isnull=True)
        .order_by("id")
    )
    for token in tokens:
        _revoke(token, tournament=tournament, actor=actor, at=tournament.updated_at, finish=True)
    return len(tokens)


def director_invitations_revoke_at_finish(*, tournament: Tournament, actor: User | None) -> int:
    """Revoke the pending invitations of ``tournament`` as it finishes, as its referee
    credentials are (``referee_tokens_revoke_at_finish``): a finished tournament takes no new
    director, and a reopen revives no link (the director invites again). ``actor`` is the
    director who finished it, or ``None`` when the system did; finishing was the caller's
    permission. Logged like a director's revoke. Returns how many."""
    pending = list(
        DirectorInvitation.objects.select_for_update()
        .filter(tournament=tournament, used_at__isnull=True, revoked_at__isnull=True)
        .order_by("id")
    )
    for invitation in pending:
        invitation_revoke_locked(
            invitation,
            tournament=tournament,
            actor=actor,
            at=tournament.updated_at,
            because="tournament_finished",
        )
    return len(pending)


def invitation_revoke_locked(
    invitation: DirectorInvitation,
    *,
    tournament: Tournament,
    actor: User | None,
    at: datetime,
    because: str = "",
) -> None:
    """THE revoke of a pending invitation whose row the caller has locked (idempotent):
    ``revoked_at``, ``revoked_by`` and the action log entry (``because``, when the system
    revoked it: ``tournament_finished``, ``issuer_removed``), as :func:`_revoke` does for a
    referee credential. Accepting re-checks ``revoked_at`` under the same lock."""
    if invitation.revoked_at is not None:
        return
    by = actor if getattr(actor, "is_authenticated", False) else None
    invitation.revoked_at, invitation.revoked_by = at, by
    invitation.save(update_fields=["revoked_at", "revoked_by", "updated_at"])
    data: dict[str, object] = {"prefix": invitation.prefix}
    if because:
        data[because] = True
    action_log_record(
        tournament=tournament,
        actor=by,
        verb="director_invitation.revoke",
        target=invitation,
        data=data,
    )


def _revoke(
    token: RefereeToken,
    *,
    tournament: Tournament,
    actor: User | None,
    at: datetime,
    finish: bool = False,
    replaced_by: str = "",
) -> None:
    """THE revoke (idempotent): ``revoked_at``, ``revoked_by`` and the action log entry (with
    ``replaced_by``, the prefix of the credential issued in its place). The key and every
    session opened through its link re-check ``revoked_at`` on each request
    (``tournament.principal``), so nothing else is needed to end them."""
    if token.revoked_at is not None:
        return
    token.revoked_at = at
    token.revoked_by = actor if getattr(actor, "is_authenticated", False) else None
    token.save(update_fields=["revoked_at", "revoked_by", "updated_at"])
    data: dict[str, object] = {"user_id": token.role.user_id}
    if finish:
        data["tournament_finished"] = True
    if replaced_by:
        data["replaced_by"] = replaced_by
    action_log_record(
        tournament=tournament,
        actor=actor,
        verb="referee_token.revoke",
        target=token,
        data=data,
    )


def _failure_key(client_ip: str) -> str:
    return f"referee-token-failures:{client_ip}"


def credential_failure_count(client_ip: str) -> None:
    """One more wrong key from this address; 429 once over the limit (fixed window).

    Wrong referee keys and wrong invitation keys share the counter: a guesser gets one
    budget per address, whichever kind of key it tries."""
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
    401; a valid key of a tournament that is not running (a finished one's: revoked by its
    finish) gets its own 401 (and is no failure). A key that is not even shaped like one
    (:func:`credential_key_well_formed`) is never looked up and counts as a wrong key, with
    the same answer.
    """
    token = (
        RefereeToken.objects.select_related("role__tournament")
        .filter(prefix=key.split(KEY_SEPARATOR, 1)[0], role__role=TournamentRole.Role.REFEREE)
        .first()
        if credential_key_well_formed(key)
        else None
    )
    if (
        token is None
        or not hmac.compare_digest(token.key_hash, credential_hash(key))
        or (
            token.revoked_at is not None
            # revoked by the finish: answered below as the finished tournament's key
            and not revoked_at_finish(token, token.role.tournament)
        )
    ):
        credential_failure_count(client_ip)
        raise RefereeTokenInvalidError("Unknown or revoked referee key.", code="invalid_token")
    if token.role.tournament.status != Tournament.Status.RUNNING:
        raise RefereeTokenInvalidError(
            _("%(tournament)s is %(status)s: referee keys work only while it is running.")
            % {
                "tournament": token.role.tournament.name,
                "status": choice_label(Tournament.Status, token.role.tournament.status).lower(),
            },
            code="tournament_not_running",
            # Which status: a finished tournament means the referee's work is done.
            extra={"tournament_status": token.role.tournament.status},
        )
    credential_touch(token)  # at most one write a minute: it is read on every request
    return token
