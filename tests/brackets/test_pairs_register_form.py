"""The Partnerships page's *Register* form (T9): a rating per partner (the Players page's and
the CSV's entered rating) and the same-name warning per partner."""

from __future__ import annotations

from html import unescape
from typing import Any

import pytest
from django.urls import reverse

from tests.brackets.factories_pages import director_client
from tests.brackets.pairs_helpers import make_pairs_tournament
from tests.factories import EntryFactory, PlayerFactory, TournamentFactory
from tournament.models import Partnership, PartnershipMember, Player

pytestmark = pytest.mark.django_db


@pytest.fixture
def page() -> dict[str, Any]:
    t, d, _ = make_pairs_tournament(0, status="registration")
    return {"t": t, "client": director_client(d), "url": reverse("brackets:pairs", args=[t.slug])}


def register(page: dict[str, Any], **fields: str) -> Any:
    return page["client"].post(page["url"], {"action": "register", **fields})


def partners(t: Any) -> list[Player]:
    return [
        m.entry.player
        for m in PartnershipMember.objects.filter(partnership__tournament=t)
        .select_related("entry__player")
        .order_by("partnership__number", "slot")
    ]


def test_the_form_has_a_rating_per_partner(page: dict[str, Any]) -> None:
    html = page["client"].get(page["url"]).content.decode()
    for name in ("rating_a", "rating_b"):
        assert f'name="{name}"' in html
        assert f'id="id_pair_{name}_helptext">0 to 9999; optional.' in html


def test_the_ratings_are_stored_as_entered_ratings(page: dict[str, Any]) -> None:
    response = register(
        page, player_a="Ana Ruiz", club_a="X", rating_a="1830", player_b="Beto Cruz", club_b="X"
    )
    assert response.status_code == 302
    ana, beto = partners(page["t"])
    assert (ana.name, ana.rating, beto.name, beto.rating) == ("Ana Ruiz", 1830, "Beto Cruz", None)


@pytest.mark.parametrize(
    ("rating", "error"),
    [
        ("-3", "Rating: '-3' is not a whole number from 0 to 9999."),
        ("fast", "Rating: 'fast' is not a whole number from 0 to 9999."),
        ("10000", "Rating: At most 9999 (10000)."),
    ],
)
def test_a_bad_rating_is_named_under_its_field_and_nothing_is_written(
    page: dict[str, Any], rating: str, error: str
) -> None:
    response = register(page, player_a="Ana Ruiz", player_b="Beto Cruz", rating_b=rating)
    assert response.status_code == 400
    assert response.context["register_form"].errors == {"rating_b": [error]}
    assert error in unescape(response.content.decode())
    assert not Player.objects.filter(name__in=["Ana Ruiz", "Beto Cruz"]).exists()
    assert not Partnership.objects.filter(tournament=page["t"]).exists()


def test_a_known_name_is_asked_about_and_nothing_is_written(page: dict[str, Any]) -> None:
    known = PlayerFactory(name="Beto Cruz", club="Ponce", country="DO")
    EntryFactory(player=known, tournament=TournamentFactory(name="Winter Cup"))
    response = register(page, player_a="Ana Ruiz", club_a="X", player_b="beto cruz")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="same-name-player_a"' not in html
    warning = html.split('id="same-name-player_b"')[1].split("</div>")[0]
    for shown in ("Beto Cruz", "Ponce", "DO", "Winter Cup"):
        assert shown in warning
    assert f'type="radio" name="same_as_b" value="{known.pk}"' in warning
    assert 'name="add_anyway_b"' in warning
    assert not Partnership.objects.filter(tournament=page["t"]).exists()
    assert not Player.objects.filter(name="Ana Ruiz").exists()


def test_the_same_person_and_a_different_person(page: dict[str, Any]) -> None:
    beto = PlayerFactory(name="Beto Cruz", club="Ponce", rating=1900)
    ana = PlayerFactory(name="Ána Ruiz", club="")
    response = register(
        page,
        player_a="Ana Ruiz",
        club_a="X",
        rating_a="1400",
        add_anyway_a="on",
        warned_a=str(ana.pk),
        player_b="Beto Cruz",
        rating_b="1000",
        same_as_b=str(beto.pk),
    )
    assert response.status_code == 302
    first, second = partners(page["t"])
    assert first.pk != ana.pk
    assert (first.name, first.rating) == ("Ana Ruiz", 1400)
    assert second.pk == beto.pk
    assert second.rating == 1900
    assert Player.objects.filter(name__in=["Ana Ruiz", "Ána Ruiz", "Beto Cruz"]).count() == 3


def test_a_player_chosen_from_elsewhere_is_an_error_under_the_field(page: dict[str, Any]) -> None:
    PlayerFactory(name="Beto Cruz", club="")
    stranger = PlayerFactory(name="Luis Mar")
    response = register(page, player_a="Ana Ruiz", player_b="Beto Cruz", same_as_b=str(stranger.pk))
    assert response.status_code == 400
    assert response.context["register_form"].errors["player_b"] == [
        "The player chosen is not a known player named Beto Cruz."
    ]
    assert not Partnership.objects.filter(tournament=page["t"]).exists()
