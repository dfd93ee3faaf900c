"""The round preview's note under the seating warnings says what the seating of that kind of
round does (T8, T6), as the planners seat it (``brackets.services.planning``).

Bug: round 1 of a knockout stage of several tables of one club said "same-club tables and
repeat meetings are avoided from round 2 on", and its later rounds "the seating avoids these
where it can": a knockout round (and a play-off) is dealt by seed in snake order and never moves
players apart; only a qualifying round after the first is seated Swiss-style, away from them.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from brackets import services
from brackets.models import Stage
from brackets.presenters.director import seating_note
from tests.brackets.conftest import make_tournament, play_round
from tests.brackets.factories_pages import director_client

pytestmark = pytest.mark.django_db

AVOIDED_LATER = "avoided from round 2 on"
AVOIDS = "avoids these where it can"
KNOCKOUT = "it does not seat them apart by club or earlier meetings"


def _note(director: object, slug: str, stage: Stage) -> tuple[str, str]:
    """(the warnings section's words, the whole page's words) of the stage's preview."""
    html = director_client(director).get(reverse("brackets:preview", args=[slug, stage.pk]))
    page = html.content.decode()
    assert 'id="warnings"' in page  # everyone is of one club
    section = page.split('id="warnings"', 1)[1].split("</section>", 1)[0]
    words = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", section)))
    return words, page


def test_a_knockout_round_of_one_club_does_not_claim_to_avoid_anything() -> None:
    t, d = make_tournament(8, clubs=1)
    k = services.stage_create(
        tournament=t, actor=d, name="Knockout", kind="knockout", rng_seed=3, auto_advance=False
    )
    services.stage_seed(stage=k, actor=d, method="rating")
    words, page = _note(d, t.slug, k)
    assert "Publish round 1" in page  # a knockout round of two tables, not the final
    assert "same club" in words
    assert "snake order (T8)" in words
    assert KNOCKOUT in words
    assert AVOIDED_LATER not in page
    assert AVOIDS not in page
    # Round 2 of a knockout stage is dealt by seed in snake order too.
    assert KNOCKOUT in seating_note(k, "knockout", 2)


def test_a_qualifying_round_says_what_its_seating_does() -> None:
    t, d = make_tournament(8, clubs=1)
    q = services.stage_create(
        tournament=t, actor=d, name="Qualifying", kind="qualifying", swiss_rounds=2, rng_seed=5
    )
    services.stage_seed(stage=q, actor=d, method="rating")
    words, _page = _note(d, t.slug, q)
    assert AVOIDED_LATER in words  # round 1 is the snake; round 2 is seated Swiss-style
    rnd = services.round_publish(stage=q, actor=d)
    play_round(rnd, d, seed=1)
    services.round_advance(round_id=rnd.pk)
    words, _page = _note(d, t.slug, q)
    assert AVOIDS in words


def test_a_single_round_qualifying_has_no_round_2_to_promise() -> None:
    t, d = make_tournament(8, clubs=1)
    q = services.stage_create(
        tournament=t, actor=d, name="Qualifying", kind="qualifying", swiss_rounds=1, rng_seed=5
    )
    services.stage_seed(stage=q, actor=d, method="rating")
    words, page = _note(d, t.slug, q)
    assert "snake order (T8)" in words
    assert AVOIDED_LATER not in page
    assert AVOIDS not in page


def test_a_playoff_does_not_claim_to_avoid_anything() -> None:
    t, d = make_tournament(4, clubs=1)
    q = services.stage_create(
        tournament=t, actor=d, name="Qualifying", kind="qualifying", swiss_rounds=1, rng_seed=5
    )
    note = seating_note(q, "playoff", 2)
    assert AVOIDS not in note
    assert AVOIDED_LATER not in note
    assert "(T6)" in note
