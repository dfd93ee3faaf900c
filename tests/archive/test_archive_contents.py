"""What the archive holds: every table of a tournament is archived or left out with a reason.

Bug: the archive was written before partnerships (T9), hand confirmations and disputes, and
nobody added them: a pairs event's archive had no partnerships, and its imported copy showed
no standings, bracket or results. Now every concrete model with a foreign-key path to a
tournament or to a player must be in ``archive.contents.PARTS`` or in ``NOT_ARCHIVED`` with its
reason, so a model added later fails here until someone decides.
"""

from __future__ import annotations

from django.apps import apps
from django.db import models

from archive.contents import NOT_ARCHIVED, PARTS
from archive.services import FORMAT_VERSION, READABLE_VERSIONS
from tournament.models import Player, Tournament


def _owned(model: type[models.Model], seen: frozenset[type[models.Model]] = frozenset()) -> bool:
    """``model`` reaches a tournament or a player through its foreign keys."""
    if model in (Tournament, Player):
        return True
    for field in model._meta.concrete_fields:
        target = field.related_model if field.is_relation else None
        fresh = isinstance(target, type) and target not in seen and target is not model
        if fresh and _owned(target, seen | {model}):
            return True
    return False


def test_every_model_of_a_tournament_is_archived_or_left_out_with_a_reason() -> None:
    archived = {part.model for part in PARTS}
    owned = {
        m for m in apps.get_models() if not m._meta.abstract and not m._meta.proxy and _owned(m)
    }
    forgotten = sorted(m._meta.label for m in owned - archived - set(NOT_ARCHIVED))
    assert not forgotten, f"archive these models or list them in NOT_ARCHIVED: {forgotten}"
    assert not archived & set(NOT_ARCHIVED)
    assert all(reason.strip() for reason in NOT_ARCHIVED.values())
    # The partnerships of a pairs event, their members and the players' confirmations and
    # disputes are part of the record (format 3).
    labels = {m._meta.label for m in archived}
    assert {
        "tournament.Partnership",
        "tournament.PartnershipMember",
        "scoring.HandConfirmation",
        "scoring.ResultDispute",
    } <= labels


def test_the_parts_are_in_reference_order_and_the_format_reads_its_older_versions() -> None:
    """An import creates each row after the rows it names (one file per table, in order)."""
    order = [part.model for part in PARTS]
    for i, model in enumerate(order):
        for field in model._meta.concrete_fields:
            target = field.related_model if field.is_relation else None
            if target in order and target is not model:
                assert order.index(target) < i, (model, field.name)
    assert {part.since for part in PARTS} <= set(READABLE_VERSIONS)
    assert max(part.since for part in PARTS) == FORMAT_VERSION
    assert set(range(1, FORMAT_VERSION + 1)) == set(READABLE_VERSIONS)
    assert len({part.name for part in PARTS}) == len(PARTS)
