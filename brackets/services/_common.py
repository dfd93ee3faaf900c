"""Helpers shared by the brackets services: locks, permission, errors, log, live events."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from django.utils.translation import gettext as _

from brackets.engine import BracketError, seed_manual, seed_random
from brackets.models import Round, Stage
from core.broadcast import broadcast_on_commit
from core.exceptions import ApplicationError, NotFoundError
from tournament.groups import tournament_group
from tournament.models import Tournament
from tournament.services import action_log_record, require_director, tournament_version_bump

logger = logging.getLogger("brackets")

Actor = Any  # a user instance; ``None`` means the system (a task or the reconciliation)


def require_director_or_system(actor: Actor, tournament_id: int) -> None:
    """403 unless ``actor`` directs the tournament. ``actor=None`` is the system itself."""
    if actor is None:
        return
    require_director(actor=actor, tournament=Tournament.objects.get(pk=tournament_id))


def bracket_error(exc: BracketError) -> ApplicationError:
    """An engine rejection as a 400 naming the engine's code, rule and field (STYLE.md §8)."""
    field = exc.field or "non_field_errors"
    return ApplicationError(
        exc.message, code=exc.code, rule=exc.rule, fields={field: [exc.message]}
    )


#: How many names a seed-order error lists before "and N more".
_NAMES_SHOWN = 10


def seed_order_error(
    exc: BracketError, names: Mapping[int, str], *, partnerships: bool = False
) -> ApplicationError:
    """A seed order the engine refused (T8), its players named ("Ann Lee, Bo Diaz") instead of
    a list of ids ("[1, 2]"); an id that is no entrant here reads "#id"."""
    if not exc.players or exc.code not in {"unknown_player", "missing_player", "duplicate_player"}:
        return bracket_error(exc)
    shown = [names.get(p) or f"#{p}" for p in exc.players[:_NAMES_SHOWN]]
    listed = ", ".join(shown)
    if len(exc.players) > _NAMES_SHOWN:
        listed = _("%(names)s and %(n)s more") % {
            "names": listed,
            "n": len(exc.players) - _NAMES_SHOWN,
        }
    if exc.code == "duplicate_player":
        message = _("%(name)s is listed twice in the seed order (T8).") % {"name": listed}
    elif exc.code == "unknown_player":
        message = (
            _("The seed order names partnerships not in the stage: %(names)s (T8).")
            if partnerships
            else _("The seed order names players not in the stage: %(names)s (T8).")
        ) % {"names": listed}
    else:
        message = (
            _("The seed order leaves out partnerships: %(names)s (T8).")
            if partnerships
            else _("The seed order leaves out players: %(names)s (T8).")
        ) % {"names": listed}
    return ApplicationError(
        message, code=exc.code, rule=exc.rule, fields={exc.field or "order": [message]}
    )


def first_stage_order(
    stage: Stage,
    ids: Sequence[int],
    method: str,
    *,
    by_rating: Callable[[], tuple[int, ...]],
    order: Sequence[int],
    rng_seed: int | None,
    names: Callable[[Sequence[int]], Mapping[int, str]] | None = None,
    partnerships: bool = False,
) -> tuple[int, ...]:
    """The first stage's seeding order (T8) of the entrants ``ids`` (entries or partnerships).

    ``rating`` calls ``by_rating``; ``manual`` checks ``order`` against ``ids``; ``random``
    draws from ``rng_seed`` (recorded on the stage; default the stage's seed). Any other method,
    or an engine rejection, is a 400 naming the field and the rule; ``names`` (ids -> names)
    names the players (``partnerships``: the partnerships) a manual order gets wrong.
    """
    try:
        if method == Stage.Seeding.RATING:
            return by_rating()
        if method == Stage.Seeding.MANUAL:
            try:
                return seed_manual(ids, list(order))
            except BracketError as exc:
                known = names(exc.players) if names is not None else {}
                raise seed_order_error(exc, known, partnerships=partnerships) from exc
        if method == Stage.Seeding.RANDOM:
            if rng_seed is not None:
                stage.rng_seed = rng_seed
            return seed_random(ids, stage.rng_seed)
    except BracketError as exc:
        raise bracket_error(exc) from exc
    raise ApplicationError(
        _("The first stage is seeded by rating, manual order or random draw (T8)."),
        code="bad_choice",
        fields={"method": [_("Rating, manual or random.")]},
    )


def stage_lock(stage_id: int) -> Stage:
    """The stage row, locked ``FOR UPDATE`` until the transaction ends.

    Every write that seats or advances a stage takes this lock first (then the round's), so
    publishing, closing and advancing one stage are serialised and always lock in one order.
    """
    try:
        return Stage.objects.select_for_update().get(pk=stage_id)
    except Stage.DoesNotExist:
        raise NotFoundError(_("No stage %(id)s.") % {"id": stage_id}, code="not_found") from None


def round_lock(round_id: int) -> Round:
    """The round row locked ``FOR UPDATE``; call it after :func:`stage_lock` (lock order)."""
    try:
        return Round.objects.select_for_update().get(pk=round_id)
    except Round.DoesNotExist:
        raise NotFoundError(_("No round %(id)s.") % {"id": round_id}, code="not_found") from None


def action_log_record_by_id(
    *,
    tournament_id: int,
    actor: Actor,
    verb: str,
    target: Any = None,
    reason: str = "",
    data: Mapping[str, Any] | None = None,
) -> None:
    """Append to the tournament's action log (who, when, what, why); ``actor=None`` = system."""
    action_log_record(
        tournament=Tournament.objects.get(pk=tournament_id),
        actor=actor,
        verb=verb,
        target=target,
        reason=reason,
        data=data,
    )


def tournament_notify(tournament_id: int) -> int:
    """Bump the tournament version (ETag / cache key) and tell its spectators after commit.

    Call it last in the transaction: the bump locks the tournament row until commit.
    """
    version = tournament_version_bump(tournament_id=tournament_id)
    broadcast_on_commit(
        [tournament_group(tournament_id)],
        {"type": "tournament.update", "tournament_version": version},
    )
    return version


def pause_for_tests() -> None:
    """A test-only pause in the middle of an advance (after closing the round and storing the
    next one, before commit), so a test can kill the worker there.

    Inactive unless the environment variable ``BRACKETS_TEST_ADVANCE_PAUSE`` (seconds) is set.
    With ``BRACKETS_TEST_ADVANCE_MARKER`` (a file path) the pause is one-shot: the file is
    written with the pid of the process that pauses, and a later run that finds it does not
    pause (so a redelivered task completes).
    """
    seconds = os.environ.get("BRACKETS_TEST_ADVANCE_PAUSE")
    if not seconds:
        return
    marker = os.environ.get("BRACKETS_TEST_ADVANCE_MARKER")
    if marker:
        path = Path(marker)
        if path.exists():
            return
        path.write_text(str(os.getpid()))
    logger.warning("test pause of %s s inside an advance (pid %s)", seconds, os.getpid())
    time.sleep(float(seconds))
