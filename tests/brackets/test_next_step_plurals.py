"""A next step names its counts in proper plural forms (walkthrough: "1 tables, 0 byes",
"1 bye(s)", "1 tables of two partnerships"): each count is its own ngettext, so Spanish gets
its plural forms too (T1, T9)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation

from brackets import services
from tests.brackets.conftest import five_with_a_bye
from tests.brackets.pairs_helpers import seeded_pairs

pytestmark = pytest.mark.django_db


def test_an_individual_round_reads_one_table_one_bye_t1() -> None:
    _t, d, q = five_with_a_bye()
    with translation.override("en"):
        step = services.round_preview(stage=q, actor=d)
    assert step.message == "Round 1 of 2: 1 table, 1 bye."


def test_a_pairs_round_reads_one_table_of_two_partnerships_one_bye_t9() -> None:
    t, d, q = seeded_pairs(3)
    with translation.override("en"):
        step = services.round_preview(stage=q, actor=d)
    assert step.message == "Round 1 of 2: 1 table of two partnerships, 1 bye (T9)."
    client = Client()
    client.force_login(d)
    page = client.get(f"/director/tournaments/{t.slug}/stages/{q.pk}/preview/").content.decode()
    assert "1 table of two partnerships, 1 bye (T9)." in page
    assert "bye(s)" not in page
    assert "1 tables" not in page
