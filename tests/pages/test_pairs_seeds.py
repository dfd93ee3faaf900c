"""A pairs stage numbers partnerships, not players (T8 over partnerships, T9).

A pairs stage's entrants are still stage entries per player, partnership k holding seeds 2k-1
and 2k (``brackets.services.pairs``); the director's pages read "#1/#2" for one partnership
and "#7/#8" for another. The seeding list and the round preview number each partnership once
(#1, #2, ...) with both partners' names, as the standings already did; an individual stage
keeps its players' seeds. Runs on PostgreSQL and in the embedded SQLite run."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from brackets import services
from brackets.models import Stage, StageEntry
from tests.brackets.pairs_helpers import make_pairs_tournament, pairs_stages
from tests.factories import EntryFactory
from tests.pages.test_pairs_event_words import individual_event_with_stages, text_of
from tournament.models import Partnership, PartnershipMember

pytestmark = pytest.mark.django_db


def five_seeded_partnerships() -> tuple[Any, Any, Stage]:
    """Five partnerships seeded by rating (partnership k is seed k), the first named."""
    t, d, _ = make_pairs_tournament(5)
    Partnership.objects.filter(tournament=t, number=1).update(name="Los Primos")
    q, _k = pairs_stages(t, d, swiss_rounds=2, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    return t, d, q


def partners(t: Any, number: int) -> tuple[str, str]:
    a, b = (
        PartnershipMember.objects.filter(partnership__tournament=t, partnership__number=number)
        .order_by("slot")
        .values_list("entry__player__name", flat=True)
    )
    return a, b


def seed_cells(html: str) -> list[tuple[str, str]]:
    """(entry id, seed cell) of every row of the seed order."""
    body = re.search(r'<tbody id="seed-rows">(.*?)</tbody>', html, re.S)
    assert body is not None
    return re.findall(
        r'<tr data-entry="(\d+)"[^>]*>\s*<td class="num seed-no">(.*?)</td>', body.group(1), re.S
    )


def test_the_seeding_list_numbers_each_partnership_once_t8_t9(client: Client) -> None:
    t, d, q = five_seeded_partnerships()
    # The stage still seeds players: partnership k holds seeds 2k-1 and 2k.
    seeds = list(StageEntry.objects.filter(stage=q).order_by("seed").values_list("seed", flat=True))
    assert seeds == list(range(1, 11))
    client.force_login(d)
    html = client.get(f"/director/tournaments/{t.slug}/stages/{q.pk}/seeding/").content.decode()
    cells = [cell for _entry, cell in seed_cells(html)]
    expected = []
    for k in range(1, 6):
        # Shown on the partnership's first row; its partner's row says it to screen readers.
        expected += [str(k), f'<span class="visually-hidden">{k}</span>']
    assert cells == expected
    # With its name and both partners, on its two rows.
    a, b = partners(t, 1)
    rows = re.findall(r'<tr data-entry="\d+"[^>]*>(.*?)</tr>', html, re.S)
    assert "Los Primos" in text_of(rows[0])
    assert a in text_of(rows[0])
    assert b in text_of(rows[1])


def test_an_individual_seeding_list_keeps_its_players_seeds(client: Client) -> None:
    t = individual_event_with_stages(cut=4)
    d = t.roles.get(role="director").user
    for _ in range(6):
        EntryFactory(tournament=t, checked_in=True)
    q = Stage.objects.get(tournament=t, number=1)
    services.stage_seed(stage=q, actor=d, method="rating")
    client.force_login(d)
    html = client.get(f"/director/tournaments/{t.slug}/stages/{q.pk}/seeding/").content.decode()
    assert [cell for _entry, cell in seed_cells(html)] == [str(k) for k in range(1, 7)]


def test_the_round_preview_seats_partnerships_by_their_one_seed_t8_t9(client: Client) -> None:
    """Round 1 deals the partnerships' seeds over the tables in snake order (T8): the preview
    lists each table's two partnerships, named once with both partners and their seed, and the
    partnership with the bye (T1) with its seed."""
    t, d, q = five_seeded_partnerships()
    client.force_login(d)
    html = client.get(f"/director/tournaments/{t.slug}/stages/{q.pk}/preview/").content.decode()
    tables = re.findall(r'<ol class="seats preview-pairs">(.*?)</ol>', html, re.S)
    assert len(tables) == 2
    shown = [
        [text_of(li) for li in re.findall(r"<li[^>]*>(.*?)</li>", body, re.S)] for body in tables
    ]
    seeds = sorted(int(m) for row in shown for m in re.findall(r"#(\d+)", " ".join(row)))
    assert seeds == [1, 2, 3, 4]  # one seed per partnership, the fifth has the bye
    a, b = partners(t, 1)
    assert any(line.startswith(f"AC Los Primos ({a} & {b}) #1 · ") for row in shown for line in row)
    for row in shown:
        assert [line.split()[0] for line in row] == ["AC", "BD"]
    byes = re.search(r'<section id="byes">(.*?)</section>', html, re.S)
    assert byes is not None
    e, f = partners(t, 5)
    assert [text_of(li) for li in re.findall(r"<li[^>]*>(.*?)</li>", byes.group(1), re.S)] == [
        f"{e} & {f} #5"
    ]
    assert not re.search(r"#(?:[6-9]|10)\b", text_of(html))
