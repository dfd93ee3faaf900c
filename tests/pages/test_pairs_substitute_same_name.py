"""The Partnerships page's substitute form (T11) asks Register's same-name question: a typed
substitute whose name known players have, with no club to tell them apart, brings the form
back on its row with those players listed (the partial ``brackets/_same_name.html``) and saves
nothing until the director says it is one of them or a different person. Runs on PostgreSQL
and in the embedded SQLite run."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.urls import reverse

from tests.brackets.factories_pages import director_client
from tests.brackets.pairs_helpers import make_pairs_tournament
from tests.factories import EntryFactory, PlayerFactory, TournamentFactory
from tournament.models import ActionLog, Entry, Partnership, PartnershipMember, Player

pytestmark = pytest.mark.django_db


@pytest.fixture
def page() -> dict[str, Any]:
    t, d, (pair, _) = make_pairs_tournament(2)
    leaving = PartnershipMember.objects.get(partnership=pair, slot=0).entry_id
    return {
        "t": t,
        "pair": pair,
        "client": director_client(d),
        "url": reverse("brackets:pair-substitute", args=[t.slug, pair.pk]),
        "body": {"leaving": str(leaving), "club": "", "reason": "flight delayed"},
    }


def substitute(page: dict[str, Any], **fields: str) -> Any:
    return page["client"].post(page["url"], {**page["body"], **fields})


def row_of(html: str, pair: Partnership) -> str:
    found = re.search(rf'<tr data-pair="{pair.pk}" id="pair-{pair.pk}">(.*?)</tr>', html, re.S)
    assert found is not None, pair
    return found.group(1)


def joined(pair: Partnership) -> Player:
    member = PartnershipMember.objects.get(partnership=pair, slot=0, left_at__isnull=True)
    return member.entry.player


def written(t: Any) -> tuple[int, ...]:
    return (
        Player.objects.count(),
        Entry.objects.filter(tournament=t).count(),
        PartnershipMember.objects.filter(partnership__tournament=t).count(),
        ActionLog.objects.filter(tournament=t).count(),
    )


def test_a_known_name_is_asked_about_on_its_row_and_nothing_is_written(
    page: dict[str, Any],
) -> None:
    known = PlayerFactory(name="José Pérez", club="Bayamón", country="PR")
    EntryFactory(player=known, tournament=TournamentFactory(name="Winter Cup"))
    before = written(page["t"])
    response = substitute(page, player="Jose Perez")
    assert response.status_code == 200  # a question, not an error (as on Register)
    row = row_of(response.content.decode(), page["pair"])
    form = row.split(f'id="substitute-form-{page["pair"].pk}"')[1].split("</form>")[0]
    warning = form.split('id="same-name-player"')[1].split("</div>")[0]
    for shown in ("José Pérez", "Bayamón", "PR", "Winter Cup"):
        assert shown in warning
    assert f'type="radio" name="same_as" value="{known.pk}"' in warning
    assert 'name="add_anyway"' in warning
    assert f'name="warned" value="{known.pk}"' in warning
    assert 'value="Jose Perez"' in form  # what was typed stays
    assert 'value="flight delayed"' in form
    assert f'id="substitute-error-{page["pair"].pk}"' not in row
    assert written(page["t"]) == before
    assert joined(page["pair"]).name == "Q0000"


def test_the_same_person_substitutes_the_known_player(page: dict[str, Any]) -> None:
    known = PlayerFactory(name="José Pérez", club="Bayamón", rating=1720)
    response = substitute(page, player="Jose Perez", same_as=str(known.pk))
    assert response.status_code == 302
    assert joined(page["pair"]).pk == known.pk
    assert Player.objects.filter(name__in=["José Pérez", "Jose Perez"]).count() == 1


def test_a_different_person_is_created_once_confirmed(page: dict[str, Any]) -> None:
    known = PlayerFactory(name="José Pérez", club="")
    response = substitute(page, player="Jose Perez", add_anyway="on", warned=str(known.pk))
    assert response.status_code == 302
    new = joined(page["pair"])
    assert (new.pk != known.pk, new.name) == (True, "Jose Perez")
    entry = Entry.objects.get(tournament=page["t"], player=new)
    assert entry.checked_in  # a substitute plays at once (T11)


def test_add_anyway_answers_only_for_the_players_shown(page: dict[str, Any]) -> None:
    shown = PlayerFactory(name="José Pérez", club="")
    later = PlayerFactory(name="Jose Pérez", club="")  # registered since the page asked
    response = substitute(page, player="Jose Perez", add_anyway="on", warned=str(shown.pk))
    assert response.status_code == 200
    warning = response.content.decode().split('id="same-name-player"')[1].split("</div>")[0]
    assert f'value="{later.pk}"' in warning
    assert joined(page["pair"]).name == "Q0000"


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ({"same_as": "x"}, "Substitute: Choose one of the players listed."),
        (
            {"same_as": "{known}", "add_anyway": "on"},
            "Substitute: Choose one: the same person, or a different person added anyway.",
        ),
        ({"same_as": "{stranger}"}, "The player chosen is not a known player named Jose Perez."),
    ],
)
def test_a_bad_answer_is_an_error_on_the_row_naming_the_field(
    page: dict[str, Any], answer: dict[str, str], error: str
) -> None:
    ids = {
        "known": str(PlayerFactory(name="José Pérez", club="").pk),
        "stranger": str(PlayerFactory(name="Luis Mar").pk),
    }
    before = written(page["t"])
    fields = {k: v.format(**ids) for k, v in answer.items()}
    response = substitute(page, player="Jose Perez", **fields)
    assert response.status_code == 400
    row = unescape(row_of(response.content.decode(), page["pair"]))
    assert f'id="substitute-error-{page["pair"].pk}">' in row
    assert error in row
    assert written(page["t"]) == before


def test_another_club_tells_them_apart_without_asking(page: dict[str, Any]) -> None:
    known = PlayerFactory(name="José Pérez", club="Bayamón")
    response = substitute(page, player="Jose Perez", club="Ponce")
    assert response.status_code == 302
    new = joined(page["pair"])
    assert (new.pk != known.pk, new.club) == (True, "Ponce")


def test_registers_question_stays_on_the_register_form(page: dict[str, Any]) -> None:
    """Bug: when Register asked "Is this the same person?", the Substitute form of every
    existing partnership row showed an empty copy of it ("0 players named are already known
    ... A different person: add anyway"). Now the question is only on the form that raised
    it."""
    for name in ("Ana Ruiz", "Beto Cruz"):
        EntryFactory(player=PlayerFactory(name=name, club="Ponce"), tournament=TournamentFactory())
    url = reverse("brackets:pairs", args=[page["t"].slug])
    response = page["client"].post(
        url, {"action": "register", "player_a": "Ana Ruiz", "player_b": "Beto Cruz"}
    )
    assert response.status_code == 200  # the question, on Register
    html = unescape(response.content.decode())
    assert 'id="same-name-player_a"' in html
    row = row_of(html, page["pair"])
    assert f'id="substitute-form-{page["pair"].pk}"' in row
    assert "same-name-warning" not in row
    assert "add anyway" not in row
    assert html.count("same-name-warning") == 2  # player_a and player_b, on Register
