"""The permission matrix: role x write endpoint x (own / other tournament's objects).

Two identical tournaments ``a`` and ``b`` are built for every case. The actors are fixed
(anonymous, an unrelated user, the referee of a's match, another referee of a, a's director,
b's director) and each endpoint is called on a's objects and on b's, so every actor is tried
against objects of a tournament they have no role in (no IDOR). Allowed calls must succeed;
everything else is 401 (anonymous) or 403, and changes nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from rest_framework.test import APIClient

from scoring.models import Hand, Match, Seat
from scoring.services import hand_record
from tests.factories import (
    EntryFactory,
    PlayerFactory,
    TournamentFactory,
    UserFactory,
    match_in_progress,
    referee_of,
    scheduled_match,
)
from tournament.models import ActionLog, RefereeToken, Tournament, TournamentRole
from tournament.services import referee_token_issue

pytestmark = pytest.mark.django_db


@dataclass
class World:
    tournament: Tournament
    director: Any
    referee: Any  # assigned to `match` and `scheduled`
    other_referee: Any  # assigned to `other_match`
    match: Match  # in progress, hand 1 recorded
    scheduled: Match
    other_match: Match
    token: RefereeToken  # the referee's credential (its key is known to the test)
    other_token: RefereeToken  # the other table's referee's credential
    other_role: TournamentRole
    free_entries: list[Any]
    player: Any  # entered in this tournament


def build(tag: str) -> World:
    t = TournamentFactory(slug=f"t-{tag}")
    director = UserFactory(username=f"director-{tag}")
    TournamentRole.objects.create(tournament=t, user=director, role="director")
    referee = referee_of(t, username=f"referee-{tag}")
    other_referee = referee_of(t, username=f"other-referee-{tag}")
    match = match_in_progress(t, referee=referee)
    hand_record(
        match_id=match.pk,
        actor=referee,
        expected_number=1,
        payload={"poser": 2, "pose_tile": "6-6", "end": "domino", "winner": 0},
    )
    entry = EntryFactory(tournament=t)
    return World(
        tournament=t,
        director=director,
        referee=referee,
        other_referee=other_referee,
        match=match,
        scheduled=scheduled_match(t, referee=referee),
        other_match=match_in_progress(t, referee=other_referee),
        token=referee_token_issue(tournament=t, actor=director, user=referee),
        other_token=referee_token_issue(tournament=t, actor=director, user=other_referee),
        other_role=TournamentRole.objects.get(tournament=t, user=other_referee),
        free_entries=[EntryFactory(tournament=t), EntryFactory(tournament=t)],
        player=entry.player,
    )


# endpoint name -> (method, path template, body); {slug}, {match}, {scheduled}, ... from World
ENDPOINTS: dict[str, tuple[str, str, Any]] = {
    "tournament_update": ("patch", "/api/tournaments/{slug}/", {"venue": "Hall B"}),
    "entry_create": ("post", "/api/tournaments/{slug}/entries/", {"player": "{new_player}"}),
    "entry_update": ("patch", "/api/tournaments/{slug}/entries/{entry}/", {"checked_in": True}),
    "entry_withdraw": (
        "post",
        "/api/tournaments/{slug}/entries/{entry}/withdraw/",
        {"reason": "ill"},
    ),
    "entry_disqualify": (
        "post",
        "/api/tournaments/{slug}/entries/{entry}/disqualify/",
        {"reason": "conduct"},
    ),
    "table_create": ("post", "/api/tournaments/{slug}/tables/", {"number": 99}),
    "role_grant": (
        "post",
        "/api/tournaments/{slug}/roles/",
        {"user": "{outsider}", "role": "director"},
    ),
    "role_revoke": ("delete", "/api/tournaments/{slug}/roles/{other_role}/", None),
    "referee_create": ("post", "/api/tournaments/{slug}/referees/", {"username": "newref"}),
    "token_issue": ("post", "/api/tournaments/{slug}/referee-tokens/", {"user": "{referee}"}),
    "token_revoke": ("post", "/api/tournaments/{slug}/referee-tokens/{token}/revoke/", None),
    "match_create": (
        "post",
        "/api/tournaments/{slug}/matches/",
        {"entries": ["{free0}", "{free1}"]},
    ),
    "match_start": ("post", "/api/matches/{scheduled}/start/", {}),
    "match_assign_referee": (
        "post",
        "/api/matches/{match}/referee/",
        {"referee": "{other_referee}"},
    ),
    "hand_record": (
        "post",
        "/api/matches/{match}/hands/",
        {"number": 2, "poser": 0, "pose_tile": "5-4", "end": "domino", "winner": 1},
    ),
    "hand_void_last": (
        "post",
        "/api/matches/{match}/hands/void-last/",
        {"number": 1, "reason": "typo"},
    ),
    "match_override": (
        "post",
        "/api/matches/{match}/override/",
        {"scores": [6, 0, 0, 0], "reason": "appeal"},
    ),
    "match_forfeit": ("post", "/api/matches/{match}/forfeit/", {"seat": 1, "reason": "no-show"}),
    "player_update": ("patch", "/api/players/{player}/", {"club": "New club"}),
}

REFEREE_MAY = {"match_start", "hand_record", "hand_void_last"}

ACTORS = [
    "anonymous",
    "unrelated",
    "referee_a",
    "other_referee_a",
    "director_a",
    "director_b",
]


def expected_relation(actor: str, target: str) -> str:
    """How ``actor`` relates to the target tournament."""
    if actor in ("anonymous", "unrelated"):
        return actor
    if actor == f"director_{target}":
        return "director"
    if actor.startswith("director_"):
        return "other_director"
    if target == "a":
        return "match_referee" if actor == "referee_a" else "other_referee"
    return "unrelated"


def allowed(relation: str, endpoint: str) -> bool:
    if endpoint == "role_grant":
        return False  # an existing account becomes a co-director only through staff (issue 12)
    if relation == "director":
        return True
    return relation == "match_referee" and endpoint in REFEREE_MAY


def fill(template: Any, w: World, outsider: Any) -> Any:
    values = {
        "slug": w.tournament.slug,
        "match": w.match.pk,
        "scheduled": w.scheduled.pk,
        "entry": w.free_entries[0].pk,
        "token": w.token.pk,
        "other_role": w.other_role.pk,
        "referee": w.referee.pk,
        "other_referee": w.other_referee.pk,
        "player": w.player.pk,
        "outsider": outsider.pk,
        "free0": w.free_entries[0].pk,
        "free1": w.free_entries[1].pk,
    }
    if isinstance(template, str):
        if template == "{new_player}":
            return PlayerFactory().pk
        if template.startswith("{") and template.endswith("}") and template[1:-1] in values:
            return values[template[1:-1]]
        return template.format(**values)
    if isinstance(template, dict):
        return {k: fill(v, w, outsider) for k, v in template.items()}
    if isinstance(template, list):
        return [fill(v, w, outsider) for v in template]
    return template


def fingerprint() -> tuple[int, ...]:
    """Counts and versions that any write would change."""
    return (
        Hand.objects.count(),
        Hand.objects.filter(void=True).count(),
        Match.objects.count(),
        Match.objects.filter(status="finished").count(),
        sum(Match.objects.values_list("version", flat=True)),
        sum(Tournament.objects.values_list("version", flat=True)),
        RefereeToken.objects.filter(revoked_at__isnull=True).count(),
        RefereeToken.objects.count(),
        TournamentRole.objects.count(),
        ActionLog.objects.count(),
        Seat.objects.filter(forfeited=True).count(),
    )


@pytest.mark.parametrize("target", ["a", "b"])
@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
@pytest.mark.parametrize("actor", ACTORS)
def test_permission_matrix(actor: str, endpoint: str, target: str) -> None:
    worlds = {"a": build("a"), "b": build("b")}
    outsider = UserFactory(username="outsider")
    users = {
        "unrelated": UserFactory(username="unrelated"),
        "referee_a": worlds["a"].referee,
        "other_referee_a": worlds["a"].other_referee,
        "director_a": worlds["a"].director,
        "director_b": worlds["b"].director,
    }
    client = APIClient()
    if actor in ("referee_a", "other_referee_a"):
        # A referee acts through its credential (a capability), never as a signed-in account.
        token = worlds["a"].token if actor == "referee_a" else worlds["a"].other_token
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")  # type: ignore[attr-defined]
    elif actor != "anonymous":
        client.force_authenticate(users[actor])
    method, path, body = ENDPOINTS[endpoint]
    w = worlds[target]
    url = fill(path, w, outsider)
    data = fill(body, w, outsider)
    before = fingerprint()
    entry_before = w.free_entries[0].__class__.objects.get(pk=w.free_entries[0].pk).status
    r = getattr(client, method)(
        url, data=json.dumps(data) if data is not None else None, content_type="application/json"
    )
    relation = expected_relation(actor, target)
    if allowed(relation, endpoint):
        assert 200 <= r.status_code < 300, (relation, endpoint, r.status_code, r.content)
        return
    expected = 401 if actor == "anonymous" else 403
    assert r.status_code == expected, (relation, endpoint, r.status_code, r.content)
    assert r.json()["error"]["code"]
    assert fingerprint() == before
    assert w.free_entries[0].__class__.objects.get(pk=w.free_entries[0].pk).status == entry_before


# -- IDOR through a tournament the caller directs -----------------------------------------------


@pytest.fixture
def two() -> tuple[World, World]:
    return build("a"), build("b")


def _as(user: Any) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


def test_other_tournaments_objects_under_my_slug_are_404(two: tuple[World, World]) -> None:
    a, b = two
    api = _as(b.director)  # directs b, tries a's objects under b's slug
    slug = b.tournament.slug
    e = a.free_entries[0].pk
    assert (
        api.patch(f"/api/tournaments/{slug}/entries/{e}/", {"seed": 3}, format="json").status_code
        == 404
    )
    assert (
        api.post(
            f"/api/tournaments/{slug}/entries/{e}/withdraw/", {"reason": "x"}, format="json"
        ).status_code
        == 404
    )
    assert (
        api.post(f"/api/tournaments/{slug}/referee-tokens/{a.token.pk}/revoke/").status_code == 404
    )
    assert api.delete(f"/api/tournaments/{slug}/roles/{a.other_role.pk}/").status_code == 404
    a.token.refresh_from_db()
    assert a.token.revoked_at is None
    assert TournamentRole.objects.filter(pk=a.other_role.pk).exists()


def test_cannot_seat_or_assign_across_tournaments(two: tuple[World, World]) -> None:
    a, b = two
    api = _as(b.director)
    r = api.post(
        f"/api/tournaments/{b.tournament.slug}/matches/",
        {"entries": [a.free_entries[0].pk, b.free_entries[0].pk]},
        format="json",
    )
    assert r.status_code == 400
    assert "entries[0]" in r.json()["error"]["fields"]
    r = api.post(f"/api/matches/{b.match.pk}/referee/", {"referee": a.referee.pk}, format="json")
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "not_referee"
    r = api.post(
        f"/api/tournaments/{b.tournament.slug}/referee-tokens/",
        {"user": a.referee.pk},
        format="json",
    )
    assert r.status_code == 400


def test_lists_are_filtered_by_tournament_and_private_lists_need_the_director(
    two: tuple[World, World],
) -> None:
    a, b = two
    anon = APIClient()
    matches = anon.get(f"/api/tournaments/{a.tournament.slug}/matches/").json()["results"]
    assert {m["id"] for m in matches} == {a.match.pk, a.scheduled.pk, a.other_match.pk}
    entries = anon.get(f"/api/tournaments/{a.tournament.slug}/entries/").json()["results"]
    assert {e["id"] for e in entries} == set(a.tournament.entries.values_list("id", flat=True))
    hands = anon.get(f"/api/matches/{a.match.pk}/hands/").json()["results"]
    assert {h["match"] for h in hands} == {a.match.pk}
    for private in ("referee-tokens", "roles", "action-log"):
        url = f"/api/tournaments/{a.tournament.slug}/{private}/"
        assert anon.get(url).status_code == 401
        assert _as(b.director).get(url).status_code == 403
        assert _as(a.referee).get(url).status_code == 403
        assert _as(a.director).get(url).status_code == 200
    tokens = _as(a.director).get(f"/api/tournaments/{a.tournament.slug}/referee-tokens/")
    assert {t["id"] for t in tokens.json()["results"]} == {a.token.pk, a.other_token.pk}
    roles = _as(a.director).get(f"/api/tournaments/{a.tournament.slug}/roles/").json()
    assert {r["user"] for r in roles["results"]} == {
        a.director.pk,
        a.referee.pk,
        a.other_referee.pk,
    }


def test_referee_first_hand_starts_a_scheduled_match(two: tuple[World, World]) -> None:
    # Matches start with their first hand (README, Rule decisions: Stages, rounds...).
    a, _ = two
    api = _as(a.referee)
    body = {"number": 1, "poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 1}
    r = api.post(f"/api/matches/{a.scheduled.pk}/hands/", body, format="json")
    assert r.status_code == 201, r.content
    a.scheduled.refresh_from_db()
    assert a.scheduled.status == "in_progress"
    assert Hand.objects.filter(match=a.scheduled).count() == 1


def test_anyone_reads_public_data(two: tuple[World, World]) -> None:
    a, _ = two
    anon = APIClient()
    slug = a.tournament.slug
    for url in [
        "/api/tournaments/",
        f"/api/tournaments/{slug}/",
        "/api/players/",
        f"/api/players/{a.player.pk}/",
        f"/api/tournaments/{slug}/entries/",
        f"/api/tournaments/{slug}/tables/",
        f"/api/tournaments/{slug}/matches/",
        f"/api/matches/{a.match.pk}/",
        f"/api/matches/{a.match.pk}/hands/",
    ]:
        assert anon.get(url).status_code == 200, url
