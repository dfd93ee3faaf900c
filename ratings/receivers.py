"""Receivers of scoring's signals: a finished or reopened match updates the ratings (after
commit, in a task; the update is idempotent, so a repeated signal is harmless)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction


def on_match_changed(sender: Any, *, match_id: int, **kwargs: Any) -> None:
    from ratings.tasks import rating_update

    transaction.on_commit(partial(rating_update.delay, match_id), robust=True)
