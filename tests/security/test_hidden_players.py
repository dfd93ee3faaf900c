"""Players entered only in another director's draft stay hidden wherever a director names an
existing player (docs/security.md, "Who sees a player"): by id on the API (entries,
partnerships, substitutes), by typed name on the Players and Partnerships pages and in the CSV
imports, and in the same-name question. A hidden player answers exactly as a missing one, and
naming them publishes nothing. Runs embedded (SQLite) too.

The finding (a security test, MEDIUM): a director of one event entered a player of another
director's draft by id (201 with name, club and rating; the profile then public) or by typed
name, and the same-name question listed hidden players with the draft's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from brackets.csv_import import PlayerRow
from brackets.services.imports import players_import_csv
from core.exceptions import ApplicationError
from tests.factories import (
    EntryFactory,
    PlayerFactory,
    TournamentFactory,
    UserFactory,
    director_of,
)
from tournament.models import Entry, Partnership, PartnershipMember, Player, Tournament
from tournament.partnerships import partnership_register, tournament_entry_format_set
from tournament.services import entry_create

pytestmark = pytest.mark.django_db


@dataclass
class World:
    draft: Tournament  # "Secret Draft": another director's draft
    owner: Any  # its director
    maria: Player  # entered only in the draft
    juans: tuple[Player, Player]  # two hidden "Juan Oculto"s, clubs Norte and Sur
    open: Tournament  # alice's individual event, taking registrations
    pairs: Tournament  # alice's pairs event, taking registrations
    alice: Any  # directs open and pairs only
    missing: int  # an id no player has


@pytest.fixture
def world() -> World:
    draft = TournamentFactory(name="Secret Draft", status=Tournament.Status.DRAFT)
    owner = director_of(draft)
    maria = PlayerFactory(
        name="Maria Secreta", nickname="La Secreta", country="ES", club="Club Oculto", rating=1777
    )
    juans = (
        PlayerFactory(name="Juan Oculto", club="Norte"),
        PlayerFactory(name="Juan Oculto", club="Sur"),
    )
    for player in (maria, *juans):
        EntryFactory(tournament=draft, player=player)
    open_ = TournamentFactory(name="Demo Open", status=Tournament.Status.REGISTRATION)
    alice = director_of(open_)
    pairs = TournamentFactory(
        name="Demo Pairs", status=Tournament.Status.REGISTRATION, ruleset_preset="wsod_partners"
    )
    from tests.factories import RoleFactory
    from tournament.models import TournamentRole

    RoleFactory(tournament=pairs, user=alice, role=TournamentRole.Role.DIRECTOR)
    tournament_entry_format_set(tournament=pairs, actor=alice, entry_format="pairs")
    pairs.refresh_from_db()
    missing = Player.objects.order_by("-pk").values_list("pk", flat=True)[0] + 1000
    return World(draft, owner, maria, juans, open_, pairs, alice, missing)


def api(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def page(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def assert_still_hidden(*players: Player) -> None:
    """Nobody but the draft's directors and staff sees them: neither by id on the API nor on
    the profile page, nor in the directory's search."""
    anonymous = APIClient()
    for player in players:
        assert anonymous.get(f"/api/players/{player.pk}/").status_code == 404
        assert Client().get(f"/players/{player.pk}/").status_code == 404
        assert not Entry.objects.filter(player=player).exclude(tournament__status="draft").exists()
    for search in ("Oculto", "Secreta"):
        listed = anonymous.get(f"/api/players/?search={search}").json()["results"]
        assert not {p["id"] for p in listed} & {p.pk for p in players}


def without(body: dict[str, Any], *ids: int) -> str:
    """The error body with the ids it names blanked, to compare a hidden id's answer with a
    missing id's."""
    text = str(body)
    for pk in ids:
        text = text.replace(f"No player {pk}.", "No player ID.")
    return text


# -- by id on the API -----------------------------------------------------------------------


