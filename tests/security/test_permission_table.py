"""The generated permission test (issue 12): every route of ``config/urls.py`` has an entry in
the route table of ``tournament.context`` (ROUTES), and every role is tried on every route
against the permission table (PERMISSIONS): anonymous, a spectator account, a referee
credential of another table, the referee credential of this match, a director of another
tournament, this tournament's director, staff holding the staff column's Django permissions,
and an account with the staff flag alone (which holds none of them). Objects of another
tournament under this tournament's URL answer 404 and change nothing.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from brackets.models import Round, RoundMatch, Stage
from notify.models import WebhookEndpoint
from scoring.models import Hand, Match, Seat
from scoring.services import hand_record, match_start
from tests.factories import (
    EntryFactory,
    TableFactory,
    TournamentFactory,
    UserFactory,
    director_of,
    match_in_progress,
    scheduled_match,
    staff_with,
)
from tests.security.conftest import fresh_ip
from tournament import services
from tournament.context import (
    PERMISSIONS,
    REFEREE_CAPABILITY,
    ROUTES,
    STAFF_PERMISSIONS,
    STATUS_GATES,
    VIEW_DRAFTS_PERMISSION,
    Action,
    Role,
    route_actions,
)
from tournament.models import (
    ActionLog,
    DirectorInvitation,
    Entry,
    Partnership,
    Player,
    RefereeToken,
    Tournament,
    TournamentRole,
)

pytestmark = pytest.mark.django_db

HAND = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 2}


def all_routes() -> list[tuple[str, str]]:
    """(``namespace:name``, pattern) of every route in config/urls.py."""
    out: list[tuple[str, str]] = []

    def walk(patterns: list[Any], prefix: str, ns: str | None) -> None:
        for p in patterns:
            if isinstance(p, URLResolver):
                # nested namespaces, as in a view name: the API under /api/v1/ and /api/v2/ is
                # ``v1:tournament-api:...`` (core.api.versioning)
                inner = f"{ns}:{p.namespace}" if ns and p.namespace else (p.namespace or ns)
                walk(p.url_patterns, prefix + str(p.pattern), inner)
            elif isinstance(p, URLPattern):
                name = f"{ns}:{p.name}" if ns else str(p.name)
                out.append((name, prefix + str(p.pattern)))

    walk(get_resolver().url_patterns, "", None)
    return out


ROUTE_LIST = all_routes()
APP_ROUTES = [(n, p) for n, p in ROUTE_LIST if not n.startswith("admin:")]


def test_every_route_has_an_entry_in_the_route_table() -> None:
    missing = [name for name, _ in ROUTE_LIST if route_actions(name) is None]
    assert not missing, f"routes without an entry in tournament.context.ROUTES: {missing}"
    names = {n for n, _ in ROUTE_LIST}
    stale = [n for n in ROUTES if not n.endswith(":*") and n not in names]
    assert not stale, f"ROUTES names routes that do not exist: {stale}"


def test_every_action_is_in_the_table_and_the_gates_and_credentials_stay_narrow() -> None:
    assert set(PERMISSIONS) == set(Action) == set(STATUS_GATES)
    for action, roles in PERMISSIONS.items():
        if Role.REFEREE in roles:
            assert action in REFEREE_CAPABILITY, action
    # A finished tournament is read-only: no write action is open there, except reopening.
    writes = set(Action) - {
        Action.VIEW_PUBLIC,
        Action.SIGN_IN,
        Action.VIEW_MATCH,
        Action.VIEW_PRIVATE,
    }
    open_when_finished = {a for a in writes if "finished" in STATUS_GATES[a]}
    assert open_when_finished == {
        Action.REOPEN,
        Action.CREATE_TOURNAMENT,
        Action.CREATE_PLAYER,
        Action.EDIT_PLAYER,
        Action.ADMIN,
    }


def test_every_api_method_of_every_route_is_mapped() -> None:
    resolver = get_resolver()
    unmapped = []
    for name, pattern in APP_ROUTES:
        path = "/" + re.sub(r"<(?:\w+:)?(\w+)>", "1", pattern)
        try:
            match = resolver.resolve(path)
        except Exception:
            continue
        view_class = getattr(match.func, "view_class", None) or getattr(match.func, "cls", None)
        if view_class is None:
            continue
        actions = route_actions(name) or {}
        for method in ("get", "post", "put", "patch", "delete"):
            served = method in getattr(view_class, "http_method_names", [method])
            if (
                served
                and hasattr(view_class, method)
                and method.upper() not in actions
                and "*" not in actions
            ):
                unmapped.append(f"{name} {method.upper()}")
    assert not unmapped, unmapped


@dataclass
class World:
    t: Tournament
    other: Tournament
    director: Any
    other_director: Any
    match: Match
    other_table_match: Match
    referee_key: str
    other_table_key: str
    ids: dict[str, int]  # objects of the OTHER tournament, addressed under this one's slug


def build() -> World:
    t, other = TournamentFactory(), TournamentFactory()
    director, other_director = director_of(t), director_of(other)
    ref = services.referee_create(tournament=t, actor=director, username="gen-ref")
    ref2 = services.referee_create(tournament=t, actor=director, username="gen-ref2")
    key = services.referee_token_issue(tournament=t, actor=director, user=ref.user).key  # type: ignore[attr-defined]
    key2 = services.referee_token_issue(tournament=t, actor=director, user=ref2.user).key  # type: ignore[attr-defined]
    match = match_in_progress(t, referee=ref.user)
    other_table_match = match_in_progress(t, referee=ref2.user)
    other_match = match_in_progress(other)
    other_ref = services.referee_create(tournament=other, actor=other_director, username="gen-o")
    other_token = services.referee_token_issue(
        tournament=other, actor=other_director, user=other_ref.user
    )
    ids = {
        "entry_id": EntryFactory(tournament=other).pk,
        "player_id": Entry.objects.filter(tournament=other).first().player_id,  # type: ignore[union-attr]
        "role_id": other_ref.pk,
        "token_id": other_token.pk,
        "table_id": TableFactory(tournament=other).pk,
        "stage_id": 987654,
        "round_id": 987654,
        "match_id": other_match.pk,
        "content_type_id": 1,
        "object_id": 1,
        # a webhook of the other tournament (created directly: no address resolution)
        "endpoint_id": WebhookEndpoint.objects.create(
            tournament=other, url="https://hooks.example.org/x", secret="s", events=["ping"]
        ).pk,
    }
    return World(t, other, director, other_director, match, other_table_match, key, key2, ids)


ACTORS = [
    "anonymous",
    "spectator",
    "referee_other_table",
    "referee_this_match",
    "other_director",
    "director",
    "staff",
    "bare_staff",
]

#: What "staff" holds: the Django permission of every action of the staff column
#: (context.STAFF_PERMISSIONS), and the view permissions that show drafts and every player.
STAFF_GRANTS = (*STAFF_PERMISSIONS.values(), VIEW_DRAFTS_PERMISSION, "tournament.view_player")


def client_for(actor: str, w: World) -> Client:
    c = Client(REMOTE_ADDR=fresh_ip())
    if actor == "spectator":
        c.force_login(UserFactory())
    elif actor == "staff":
        c.force_login(staff_with(*STAFF_GRANTS))
    elif actor == "bare_staff":  # the staff flag alone (issue: it controlled every tournament)
        c.force_login(UserFactory(is_staff=True))
    elif actor == "director":
        c.force_login(w.director)
    elif actor == "other_director":
        c.force_login(w.other_director)
    elif actor.startswith("referee_"):
        key = w.referee_key if actor == "referee_this_match" else w.other_table_key
        c.defaults["HTTP_AUTHORIZATION"] = f"Token {key}"
    return c


def roles_of(actor: str) -> set[Role]:
    return {
        "anonymous": {Role.ANONYMOUS},
        "spectator": {Role.USER},
        "referee_other_table": {Role.REFEREE},
        "referee_this_match": {Role.REFEREE},
        "other_director": {Role.USER},  # a director elsewhere is nobody here
        "director": {Role.USER, Role.DIRECTOR},
        "staff": {Role.USER, Role.STAFF},
        "bare_staff": {Role.USER},  # the flag alone holds no permission of the staff column
    }[actor]


MATCH_ACTIONS = {Action.VIEW_MATCH, Action.RECORD_HAND, Action.UNDO_HAND}
SITE_ACTIONS = {Action.CREATE_TOURNAMENT, Action.CREATE_PLAYER, Action.EDIT_PLAYER}


def permitted(actor: str, action: Action, *, match_route: bool, own: bool) -> bool:
    """What the table allows ``actor`` on a route; ``own`` False means the URL names the OTHER
    tournament's match (a match route) or object (a player entered only there)."""
    roles = roles_of(actor)
    if actor == "other_director" and (
        action in {Action.CREATE_TOURNAMENT, Action.CREATE_PLAYER}  # director of any tournament
        or (match_route and not own)  # the other tournament's match is theirs
        or action == Action.EDIT_PLAYER  # the player is entered only in their tournament
    ):
        roles = roles | {Role.DIRECTOR}
    if action == Action.EDIT_PLAYER and actor == "director":
        return False  # the object rule: the player is not entered in a tournament they direct
    if match_route and not own and actor in ("director", "referee_this_match"):
        return False  # another tournament's match
    if not roles & PERMISSIONS[action]:
        return False
    if action in MATCH_ACTIONS and Role.DIRECTOR not in roles:
        return actor == "referee_this_match" and own
    return True


