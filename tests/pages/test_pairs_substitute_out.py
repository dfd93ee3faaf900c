"""A partnership out of the event takes no substitute (T11, T7, T6/T10): withdrawn as a whole
(the partnership itself, or both its players), disqualified (T7; T11 names a substitute only
for a withdrawal or a no-show) or eliminated (a knockout round, T10). The Partnerships page
shows why it is out instead of the form; the service and the API refuse it with a 409 naming
T11, never a 500. A partnership out only because one player withdrew still takes one (T11:
the substitute keeps it playing). Walkthrough: the page offered the form on every such row.
Runs on PostgreSQL and in the embedded SQLite run."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from brackets import services
from brackets.models import RoundMatch, Stage, StageEntry
from brackets.services.pairs import partnership_substitute, partnership_substitute_refusals
from core.exceptions import ConflictError
from scoring.models import Seat
from tests.brackets.factories_pages import director_client
from tests.brackets.pairs_helpers import decide_round, make_pairs_tournament
from tests.factories import PlayerFactory
from tournament.models import Entry, Partnership, PartnershipMember, Tournament

pytestmark = [pytest.mark.django_db, pytest.mark.embedded]


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@dataclass(frozen=True)
class OutField:
    """A seven-partnership knockout after round 1 (three tables, the top seed's bye, T9)."""

    tournament: Tournament
    director: Any
    stage: Stage
    eliminated: Partnership
    """BD at table 1, which lost (T10)."""
    disqualified: Partnership
    """AC at table 1, won; then one of its players is disqualified (T7)."""
    both_withdrawn: Partnership
    """AC at table 2, won; then both its players withdraw (T7)."""
    one_withdrawn: Partnership
    """AC at table 3, won; then one player withdraws: a substitute keeps it playing (T11)."""
    withdrawn: Partnership
    """The bye's partnership, withdrawn as a whole (``Partnership.status``)."""


def members(pair: Partnership) -> list[Entry]:
    return [
        m.entry
        for m in PartnershipMember.objects.filter(partnership=pair, left_at__isnull=True)
        .select_related("entry")
        .order_by("slot")
    ]


def out_field() -> OutField:
    t, d, _pairs = make_pairs_tournament(7)
    k = services.stage_create(
        tournament=t, actor=d, name="Knockout", kind="knockout", rng_seed=11, auto_advance=False
    )
    services.stage_seed(stage=k, actor=d, method="rating")
    r1 = services.round_publish(stage=k, actor=d)
    links = list(RoundMatch.objects.filter(round=r1).order_by("table_number"))
    assert len(links) == 3

    def pair_at(link: RoundMatch, seat: int) -> Partnership:
        entry_id = Seat.objects.get(match_id=link.match_id, seat=seat).entry_id
        return PartnershipMember.objects.get(entry_id=entry_id).partnership

    decide_round(r1, d)  # AC wins every table
    services.round_close(round=r1, actor=d)
    field = OutField(
        tournament=t,
        director=d,
        stage=k,
        eliminated=pair_at(links[0], 1),
        disqualified=pair_at(links[0], 0),
        both_withdrawn=pair_at(links[1], 0),
        one_withdrawn=pair_at(links[2], 0),
        withdrawn=PartnershipMember.objects.get(entry_id=r1.byes[0]).partnership,
    )
    # T10: out since its table was decided; the stage stores it eliminated only when it
    # publishes round 2.
    assert set(
        StageEntry.objects.filter(stage=k, entry__in=members(field.eliminated)).values_list(
            "status", flat=True
        )
    ) == {StageEntry.Status.ACTIVE}

    def withdraw(entry: Entry, *, disqualify: bool = False) -> None:
        services.stage_entry_withdraw(
            stage=k, actor=d, entry=entry, reason="left", disqualify=disqualify
        )

    withdraw(members(field.disqualified)[0], disqualify=True)
    for entry in members(field.both_withdrawn):
        withdraw(entry)
    withdraw(members(field.one_withdrawn)[1])
    Partnership.objects.filter(pk=field.withdrawn.pk).update(status=Partnership.Status.WITHDRAWN)
    return field


REASONS = {
    "eliminated": ("partnership_eliminated", "Eliminated (T6, T10): out of the event"),
    "disqualified": ("partnership_disqualified", "Disqualified (T7): out of the event"),
    "both_withdrawn": ("partnership_withdrawn", "Withdrawn (T7): out of the event"),
    "withdrawn": ("partnership_withdrawn", "Withdrawn (T7): out of the event"),
}


def row_of(html: str, pair: Partnership) -> str:
    found = re.search(rf'<tr data-pair="{pair.pk}" id="pair-{pair.pk}">(.*?)</tr>', html, re.S)
    assert found is not None, pair
    return found.group(1)


def test_the_service_refuses_a_substitute_for_a_partnership_out_of_the_event() -> None:
    f = out_field()
    sub = PlayerFactory(name="Sub")
    for attr, (code, _reason) in REASONS.items():
        pair = getattr(f, attr)
        with pytest.raises(ConflictError) as refused:
            partnership_substitute(
                partnership=pair,
                actor=f.director,
                leaving=members(pair)[0],
                player=sub,
                reason="late",
            )
        assert (refused.value.code, refused.value.rule) == (code, "T11"), attr
        assert refused.value.status_code == 409
    assert not Entry.objects.filter(tournament=f.tournament, player=sub).exists()
    # One player withdrawn without a substitute: the substitute keeps it playing (T11).
    leaving = members(f.one_withdrawn)[1]
    partnership_substitute(
        partnership=f.one_withdrawn, actor=f.director, leaving=leaving, player=sub, reason="ill"
    )
    assert "Sub" in [e.player.name for e in members(f.one_withdrawn)]


def test_the_partnerships_page_says_why_a_partnership_is_out_and_offers_no_form() -> None:
    f = out_field()
    client = director_client(f.director)
    url = reverse("brackets:pairs", args=[f.tournament.slug])
    html = client.get(url).content.decode()
    for attr, (_code, reason) in REASONS.items():
        pair = getattr(f, attr)
        row = row_of(html, pair)
        assert f'id="substitute-form-{pair.pk}"' not in row, attr
        assert "/substitute/" not in row, attr
        assert f'id="no-substitute-{pair.pk}">{reason}' in row, attr
    assert f'id="substitute-form-{f.one_withdrawn.pk}"' in row_of(html, f.one_withdrawn)
    # Each player who went out is marked as they went (T7): disqualified is not withdrawn.
    disqualified = row_of(html, f.disqualified)
    assert disqualified.count("disqualified (T7)</span>") == 1
    assert "withdrawn (T7)</span>" not in disqualified
    assert row_of(html, f.both_withdrawn).count("withdrawn (T7)</span>") == 2
    assert row_of(html, f.one_withdrawn).count("withdrawn (T7)</span>") == 1
    # A form posted anyway (a stale page) is refused on the row, with the rule: no 500.
    pair = f.eliminated
    posted = client.post(
        reverse("brackets:pair-substitute", args=[f.tournament.slug, pair.pk]),
        {"leaving": members(pair)[0].pk, "player": "Sub", "club": "", "reason": "late"},
    )
    assert posted.status_code == 409
    error = re.search(rf'id="substitute-error-{pair.pk}">(.*?)<', posted.content.decode())
    assert error is not None
    assert "eliminated (T6, T10)" in error.group(1)
    assert "(T11)" in error.group(1)


def test_the_api_refuses_a_substitute_for_a_partnership_out_of_the_event() -> None:
    f = out_field()
    api = APIClient()
    api.force_authenticate(f.director)
    sub = PlayerFactory(name="Sub")
    for attr, (code, _reason) in REASONS.items():
        pair = getattr(f, attr)
        r = api.post(
            f"/api/tournaments/{f.tournament.slug}/partnerships/{pair.pk}/substitute/",
            {"leaving_entry_id": members(pair)[0].pk, "player_id": sub.pk, "reason": "late"},
            format="json",
        )
        assert r.status_code == 409, (attr, r.content)
        assert (r.json()["error"]["code"], r.json()["error"]["rule"]) == (code, "T11")


def test_the_one_rule_answers_the_pages_and_the_service_alike() -> None:
    f = out_field()
    refusals = partnership_substitute_refusals(
        tournament=f.tournament,
        entry_ids=[e.pk for attr in [*REASONS, "one_withdrawn"] for e in members(getattr(f, attr))],
    )
    assert refusals[f.one_withdrawn.pk] is None
    for attr, (code, reason) in REASONS.items():
        refusal = refusals[getattr(f, attr).pk]
        assert refusal is not None
        assert refusal.error.code == code
        assert refusal.reason.startswith(reason)


def test_a_partnership_stored_eliminated_takes_no_substitute_either_t10() -> None:
    """Once round 2 is published the knockout's losers are stored eliminated (T10)."""
    t, d, _pairs = make_pairs_tournament(5)
    k = services.stage_create(
        tournament=t, actor=d, name="Knockout", kind="knockout", rng_seed=11, auto_advance=False
    )
    services.stage_seed(stage=k, actor=d, method="rating")
    r1 = services.round_publish(stage=k, actor=d)
    link = RoundMatch.objects.filter(round=r1).order_by("table_number").first()
    assert link is not None
    decide_round(r1, d)
    services.round_close(round=r1, actor=d)
    services.round_publish(stage=k, actor=d)
    loser = PartnershipMember.objects.get(
        entry_id=Seat.objects.get(match_id=link.match_id, seat=1).entry_id
    ).partnership
    assert (
        StageEntry.objects.filter(
            stage=k, entry__in=members(loser), status=StageEntry.Status.ELIMINATED
        ).count()
        == 2
    )
    with pytest.raises(ConflictError) as refused:
        partnership_substitute(
            partnership=loser,
            actor=d,
            leaving=members(loser)[0],
            player=PlayerFactory(),
            reason="late",
        )
    assert (refused.value.code, refused.value.rule) == ("partnership_eliminated", "T11")