def test_entry_of_a_hidden_player_answers_as_a_missing_id_and_publishes_nothing(
    world: World,
) -> None:
    alice = api(world.alice)
    url = f"/api/tournaments/{world.open.slug}/entries/"
    assert alice.get(f"/api/players/{world.maria.pk}/").status_code == 404
    hidden = alice.post(url, {"player": world.maria.pk}, format="json")
    missing = alice.post(url, {"player": world.missing}, format="json")
    assert (hidden.status_code, hidden.json()) == (missing.status_code, missing.json())
    assert hidden.status_code == 400
    assert hidden.json()["error"]["code"] == "unknown_player"
    assert "Maria" not in hidden.content.decode()
    assert not Entry.objects.filter(tournament=world.open).exists()
    world.open.status = Tournament.Status.RUNNING  # publishing alice's event changes nothing
    world.open.save()
    assert_still_hidden(world.maria)


def test_the_draft_director_and_staff_still_enter_the_player(world: World) -> None:
    """The visibility rule decides, as it did: the draft's director sees their player (and
    enters them in another event they direct), staff see every player."""
    mine = TournamentFactory(status=Tournament.Status.REGISTRATION)
    from tests.factories import RoleFactory
    from tournament.models import TournamentRole

    RoleFactory(tournament=mine, user=world.owner, role=TournamentRole.Role.DIRECTOR)
    r = api(world.owner).post(
        f"/api/tournaments/{mine.slug}/entries/", {"player": world.maria.pk}, format="json"
    )
    assert (r.status_code, r.json()["player"]["id"]) == (201, world.maria.pk)
    staff = UserFactory(is_staff=True, is_superuser=True)
    r = api(staff).post(
        f"/api/tournaments/{world.open.slug}/entries/",
        {"player": world.juans[0].pk},
        format="json",
    )
    assert r.status_code == 201


def test_partnership_of_a_hidden_player_answers_as_a_missing_id(world: World) -> None:
    alice = api(world.alice)
    url = f"/api/tournaments/{world.pairs.slug}/partnerships/"
    partner = PlayerFactory()
    hidden = alice.post(url, {"players": [partner.pk, world.maria.pk]}, format="json")
    missing = alice.post(url, {"players": [partner.pk, world.missing]}, format="json")
    assert hidden.status_code == missing.status_code == 400
    assert hidden.json()["error"]["message"] == f"No player {world.maria.pk}."
    assert without(hidden.json(), world.maria.pk) == without(missing.json(), world.missing)
    both = alice.post(url, {"players": [w.pk for w in world.juans]}, format="json")
    assert both.status_code == 400
    assert not Partnership.objects.filter(tournament=world.pairs).exists()
    assert not Entry.objects.filter(tournament=world.pairs).exists()
    world.pairs.status = Tournament.Status.RUNNING
    world.pairs.save()
    assert_still_hidden(world.maria, *world.juans)


def _registered_pair(world: World) -> tuple[Partnership, int]:
    pair = partnership_register(
        tournament=world.pairs,
        actor=world.alice,
        players=[PlayerFactory(name="Ana Ruiz"), PlayerFactory(name="Beto Cruz")],
        check_in=True,
    )
    leaving = PartnershipMember.objects.get(partnership=pair, slot=0).entry_id
    return pair, leaving


def test_substitute_by_a_hidden_id_answers_as_a_missing_id(world: World) -> None:
    pair, leaving = _registered_pair(world)
    alice = api(world.alice)
    url = f"/api/tournaments/{world.pairs.slug}/partnerships/{pair.pk}/substitute/"
    body = {"leaving_entry_id": leaving, "reason": "flight delayed"}
    hidden = alice.post(url, {**body, "player_id": world.maria.pk}, format="json")
    missing = alice.post(url, {**body, "player_id": world.missing}, format="json")
    assert hidden.status_code == missing.status_code == 400
    assert without(hidden.json(), world.maria.pk) == without(missing.json(), world.missing)
    assert not Entry.objects.filter(tournament=world.pairs, player=world.maria).exists()
    assert_still_hidden(world.maria)