def fingerprint() -> tuple[Any, ...]:
    return (
        Hand.objects.count(),
        Hand.objects.filter(void=True).count(),
        ActionLog.objects.count(),
        TournamentRole.objects.count(),
        RefereeToken.objects.filter(revoked_at__isnull=True).count(),
        DirectorInvitation.objects.filter(revoked_at__isnull=True).count(),
        tuple(Tournament.objects.order_by("pk").values_list("version", "status", "venue")),
        tuple(Match.objects.order_by("pk").values_list("version", "status")),
    )


DENIED = {401, 403, 404, 405}


def _fill(pattern: str, values: dict[str, Any]) -> str | None:
    """The path of ``pattern`` with ``values``; None for a regex route or a missing value."""
    if "(?P<" in pattern or "^" in pattern:
        return None
    path = pattern
    for name in re.findall(r"<(?:\w+:)?(\w+)>", pattern):
        if name not in values:
            return None
        path = re.sub(rf"<(?:\w+:)?{name}>", str(values[name]), path)
    return "/" + path


def _url(pattern: str, w: World, *, own: bool) -> str | None:
    values: dict[str, Any] = {**w.ids, "slug": w.t.slug, "key": "x"}
    if own:
        values["match_id"] = w.match.pk
    return _fill(pattern, values)


