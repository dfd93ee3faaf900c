"""The director dashboard: grouped by round (current first), idle tables flagged after
DIRECTOR_IDLE_MINUTES, and pushed (it follows the live websocket, no 15 s polling)."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from brackets.models import Round, RoundMatch
from brackets.services import round_publish, stage_seed
from scoring.models import Match
from tests.brackets.conftest import play_round
from tests.brackets.factories_pages import director_client, tournament_with_stage

pytestmark = pytest.mark.django_db


def _sections(html: str) -> list[str]:
    return [part.split("</h2>")[0] for part in html.split('<section class="round-group')[1:]]


def test_grouped_by_round_current_first_and_idle_alert(settings: Any) -> None:
    settings.DIRECTOR_IDLE_MINUTES = 5
    tournament, director, stage = tournament_with_stage(8, swiss_rounds=3, auto_advance=True)
    stage_seed(stage=stage, actor=director, method="rating")
    first = round_publish(stage=stage, actor=director)
    play_round(first, director, seed=3)
    second = Round.objects.filter(stage=stage, number=2).first() or round_publish(
        stage=stage, actor=director
    )
    client = director_client(director)
    url = reverse("scoring:director-dashboard", args=[tournament.slug])
    html = client.get(url).content.decode()
    sections = _sections(html)
    assert len(sections) == 2
    assert "Round 2" in sections[0]
    assert "current" in sections[0]
    assert "Round 1" in sections[1]
    assert 'id="idle-alert" class="idle-alert" role="alert" hidden' in html
    # A table of round 2 published 6 minutes ago with no hand is idle (> 5 minutes).
    Round.objects.filter(pk=second.pk).update(published_at=timezone.now() - timedelta(minutes=6))
    idle_id = RoundMatch.objects.filter(round=second).order_by("table_number")[0].match_id
    Match.objects.filter(round_link__round=second).exclude(pk=idle_id).update(
        created_at=timezone.now()
    )
    Match.objects.filter(pk=idle_id).update(created_at=timezone.now() - timedelta(minutes=6))
    html = client.get(url).content.decode()
    alert = html.split('id="idle-alert"')[1].split("</div>")[0]
    assert "hidden" not in alert.split(">")[0]
    assert "Table 1" in alert
    assert "over 5 minutes" in alert
    # Pushed: the page names the live socket; the rows endpoint carries the version.
    assert f'data-ws="/ws/live/{tournament.slug}/"' in html
    rows = client.get(reverse("scoring:director-dashboard-rows", args=[tournament.slug]))
    assert rows["X-Tournament-Version"] == str(tournament.__class__.objects.get().version)


def test_finished_tables_are_never_idle(settings: Any) -> None:
    settings.DIRECTOR_IDLE_MINUTES = 1
    tournament, director, stage = tournament_with_stage(8, swiss_rounds=1, auto_advance=False)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    play_round(rnd, director, seed=1)
    Match.objects.update(created_at=timezone.now() - timedelta(hours=1))
    html = (
        director_client(director)
        .get(reverse("scoring:director-dashboard", args=[tournament.slug]))
        .content.decode()
    )
    assert 'role="alert" hidden' in html
    assert ' idle"' not in html


def test_draft_dashboard_opens_no_socket_and_polls() -> None:
    """A draft has no public live stream (docs/security.md), so /ws/live/<slug>/ refuses it:
    the dashboard names no socket (dashboard.js then polls) instead of logging a refusal."""
    tournament, director, _stage = tournament_with_stage(8)
    tournament.__class__.objects.filter(pk=tournament.pk).update(status="draft")
    client = director_client(director)
    url = reverse("scoring:director-dashboard", args=[tournament.slug])
    html = client.get(url).content.decode()
    assert 'data-ws=""' in html
    assert "/ws/live/" not in html
    assert 'data-refresh="' in html  # the polling interval is still there
    tournament.__class__.objects.filter(pk=tournament.pk).update(status="registration")
    html = client.get(url).content.decode()
    assert f'data-ws="/ws/live/{tournament.slug}/"' in html


def test_finished_rounds_are_folded_so_the_rows_do_not_grow_with_each_round() -> None:
    """At a big event (75 tables a round) every finished round's tables were drawn again on
    every hand pushed: the rows grew by a round's worth each round. A finished round that is
    not the current one keeps its heading, says how many tables finished and links its round
    page; the current round (the one in play, or the last one finished) keeps its rows."""
    tournament, director, stage = tournament_with_stage(16, swiss_rounds=3, auto_advance=False)
    stage_seed(stage=stage, actor=director, method="rating")
    first = round_publish(stage=stage, actor=director)
    client = director_client(director)
    rows_url = reverse("scoring:director-dashboard-rows", args=[tournament.slug])
    play_round(first, director, seed=3)
    # Round 1 finished and nothing after it yet: it is the current round, its rows shown.
    html = client.get(rows_url).content.decode()
    assert html.count("<tr class=") == 4
    second = round_publish(stage=stage, actor=director)
    html = client.get(rows_url).content.decode()
    sections = _sections(html)
    assert "Round 2" in sections[0]
    assert "current" in sections[0]
    assert "Round 1" in sections[1]
    assert "4 tables finished" in sections[1]
    assert html.count("<tr class=") == 4  # round 2's tables only
    round_1_link = reverse("brackets:round", args=[tournament.slug, first.pk])
    assert f'<a href="{round_1_link}">See its tables on the round page</a>' in html
    second_ids = set(RoundMatch.objects.filter(round=second).values_list("match_id", flat=True))
    drawn = {int(x) for x in re.findall(r'data-match="(\d+)"', html)}
    assert drawn == second_ids
    page = client.get(reverse("scoring:director-dashboard", args=[tournament.slug]))
    assert page.content.decode().count("<tr class=") == 4
    # The page's status counts still count every match.
    assert page.context["counts"]["finished"] == 4
