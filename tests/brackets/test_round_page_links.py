"""The director's round page links every table to its match page and titles a play-off round
(T6) readably ("Play-off (T6) · round 3", not "Play-off table (T6) 3")."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from brackets.models import Round, RoundMatch
from brackets.services import round_publish, stage_seed
from tests.brackets.factories_pages import director_client, tournament_with_stage

pytestmark = pytest.mark.django_db


def _h1(html: str) -> str:
    found = re.search(r"<h1>(.*?)<span", html, re.S)
    assert found
    return found.group(1).strip()


def test_round_page_links_each_table_to_its_match_page_and_titles_the_round() -> None:
    tournament, director, stage = tournament_with_stage(8)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    client = director_client(director)
    url = reverse("brackets:round", args=[tournament.slug, rnd.pk])
    html = client.get(url).content.decode()
    match_ids = list(RoundMatch.objects.filter(round=rnd).values_list("match_id", flat=True))
    assert len(match_ids) == 2
    for match_id in match_ids:
        row = html.split(f'id="match-{match_id}"', 1)[1].split("</tr>", 1)[0]
        assert f'href="/matches/{match_id}/"' in row
    assert _h1(html) == "Qualifying round 1"

    Round.objects.filter(pk=rnd.pk).update(kind=Round.Kind.PLAYOFF, number=3)
    html = client.get(url).content.decode()
    assert _h1(html) == "Play-off (T6) · round 3"
    assert "Play-off table (T6) 3" not in html

    Round.objects.filter(pk=rnd.pk).update(kind=Round.Kind.FINAL, number=4)
    assert _h1(client.get(url).content.decode()) == "Final table · round 4"