def test_entering_a_hidden_player_is_refused_by_the_service_too(world: World) -> None:
    """The backstop under every path: ``entry_create`` refuses a player the actor may not
    see, with the API's unknown-player answer."""
    with pytest.raises(ApplicationError) as caught:
        entry_create(tournament=world.open, actor=world.alice, player=world.maria)
    assert (caught.value.code, caught.value.fields) == (
        "unknown_player",
        {"player": ["Unknown player."]},
    )
    assert not Entry.objects.filter(tournament=world.open).exists()


# -- by typed name --------------------------------------------------------------------------


def _new_player_named(t: Tournament, name: str) -> Player:
    return Entry.objects.select_related("player").get(tournament=t, player__name=name).player


def test_players_page_typed_name_of_a_hidden_player_creates_a_new_player(world: World) -> None:
    url = reverse("brackets:player-add", args=[world.open.slug])
    r = page(world.alice).post(url, {"name": "Maria Secreta", "club": "Club Oculto"})
    assert r.status_code == 302
    new = _new_player_named(world.open, "Maria Secreta")
    assert new.pk != world.maria.pk
    assert (new.nickname, new.country, new.rating) == ("", "", None)
    # No question about the hidden Juans either: their namesake is a new player.
    r = page(world.alice).post(url, {"name": "Juan Oculto"})
    assert r.status_code == 302
    assert _new_player_named(world.open, "Juan Oculto").pk not in {j.pk for j in world.juans}
    world.open.status = Tournament.Status.RUNNING
    world.open.save()
    assert_still_hidden(world.maria, *world.juans)


def test_a_hidden_player_chosen_by_id_on_the_page_is_a_missing_choice(world: World) -> None:
    url = reverse("brackets:player-add", args=[world.open.slug])
    hidden = page(world.alice).post(url, {"name": "Maria Secreta", "same_as": world.maria.pk})
    missing = page(world.alice).post(url, {"name": "Maria Secreta", "same_as": world.missing})
    assert hidden.status_code == missing.status_code == 400
    assert hidden.context["add_form"].errors == missing.context["add_form"].errors
    assert not Entry.objects.filter(tournament=world.open).exists()


def test_partnerships_page_typed_names_of_hidden_players_create_new_players(
    world: World,
) -> None:
    r = page(world.alice).post(
        reverse("brackets:pairs", args=[world.pairs.slug]),
        {"action": "register", "player_a": "Maria Secreta", "player_b": "Juan Oculto"},
    )
    assert r.status_code == 302
    maria = _new_player_named(world.pairs, "Maria Secreta")
    juan = _new_player_named(world.pairs, "Juan Oculto")
    assert maria.pk != world.maria.pk
    assert juan.pk not in {j.pk for j in world.juans}
    assert_still_hidden(world.maria, *world.juans)


def test_partnerships_page_typed_substitute_of_a_hidden_player_is_a_new_player(
    world: World,
) -> None:
    pair, leaving = _registered_pair(world)
    r = page(world.alice).post(
        reverse("brackets:pair-substitute", args=[world.pairs.slug, pair.pk]),
        {"leaving": leaving, "player": "Juan Oculto", "reason": "ill"},
    )
    assert r.status_code == 302
    joined = PartnershipMember.objects.get(partnership=pair, slot=0, left_at__isnull=True)
    assert joined.entry.player.name == "Juan Oculto"
    assert joined.entry.player_id not in {j.pk for j in world.juans}
    assert_still_hidden(*world.juans)


def test_api_typed_substitute_of_a_hidden_player_is_a_new_player(world: World) -> None:
    pair, leaving = _registered_pair(world)
    r = api(world.alice).post(
        f"/api/tournaments/{world.pairs.slug}/partnerships/{pair.pk}/substitute/",
        {"leaving_entry_id": leaving, "player_name": "Maria Secreta", "reason": "ill"},
        format="json",
    )
    assert r.status_code == 200
    assert not Entry.objects.filter(player=world.maria, tournament=world.pairs).exists()
    assert_still_hidden(world.maria)


