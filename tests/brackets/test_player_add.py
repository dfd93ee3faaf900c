"""Director adds ONE player by hand (``players/add/``): the CSV row rules, the import service,
duplicates refused, known players entered again, directors only."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from tests.brackets.factories_pages import director_client, other_director
from tests.factories import EntryFactory, PlayerFactory, TournamentFactory, director_of
from tournament.models import ActionLog, Entry, Player


@pytest.fixture
def page() -> dict[str, Any]:
    tournament = TournamentFactory()
    director = director_of(tournament)
    return {
        "t": tournament,
        "client": director_client(director),
        "url": reverse("brackets:player-add", args=[tournament.slug]),
        "import": reverse("brackets:import", args=[tournament.slug]),
    }


@pytest.mark.django_db
def test_import_page_shows_the_add_form(page: dict[str, Any]) -> None:
    text = page["client"].get(page["import"]).content.decode()
    assert 'id="add-player"' in text
    assert f'action="{page["url"]}"' in text
    for name in ("name", "nickname", "club", "country", "rating", "check_in"):
        assert f'name="{name}"' in text


@pytest.mark.django_db
def test_add_one_player_creates_player_and_entry(page: dict[str, Any]) -> None:
    client = page["client"]
    response = client.post(
        page["url"],
        {
            "name": " Ana  Rivera ",
            "club": "Club Bayamón",
            "country": "pr",
            "rating": "1830",
            "check_in": "on",
        },
    )
    assert response.status_code == 302
    entry = Entry.objects.select_related("player").get(tournament=page["t"])
    assert (entry.player.name, entry.player.club, entry.player.country, entry.player.rating) == (
        "Ana Rivera",
        "Club Bayamón",
        "PR",
        1830,
    )
    assert entry.checked_in
    assert [str(m) for m in client.get(response["Location"]).context["messages"]] == [
        "Ana Rivera added."
    ]
    log = ActionLog.objects.get(verb="players.add")
    assert log.data["entries"] == 1


@pytest.mark.django_db
def test_bad_fields_are_named_and_nothing_is_written(page: dict[str, Any]) -> None:
    response = page["client"].post(page["url"], {"name": "", "country": "ZZ", "rating": "-3"})
    assert response.status_code == 400
    errors = response.context["add_form"].errors
    assert errors["name"] == ["Name: Required."]
    assert errors["country"][0].startswith("Country: 'ZZ' is not an ISO 3166-1 alpha-2")
    assert errors["rating"] == ["Rating: '-3' is not a whole number from 0 to 9999."]
    assert not Entry.objects.filter(tournament=page["t"]).exists()
    assert not Player.objects.exists()


@pytest.mark.django_db
def test_a_player_already_entered_is_refused(page: dict[str, Any]) -> None:
    EntryFactory(tournament=page["t"], player=PlayerFactory(name="Ana Rivera", club="Club A"))
    response = page["client"].post(page["url"], {"name": "ana rivera", "club": "CLUB A"})
    assert response.status_code == 400
    assert response.context["add_form"].errors["name"] == [
        "Name: ana rivera is already entered in this tournament."
    ]
    assert Entry.objects.filter(tournament=page["t"]).count() == 1
    assert Player.objects.count() == 1


@pytest.mark.django_db
def test_a_known_player_is_entered_again_not_created_twice(page: dict[str, Any]) -> None:
    known = PlayerFactory(name="José Pérez", club="SD")
    response = page["client"].post(page["url"], {"name": "José Pérez", "club": "SD"})
    assert response.status_code == 302
    assert Entry.objects.get(tournament=page["t"]).player_id == known.pk
    assert Player.objects.filter(name="José Pérez").count() == 1
    # Submitting again records nothing more.
    again = page["client"].post(page["url"], {"name": "José Pérez", "club": "SD"})
    assert again.status_code == 400
    assert Entry.objects.filter(tournament=page["t"]).count() == 1


@pytest.mark.django_db
def test_only_the_tournaments_directors_may_add(page: dict[str, Any]) -> None:
    response = director_client(other_director()).post(page["url"], {"name": "Eve"})
    assert response.status_code in (403, 404)
    assert not Player.objects.filter(name="Eve").exists()


def _input_tag(html: str, element_id: str) -> str:
    import re

    found = re.search(rf'<input[^>]*id="{element_id}"[^>]*>', html)
    assert found, element_id
    return found.group(0)


@pytest.mark.django_db
def test_the_text_inputs_stop_at_the_players_column_limits(page: dict[str, Any]) -> None:
    """QA: Name and Club accepted 1000 characters in the browser, then the server said "at
    most 120". The inputs carry tournament.Player's own limits (one source, the model)."""
    html = page["client"].get(page["import"]).content.decode()
    for name in ("name", "nickname", "club"):
        limit = Player._meta.get_field(name).max_length
        assert f'maxlength="{limit}"' in _input_tag(html, f"id_add_{name}"), name
    assert 'maxlength="1000"' not in html
    # A longer value sent anyway (no browser) is still reported by the CSV rules, per field.
    response = page["client"].post(page["url"], {"name": "N" * 121, "club": "C" * 121})
    assert response.status_code == 400
    text = response.content.decode()
    assert "Name: At most 120 characters (121)." in text
    assert "Club: At most 120 characters (121)." in text


