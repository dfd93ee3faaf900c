"""The stage form of a pairs event (T9, T10): two partnerships a table and the winning one goes
on, down to the final between two, so the individual table settings (per-table advancement,
final table seats, 3-player tables) are not offered, the kinds are named for partnerships, and
"the final only" after a cut of two works (it was refused: the final "seats 4")."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from brackets.models import Stage
from brackets.services import stage_create
from tests.brackets.pairs_helpers import make_pairs_tournament
from tests.factories import TournamentFactory, director_of
from tournament.models import Tournament

pytestmark = pytest.mark.django_db

INDIVIDUAL_ONLY = ('name="advance_per_table"', 'name="final_table_size"', 'name="allow_three"')


def _qualifying(t: Tournament, d: Any, cut: int) -> Stage:
    return stage_create(
        tournament=t,
        actor=d,
        name="Qualifying",
        kind="qualifying",
        swiss_rounds=2,
        cut_size=cut,
        auto_advance=True,
    )


def test_a_pairs_event_is_offered_partnership_settings_only(client: Client) -> None:
    t, d, _ = make_pairs_tournament(6)
    client.force_login(d)
    html = client.get(f"/director/tournaments/{t.slug}/stages/").content.decode()
    for field in INDIVIDUAL_ONLY:
        assert field not in html
    assert "Partnership knockout to the final" in html
    assert "The final only (top two partnerships)" in html
    assert "Cut: top N partnerships go on" in html


def test_the_final_only_follows_a_cut_of_two_partnerships(client: Client) -> None:
    t, d, _ = make_pairs_tournament(6)
    _qualifying(t, d, cut=2)
    client.force_login(d)
    url = f"/director/tournaments/{t.slug}/stages/"
    form = {"name": "Final", "kind": "final", "bye_policy": "win", "seat_order": "balanced"}
    assert client.post(url, {**form, "auto_advance": "on"}).status_code == 302
    final = Stage.objects.get(tournament=t, number=2)
    assert (final.kind, final.pairs) == (Stage.Kind.KNOCKOUT, True)


def test_the_final_only_after_a_wider_cut_says_why_not(client: Client) -> None:
    t, d, _ = make_pairs_tournament(6)
    _qualifying(t, d, cut=4)
    client.force_login(d)
    url = f"/director/tournaments/{t.slug}/stages/"
    form = {"name": "Final", "kind": "final", "bye_policy": "win", "seat_order": "balanced"}
    response = client.post(url, form)
    assert response.status_code == 400
    assert response.context["form"].errors["kind"] == [
        "The final only takes the top two partnerships: the cut of Qualifying lets 4 through "
        "(T10). Choose the partnership knockout instead."
    ]
    assert not Stage.objects.filter(tournament=t, number=2).exists()


def test_an_individual_event_keeps_its_table_settings(client: Client) -> None:
    t = TournamentFactory()
    client.force_login(director_of(t))
    html = client.get(f"/director/tournaments/{t.slug}/stages/").content.decode()
    for field in INDIVIDUAL_ONLY:
        assert field in html
    assert "Partnership knockout" not in html


def test_a_pairs_stage_edits_without_the_individual_settings(client: Client) -> None:
    """Editing a pairs stage, before and after it starts (the edit page answered 500 once the
    stage had started: it fixed settings the pairs form does not have)."""
    from brackets.services import round_publish, stage_seed

    t, d, _ = make_pairs_tournament(6)
    q = _qualifying(t, d, cut=2)
    client.force_login(d)
    url = f"/director/tournaments/{t.slug}/stages/{q.pk}/edit/"
    before = client.get(url)
    assert before.status_code == 200
    for field in INDIVIDUAL_ONLY:
        assert field not in before.content.decode()
    stage_seed(stage=q, actor=d, method="rating")
    round_publish(stage=q, actor=d)
    started = client.get(url)
    assert started.status_code == 200
    assert "Fixed: the stage has started." in started.content.decode()
    renamed = client.post(
        url,
        {"name": "Day one", "auto_advance": "on", "bye_policy": "win", "seat_order": "balanced"},
    )
    assert renamed.status_code == 302
    q.refresh_from_db()
    assert q.name == "Day one"
