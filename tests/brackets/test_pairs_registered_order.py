"""A partnership reads the same in every round (T9): pages that list partnerships name its
players in registered order (``PartnershipMember.slot``), though partners swap seats in even
rounds (T8); pages that seat players keep the seat order visible (R42)."""

from __future__ import annotations

import html
from datetime import UTC, datetime
from typing import Any

import pytest
from django.test import Client

from brackets import services
from brackets.models import Round, Stage
from brackets.presenters.director import build_preview
from brackets.selectors.pair_roster import Roster
from brackets.selectors.pairs import pairs_placings
from tests.brackets.pairs_helpers import decide_round, qualified_for_the_final, seeded_pairs
from tournament.models import PartnershipMember

SLOT_ORDER = "entry__player__name"


def test_a_table_names_a_partnership_in_registered_order_whatever_the_seats() -> None:
    """Bug: the roster named a partnership by its seats, so "Bea & Ana" once they swapped
    (T8). Now by slot: "Ana & Bea" at either seating (T9)."""
    at = datetime(2026, 1, 1, tzinfo=UTC)
    rows = [
        {
            "partnership_id": pid,
            "entry_id": entry_id,
            "slot": slot,
            "left_at": None,
            "created_at": at,
            "partnership__name": name,
            SLOT_ORDER: player,
        }
        for pid, entry_id, slot, name, player in [
            (1, 10, 0, "", "Ana"),
            (1, 11, 1, "", "Bea"),
            (2, 20, 0, "Los Primos", "Cruz"),
            (2, 21, 1, "Los Primos", "Dora"),
        ]
    ]
    roster = Roster.from_rows(rows)
    swapped = roster.table_pairs([11, 21, 10, 20])  # seats A B C D: Bea, Dora, Ana, Cruz
    assert swapped is not None
    assert [p.label for p in swapped] == ["Ana & Bea", "Los Primos (Cruz & Dora)"]
    assert swapped[0].entry_ids == (10, 11)


def round_two(n: int = 4) -> tuple[Any, Any, Stage, Round]:
    """``n`` partnerships; round 1 played and closed, round 2 not yet published."""
    t, d, q = seeded_pairs(n)
    r1 = services.round_publish(stage=q, actor=d)
    decide_round(r1, d)
    services.round_close(round=r1, actor=d)
    return t, d, q, r1


def registered_labels(tournament_id: int) -> dict[int, str]:
    """Entry id -> its partnership's players in slot order, "Q0000 & Q0001"."""
    members: dict[int, list[tuple[int, int, str]]] = {}
    for pid, entry_id, slot, name in PartnershipMember.objects.filter(
        partnership__tournament_id=tournament_id
    ).values_list("partnership_id", "entry_id", "slot", SLOT_ORDER):
        members.setdefault(pid, []).append((slot, entry_id, name))
    out: dict[int, str] = {}
    for ms in members.values():
        label = " & ".join(name for _, _, name in sorted(ms))
        out.update(dict.fromkeys((e for _, e, _ in ms), label))
    return out


@pytest.mark.django_db
def test_bracket_round_and_preview_list_partnerships_in_registered_order(
    client: Client,
) -> None:
    """Bug: in round 2 the partners of BD swap seats (T8) and the bracket, round page and
    preview read "Q0003 & Q0002" where round 1 read "Q0002 & Q0003". Now every round lists the
    partnership in registered order (T9)."""
    t, d, q, r1 = round_two()
    labels = registered_labels(t.pk)
    step = services.round_preview(stage=q, actor=d)
    preview = build_preview(q, step.seating)
    swapped = 0
    for table in preview.tables:
        for side in table.sides:
            assert side.label == labels[side.seats[0].entry_id]
            swapped += f"{side.seats[0].name} & {side.seats[1].name}" != side.label
    assert swapped  # T8: round 2 swaps a partnership's seats
    client.force_login(d)
    page = html.unescape(
        client.get(f"/director/tournaments/{t.slug}/stages/{q.pk}/preview/").content.decode()
    )
    for table in preview.tables:
        for side in table.sides:
            assert f'<span class="seat-name">{side.label}</span>' in page
    r2 = services.round_publish(stage=q, actor=d)
    for url in (
        f"/director/tournaments/{t.slug}/rounds/{r1.pk}/",
        f"/director/tournaments/{t.slug}/rounds/{r2.pk}/",
        f"/director/tournaments/{t.slug}/bracket/",
    ):
        body = html.unescape(client.get(url).content.decode())
        for label in set(labels.values()):
            first, second = label.split(" & ")
            assert f"{second} & {first}" not in body, url
            assert f"{first} & {second}" in body, url


@pytest.mark.django_db
def test_the_pairs_preview_seats_a_to_d_in_play_order(client: Client) -> None:
    """Bug: a pairs table in the round preview listed only "AC ..." and "BD ...", not who sits
    in which seat. Now it lists seats A, B, C, D in play order too, as the table sheet does
    (R42: A with C, B with D)."""
    t, d, q, _r1 = round_two()
    step = services.round_preview(stage=q, actor=d)
    preview = build_preview(q, step.seating)
    client.force_login(d)
    page = client.get(f"/director/tournaments/{t.slug}/stages/{q.pk}/preview/").content.decode()
    flat = " ".join(html.unescape(page).split())
    assert preview.tables
    for table in preview.tables:
        assert table.sides
        assert [s.letter for s in table.seats] == ["A", "B", "C", "D"]
        seats = " ".join(
            f'<li data-seat="{s.letter}"><span class="seat-letter">{s.letter}</span> '
            f'<span class="seat-name">{s.name}</span></li>'
            for s in table.seats
        )
        assert seats in flat


@pytest.mark.django_db
def test_pair_placings_name_partners_in_registered_order() -> None:
    """Bug: the results named a partnership's players by entry id, not registered order.
    Now by slot (T9)."""
    t, _d, _q, _k = qualified_for_the_final(4)
    # The last seed, out at the cut: placed.
    last = PartnershipMember.objects.filter(partnership__tournament=t).order_by("entry_id").last()
    assert last is not None
    first = PartnershipMember.objects.get(partnership=last.partnership, slot=0)
    other = PartnershipMember.objects.get(partnership=last.partnership, slot=1)
    assert first.entry_id < other.entry_id
    # Swap the slots: the later entry is now registered first.
    PartnershipMember.objects.filter(pk=first.pk).update(left_at=datetime.now(UTC))
    PartnershipMember.objects.filter(pk=other.pk).update(slot=0)
    PartnershipMember.objects.filter(pk=first.pk).update(slot=1, left_at=None)
    (placing,) = [
        p for p in pairs_placings(tournament_id=t.pk) if p.partnership_id == first.partnership_id
    ]
    assert placing.entry_ids == (other.entry_id, first.entry_id)
