"""Signals scoring sends so that later apps react without scoring importing them.

``match_finished`` is sent after the recording transaction commits, once per transition of a
match into ``finished`` (by the last hand, a forfeit or a director override), with
``sender=Match`` and the keyword arguments ``match_id``, ``tournament_id`` and
``end_reason``. Receivers must be idempotent: a reconciliation job may send it again for a
match whose advancement was lost (PITFALLS.md). ``brackets`` subscribes; scoring never imports
brackets (STYLE.md, layering).
"""

from __future__ import annotations

from django.dispatch import Signal

match_finished = Signal()

# Sent after commit when a director voids the hand that had ended a match, so the match is in
# progress again (kwargs: match_id, tournament_id). Receivers undo what match_finished did.
match_reopened = Signal()