def test_csv_import_enters_no_hidden_player_and_names_no_hidden_namesake(world: World) -> None:
    result = players_import_csv(
        tournament=world.open,
        actor=world.alice,
        rows=[
            PlayerRow(2, "Maria Secreta", club="Club Oculto"),
            PlayerRow(3, "Juan Oculto", club="Norte"),
        ],
    )
    assert (result.created, result.reused, result.namesakes) == (2, 0, ())
    entered = set(Entry.objects.filter(tournament=world.open).values_list("player_id", flat=True))
    assert not entered & {world.maria.pk, *(j.pk for j in world.juans)}
    assert_still_hidden(world.maria, *world.juans)


# -- the same-name question -------------------------------------------------------------------


@pytest.fixture
def public_juan(world: World) -> Player:
    """A Juan Oculto alice may see (he played a published event) who also entered the draft."""
    juan = PlayerFactory(name="Juan Oculto", club="Este", country="PR")
    EntryFactory(tournament=TournamentFactory(name="Winter Cup"), player=juan)
    EntryFactory(tournament=world.draft, player=juan)
    return juan


def test_the_question_lists_only_visible_players_and_events(
    world: World, public_juan: Player
) -> None:
    url = reverse("brackets:player-add", args=[world.open.slug])
    r = page(world.alice).post(url, {"name": "Juan Oculto"})
    assert r.status_code == 200  # a visible namesake still asks, as before
    (warning,) = r.context["same_name"].values()
    assert [(c.id, c.events, c.more_events) for c in warning.candidates] == [
        (public_juan.pk, ("Winter Cup",), 0)
    ]
    assert warning.warned == str(public_juan.pk)
    html = r.content.decode()
    assert "Winter Cup" in html
    assert "Secret Draft" not in html
    for hidden in world.juans:
        assert f'data-player="{hidden.pk}"' not in html
    assert "Club: Norte" not in html
    assert "Club: Sur" not in html
    assert not Entry.objects.filter(tournament=world.open).exists()


def test_the_api_409_lists_only_visible_players_and_events(
    world: World, public_juan: Player
) -> None:
    pair, leaving = _registered_pair(world)
    r = api(world.alice).post(
        f"/api/tournaments/{world.pairs.slug}/partnerships/{pair.pk}/substitute/",
        {"leaving_entry_id": leaving, "player_name": "juan oculto", "reason": "ill"},
        format="json",
    )
    assert r.status_code == 409
    candidates = r.json()["error"]["candidates"]["player_name"]
    assert [(c["id"], c["events"], c["more_events"]) for c in candidates] == [
        (public_juan.pk, ["Winter Cup"], 0)
    ]
    assert "Secret Draft" not in r.content.decode()


def test_the_partnerships_page_question_lists_only_visible_players(
    world: World, public_juan: Player
) -> None:
    r = page(world.alice).post(
        reverse("brackets:pairs", args=[world.pairs.slug]),
        {"action": "register", "player_a": "Ana Ruiz", "player_b": "Juan Oculto"},
    )
    assert r.status_code == 200
    html = r.content.decode()
    warning = html.split('id="same-name-player_b"')[1].split("</div>")[0]
    assert f'value="{public_juan.pk}"' in warning
    for hidden in world.juans:
        assert f'data-player="{hidden.pk}"' not in warning
    assert "Secret Draft" not in html
    assert not Partnership.objects.filter(tournament=world.pairs).exists()


def test_the_draft_director_is_asked_about_every_namesake_with_the_draft_named(
    world: World, public_juan: Player
) -> None:
    """Who may see the players and the draft (its director) is asked as before."""
    mine = TournamentFactory(status=Tournament.Status.REGISTRATION)
    from tests.factories import RoleFactory
    from tournament.models import TournamentRole

    RoleFactory(tournament=mine, user=world.owner, role=TournamentRole.Role.DIRECTOR)
    r = page(world.owner).post(
        reverse("brackets:player-add", args=[mine.slug]), {"name": "Juan Oculto"}
    )
    assert r.status_code == 200
    (warning,) = r.context["same_name"].values()
    assert {c.id for c in warning.candidates} == {public_juan.pk, *(j.pk for j in world.juans)}
    assert "Secret Draft" in r.content.decode()
