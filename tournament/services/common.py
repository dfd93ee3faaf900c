"""Shared pieces of the tournament services: the actor type, permission helpers, the
effective ruleset and the action log."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.utils.translation import gettext as _

from core.exceptions import ApplicationError, PermissionDeniedError, application_error_merged
from tournament.models import (
    ActionLog,
    Tournament,
)
from tournament.rulesets import tournament_ruleset, tournament_ruleset_refusals

User = Any  # the project's user model instance (AbstractBaseUser); kept loose for mypy plugins


# -- permission helpers -------------------------------------------------------------------------


def _require_authenticated(actor: User) -> None:
    if actor is None or not getattr(actor, "is_authenticated", False):
        raise PermissionDeniedError(_("Sign in first."), code="not_authenticated")


def require_director(*, actor: User, tournament: Tournament, action: Any = None) -> None:
    """Raise unless ``actor`` may take a director ``action`` (default MANAGE) in ``tournament``:
    the permission table and the lifecycle gate of :mod:`tournament.context`."""
    from tournament.context import Action, require_actor

    require_actor(actor, tournament, action or Action.MANAGE)


def _ruleset_effective(preset: str, overrides: Mapping[str, object] | None) -> dict[str, object]:
    """The effective ruleset as JSON (the engine's, less what tournament play forbids,
    :mod:`tournament.rulesets`); InvalidRuleset -> 400 naming the key and rule (§1, R11),
    every refused key at once (:func:`ruleset_refusals`)."""
    refusals = ruleset_refusals(preset, overrides)
    if refusals:
        raise application_error_merged(refusals)
    return tournament_ruleset(preset, overrides).to_json()


def ruleset_refusals(preset: str, overrides: Mapping[str, object] | None) -> list[ApplicationError]:
    """Every refusal of ``preset`` with ``overrides`` (none: valid), each naming its field
    (``ruleset_preset`` or ``ruleset_overrides.<key>``) and rule (§1, R11)."""
    if overrides is not None and not isinstance(overrides, Mapping):
        return [
            ApplicationError(
                _("ruleset_overrides must be an object of ruleset keys (§1)."),
                code="bad_type",
                rule="§1",
                fields={"ruleset_overrides": [_("Must be an object.")]},
            )
        ]
    refusals = []
    for exc, _overrides in tournament_ruleset_refusals(preset, overrides):
        field = "ruleset_preset" if exc.field == "preset" else f"ruleset_overrides.{exc.field}"
        refusals.append(
            ApplicationError(
                exc.message, code=exc.code, rule=exc.rule, fields={field: [exc.message]}
            )
        )
    return refusals


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


def _referee_actor_class() -> type:
    from tournament.context import RefereeActor

    return RefereeActor


def _action(name: str) -> Any:
    from tournament.context import Action

    return Action[name]
