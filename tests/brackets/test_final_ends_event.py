"""The end of the final ends the tournament (T6, T10): when the final's match finishes - after
the players confirm it, when confirmation is on - the stage and the tournament finish, as the
lifecycle page says, even in a stage the director advances; the director pages offer no
"seed the next one" after the final, and spectators never read "In play" beside a champion."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.test import Client

from brackets import services
from brackets.models import RoundMatch, Stage
from scoring import confirmation
from scoring.models import Match
from scoring.services import hand_record, match_start
from tests.brackets.conftest import make_tournament
from tests.brackets.factories_pages import director_client
from tests.brackets.pairs_helpers import AC_SIX_LOVE, qualified_for_the_final
from tournament.models import Tournament

pytestmark = pytest.mark.django_db

# Seat A dominoes every hand: 6-0 (wsod, R31c).
A_SIX_LOVE: list[dict[str, Any]] = [
    {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0},
    *[{"poser": 0, "pose_tile": "5-4", "end": "domino", "winner": 0}] * 5,
]


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def _play(match_id: int, actor: Any, records: list[dict[str, Any]], capture: Any) -> None:
    """Record ``records`` through the services, running what each commit starts (the
    ``match_finished`` event's round check, Celery eager in tests)."""
    match_start(match_id=match_id, actor=actor, lot_winner=0)
    for number, payload in enumerate(records, start=1):
        with capture(execute=True):
            hand_record(match_id=match_id, actor=actor, expected_number=number, payload=payload)


def _pairs_final(**kwargs: Any) -> tuple[Tournament, Any, Stage, int]:
    t, d, _q, k = qualified_for_the_final(**kwargs)
    rnd = services.round_publish(stage=k, actor=d)
    return t, d, k, RoundMatch.objects.get(round=rnd).match_id


def _assert_over(t: Tournament, stage: Stage) -> None:
    stage.refresh_from_db()
    t.refresh_from_db()
    assert stage.auto_advance is False  # the director advances this stage's rounds
    assert stage.status == Stage.Status.FINISHED
    assert t.status == Tournament.Status.FINISHED
    bracket = html.unescape(Client().get(f"/live/{t.slug}/bracket/").content.decode())
    # T10: a pairs event's champion is a partnership.
    assert ("Champion partnership:" if t.entry_format == "pairs" else "Champion:") in bracket
    standings = html.unescape(Client().get(f"/live/{t.slug}/standings/").content.decode())
    assert "In play" not in standings


def test_the_pairs_final_ends_the_tournament(django_capture_on_commit_callbacks: Any) -> None:
    """Bug: after the last hand of the final the tournament stayed "Running" until the
    director pressed "End the stage". Now the end of the final ends the stage and the
    tournament (T6, T10), as the lifecycle page says."""
    t, d, k, match_id = _pairs_final()
    _play(match_id, d, AC_SIX_LOVE, django_capture_on_commit_callbacks)
    assert Match.objects.get(pk=match_id).status == Match.Status.FINISHED
    _assert_over(t, k)


def test_the_final_ends_once_its_result_is_confirmed(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """With confirmation at the match's end (issue 15) the final ends when every player has
    confirmed the result, not before."""
    t, d, k, match_id = _pairs_final(confirmation="match_end")
    _play(match_id, d, AC_SIX_LOVE, django_capture_on_commit_callbacks)
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING  # the result waits for the players
    for seat in range(4):
        with django_capture_on_commit_callbacks(execute=True):
            confirmation.hand_confirm(
                match_id=match_id, actor=d, number=len(AC_SIX_LOVE), seat=seat
            )
    _assert_over(t, k)


def test_the_individual_final_ends_the_tournament(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """The same for an individual event's final table (T6): four players, a knockout stage
    that is the final table itself, run by the director."""
    t, d = make_tournament(4)
    k = services.stage_create(
        tournament=t, actor=d, name="Final", kind="knockout", rng_seed=3, auto_advance=False
    )
    services.stage_seed(stage=k, actor=d, method="rating")
    rnd = services.round_publish(stage=k, actor=d)
    match_id = RoundMatch.objects.get(round=rnd).match_id
    _play(match_id, d, A_SIX_LOVE, django_capture_on_commit_callbacks)
    _assert_over(t, k)


def test_a_final_played_but_not_ended_offers_to_end_the_final_not_to_seed(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """Bug: the preview of a played final offered "End the stage and seed the next one", though
    no stage can follow the final. Now it says "End the final" (here the round check has not
    run yet: the director may end it by hand)."""
    t, d, k, match_id = _pairs_final()
    match_start(match_id=match_id, actor=d, lot_winner=0)
    for number, payload in enumerate(AC_SIX_LOVE, start=1):
        hand_record(match_id=match_id, actor=d, expected_number=number, payload=payload)
    client = director_client(d)
    page = html.unescape(
        client.get(f"/director/tournaments/{t.slug}/stages/{k.pk}/preview/").content.decode()
    )
    assert "End the final: the tournament finishes (T6)" in page
    assert "seed the next one" not in page
    client.post(f"/director/tournaments/{t.slug}/stages/{k.pk}/advance/")
    _assert_over(t, k)
