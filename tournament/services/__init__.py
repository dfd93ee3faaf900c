"""Writes of the tournament app (HackSoft services: ``<entity>_<action>``, keyword-only, typed).

Every service checks who may do it (a director manages their own tournaments only) and raises
:class:`core.exceptions.ApplicationError` subclasses for expected failures. Director actions
that change results or seating are written to :class:`ActionLog` in the same transaction.

The modules, by topic: ``tournaments`` (create, update, lifecycle, version bump), ``people``
(players and entries), ``roles`` (tables, roles, referees), ``credentials`` (referee keys),
``invitations`` (co-director invitations), ``staff_removals`` (the admin's deletes of roles and
accounts, by the last-director rule), ``common`` (permission helpers, effective ruleset,
action log). Import from ``tournament.services``: this package re-exports them.
"""

from tournament.services.common import (
    User,
    _ruleset_effective,
    action_log_record,
    require_director,
)
from tournament.services.credentials import (
    KEY_SEPARATOR,
    RefereeTokenInvalidError,
    RefereeTokenThrottledError,
    _failure_key,
    credential_failure_count,
    credential_hash,
    credential_key_new,
    referee_token_issue,
    referee_token_resolve,
    referee_token_revoke,
    referee_tokens_revoke_at_finish,
)
from tournament.services.invitations import (
    InvitationGoneError,
    InvitationInvalidError,
    InvitationThrottledError,
    director_invitation_accept,
    director_invitation_check,
    director_invitation_issue,
    director_invitation_link,
    director_invitation_revoke,
)
from tournament.services.people import (
    IDENTITY_FIELDS,
    entries_check_in,
    entry_create,
    entry_disqualify,
    entry_update,
    entry_withdraw,
    player_changed,
    player_create,
    player_editable,
    player_update,
)
from tournament.services.roles import (
    director_removal_refusal,
    director_roles_removable,
    referee_create,
    role_grant,
    role_grant_by_invitation,
    role_revoke,
    table_create,
)
from tournament.services.staff_removals import (
    director_removals_refusals,
    roles_remove_by_staff,
    users_delete_by_staff,
)
from tournament.services.tournaments import (
    tournament_create,
    tournament_create_allowed,
    tournament_create_refusals,
    tournament_mark_finished,
    tournament_mark_running,
    tournament_reopen,
    tournament_status_change,
    tournament_update,
    tournament_update_refusals,
    tournament_version_bump,
    tournament_version_bump_sql,
)

__all__ = [
    "IDENTITY_FIELDS",
    "KEY_SEPARATOR",
    "InvitationGoneError",
    "InvitationInvalidError",
    "InvitationThrottledError",
    "RefereeTokenInvalidError",
    "RefereeTokenThrottledError",
    "User",
    "_failure_key",
    "_ruleset_effective",
    "action_log_record",
    "credential_failure_count",
    "credential_hash",
    "credential_key_new",
    "director_invitation_accept",
    "director_invitation_check",
    "director_invitation_issue",
    "director_invitation_link",
    "director_invitation_revoke",
    "director_removal_refusal",
    "director_removals_refusals",
    "director_roles_removable",
    "entries_check_in",
    "entry_create",
    "entry_disqualify",
    "entry_update",
    "entry_withdraw",
    "player_changed",
    "player_create",
    "player_editable",
    "player_update",
    "referee_create",
    "referee_token_issue",
    "referee_token_resolve",
    "referee_token_revoke",
    "referee_tokens_revoke_at_finish",
    "require_director",
    "role_grant",
    "role_grant_by_invitation",
    "role_revoke",
    "roles_remove_by_staff",
    "table_create",
    "tournament_create",
    "tournament_create_allowed",
    "tournament_create_refusals",
    "tournament_mark_finished",
    "tournament_mark_running",
    "tournament_reopen",
    "tournament_status_change",
    "tournament_update",
    "tournament_update_refusals",
    "tournament_version_bump",
    "tournament_version_bump_sql",
    "users_delete_by_staff",
]
