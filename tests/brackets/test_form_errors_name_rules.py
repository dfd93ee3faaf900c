"""Stage and override form errors name the field and the rule in one message (RULES.md §11),
never Django's bare "Ensure this value is greater than or equal to 0." (user test)."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from brackets.models import RoundMatch, Stage
from brackets.services import round_publish, stage_seed
from scoring.models import Match, Seat
from tests.brackets.factories_pages import director_client, tournament_with_stage

pytestmark = pytest.mark.django_db

GENERIC = ("Ensure this value", "This field is required.", "Enter a whole number.")

STAGE = {
    "name": "Q",
    "kind": "qualifying",
    "advance_per_table": "1",
    "final_table_size": "4",
    "allow_three": "on",
    "bye_policy": "win",
    "seat_order": "balanced",
    "seeding": "rating",
}


def test_stage_form_rounds_zero_gives_one_message_naming_field_and_rule() -> None:
    tournament, director, stage = tournament_with_stage(8)
    stage.delete()
    client = director_client(director)
    response = client.post(
        reverse("brackets:stages", args=[tournament.slug]), {**STAGE, "swiss_rounds": "0"}
    )
    assert response.status_code == 400
    assert response.context["form"].errors["swiss_rounds"] == ["Rounds: at least 1 (T2)."]
    response = client.post(
        reverse("brackets:stages", args=[tournament.slug]),
        {**STAGE, "swiss_rounds": "2", "cut_size": "1", "round_time_limit": "x"},
    )
    errors = response.context["form"].errors
    assert errors["cut_size"] == ["Cut: top N go on: at least 3 (T6)."]
    assert errors["round_time_limit"] == ["Round time limit (minutes): enter a whole number (T2)."]
    html = response.content.decode()
    for generic in GENERIC:
        assert generic not in html
    assert not Stage.objects.filter(tournament=tournament).exists()


def test_override_form_names_the_score_field_and_T4() -> None:
    tournament, director, stage = tournament_with_stage(8)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    match = Match.objects.get(
        pk=RoundMatch.objects.filter(round=rnd).order_by("table_number")[0].match_id
    )
    seats = list(Seat.objects.filter(match=match).order_by("seat").select_related("entry__player"))
    url = reverse("brackets:match-action", args=[tournament.slug, rnd.pk, match.pk, "override"])
    data: dict[str, Any] = {"reason": "sheet", f"score_{seats[0].seat}": "-1"}
    response = director_client(director).post(url, data)
    assert response.status_code == 400
    errors = response.context["form"].errors
    name = seats[0].entry.player.name
    assert errors[f"score_{seats[0].seat}"] == [f"Score of A · {name}: at least 0 (T4)."]
    assert errors[f"score_{seats[1].seat}"] == [
        f"Score of B · {seats[1].entry.player.name}: required (T4)."
    ]
    html = response.content.decode()
    for generic in GENERIC:
        assert generic not in html
    match.refresh_from_db()
    assert match.status == Match.Status.SCHEDULED