CASES = [
    (name, pattern, method)
    for name, pattern in APP_ROUTES
    for method in sorted((route_actions(name) or {}).keys())
]


@pytest.mark.parametrize(
    ("name", "pattern", "method"), CASES, ids=[f"{n}-{m}" for n, _, m in CASES]
)
def test_every_role_on_every_route_follows_the_table(name: str, pattern: str, method: str) -> None:
    w = build()
    action = (route_actions(name) or {})[method]
    http = "get" if method == "*" else method.lower()
    for own, actor in itertools.product((True, False), ACTORS):
        url = _url(pattern, w, own=own)
        if url is None:
            continue
        if "<int:match_id>" not in pattern and not own:
            continue  # routes without a match: the other tournament's ids are used anyway
        client = client_for(actor, w)
        before = fingerprint()
        if http == "get":
            response = client.get(url)
        else:
            response = getattr(client, http)(url, data="{}", content_type="application/json")
        status = response.status_code
        allowed = permitted(actor, action, match_route="<int:match_id>" in pattern, own=own)
        if action in (Action.VIEW_PUBLIC, Action.SIGN_IN):
            assert status < 500, (name, actor, status)
            continue
        if not allowed:
            login_redirect = status == 302 and "login" in response.get("Location", "")
            # An empty body may be refused as invalid (400) before the service checks who is
            # asking; the fingerprint below still proves nothing happened.
            assert status in DENIED or status == 400 or login_redirect, (
                name,
                method,
                actor,
                own,
                status,
            )
            assert fingerprint() == before, (name, method, actor, own)
        else:
            assert status not in (401, 403), (
                name,
                method,
                actor,
                own,
                status,
                response.content[:300],
            )
            assert status < 500, (name, method, actor, own, status)


