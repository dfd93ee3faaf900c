"""The director's stage and seeding pages describe a pairs event in partnerships (T9, T10):
round 1 seats two partnerships a table (an odd one out has a bye), and the knockout plays down
to a final of two partnerships, never an individual "final table of 4"."""

from __future__ import annotations

import pytest
from django.test import Client

from brackets import services
from tests.brackets.pairs_helpers import make_pairs_tournament, pairs_stages

pytestmark = pytest.mark.django_db


def test_seeding_page_plans_round_1_in_partnerships_t9() -> None:
    t, d, _ = make_pairs_tournament(7)
    q, _ = pairs_stages(t, d, swiss_rounds=2, cut_size=4, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    client = Client()
    client.force_login(d)
    page = client.get(f"/director/tournaments/{t.slug}/stages/{q.pk}/seeding/").content.decode()
    assert "7 partnerships: 3 tables of two partnerships, 1 bye (T9)." in page
    assert "tables of 3" not in page


def test_stages_page_plans_the_pairs_knockout_down_to_a_final_of_two_t10() -> None:
    t, d, _ = make_pairs_tournament(7)
    pairs_stages(t, d, swiss_rounds=2, cut_size=4, auto_advance=False)
    client = Client()
    client.force_login(d)
    page = client.get(f"/director/tournaments/{t.slug}/stages/").content.decode()
    assert "4 → 2 partnerships (the final: one match between two partnerships, T10)" in page
    assert "the final table itself" not in page
