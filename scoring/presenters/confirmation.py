"""The players' confirmation block of the referee page (issue 15; scoring/confirmation.py):
what the panel needs to let each seated player confirm - or dispute - the last hand on the
referee's phone, online or offline (static/js/referee.js queues the taps with the hands)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext as _

from scoring.engine.placing import match_placings, seat_side_places
from scoring.engine.snapshot import InvalidSnapshot, state_from_json
from scoring.models import HandConfirmation, Match, ResultDispute
from scoring.presenters.match import ruleset_of
from tournament.models import Tournament


def confirmation_panel(
    match: Match, view: Any, hands: Sequence[Any], *, may_write: bool
) -> dict[str, Any] | None:
    """The block's context, or None when the match plays without confirmation (or the caller
    may not act at this table). A scheduled match shows the tournament's setting (frozen when
    its first hand starts it)."""
    mode = match.confirmation
    if match.status == Match.Status.SCHEDULED:
        mode = match.tournament.confirmation
    if not may_write or mode in ("", Tournament.Confirmation.OFF):
        return None
    if match.status not in (Match.Status.SCHEDULED, Match.Status.IN_PROGRESS):
        return None
    live = [h for h in hands if not h.void]
    last = live[-1] if live else None
    confirmed: list[int] = []
    if last is not None and match.confirmation_hold:
        confirmed = sorted(
            HandConfirmation.objects.filter(hand_id=last.pk).values_list("seat", flat=True)
        )
    recorded = (
        {
            "id": last.pk,  # a tap names the hand it confirms (hand_changed)
            "number": last.number,
            "poser": last.poser,
            "pose_tile": last.pose_tile,
            "end": last.end,
            "winner": last.winner if last.end == "domino" else None,
            "counts": last.counts,
            "llave": last.llave,  # the dispute form keeps it (it has no llave control)
        }
        if last is not None
        else None
    )
    final = held_result(match, live)
    return {
        "mode": mode,
        "hold": match.confirmation_hold,
        "number": last.number if last is not None else "",
        "confirmed_json": json.dumps(confirmed),
        "last_json": json.dumps(recorded),
        "final_json": json.dumps(final) if final is not None else "",
        "seats": view.seats,
        "max_count": view.max_count,
    }


def held_result(match: Match, live: Sequence[Any]) -> dict[str, Any] | None:
    """The result the players confirm (issue 15), while the hand that ended the match waits
    for them: the hand's number, every seat's final score, the winner's seat, the placings
    the match will finish with (T3/T4, as ``scoring.services`` will store them) and the seats
    left on six-love (R30, R31c; both partners, R46). None when no result is held. No query:
    the engine snapshot of the current version carries the statistics; without one (never
    the case while a result is held) the placings and six-loves are left out rather than
    guessed."""
    if match.status != Match.Status.IN_PROGRESS or match.winner_seat is None or not live:
        return None
    scores = list(match.scores or [])
    placings: list[int] | None = None
    six_love: list[int] = []
    snapshot = match.engine_state or {}
    if snapshot.get("match_version") == match.version and snapshot.get("state"):
        try:
            state = state_from_json(ruleset_of(match), snapshot["state"])
        except InvalidSnapshot:
            state = None
        if state is not None:
            history = [list(h.scores_after or []) for h in live]
            # T3: a sudden-death hand's winner (match.winner_seat) is first though the
            # engine does not see the match as over.
            placings = match_placings(state, history, match.winner_seat)
            if state.team_stats is not None:
                # R42/T4: the card reads each partnership's place (1st, 2nd), as every page
                # does, not the seat placings (1, 3) the match stores.
                sides = seat_side_places(placings)
                placings = [p for p in sides if p is not None] if None not in sides else None
            six_love = [i for i, st in enumerate(state.stats) if st.six_love_received]
    return {
        "number": live[-1].number,
        "scores": scores,
        "winner": match.winner_seat,
        "placings": placings,
        "six_love": six_love,
    }


def placing_words() -> str:
    """A table's placings (T4) 1st..4th in the page's language, worded as the spectators'
    pages word them (live/labels.py), as JSON for the confirmation block."""
    return json.dumps([_("1st"), _("2nd"), _("3rd"), _("4th")])


def dispute_decision(match: Match, view: Any) -> str:
    """What the director decided on the last dispute of this match, for the referee's phone
    (the players at the table asked; the phone must say what became of it), while the
    disputed hand - or the player's version that replaced it - is still the last hand;
    "" otherwise (one query).
    """
    if not match.hands_count:
        return ""
    dispute = (
        ResultDispute.objects.filter(match=match)
        .exclude(status=ResultDispute.Status.OPEN)
        .select_related("hand")
        .order_by("-resolved_at", "-id")
        .first()
    )
    if dispute is None or dispute.hand.number != match.hands_count:
        return ""
    seats = {s.seat: s.label for s in view.seats}
    words = {
        "number": dispute.hand.number,
        "seat": seats.get(dispute.seat, dispute.seat),
        "reason": dispute.reason,
    }
    if dispute.status == ResultDispute.Status.CORRECTED:
        text = _(
            "The director decided the dispute of hand %(number)s: %(seat)s's version replaces "
            "the recorded one. Reason: %(reason)s"
        )
    else:
        text = _(
            "The director decided the dispute of hand %(number)s: the recorded hand stands "
            "(%(seat)s disputed it). Reason: %(reason)s"
        )
    return text % words
