"""The Django admin lists and shows every tournament and scoring model; hands are read-only."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import reverse

from scoring.models import Hand, Match, Seat
from scoring.services import hand_record
from tests.factories import (
    TableFactory,
    TournamentFactory,
    UserFactory,
    match_in_progress,
    referee_of,
)
from tournament.models import (
    ActionLog,
    Entry,
    Player,
    RefereeToken,
    Table,
    Tournament,
    TournamentRole,
)
from tournament.services import action_log_record, referee_token_issue

pytestmark = pytest.mark.django_db

MODELS = [
    Tournament,
    Player,
    Entry,
    Table,
    TournamentRole,
    RefereeToken,
    ActionLog,
    Match,
    Seat,
    Hand,
]


@pytest.fixture
def staff_client() -> Client:
    user = UserFactory(is_staff=True, is_superuser=True)
    c = Client()
    c.force_login(user)
    return c


@pytest.fixture
def data() -> dict[str, Any]:
    t = TournamentFactory()
    ref = referee_of(t)
    m = match_in_progress(t, referee=ref)
    hand_record(
        match_id=m.pk,
        actor=ref,
        expected_number=1,
        payload={"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 1},
        idempotency_key="adm",
    )
    director = UserFactory()
    TournamentRole.objects.create(tournament=t, user=director, role="director")
    referee_token_issue(tournament=t, actor=director, user=ref)
    TableFactory(tournament=t)
    action_log_record(tournament=t, actor=director, verb="test.admin", target=m, reason="x")
    return {"tournament": t, "match": m}


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_every_model_is_registered_and_its_pages_load(
    staff_client: Client, data: dict[str, Any], model: Any
) -> None:
    assert admin.site.is_registered(model)
    meta = model._meta
    r = staff_client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"))
    assert r.status_code == 200
    obj = model.objects.first()
    assert obj is not None
    r = staff_client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk]))
    assert r.status_code == 200


def test_hands_cannot_be_changed_or_deleted_from_the_admin(
    staff_client: Client, data: dict[str, Any]
) -> None:
    hand = Hand.objects.get()
    url = reverse("admin:scoring_hand_change", args=[hand.pk])
    staff_client.post(url, {"winner": 3})
    hand.refresh_from_db()
    assert hand.winner == 1
    r = staff_client.post(reverse("admin:scoring_hand_delete", args=[hand.pk]), {"post": "yes"})
    assert r.status_code == 403
    assert Hand.objects.filter(pk=hand.pk).exists()