@pytest.mark.django_db
def test_the_pairs_page_inputs_carry_the_same_limits() -> None:
    from tests.brackets.pairs_helpers import make_pairs_tournament

    t, d, _ = make_pairs_tournament(1, status="registration")
    html = director_client(d).get(reverse("brackets:pairs", args=[t.slug])).content.decode()
    name_limit = Player._meta.get_field("name").max_length
    club_limit = Player._meta.get_field("club").max_length
    assert f'maxlength="{name_limit}"' in _input_tag(html, "id_pair_player_a")
    assert f'maxlength="{club_limit}"' in _input_tag(html, "id_pair_club_a")
    assert f'<input name="player" maxlength="{name_limit}" required>' in html
    assert f'<input name="club" maxlength="{club_limit}">' in html


@pytest.mark.django_db
def test_the_players_page_lists_everyone_entered_by_name(page: dict[str, Any]) -> None:
    """Walkthrough: the Players page said "The tournament has 3 entries" and listed nobody;
    before any stage exists it was the only place a director could look."""
    tournament = page["t"]
    assert 'id="player-list"' not in page["client"].get(page["import"]).content.decode()
    for name, club, checked_in in (("Zoe Ruiz", "Ponce", True), ("Ana Paz", "", False)):
        EntryFactory(
            tournament=tournament,
            player=PlayerFactory(name=name, club=club),
            checked_in=checked_in,
        )
    withdrawn = EntryFactory(tournament=tournament, player=PlayerFactory(name="Luis Mar"))
    Entry.objects.filter(pk=withdrawn.pk).update(status=Entry.Status.WITHDRAWN)
    text = page["client"].get(page["import"]).content.decode()
    listed = text.split('id="player-list"')[1].split("</details>")[0]
    assert "The 3 players entered, by name" in listed
    rows = listed.split("<tbody>")[1].split("<tr ")[1:]
    assert [r.split('class="person">')[1].split("<")[0].strip() for r in rows] == [
        "Ana Paz",
        "Luis Mar",
        "Zoe Ruiz",
    ]
    assert "Withdrawn" in rows[1]
    assert "Ponce" in rows[2]
    assert ">yes<" in rows[2]


# -- the same-name warning ----------------------------------------------------------------------


def _warning(html: str) -> str:
    assert 'id="same-name-name"' in html
    return html.split('id="same-name-name"')[1].split("</div>")[0]


@pytest.mark.django_db
def test_a_known_name_without_a_club_is_asked_about_and_nothing_is_written(
    page: dict[str, Any],
) -> None:
    known = PlayerFactory(name="José Pérez", nickname="Pepe", club="Bayamón", country="PR")
    EntryFactory(player=known, tournament=TournamentFactory(name="Winter Cup"))
    response = page["client"].post(page["url"], {"name": "jose perez", "rating": "1500"})
    assert response.status_code == 200
    warning = _warning(response.content.decode())
    assert "A player named jose perez is already known, and no club tells them apart." in warning
    for shown in ("José Pérez", "Pepe", "Bayamón", "PR", "Winter Cup"):
        assert shown in warning
    assert f'type="radio" name="same_as" value="{known.pk}"' in warning
    assert 'name="add_anyway"' in warning
    assert f'name="warned" value="{known.pk}"' in warning
    # What was typed is still in the form.
    assert 'value="jose perez"' in response.content.decode()
    assert Player.objects.count() == 1
    assert not Entry.objects.filter(tournament=page["t"]).exists()


@pytest.mark.django_db
def test_a_different_person_is_added_once_confirmed(page: dict[str, Any]) -> None:
    known = PlayerFactory(name="José Pérez", club="Bayamón")
    asked = page["client"].post(page["url"], {"name": "Jose Perez", "rating": "1500"})
    assert 'id="same-name-name"' in asked.content.decode()
    response = page["client"].post(
        page["url"],
        {"name": "Jose Perez", "rating": "1500", "add_anyway": "on", "warned": str(known.pk)},
    )
    assert response.status_code == 302
    new = Entry.objects.get(tournament=page["t"]).player
    assert (new.pk != known.pk, new.name, new.club, new.rating) == (True, "Jose Perez", "", 1500)
    assert [str(m) for m in page["client"].get(response["Location"]).context["messages"]] == [
        "Jose Perez added."
    ]


