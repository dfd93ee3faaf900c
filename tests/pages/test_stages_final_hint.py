"""The stages page's next-step hint for a final (T6, T10).

Bug: the hint read "<kind> <n> closed: preview what follows.", so a pairs final said "The
final (two partnerships) 1 closed: preview what follows." and an individual final "Final
table 3 closed: ...", a stray round number read as a table. Now a final has its own words:
"The final is in play.", "The final is closed: preview what follows." (or "advancing.");
other rounds keep "<kind> <n> ...".
"""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.test import Client

from brackets import services
from brackets.models import Round, Stage
from brackets.presenters.director import RoundLine
from brackets.views.stages import _next_step_hint
from tests.brackets.pairs_helpers import decide_round, qualified_for_the_final

pytestmark = pytest.mark.django_db


def stages_page(client: Client, slug: str) -> str:
    return html.unescape(client.get(f"/director/tournaments/{slug}/stages/").content.decode())


def test_the_pairs_final_hint_has_no_round_number_t10(client: Client) -> None:
    t, d, _q, k = qualified_for_the_final()
    final = services.round_publish(stage=k, actor=d)
    assert final.kind == Round.Kind.FINAL
    client.force_login(d)
    page = stages_page(client, t.slug)
    assert "The final is in play." in page
    assert "The final (two partnerships) 1 in play" not in page
    decide_round(final, d)
    services.round_close(round=final, actor=d)
    page = stages_page(client, t.slug)
    # Closed, the stage waits for the director: the page says what the round page says
    # after the same round (the planned step) and offers its button (user test).
    step = services.round_preview(stage=k, actor=d)
    assert step.message in page
    assert "End the final (T6)" in page
    assert "The final (two partnerships) 1 closed" not in page


def line(kind: str, status: str, number: int = 3, *, advanced: bool = False) -> RoundLine:
    return RoundLine(
        id=1,
        number=number,
        kind=kind,
        kind_label="Final table" if kind == Round.Kind.FINAL else "Knockout round",
        status=status,
        status_label="",
        tables=1,
        done=0,
        advanced=advanced,
        advance_error="",
    )


@pytest.mark.parametrize(
    ("kind", "status", "auto_advance", "hint"),
    [
        ("final", "published", False, "The final is in play."),
        ("final", "closed", False, "The final is closed: preview what follows."),
        ("final", "closed", True, "The final is closed: advancing."),
        ("knockout", "closed", False, "Knockout round 3 closed: preview what follows."),
        ("knockout", "published", False, "Knockout round 3 in play: 0 of 1 done."),
    ],
)
def test_the_individual_final_hint_reads_as_the_final_t6(
    kind: str, status: str, auto_advance: bool, hint: str
) -> None:
    stage: Any = Stage(number=2, kind=Stage.Kind.KNOCKOUT, status=Stage.Status.RUNNING)
    stage.auto_advance = auto_advance
    assert _next_step_hint(stage, [line(kind, status)]) == hint
