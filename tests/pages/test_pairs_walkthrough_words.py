"""Words a director and a spectator meet in a pairs event (T9, T10), from a walkthrough of a
partnership event in the browser (demo, English and Spanish):

- creating a pairs tournament said "then add the players on the Players page", while a pairs
  event's entries are registered on the Partnerships page (T9);
- the stages page called the final between the top two partnerships (a knockout after a cut
  of two) a stage where "each table's winning partnership goes on", and, before it was played,
  "the partnership knockout to the final" (T10: the final is one match between the top two);
- the public bracket named the winners of a pairs event "Champion:" and marked them
  "champion" ("Campeón", "campeón" in Spanish) where the home page and the standings say
  "Champion partnership" ("Pareja campeona").

Runs on PostgreSQL and in the embedded SQLite run."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from brackets.models import Stage
from tests.brackets.pairs_helpers import (
    make_pairs_tournament,
    pairs_stages,
    qualified_for_the_final,
)
from tests.factories import director_of, tournament_creator
from tests.pages.test_pairs_event_words import individual_event_with_stages, text_of
from tests.pages.test_pairs_pages import finished_pairs_event

pytestmark = pytest.mark.django_db


def _create(client: Client, preset: str, entry_format: str) -> str:
    r = client.post(
        reverse("brackets:tournament-create"),
        {
            "name": f"Walk {preset}",
            "venue": "Hall",
            "ruleset_preset": preset,
            "entry_format": entry_format,
        },
        follow=True,
    )
    assert r.status_code == 200
    return text_of(r.content.decode())


@pytest.mark.parametrize("entry_format", ["pairs", ""])
def test_a_new_pairs_event_sends_the_director_to_the_partnerships_page_t9(
    client: Client, entry_format: str
) -> None:
    client.force_login(tournament_creator())
    page = _create(client, "wsod_partners", entry_format)  # "" : pairs from the ruleset
    assert "then register the partnerships on the Partnerships page (T9)." in page
    assert "add the players on the Players page" not in page


def test_a_new_individual_event_still_sends_the_director_to_the_players_page(
    client: Client,
) -> None:
    client.force_login(tournament_creator())
    page = _create(client, "wsod", "")
    assert "then add the players on the Players page." in page
    assert "Partnerships page" not in page


def test_the_pairs_final_alone_is_one_match_not_a_table_that_sends_winners_on_t10(
    client: Client,
) -> None:
    t, d, _ = make_pairs_tournament(4, status="registration")
    pairs_stages(t, d, swiss_rounds=1, cut_size=2)  # a cut of two: the final alone follows
    client.force_login(d)
    page = text_of(client.get(f"/director/tournaments/{t.slug}/stages/").content.decode())
    assert "The final only (top two partnerships) · one match between the top two" in page
    assert "each table's winning partnership goes on" not in page
    assert (
        "The last stage is the final between the top two partnerships: no stage can follow it"
        in page
    )
    assert "The last stage is the partnership knockout" not in page
    # A longer knockout is still the partnership knockout, whose table winners go on (T10).
    t2, d2, _ = make_pairs_tournament(8, status="registration")
    pairs_stages(t2, d2, swiss_rounds=2, cut_size=4)
    client.force_login(d2)
    page2 = text_of(client.get(f"/director/tournaments/{t2.slug}/stages/").content.decode())
    assert "Partnership knockout to the final · each table's winning partnership goes on" in page2
    assert "The last stage is the partnership knockout to the final" in page2
    assert "one match between the top two partnerships" not in page2


def test_the_public_bracket_names_the_champion_partnership_t10(client: Client) -> None:
    t, _ = finished_pairs_event()
    page = text_of(client.get(f"/live/{t.slug}/bracket/").content.decode())
    assert "Champion partnership:" in page
    assert "Champion:" not in page
    final = page[page.rindex("The final (two partnerships)") :]
    assert "Champion partnership" in final
    es = text_of(client.get(f"/live/{t.slug}/bracket/", HTTP_ACCEPT_LANGUAGE="es").content.decode())
    assert "Pareja campeona:" in es  # the home page's and the standings' words (T10)
    assert "Campeón:" not in es
    final_es = es[es.rindex("La final (dos parejas)") :]
    assert "Pareja campeona" in final_es
    assert "campeón" not in final_es.lower()


def test_the_pairs_stage_form_draws_no_empty_fieldset_or_cell_t9_t10(client: Client) -> None:
    """The new-stage form of a pairs event drops the individual table settings (per-table
    advancement, final table seats, 3-player tables): it drew their fieldset empty, with only
    its legend, and an empty grid cell before "A bye counts"."""
    t, d, _ = make_pairs_tournament(4, status="registration")
    client.force_login(d)
    html = client.get(f"/director/tournaments/{t.slug}/stages/").content.decode()
    form = html[html.index('class="stage-form"') :]
    assert 'data-field=""' not in form  # an include of a field the form does not have
    assert "Knockout and final table (T6)" not in form
    for fieldset in re.findall(r"<fieldset[^>]*>(.*?)</fieldset>", form, re.S):
        assert "data-field=" in fieldset, fieldset  # every fieldset holds a field
    # With a qualifying stage before it, the warning speaks of the pairs final (T10).
    pairs_stages(t, d, swiss_rounds=1, cut_size=2)
    Stage.objects.filter(tournament=t, kind="knockout").delete()
    page = text_of(client.get(f"/director/tournaments/{t.slug}/stages/").content.decode())
    assert (
        "Qualifying is a qualifying stage: a final stage must follow it (T10: the last stage "
        "ends in the final between the top two partnerships)." in page
    )
    assert "the last stage is a final table" not in page


def test_the_individual_stage_form_keeps_its_table_settings(client: Client) -> None:
    t = individual_event_with_stages(4)
    Stage.objects.filter(tournament=t, kind="knockout").delete()
    client.force_login(director_of(t))
    html = client.get(f"/director/tournaments/{t.slug}/stages/").content.decode()
    form = html[html.index('class="stage-form"') :]
    assert "Knockout and final table (T6)" in form
    assert 'data-field="allow_three"' in form
    assert "(T6: the last stage is a final table)." in text_of(html)


def test_the_standings_of_a_stage_with_no_round_yet_say_no_round_count(
    client: Client,
) -> None:
    """The pairs final (T10), seeded and not yet published, said "Rounds complete: 0 of 0
    published." under its heading. Now that line is left out until the stage has a round,
    and kept for the qualifying stage that played its round."""
    t, _d, _q, _k = qualified_for_the_final(4, status="registration")
    page = text_of(client.get(f"/live/{t.slug}/standings/").content.decode())
    assert "0 of 0 published" not in page
    assert "1 round published, 1 finished." in page