def test_objects_of_another_tournament_under_my_slug_are_404_for_its_director() -> None:
    w = build()
    c = client_for("director", w)
    before = fingerprint()
    slug = w.t.slug
    for url, method in [
        (f"/api/tournaments/{slug}/entries/{w.ids['entry_id']}/", "patch"),
        (f"/api/tournaments/{slug}/entries/{w.ids['entry_id']}/withdraw/", "post"),
        (f"/api/tournaments/{slug}/roles/{w.ids['role_id']}/", "delete"),
        (f"/api/tournaments/{slug}/referee-tokens/{w.ids['token_id']}/revoke/", "post"),
    ]:
        r = getattr(c, method)(
            url, data='{"reason": "x", "seed": 9}', content_type="application/json"
        )
        assert r.status_code == 404, (url, r.status_code)
    assert fingerprint() == before


# -- a draft tournament through every route (security review, finding A) ---------------------
#
# A draft exists only for its directors and staff. Routes addressed by an object's id carry no
# tournament slug (``/api/matches/<id>/``) and ids are sequential, so for everybody else every
# route must answer a draft's object exactly as an id that does not exist: the same status
# (and error code), nothing of the draft in the body, nothing written. Likewise a draft's ids
# under a published tournament's slug, and the draft's own slug.

SECRET_NAME = "Hush Draft Open"
SECRET_PLAYER = "Zed Onlyindraft"
MISSING = 987654321


@dataclass
class DraftWorld:
    draft: Tournament
    published: Tournament
    ids: dict[str, Any]  # the draft's objects
    clients: dict[str, Client]  # callers who may not see the draft


def build_draft() -> DraftWorld:
    """A tournament with a played hand, a round, a partnership, a webhook, a referee and a
    player entered nowhere else, set back to draft (as ``test_finding3`` does: a match can
    only start while a tournament runs); and a published tournament whose director, referee
    and spectators ask for its objects."""
    draft = TournamentFactory(name=SECRET_NAME)
    director = director_of(draft)
    ref = services.referee_create(tournament=draft, actor=director, username="draft-ref")
    token = services.referee_token_issue(tournament=draft, actor=director, user=ref.user)
    table = TableFactory(tournament=draft, number=1)
    match = scheduled_match(draft, referee=ref.user, table=table)
    secret = Seat.objects.get(match=match, seat=0).entry
    Player.objects.filter(pk=secret.player_id).update(name=SECRET_PLAYER)
    match_start(match_id=match.pk, actor=director)
    hand_record(match_id=match.pk, actor=director, expected_number=1, payload=HAND)
    stage = Stage.objects.create(
        tournament=draft, number=1, name="Qualifying", kind=Stage.Kind.QUALIFYING
    )
    rnd = Round.objects.create(stage=stage, number=1, kind=Round.Kind.SWISS)
    RoundMatch.objects.create(round=rnd, match=match, table_number=1)
    pair = Partnership.objects.create(tournament=draft, number=1)
    endpoint = WebhookEndpoint.objects.create(
        tournament=draft, url="https://hooks.example.org/d", secret="s", events=["ping"]
    )
    Tournament.objects.filter(pk=draft.pk).update(status=Tournament.Status.DRAFT)
    draft.refresh_from_db()

    published = TournamentFactory()
    published_director = director_of(published)
    published_ref = services.referee_create(
        tournament=published, actor=published_director, username="pub-ref"
    )
    published_token = services.referee_token_issue(
        tournament=published, actor=published_director, user=published_ref.user
    )
    clients = {"anonymous": Client(REMOTE_ADDR=fresh_ip())}
    clients["spectator"] = Client(REMOTE_ADDR=fresh_ip())
    clients["spectator"].force_login(UserFactory())
    # The staff flag alone reads no draft (only tournament.view_tournament does).
    clients["bare_staff"] = Client(REMOTE_ADDR=fresh_ip())
    clients["bare_staff"].force_login(UserFactory(is_staff=True))
    clients["published_director"] = Client(REMOTE_ADDR=fresh_ip())
    clients["published_director"].force_login(published_director)
    clients["published_referee"] = Client(
        REMOTE_ADDR=fresh_ip(),
        HTTP_AUTHORIZATION=f"Token {published_token.key}",  # type: ignore[attr-defined]
    )
    ids = {
        "slug": draft.slug,
        "match_id": match.pk,
        "entry_id": secret.pk,
        "player_id": secret.player_id,
        "role_id": ref.pk,
        "token_id": token.pk,
        "table_id": table.pk,
        "stage_id": stage.pk,
        "round_id": rnd.pk,
        "pair_id": pair.pk,
        "endpoint_id": endpoint.pk,
        "number": 1,  # the draft's table 1, its hand 1
        "action": "forfeit",
        "key": "x",
    }
    return DraftWorld(draft, published, ids, clients)