@pytest.mark.django_db
def test_add_anyway_without_the_players_shown_asks_again(page: dict[str, Any]) -> None:
    """The confirmation answers for the players listed, not for a name typed afterwards."""
    PlayerFactory(name="José Pérez", club="Bayamón")
    response = page["client"].post(page["url"], {"name": "Jose Perez", "add_anyway": "on"})
    assert response.status_code == 200
    assert 'id="same-name-name"' in response.content.decode()
    assert not Entry.objects.filter(tournament=page["t"]).exists()


@pytest.mark.django_db
def test_the_same_person_enters_the_known_player(page: dict[str, Any]) -> None:
    known = PlayerFactory(name="José Pérez", club="Bayamón")
    response = page["client"].post(
        page["url"], {"name": "Jose Perez", "same_as": str(known.pk), "check_in": "on"}
    )
    assert response.status_code == 302
    entry = Entry.objects.get(tournament=page["t"])
    assert (entry.player_id, entry.checked_in, Player.objects.count()) == (known.pk, True, 1)
    assert [str(m) for m in page["client"].get(response["Location"]).context["messages"]] == [
        "José Pérez added (known player entered again)."
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ({"same_as": "abc"}, "Choose one of the players listed."),
        # isdigit() is true for "²", which int() refuses: it was a 500 (dominoes.digits).
        ({"same_as": "²"}, "Choose one of the players listed."),
        ({"same_as": "{other}"}, "The player chosen is not a known player named Jose Perez."),
        (
            {"same_as": "{known}", "add_anyway": "on"},
            "Choose one: the same person, or a different person added anyway.",
        ),
    ],
)
def test_a_bad_answer_is_an_error_under_the_name(
    page: dict[str, Any], answer: dict[str, str], error: str
) -> None:
    known = PlayerFactory(name="José Pérez", club="Bayamón")
    other = PlayerFactory(name="Luis Mar")
    data = {k: v.format(known=known.pk, other=other.pk) for k, v in answer.items()}
    response = page["client"].post(page["url"], {"name": "Jose Perez", **data})
    assert response.status_code == 400
    assert error in response.context["add_form"].errors["name"]
    assert not Entry.objects.filter(tournament=page["t"]).exists()
    assert Player.objects.count() == 2


@pytest.mark.django_db
def test_a_same_name_player_entered_here_is_listed_but_not_offered(page: dict[str, Any]) -> None:
    entered = EntryFactory(
        tournament=page["t"], player=PlayerFactory(name="Ana Rivera", club="Ponce")
    ).player
    response = page["client"].post(page["url"], {"name": "Ana Rivera"})
    warning = _warning(response.content.decode())
    assert "already entered in this tournament" in warning
    assert f'value="{entered.pk}"' in warning  # the ids the confirmation answers for ...
    assert 'type="radio"' not in warning  # ... but no choice that would be refused


@pytest.mark.django_db
def test_another_club_tells_the_players_apart(page: dict[str, Any]) -> None:
    """The warning's other way out: give the new player's club, which is not theirs."""
    PlayerFactory(name="José Pérez", club="Bayamón")
    asked = page["client"].post(page["url"], {"name": "Jose Perez", "club": "bayamon"})
    assert 'id="same-name-name"' in asked.content.decode()  # the same club tells nobody apart
    response = page["client"].post(page["url"], {"name": "Jose Perez", "club": "Ponce"})
    assert response.status_code == 302
    assert Player.objects.count() == 2


@pytest.mark.django_db
def test_every_form_that_enters_players_starts_with_check_in_off() -> None:
    """The players CSV, Add a player, the pairs Register and the pairs CSV: one default (off;
    docs/director-guide.md section 2). The pairs Register used to start ticked."""
    from tests.brackets.pairs_helpers import make_pairs_tournament

    t, d, _ = make_pairs_tournament(0, status="registration")
    client = director_client(d)
    players = client.get(reverse("brackets:import", args=[t.slug])).content.decode()
    pairs = client.get(reverse("brackets:pairs", args=[t.slug])).content.decode()
    for html, element_id in (
        (players, "id_check_in"),
        (players, "id_add_check_in"),
        (pairs, "id_pair_check_in"),
        (pairs, "id_check_in"),
    ):
        tag = _input_tag(html, element_id)
        assert 'type="checkbox"' in tag, element_id
        assert "checked" not in tag, element_id
