"""A nickname is written one way on every page that shows it: ``Jorge Vega “El Tigre”``.

QA walkthrough: "Jorge Vega (El Tigre)" on the live tables and the projector, 'Jorge Vega
"El Tigre"' in the directory and on the results sheet, nothing on standings and the bracket.
Now one presenter (``tournament.player_names``) and its template filter (``with_nickname``)
name the player wherever a nickname is shown; standings and the bracket keep the name alone
(narrow rows on a phone, README "Nicknames"). Runs embedded (SQLite) too.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from brackets.models import Round
from brackets.services import round_publish, stage_seed
from live.selectors import live_tables, standings
from tests.brackets.factories_pages import director_client, tournament_with_stage
from tournament.models import Entry, Player
from tournament.player_names import player_display_html, player_display_name

pytestmark = pytest.mark.django_db

SHOWN = "Jorge Vega \u201cEl Tigre\u201d"
HTML = 'Jorge Vega <span class="nickname muted">\u201cEl Tigre\u201d</span>'
WRONG = ("Jorge Vega (El Tigre)", 'Jorge Vega "El Tigre"', "Jorge Vega &quot;El Tigre&quot;")


def test_the_one_form_in_text_and_in_a_page() -> None:
    assert player_display_name("Jorge Vega", "El Tigre") == SHOWN
    assert player_display_name("Jorge Vega", "") == "Jorge Vega"
    assert player_display_html("Jorge Vega", "El Tigre") == HTML
    assert player_display_html("<b>", "") == "&lt;b&gt;"  # escaped
    assert str(Player(name="Jorge Vega", nickname="El Tigre")) == SHOWN


def _event() -> tuple[object, object, Player, Round]:
    t, d, stage = tournament_with_stage(8)
    player = Entry.objects.filter(tournament=t).order_by("pk").first().player  # type: ignore[union-attr]
    Player.objects.filter(pk=player.pk).update(name="Jorge Vega", nickname="El Tigre")
    stage_seed(stage=stage, actor=d, method="rating")
    rnd = round_publish(stage=stage, actor=d)
    player.refresh_from_db()
    return t, d, player, rnd


def _no_other_form(text: str) -> None:
    for wrong in WRONG:
        assert wrong not in text, wrong


def test_tables_projector_directory_profile_results_sheet_and_seeding_agree(
    client: Client,
) -> None:
    t, d, player, rnd = _event()
    # The live tables (table cards and the projector read this JSON).
    tables = json.dumps(live_tables(tournament=t), ensure_ascii=False)
    assert SHOWN in tables
    _no_other_form(tables)
    pages = {
        "directory": client.get("/players/?q=Vega"),
        "profile": client.get(reverse("ratings:player-profile", args=[player.pk])),
        "results sheet": client.get(reverse("archive:round-results", args=[t.slug, rnd.pk])),  # type: ignore[attr-defined]
        "seeding": director_client(d).get(
            reverse("brackets:seeding", args=[t.slug, rnd.stage_id])  # type: ignore[attr-defined]
        ),
    }
    for page, response in pages.items():
        assert response.status_code == 200, page
        html = response.content.decode()
        assert HTML in html, page
        _no_other_form(html)


def test_standings_show_the_name_alone() -> None:
    t, _d, _player, _rnd = _event()
    shown = json.dumps(standings(tournament=t), ensure_ascii=False)
    assert "Jorge Vega" in shown
    assert "El Tigre" not in shown