def _answer(client: Client, http: str, url: str) -> tuple[int, str, str]:
    """(status, error code of a JSON error body, body text) of one request."""
    if http == "get":
        response = client.get(url)
    else:
        response = getattr(client, http)(url, data="{}", content_type="application/json")
    body = b"".join(response) if response.streaming else response.content  # type: ignore[attr-defined]
    code = ""
    if response.get("Content-Type", "").startswith("application/json"):
        error = response.json().get("error") if response.content.startswith(b"{") else None
        code = error.get("code", "") if isinstance(error, dict) else ""
    return response.status_code, code, body.decode(errors="replace")


@pytest.mark.parametrize(
    ("name", "pattern", "method"), CASES, ids=[f"{n}-{m}" for n, _, m in CASES]
)
def test_a_draft_answers_every_route_as_missing_ids_for_those_who_may_not_see_it(
    name: str, pattern: str, method: str
) -> None:
    w = build_draft()
    http = "get" if method == "*" else method.lower()
    missing = {k: (f"no-such-{MISSING}" if k == "slug" else MISSING) for k in w.ids}
    missing.update(action="forfeit", key="x")
    # (the draft's objects, the same with missing ids): under the draft's slug, and (routes
    # with a slug and ids) under the published tournament's slug.
    pairs = [(_fill(pattern, w.ids), _fill(pattern, missing))]
    if "<slug:slug>" in pattern and len(re.findall(r"<", pattern)) > 1:
        pairs.append(
            (
                _fill(pattern, {**w.ids, "slug": w.published.slug}),
                _fill(pattern, {**missing, "slug": w.published.slug}),
            )
        )
    for (draft_url, missing_url), (actor, client) in itertools.product(pairs, w.clients.items()):
        if draft_url is None or missing_url is None:
            continue
        before = fingerprint()
        status, code, body = _answer(client, http, draft_url)
        assert fingerprint() == before, (name, method, actor, draft_url)
        assert (status, code) == _answer(client, http, missing_url)[:2], (
            name,
            method,
            actor,
            draft_url,
            status,
            body[:300],
        )
        assert SECRET_NAME not in body, (name, actor, draft_url)
        assert SECRET_PLAYER not in body, (name, actor, draft_url)
        if "<slug:slug>" not in pattern:
            assert w.draft.slug not in body, (name, actor, draft_url)


def test_the_drafts_directors_still_reach_its_matches_by_id() -> None:
    """The other side of the rule: the draft's own director (and staff allowed to view
    tournaments, as in the admin) read its match."""
    w = build_draft()
    director = Client()
    director.force_login(
        TournamentRole.objects.get(tournament=w.draft, role=TournamentRole.Role.DIRECTOR).user
    )
    staff = Client()
    staff.force_login(staff_with(VIEW_DRAFTS_PERMISSION))
    match_id = w.ids["match_id"]
    for client in (director, staff):
        for url in (f"/api/matches/{match_id}/", f"/api/v2/matches/{match_id}/hands/"):
            answer = client.get(url)
            assert answer.status_code == 200, (url, answer.content[:200])
        assert SECRET_PLAYER in client.get(f"/api/matches/{match_id}/").content.decode()
