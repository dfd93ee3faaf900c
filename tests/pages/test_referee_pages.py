"""The referee's pages with Django's test client: private link, match page, panel, match list."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, override_settings
from django.utils import timezone

from scoring.models import Match
from scoring.services import hand_record, match_start
from tests.factories import director_of, referee_of, scheduled_match
from tests.pages.conftest import Setup, make_tournament
from tournament.context import SESSION_CREDENTIAL_KEY
from tournament.services import referee_token_issue

pytestmark = pytest.mark.django_db


def _address() -> str:
    """A fresh client address: the failure counter is per address (PITFALLS.md)."""
    return "10." + ".".join(str(random.randint(1, 254)) for _ in range(3))


def _session_user_id(client: Client) -> int | None:
    value = client.session.get("_auth_user_id")
    return int(value) if value is not None else None


def _record(match: Match, actor: Any, number: int, **payload: Any) -> None:
    result = hand_record(match_id=match.pk, actor=actor, expected_number=number, payload=payload)
    assert result.status == 201


# -- the private link ------------------------------------------------------------------------


def _open_link(client: Client, key: str, **extra: Any) -> Any:
    """The phone opens ``/ref/#<key>``: the page, then its script POSTs the fragment."""
    assert client.get("/ref/", **extra).status_code == 200
    return client.post("/ref/", {"key": key}, **extra)


def _sign_in_as_referee(client: Client, setup: Setup) -> None:
    """A referee is never a signed-in account: it opens its credential's link."""
    assert _open_link(client, setup.token.key, REMOTE_ADDR=_address()).status_code == 200


def test_private_link_opens_a_credential_session_and_the_referees_match(
    client: Client, setup: Setup
) -> None:
    page = client.get("/ref/")
    assert page["Referrer-Policy"] == "no-referrer"
    assert "js/referee-link" in page.content.decode()  # the script reads the fragment
    response = _open_link(client, setup.token.key, REMOTE_ADDR=_address())
    assert response.status_code == 200
    assert response.json()["redirect"] == "/referee/?tournament=spring-open&go=1"
    assert _session_user_id(client) is None  # a capability, never a login
    assert client.session[SESSION_CREDENTIAL_KEY] == setup.token.pk

    response = client.get(response.json()["redirect"])
    assert response.status_code == 302
    assert response["Location"] == f"/matches/{setup.match.pk}/"
    assert client.get(response["Location"]).status_code == 200


def test_private_link_signs_out_another_account(client: Client, setup: Setup) -> None:
    client.force_login(setup.director)
    _open_link(client, setup.token.key, REMOTE_ADDR=_address())
    assert _session_user_id(client) is None
    assert client.session[SESSION_CREDENTIAL_KEY] == setup.token.pk


@pytest.mark.parametrize("revoke", [True, False], ids=["revoked", "unknown"])
def test_revoked_or_wrong_link_gives_a_clear_404_and_no_session(
    client: Client, setup: Setup, revoke: bool
) -> None:
    if revoke:
        setup.token.revoked_at = timezone.now()
        setup.token.save()
        key = setup.token.key
    else:
        key = "x" * 12 + "." + "y" * 32
    response = _open_link(client, key, REMOTE_ADDR=_address())
    assert response.status_code == 404
    assert "This referee link is not valid" in response.json()["error"]["message"]
    assert _session_user_id(client) is None
    assert SESSION_CREDENTIAL_KEY not in client.session


@override_settings(REFEREE_TOKEN_MAX_FAILURES=3)
def test_wrong_links_are_limited_per_address_but_a_good_key_always_works(
    client: Client, setup: Setup
) -> None:
    address = _address()
    codes = [
        _open_link(client, f"bad{i}.{'x' * 30}", REMOTE_ADDR=address).status_code for i in range(4)
    ]
    assert codes == [404, 404, 404, 429]
    assert (
        "Too many wrong referee keys"
        in _open_link(client, "bad.x", REMOTE_ADDR=address).json()["error"]["message"]
    )
    # A good key is never refused by the limit (issue 12 finding 4).
    assert _open_link(client, setup.token.key, REMOTE_ADDR=address).status_code == 200


def test_private_link_path_with_a_key_does_not_exist(client: Client, setup: Setup) -> None:
    # The key never travels in a path (access logs): the old /ref/<key>/ is gone.
    assert client.get(f"/ref/{setup.token.key}/").status_code == 404


# -- the match page --------------------------------------------------------------------------


