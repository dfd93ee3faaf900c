"""A finished tournament's match pages (override, forfeit, replace) are read-only up front, and
the override form's placing fields say what a placing is (T3, T4).

Found by the user test (a director running a whole event through the pages):

* the override page of a FINISHED tournament showed the whole editable form, and only the
  final confirmation step was refused (409 ``tournament_finished``, rule lifecycle). Now the
  page says at once that the event is finished and its results read-only, names the way back
  (reopen it on the Lifecycle page) and offers no form; a POST changes nothing (409).
* the placing fields read "Place of A (only when the top scores tie)", which confused the
  director. Now each says whose placing it is and its range, "Placing of A · Ana
  (1st to 4th; a placing may be shared, T3)", and one note above the fields says when placings
  are needed.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse
from django.utils.html import escape

from brackets.models import RoundMatch
from brackets.services import round_publish, stage_seed
from scoring.models import Match, Seat
from scoring.services import match_result_override
from tests.brackets.factories_pages import director_client, tournament_with_stage
from tournament.models import ActionLog, Tournament
from tournament.services import tournament_reopen, tournament_status_change

pytestmark = pytest.mark.django_db

READ_ONLY = "{name} is finished: its results are read-only, so this match cannot be changed."
REOPEN = (
    "To correct a result, reopen the tournament on its Lifecycle page (it goes back to "
    "running; your reason is kept in the action log), then come back to this page."
)


@pytest.fixture
def world() -> dict[str, Any]:
    """A published round whose first table was decided by an override (6-2-0-0)."""
    tournament, director, stage = tournament_with_stage(8)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    links = list(RoundMatch.objects.filter(round=rnd).order_by("table_number"))
    match = Match.objects.get(pk=links[0].match_id)
    match_result_override(
        match_id=match.pk, actor=director, scores=[6, 2, 0, 0], reason="score sheet"
    )
    return {
        "t": tournament,
        "d": director,
        "round": rnd,
        "match": match,
        "open": Match.objects.get(pk=links[1].match_id),
        "c": director_client(director),
    }


def _url(w: dict[str, Any], action: str, match: Match | None = None) -> str:
    m = match or w["match"]
    return reverse("brackets:match-action", args=[w["t"].slug, w["round"].pk, m.pk, action])


def _finish(w: dict[str, Any]) -> None:
    tournament_status_change(tournament=w["t"], actor=w["d"], status="finished")
    w["t"].refresh_from_db()


def _override_post(**extra: str) -> dict[str, str]:
    return {
        "score_0": "6",
        "score_1": "0",
        "score_2": "0",
        "score_3": "3",
        "reason": "sheet re-read",
        **extra,
    }


def test_a_finished_events_override_page_says_read_only_and_offers_no_form(
    world: dict[str, Any],
) -> None:
    _finish(world)
    page = world["c"].get(_url(world, "override"))
    assert page.status_code == 200
    html = page.content.decode()
    notice = re.search(
        r'<div class="warn" role="status" id="action-read-only">(.*?)</div>', html, re.S
    )
    assert notice is not None
    assert escape(READ_ONLY.format(name=world["t"].name)) in notice.group(1)
    assert escape(REOPEN) in notice.group(1)
    lifecycle = reverse("tournament:lifecycle", args=[world["t"].slug])
    assert f'<a href="{lifecycle}" id="action-reopen">Open the Lifecycle page</a>' in html
    # No form, no field, no "an override replaces this result".
    assert 'id="action-form"' not in html
    assert 'name="score_0"' not in html
    assert 'name="reason"' not in html
    assert "An override replaces this result" not in html
    assert "Back to the round" in html


def test_a_post_to_a_finished_events_override_page_changes_nothing(
    world: dict[str, Any],
) -> None:
    _finish(world)
    before = list(
        Seat.objects.filter(match=world["match"]).order_by("seat").values_list("points", "placing")
    )
    logged = ActionLog.objects.filter(verb="match.override").count()
    for data in (_override_post(), _override_post(confirmed="yes")):
        r = world["c"].post(_url(world, "override"), data)
        assert r.status_code == 409
        html = r.content.decode()
        assert 'id="action-read-only"' in html
        assert 'id="confirm-box"' not in html
        assert 'id="action-form"' not in html
    after = list(
        Seat.objects.filter(match=world["match"]).order_by("seat").values_list("points", "placing")
    )
    assert after == before
    assert ActionLog.objects.filter(verb="match.override").count() == logged


@pytest.mark.parametrize("action", ["forfeit", "replace"])
def test_the_other_match_pages_of_a_finished_event_are_read_only_too(
    world: dict[str, Any], action: str
) -> None:
    _finish(world)
    url = _url(world, action, world["open"])
    page = world["c"].get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="action-read-only"' in html
    assert 'id="action-form"' not in html
    assert (
        world["c"].post(url, {"seat": "0", "reason": "late", "confirmed": "yes"}).status_code == 409
    )
    world["open"].refresh_from_db()
    assert world["open"].status == Match.Status.SCHEDULED


def test_after_a_reopen_the_override_form_is_offered_again(world: dict[str, Any]) -> None:
    _finish(world)
    tournament_reopen(tournament=world["t"], actor=world["d"], reason="sheet re-read")
    assert Tournament.objects.get(pk=world["t"].pk).status == Tournament.Status.RUNNING
    html = world["c"].get(_url(world, "override")).content.decode()
    assert 'id="action-read-only"' not in html
    assert 'id="action-form"' in html
    assert "An override replaces this result" in html


def test_a_running_events_override_page_is_not_read_only(world: dict[str, Any]) -> None:
    html = world["c"].get(_url(world, "override")).content.decode()
    assert 'id="action-read-only"' not in html
    assert 'name="score_0"' in html


def test_each_placing_field_says_whose_placing_and_its_range(world: dict[str, Any]) -> None:
    page = world["c"].get(_url(world, "override", world["open"]))
    form = page.context["form"]
    seats = list(
        Seat.objects.filter(match=world["open"]).order_by("seat").select_related("entry__player")
    )
    for seat in seats:
        letter = "ABCD"[seat.seat]
        assert form.fields[f"placing_{seat.seat}"].label == (
            f"Placing of {letter} · {seat.entry.player.name} "
            "(1st\u20134th; a placing may be shared, T3)"
        )
    html = page.content.decode()
    assert "Place of A" not in html
    assert (
        "Placings: leave them all empty to place by the scores, or give every one; they are "
        "needed when the top scores tie (T3, T4). Players level share a placing and skip the "
        "ones it covers: 1st, 1st, 3rd, 4th."
    ) in html
    # A refusal of the field names it by its label and the rule.
    r = world["c"].post(
        _url(world, "override", world["open"]),
        {**_override_post(), "placing_0": "9"},
    )
    assert r.status_code == 400
    name = seats[0].entry.player.name
    assert r.context["form"].errors["placing_0"] == [
        f"Placing of A · {name} (1st\u20134th; a placing may be shared, T3): at most 4 (T4)."
    ]
