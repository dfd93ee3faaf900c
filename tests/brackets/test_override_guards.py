"""A director's result override (T4) records once, refuses a form drawn from a state that is
gone, and says when the next round was already paired on the result it replaces.

Bug: three simultaneous confirmed posts wrote three ``match.override`` entries; an older
confirm form (other scores) replaced a newer result unseen, after the next round had been
paired on it; neither page nor confirmation said the match was finished or the next round
out. Now: the same result again is a no-op (nothing written or logged, and it says so); the
form carries the match version and a stale one is refused (409, nothing written); after an
advance the override must be acknowledged (the next round stands, never re-paired: README,
"Errors in the automatic path"), on the page and in the API alike.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connections
from django.urls import reverse
from rest_framework.test import APIClient

from brackets import services
from brackets.models import Round, RoundMatch, Stage
from core.events import match_finished
from core.exceptions import ConflictError
from scoring.models import Match
from scoring.services import match_result_override
from tests.brackets.conftest import make_tournament, open_matches
from tests.brackets.factories_pages import director_client
from tournament.models import ActionLog

pytestmark = pytest.mark.django_db

WIN_A = [6, 0, 0, 0]
WIN_B = [0, 6, 0, 0]


def _stage(n: int = 8) -> tuple[Any, Any, Stage, Round]:
    t, d = make_tournament(n)
    stage = services.stage_create(
        tournament=t,
        actor=d,
        name="Qualifying",
        kind="qualifying",
        swiss_rounds=2,
        auto_advance=True,
    )
    services.stage_seed(stage=stage, actor=d)
    return t, d, stage, services.round_publish(stage=stage, actor=d)


def _advanced() -> tuple[Any, Any, Stage, Round, Match]:
    """Round 1 played by override and advanced: round 2 is paired on its results."""
    t, d, stage, r1 = _stage()
    matches = open_matches(r1)
    for m in matches:
        match_result_override(match_id=m.pk, actor=d, scores=WIN_A, reason="sheet")
    assert services.round_advance(round_id=r1.pk).outcome == "published"
    matches[0].refresh_from_db()
    return t, d, stage, r1, matches[0]


def _overrides() -> int:
    return ActionLog.objects.filter(verb="match.override").count()


def test_the_same_override_again_writes_nothing() -> None:
    _, d, _, r1 = _stage()
    m = open_matches(r1)[0]
    first = match_result_override(match_id=m.pk, actor=d, scores=WIN_A, reason="sheet")
    assert first.changed
    again = match_result_override(match_id=m.pk, actor=d, scores=WIN_A, reason="sheet")
    assert not again.changed
    assert again.match.version == first.match.version
    assert _overrides() == 1


def test_a_stale_version_is_refused_and_nothing_is_written() -> None:
    _, d, _, r1 = _stage()
    m = open_matches(r1)[0]
    drawn = m.version
    match_result_override(
        match_id=m.pk, actor=d, scores=WIN_A, reason="sheet", expected_version=drawn
    )
    with pytest.raises(ConflictError) as exc:
        match_result_override(
            match_id=m.pk, actor=d, scores=WIN_B, reason="older tab", expected_version=drawn
        )
    assert exc.value.code == "stale_match"
    assert "6-0-0-0" in exc.value.message
    m.refresh_from_db()
    assert (list(m.scores), m.winner_seat) == (WIN_A, 0)
    assert _overrides() == 1
    # A stale form asking for the result the match already has is a repeat, not a conflict.
    same = match_result_override(
        match_id=m.pk, actor=d, scores=WIN_A, reason="sheet", expected_version=drawn
    )
    assert not same.changed


def test_after_the_advance_the_override_must_be_acknowledged() -> None:
    _, d, stage, _, m = _advanced()
    with pytest.raises(ConflictError) as exc:
        match_result_override(match_id=m.pk, actor=d, scores=WIN_B, reason="late sheet")
    assert exc.value.code == "round_advanced"
    assert "Round 2 of Qualifying is already published" in exc.value.message
    m.refresh_from_db()
    assert m.winner_seat == 0
    done = match_result_override(
        match_id=m.pk, actor=d, scores=WIN_B, reason="late sheet", acknowledge_advanced=True
    )
    assert done.changed
    assert done.built_on
    assert done.match.winner_seat == 1
    log = ActionLog.objects.filter(verb="match.override").latest("pk")
    assert log.data["after_advance"] is True
    # Round 2 stands: it is not re-paired (advancement exactly once).
    assert Round.objects.filter(stage=stage).count() == 2


@pytest.mark.django_db(transaction=True)
def test_simultaneous_identical_overrides_record_once() -> None:
    _, d, _, r1 = _stage()
    m = open_matches(r1)[0]
    assert match_finished.disconnect(dispatch_uid="brackets.round_check")
    barrier = threading.Barrier(3)
    changed: list[bool] = []
    errors: list[BaseException] = []

    def post() -> None:
        try:
            barrier.wait()
            result = match_result_override(
                match_id=m.pk, actor=d, scores=WIN_A, reason="sheet", expected_version=m.version
            )
            changed.append(result.changed)
        except BaseException as exc:  # re-raised in the main thread
            errors.append(exc)
        finally:
            connections.close_all()

    try:
        threads = [threading.Thread(target=post) for _ in range(3)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=60)
    finally:
        from brackets.receivers import on_match_finished

        match_finished.connect(on_match_finished, dispatch_uid="brackets.round_check")
    assert errors == []
    assert sorted(changed) == [False, False, True]
    assert _overrides() == 1


# -- the page ------------------------------------------------------------------------------------


def _url(t: Any, m: Match) -> str:
    round_id = RoundMatch.objects.get(match=m).round_id
    return reverse("brackets:match-action", args=[t.slug, round_id, m.pk, "override"])


def _form(scores: list[int], version: int, **extra: str) -> dict[str, str]:
    data = {f"score_{i}": str(s) for i, s in enumerate(scores)}
    return {**data, "reason": "sheet", "version": str(version), **extra}


def test_the_page_refuses_an_older_confirm_form() -> None:
    t, d, _, r1 = _stage()
    m = open_matches(r1)[0]
    c = director_client(d)
    url = _url(t, m)
    assert f'name="version" value="{m.version}"' in c.get(url).content.decode()
    old = _form(WIN_B, m.version, confirmed="yes")
    assert c.post(url, _form(WIN_A, m.version, confirmed="yes")).status_code == 302
    r = c.post(url, old)
    assert r.status_code == 409
    assert "The match changed after this form was drawn" in r.context["problem"]
    m.refresh_from_db()
    assert m.winner_seat == 0
    assert _overrides() == 1
    # The page again carries the version it is drawn from now, with what was typed.
    html = r.content.decode()
    assert f'name="version" value="{m.version}"' in html
    assert 'id="action-finished"' in html


def test_the_page_says_a_repeat_changed_nothing() -> None:
    t, d, _, r1 = _stage()
    m = open_matches(r1)[0]
    c = director_client(d)
    url = _url(t, m)
    form = _form(WIN_A, m.version, confirmed="yes")
    assert c.post(url, form).status_code == 302
    r = c.post(url, form)
    assert r.status_code == 302
    said = [str(x) for x in r.wsgi_request._messages]
    assert "Nothing changed" in said[-1]
    assert _overrides() == 1


def test_the_page_warns_after_the_advance_and_needs_the_acknowledgement() -> None:
    t, d, _, _, m = _advanced()
    c = director_client(d)
    url = _url(t, m)
    page = c.get(url).content.decode()
    assert "This match is already finished (director override)" in page
    assert "Round 2 of Qualifying is already published" in page
    assert 'name="acknowledge_advanced"' in page
    # Continue without the tick: the field says why, no confirmation step.
    r = c.post(url, _form(WIN_B, m.version))
    assert r.status_code == 400
    assert "acknowledge_advanced" in r.context["form"].errors
    # A confirmed post without it (an older page): 409, nothing written.
    r = c.post(url, _form(WIN_B, m.version, confirmed="yes"))
    assert r.status_code in (400, 409)
    m.refresh_from_db()
    assert m.winner_seat == 0
    # With it: the confirmation repeats what stands, then the override.
    r = c.post(url, _form(WIN_B, m.version, acknowledge_advanced="on"))
    assert r.status_code == 200
    assert "it stands and is not re-paired" in r.context["confirm"]
    r = c.post(url, _form(WIN_B, m.version, acknowledge_advanced="True", confirmed="yes"))
    assert r.status_code == 302
    m.refresh_from_db()
    assert m.winner_seat == 1


# -- the API -------------------------------------------------------------------------------------


def test_the_api_checks_the_version_repeat_and_advance() -> None:
    _, d, _, _, m = _advanced()
    api = APIClient()
    api.force_authenticate(d)
    url = f"/api/matches/{m.pk}/override/"
    body: dict[str, Any] = {"scores": WIN_B, "reason": "late sheet"}
    r = api.post(url, {**body, "version": m.version - 1}, format="json")
    assert (r.status_code, r.json()["error"]["code"]) == (409, "stale_match")
    assert r.json()["error"]["version"] == m.version
    r = api.post(url, {**body, "version": m.version}, format="json")
    assert (r.status_code, r.json()["error"]["code"]) == (409, "round_advanced")
    assert "acknowledge_advanced" in r.json()["error"]["fields"]
    ack = {**body, "version": m.version, "acknowledge_advanced": True}
    r = api.post(url, ack, format="json")
    assert r.status_code == 200
    assert "Override-Unchanged" not in r
    r = api.post(url, ack, format="json")  # the same again (its version is stale now)
    assert r.status_code == 200
    assert r["Override-Unchanged"] == "true"
    assert ActionLog.objects.filter(verb="match.override", target_id=str(m.pk)).count() == 2


def test_a_match_played_to_the_end_is_said_so_not_normal() -> None:
    """Walkthrough: the note read "already finished (normal)", the end reason's raw label."""
    from brackets.views.matches import finished_note
    from scoring.models import Seat

    *_, m = _advanced()
    Match.objects.filter(pk=m.pk).update(end_reason=Match.EndReason.NORMAL)
    m.refresh_from_db()
    note = finished_note(m, list(Seat.objects.filter(match=m).order_by("seat")))
    assert note.startswith("This match is already finished (played to the end): A ")
