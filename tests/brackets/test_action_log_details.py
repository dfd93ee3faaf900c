"""The action log's "Details" column reads as lines, ids named, never Python text.

Bug: /director/tournaments/<slug>/log/ showed each entry's data as a Python dict
(``data {'after': {'scores': [6, 0, 0, 0], ...}}``). Now every key is a "label: value" line:
a seat as "A · name", matches by their table in their round, entrants by name, results as
scores, places and winner.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from brackets.models import RoundMatch
from brackets.services import round_publish, stage_seed
from scoring.models import Match, Seat
from scoring.services import match_forfeit, match_result_override
from tests.brackets.factories_pages import director_client, tournament_with_stage

pytestmark = pytest.mark.django_db


def _page() -> tuple[str, dict[str, Any]]:
    t, d, stage = tournament_with_stage(8)
    stage_seed(stage=stage, actor=d, method="rating")
    rnd = round_publish(stage=stage, actor=d)
    first, second = [
        Match.objects.get(pk=link.match_id)
        for link in RoundMatch.objects.filter(round=rnd).order_by("table_number")
    ]
    match_result_override(match_id=first.pk, actor=d, scores=[6, 0, 0, 0], reason="sheet")
    match_forfeit(match_id=second.pk, actor=d, seat=1, reason="no-show")
    html = director_client(d).get(reverse("brackets:log", args=[t.slug])).content.decode()
    names = {
        (s.match_id, s.seat): s.entry.player.name
        for s in Seat.objects.filter(match__in=[first, second]).select_related("entry__player")
    }
    return html, {"first": first, "second": second, "names": names}


def test_details_are_lines_with_names_not_python_text() -> None:
    html, w = _page()
    details = " ".join(re.findall(r'<span class="detail">([^<]*)</span>', html))
    assert "{&#x27;" not in html
    assert "[6, 0, 0, 0]" not in html
    # The override: before and after, the winner by seat and name.
    winner = w["names"][w["first"].pk, 0]
    assert f"Winner: A · {winner}" in details
    assert "Scores: 6-0-0-0" in details
    # The forfeit: the seat and the player by name, not by id.
    out = w["names"][w["second"].pk, 1]
    assert f"Seat: B · {out}" in details
    assert f"Player: {out}" in details
    # The seeding: the seed order by name.
    assert "Seed order: P0000, " in details


def test_calling_time_is_logged_as_placing_by_time_not_as_an_override() -> None:
    """Walkthrough: calling time on table 3 was logged as "Result set by the director"
    (``match.override``), which reads as if the director had changed a result. A match
    placed by calling time is ``match.time_called``, "Placed when time was called (T3)",
    with the same before/after lines; a real override keeps its own words."""
    from brackets.services import round_call_time
    from tournament.models import ActionLog

    t, d, stage = tournament_with_stage(8)
    stage_seed(stage=stage, actor=d, method="rating")
    rnd = round_publish(stage=stage, actor=d)
    first = Match.objects.get(pk=RoundMatch.objects.get(round=rnd, table_number=1).match_id)
    match_result_override(match_id=first.pk, actor=d, scores=[6, 0, 0, 0], reason="sheet")
    round_call_time(round=rnd, actor=d, reason="clock")
    verbs = list(
        ActionLog.objects.filter(tournament=t, verb__startswith="match.")
        .order_by("id")
        .values_list("verb", "target_id")
    )
    second = RoundMatch.objects.get(round=rnd, table_number=2).match_id
    assert verbs == [("match.override", str(first.pk)), ("match.time_called", str(second))]
    html = director_client(d).get(reverse("brackets:log", args=[t.slug])).content.decode()
    assert "Placed when time was called (T3)" in html


@pytest.mark.parametrize(
    ("language", "expected", "raw"),
    [
        (
            "en",
            [
                "Kind: Qualifying (Swiss-style)",
                "Kind: Qualifying round",
                "Method: By rating",
                "Before: Running",
                "After: Finished",
                "After: Partnerships (T9)",
                "Role: Director",
            ],
            ["Kind: swiss", "Kind: qualifying", "Method: rating", "After: finished"],
        ),
        (
            "es",
            [
                "Tipo: Clasificatoria (estilo suizo)",
                "Tipo: Ronda clasificatoria",
                "Método: Por rating",
                "Antes: En marcha",
                "Después: Terminado",
                "Después: Parejas (T9)",
            ],
            ["Tipo: swiss", "Tipo: qualifying", "Método: rating", "Después: finished"],
        ),
    ],
)
def test_stored_choices_show_by_their_label_in_the_page_language(
    language: str, expected: list[str], raw: list[str]
) -> None:
    """Bug: the log showed stored values raw ("Kind: swiss", "Method: rating", "After:
    finished"). Now a stage's and a round's kind, the seeding method, a status change, the
    entry format (T9) and a role read as their labels, in the page's language."""
    from tournament.services import action_log_record

    t, d, stage = tournament_with_stage(8)
    stage_seed(stage=stage, actor=d, method="rating")
    round_publish(stage=stage, actor=d)
    for verb, data in (
        ("tournament.status", {"before": "running", "after": "finished"}),
        ("tournament.entry_format", {"before": "individual", "after": "pairs"}),
        ("role.grant", {"role": "director"}),
    ):
        action_log_record(tournament=t, actor=d, verb=verb, target=t, data=data)
    client = director_client(d)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    html = client.get(reverse("brackets:log", args=[t.slug])).content.decode()
    details = re.findall(r'<span class="detail">([^<]*)</span>', html)
    for line in expected:
        assert line in details, (line, details)
    for line in raw:
        assert line not in details, line
