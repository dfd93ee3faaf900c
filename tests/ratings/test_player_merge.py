"""Duplicate detection and the player merge (ratings.merge): who may merge, what moves."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from core.exceptions import ApplicationError, PermissionDeniedError
from ratings.merge import duplicate_groups, merge_allowed, name_key, players_merge
from ratings.models import RatingChange
from ratings.services import ratings_rebuild
from scoring.engine import Ruleset
from tests.brackets.conftest import play_match
from tests.factories import (
    EntryFactory,
    PlayerFactory,
    TournamentFactory,
    UserFactory,
    at_round_table,
    director_of,
    scheduled_match,
    staff_with,
)
from tournament.models import ActionLog, Entry, Player, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

SHORT = {"target": 2}


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("José Pérez", "jose perez", True),
        ("  JOSÉ   PÉREZ ", "José-Pérez", True),
        ("Ana", "Anna", False),
        ("Müller", "muller", True),
    ],
)
def test_name_key(a: str, b: str, same: bool) -> None:
    assert (name_key(a) == name_key(b)) is same


def test_duplicates_need_the_same_club_or_country() -> None:
    a = PlayerFactory(name="José Pérez", club="Club A", country="PR")
    b = PlayerFactory(name="jose perez", club="club a", country="")
    PlayerFactory(name="Jose Perez", club="Club B", country="PR")  # another club: not him
    PlayerFactory(name="Ana", club="Club A")
    groups = duplicate_groups()
    assert [[p.pk for p in g.players] for g in groups] == [[a.pk, b.pk]]


def _two_events() -> tuple[Player, Player, Tournament, Tournament]:
    keep = PlayerFactory(name="Ana Ruiz", club="Club A")
    other = PlayerFactory(name="ana ruiz", club="club a")
    t1, t2 = TournamentFactory(), TournamentFactory()
    EntryFactory(tournament=t1, player=keep)
    EntryFactory(tournament=t2, player=other)
    return keep, other, t1, t2


def merger() -> Any:
    """Staff who may list and merge players: the admin's permissions on players."""
    return staff_with(
        "tournament.view_player", "tournament.change_player", "tournament.delete_player"
    )


def test_permission_rule() -> None:
    keep, other, t1, t2 = _two_events()
    both = director_of(t1)
    director_of(t2, username=both.username)  # the same account directs t2 too
    only_one = director_of(t1)
    staff = merger()
    assert merge_allowed(actor=staff, keep=keep, other=other)
    # The staff flag alone, or only one of the two permissions, is not enough.
    assert not merge_allowed(actor=UserFactory(is_staff=True), keep=keep, other=other)
    assert not merge_allowed(actor=staff_with("tournament.change_player"), keep=keep, other=other)
    assert merge_allowed(actor=both, keep=keep, other=other)
    assert not merge_allowed(actor=only_one, keep=keep, other=other)
    assert not merge_allowed(actor=UserFactory(), keep=keep, other=other)
    with pytest.raises(PermissionDeniedError):
        players_merge(actor=only_one, keep=keep, other=other)
    assert Player.objects.filter(pk=other.pk).exists()


def test_refused_when_both_entered_the_same_tournament() -> None:
    keep, other, t1, _ = _two_events()
    EntryFactory(tournament=t1, player=other)
    with pytest.raises(ApplicationError) as exc:
        players_merge(actor=merger(), keep=keep, other=other)
    assert exc.value.code == "same_tournament"
    assert Entry.objects.filter(player=other).count() == 2


def test_merge_moves_entries_logs_and_bumps_versions() -> None:
    keep, other, t1, t2 = _two_events()
    v1, v2, other_id = t1.version, t2.version, other.pk
    players_merge(actor=merger(), keep=keep, other=other, reason="same person")
    assert not Player.objects.filter(pk=other_id).exists()
    assert set(Entry.objects.filter(player=keep).values_list("tournament_id", flat=True)) == {
        t1.pk,
        t2.pk,
    }
    logs = ActionLog.objects.filter(verb="player.merge")
    assert sorted(log.tournament_id for log in logs) == sorted([t1.pk, t2.pk])
    assert {log.data["merged"] for log in logs} == {other_id}
    t1.refresh_from_db()
    t2.refresh_from_db()
    assert (t1.version, t2.version) == (v1 + 1, v2 + 1)


def test_merge_moves_the_rating_history() -> None:
    ruleset = Ruleset.from_preset("wsod", SHORT).to_json()
    t = TournamentFactory(status="running", ruleset_overrides=SHORT, ruleset=ruleset)
    director = director_of(t)
    match = at_round_table(scheduled_match(t, n_players=3))  # rated: a round's table
    other = match.seats.get(seat=0).entry.player
    play_match(match, director, 3)
    ratings_rebuild()
    assert RatingChange.objects.filter(player=other).count() == 1
    keep = PlayerFactory(name=other.name)
    players_merge(actor=merger(), keep=keep, other=other)
    changes = RatingChange.objects.filter(player=keep)
    assert changes.count() == 1
    assert changes.get().match_id == match.pk


def test_duplicates_page_is_staff_only(client: Client) -> None:
    keep, other, *_ = _two_events()
    other_id = other.pk
    assert client.get("/players/duplicates/").status_code == 302
    # The staff flag alone opens nothing: the page lists every player, drafts' too.
    client.force_login(UserFactory(is_staff=True))
    assert client.get("/players/duplicates/").status_code == 403
    response = client.post("/players/duplicates/", {"keep": keep.pk, "other": other.pk})
    assert response.status_code == 403
    assert Player.objects.filter(pk=other_id).exists()
    client.force_login(merger())
    page = client.get("/players/duplicates/")
    assert page.status_code == 200
    assert "ana ruiz" in page.content.decode()
    response = client.post("/players/duplicates/", {"keep": keep.pk, "other": other.pk})
    assert response.status_code == 302
    assert not Player.objects.filter(pk=other_id).exists()


@pytest.mark.parametrize(
    ("keep", "other"), [("\u00b2", "other"), ("keep", "\u00b2\u00b2"), ("\u0663", "other")]
)
def test_duplicates_page_refuses_ids_in_other_digits_and_merges_nothing(
    client: Client, keep: str, other: str
) -> None:
    """``keep=\u00b2`` passed ``str.isdigit()`` and made ``int()`` raise (a 500); like any id
    that names no player it is refused with the page's message, and nothing is merged."""
    players = _two_events()[:2]
    ids = {"keep": str(players[0].pk), "other": str(players[1].pk)}
    client.force_login(merger())
    response = client.post(
        "/players/duplicates/", {"keep": ids.get(keep, keep), "other": ids.get(other, other)}
    )
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert "Choose two existing players." in page
    assert Player.objects.filter(pk__in=[p.pk for p in players]).count() == 2
    assert not ActionLog.objects.exists()