def test_match_page_shows_seats_in_play_order_and_the_forced_first_pose(
    client: Client, setup: Setup, django_assert_max_num_queries: Any
) -> None:
    _sign_in_as_referee(client, setup)
    # Session, user, match, seats (with players), hands, director check: no per-hand query.
    with django_assert_max_num_queries(6):
        response = client.get(f"/matches/{setup.match.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    names = [s.entry.player.name for s in setup.match.seats.order_by("seat")]
    positions = [html.index(f'data-name="{n}"') for n in names]
    assert positions == sorted(positions)
    assert "The holder of 6-6 poses the 6-6" in html
    assert '(<a class="rule-link" href="/rules/#R5">R5</a>)' in html
    assert html.count('class="love-tag"') == 4
    assert 'id="llave"' not in html  # wsod: llave off
    assert f'data-hands-url="/api/matches/{setup.match.pk}/hands/"' in html
    assert re.search(r'data-csrf-token="[A-Za-z0-9]{32,}"', html)
    assert 'data-number="1"' in html
    # The offline queue's definition (referee-queue.js) runs before the script that uses it.
    assert html.index("/static/js/referee-queue.js") < html.index("/static/js/referee.js")


def test_match_page_after_a_tie_describes_the_replay_and_its_leader(
    client: Client, setup: Setup
) -> None:
    match = setup.match
    _record(match, setup.referee, 1, poser=2, pose_tile="6-6", end="domino", winner=0)
    # A leads 1-0-0-0; a block with B and C sharing the lowest count is a tie (R20, R28).
    _record(match, setup.referee, 2, poser=0, pose_tile="5-5", end="block", counts=[9, 3, 3, 12])
    _sign_in_as_referee(client, setup)
    html = client.get(f"/matches/{match.pk}/").content.decode()
    name_a = match.seats.get(seat=0).entry.player.name
    assert "Hand 3 — replay worth 2" in html
    assert f"A · {name_a} leads and poses any tile" in html
    assert 'href="/rules/#R10">R10</a>)' in html
    assert "leader" in html
    assert "tie: " in html  # the hands list names the tied players
    # The designated poser is pre-selected.
    assert re.search(r'name="poser" value="0" checked', html)


def test_llave_checkbox_only_where_the_ruleset_has_llave(client: Client) -> None:
    tournament = make_tournament(ruleset_preset="jamaican")
    from tests.factories import match_in_progress

    referee = referee_of(tournament)
    match = match_in_progress(tournament, referee=referee)
    director = director_of(tournament)
    key = referee_token_issue(tournament=tournament, actor=director, user=referee).key
    assert _open_link(client, key, REMOTE_ADDR=_address()).status_code == 200
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert 'id="llave"' in html
    assert "(R23, R24)" in html


def test_finished_match_shows_the_result_and_no_form(client: Client, setup: Setup) -> None:
    match = setup.match
    poser = 2
    for number in range(1, 7):  # A wins six in a row: six-love to everyone (X1)
        _record(match, setup.referee, number, poser=poser, pose_tile="6-6", end="domino", winner=0)
        poser = 0
    _sign_in_as_referee(client, setup)
    html = client.get(f"/matches/{match.pk}/").content.decode()
    name_a = match.seats.get(seat=0).entry.player.name
    assert f"Match over — A · {name_a} wins" in html
    assert "Six-love to" in html
    assert 'id="hand-form"' not in html
    assert 'id="undo"' not in html  # only a director may undo the hand that ended it
    client.force_login(setup.director)
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert 'id="undo"' in html
    assert "Undo hand 6" in html


def test_scheduled_match_offers_the_first_hand(client: Client, setup: Setup) -> None:
    # No separate start step: recording hand 1 starts the match (scoring.services).
    match = scheduled_match(setup.tournament, referee=setup.referee)
    _sign_in_as_referee(client, setup)
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert "The director starts the match" not in html
    assert 'id="hand-form"' in html
    assert "Record hand 1" in html


@pytest.mark.parametrize(
    ("who", "status"),
    [("referee", 200), ("director", 200), ("superuser", 200), ("other_referee", 403)],
)
def test_match_page_and_panel_permissions(
    client: Client, setup: Setup, who: str, status: int
) -> None:
    if who == "superuser":
        client.force_login(get_user_model().objects.create_superuser("root", "r@example.com", "pw"))
    elif who == "referee":
        _sign_in_as_referee(client, setup)
    elif who == "other_referee":
        key = referee_token_issue(
            tournament=setup.tournament, actor=setup.director, user=setup.other_referee
        ).key
        assert _open_link(client, key, REMOTE_ADDR=_address()).status_code == 200
    else:
        client.force_login(getattr(setup, who))
    assert client.get(f"/matches/{setup.match.pk}/").status_code == status
    assert client.get(f"/matches/{setup.match.pk}/panel/").status_code == status


def test_match_page_sends_anonymous_visitors_to_sign_in(client: Client, setup: Setup) -> None:
    response = client.get(f"/matches/{setup.match.pk}/")
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]
    assert client.get(f"/matches/{setup.match.pk}/panel/").status_code == 302


def test_unknown_match_is_404(client: Client, setup: Setup) -> None:
    _sign_in_as_referee(client, setup)
    assert client.get("/matches/999999/").status_code == 404


def test_panel_is_the_live_fragment(client: Client, setup: Setup) -> None:
    _sign_in_as_referee(client, setup)
    html = client.get(f"/matches/{setup.match.pk}/panel/").content.decode()
    assert html.lstrip().startswith('<div id="match-panel"')
    assert "<html" not in html


# -- the referee's list of matches ---------------------------------------------------------------


def test_referee_home_lists_only_my_matches(client: Client, setup: Setup) -> None:
    mine = scheduled_match(setup.tournament, referee=setup.referee)
    theirs = scheduled_match(setup.tournament, referee=setup.other_referee)
    _sign_in_as_referee(client, setup)
    html = client.get("/referee/").content.decode()
    assert f"/matches/{setup.match.pk}/" in html
    assert f"/matches/{mine.pk}/" in html
    assert f"/matches/{theirs.pk}/" not in html


def test_referee_home_go_forwards_only_when_one_match_is_current(
    client: Client, setup: Setup
) -> None:
    _sign_in_as_referee(client, setup)
    assert client.get("/referee/?go=1")["Location"] == f"/matches/{setup.match.pk}/"
    second = scheduled_match(setup.tournament, referee=setup.referee)
    match_start(match_id=second.pk, actor=setup.referee)
    response = client.get("/referee/?go=1")
    assert response.status_code == 200  # two in progress: the referee chooses
    assert f"/matches/{second.pk}/" in response.content.decode()
