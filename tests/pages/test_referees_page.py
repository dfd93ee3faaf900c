"""The director's referees page (``/director/tournaments/<slug>/referees/``).

QA: a 200-letter referee name got "A referee name is letters, digits, - or _." although the
problem was the 150-character limit; the message was shown twice (the site's banner and again
under the heading) and both inputs came back empty. Now each problem is said once, under its
field, naming the field and the limit; the inputs keep what was typed. The display name's limit
is the user column's own (a referee is a user row); the name's is ``REFEREE_NAME_MAX_LENGTH``,
its user name also holding the tournament's prefix (``tournament.referee_names``)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from tests.factories import RoleFactory, TournamentFactory, director_of
from tournament.models import Tournament, TournamentRole
from tournament.referee_names import REFEREE_NAME_MAX_LENGTH, referee_username

pytestmark = pytest.mark.django_db

User = get_user_model()
LIMIT = REFEREE_NAME_MAX_LENGTH


def _page(language: str = "en") -> tuple[Tournament, Client, str]:
    tournament = TournamentFactory(status=Tournament.Status.REGISTRATION)
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(director_of(tournament))
    return tournament, client, reverse("tournament:referees", args=[tournament.slug])


def _input(html: str, name: str) -> str:
    found = re.search(rf'<input[^>]*name="{name}"[^>]*>', html)
    assert found, name
    return found.group(0)


def _text(html: str) -> str:
    """What the page shows: its text without tags (the name input's ``title``, which says
    what a name may hold, is not a second message)."""
    return re.sub(r"<[^>]*>", " ", html)


def _role(tournament: Tournament, name: str) -> TournamentRole:
    """The referee role of the referee the director named ``name``."""
    return TournamentRole.objects.get(
        tournament=tournament,
        user__username=referee_username(tournament_id=tournament.pk, name=name),
    )


def _referees(tournament: Tournament) -> int:
    return TournamentRole.objects.filter(
        tournament=tournament, role=TournamentRole.Role.REFEREE
    ).count()


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "Referee name: at most 100 characters (this one has 200)."),
        ("es", "Nombre del árbitro: como máximo 100 caracteres (este tiene 200)."),
    ],
)
def test_a_too_long_name_says_so_once_and_keeps_the_inputs(language: str, message: str) -> None:
    tournament, client, url = _page(language)
    name = "a" * 200
    response = client.post(url, {"op": "create", "username": name, "display_name": "Ana Ruiz"})
    assert response.status_code == 400
    html = response.content.decode()
    text = _text(html)
    assert text.count(message) == 1
    assert "letters, digits, - or _" not in text
    assert "letras, dígitos" not in text
    assert f'value="{name}"' in _input(html, "username")
    assert 'value="Ana Ruiz"' in _input(html, "display_name")
    assert _referees(tournament) == 0


def test_a_too_long_display_name_names_the_display_name() -> None:
    tournament, client, url = _page()
    response = client.post(
        url, {"op": "create", "username": "ref-ana", "display_name": "Ana " + "b" * 196}
    )
    assert response.status_code == 400
    html = response.content.decode()
    text = _text(html)
    assert text.count("Display name: at most 150 characters (this one has 200).") == 1
    assert "Referee name:" not in text
    assert 'value="ref-ana"' in _input(html, "username")
    assert _referees(tournament) == 0


def test_a_name_with_spaces_names_the_rule_and_a_taken_name_says_it_is_taken() -> None:
    """A name is taken only by a referee of this tournament, in any case; a site account of
    that name is neither refused nor revealed (it was a username oracle, docs/security.md)."""
    tournament, client, url = _page()
    response = client.post(url, {"op": "create", "username": "ana ruiz", "display_name": ""})
    assert response.status_code == 400
    text = _text(response.content.decode())
    assert text.count("Referee name: only letters, digits, - and _ (no spaces or accents).") == 1
    User.objects.create(username="ref-taken")  # a site account: no concern of this page
    response = client.post(url, {"op": "create", "username": "ref-taken", "display_name": ""})
    assert response.status_code == 302
    assert _referees(tournament) == 1
    response = client.post(url, {"op": "create", "username": "REF-Taken", "display_name": "Ana"})
    assert response.status_code == 400
    html = response.content.decode()
    message = (
        "This tournament already has a referee named &#x27;ref-taken&#x27;: choose another name."
    )
    assert html.count(message) == 1
    assert 'value="REF-Taken"' in _input(html, "username")
    assert _referees(tournament) == 1
    row = re.search(r'<td class="person">([^<]*)<span class="muted">([^<]*)</span>', html)
    assert row, html
    assert (row.group(1).strip(), row.group(2)) == ("ref-taken", "ref-taken")  # no prefix
    assert "ref:" not in _text(html)


@pytest.mark.parametrize(
    ("language", "allowed"),
    [
        ("en", "Referee name: only letters, digits, - and _ (no spaces or accents)."),
        ("es", "Nombre del árbitro: solo letras, dígitos, - y _ (sin espacios ni acentos)."),
    ],
)
def test_the_name_pattern_says_what_is_allowed(language: str, allowed: str) -> None:
    """Bug: "ref one" got only the browser's "Please match the requested format.": the input's
    pattern had no title, which the browser adds to that message. The title names the field
    and what it takes, in the page's language; a post that bypasses the pattern is refused on
    the field in the same words."""
    tournament, client, url = _page(language)
    html = client.get(url).content.decode()
    field = _input(html, "username")
    assert 'pattern="' in field
    assert f'title="{escape(allowed)}"' in field, field
    response = client.post(url, {"op": "create", "username": "ref one", "display_name": ""})
    assert response.status_code == 400
    assert response.context["create_form"].errors == {"username": [allowed]}
    assert _field_error(response.content.decode()) == escape(allowed)
    assert _referees(tournament) == 0


def _field_error(html: str) -> str:
    found = re.search(
        r'data-field="username">.*?<p class="error field-error">([^<]+)</p>', html, re.S
    )
    assert found, html[:2000]
    return found.group(1)


def test_a_created_referee_is_announced_once() -> None:
    tournament, client, url = _page()
    response = client.post(url, {"op": "create", "username": "ref-ana", "display_name": "Ana"})
    assert response.status_code == 302
    html = client.get(response["Location"]).content.decode()
    assert html.count("Referee created. Issue them a credential.") == 1
    assert _referees(tournament) == 1


def test_the_inputs_carry_the_user_columns_limits() -> None:
    _, client, url = _page()
    html = client.get(url).content.decode()
    assert f'maxlength="{LIMIT}"' in _input(html, "username")
    display_limit = User._meta.get_field("first_name").max_length
    assert f'maxlength="{display_limit}"' in _input(html, "display_name")
    assert 'id="ref-username"' in html
    assert 'id="ref-display"' in html


def test_a_finished_tournament_offers_no_form_and_says_why() -> None:
    tournament, client, url = _page()
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    html = client.get(url).content.decode()
    assert 'name="op" value="create"' not in html
    assert "status is “Finished”: referees and credentials cannot be created" in html


def test_the_lifecycle_page_also_says_its_message_once() -> None:
    """The site's frame shows the messages; the lifecycle page no longer repeats them."""
    tournament, client, _ = _page()
    url = reverse("tournament:lifecycle", args=[tournament.slug])
    response = client.post(url, {"status": "running", "reason": ""})
    assert response.status_code == 302
    html = client.get(response["Location"]).content.decode()
    assert html.count("Status changed.") == 1


def test_issuing_names_the_referee_and_the_list_counts_active_credentials() -> None:
    """A referee who already has a credential is offered "Issue another credential" (for a
    lost or second phone), not the same first-time button; the shown-once box names the
    referee by their display name, not their user name."""
    tournament, client, url = _page()
    client.post(url, {"op": "create", "username": "ref-nilda", "display_name": "Nilda Paz"})
    role = _role(tournament, "ref-nilda")
    before = client.get(url).content.decode()
    assert "Issue another credential" not in before
    assert ">Issue credential</button>" in before
    issued = client.post(url, {"op": "issue", "user": str(role.user_id)}, follow=True)
    assert "Credential for Nilda Paz: shown once" in issued.content.decode()
    after = client.get(url).content.decode()
    assert "1 active credential" in after
    assert "Credential for Nilda Paz" not in after  # shown once
    assert "Issue another credential" in after
    assert ">Issue credential</button>" not in after


@pytest.mark.parametrize("language", ["en", "es"])
def test_credential_times_read_as_the_other_director_pages_do(language: str) -> None:
    """The credential list showed "12/04/2026 9:48 p.m." beside an action log reading
    "2026-12-04 21:58:00": it uses the director pages' year-month-day, 24-hour form."""
    tournament, client, url = _page(language)
    client.post(url, {"op": "create", "username": "ref-ana", "display_name": "Ana"})
    role = _role(tournament, "ref-ana")
    client.post(url, {"op": "issue", "user": str(role.user_id)})
    html = client.get(url).content.decode()
    table = html.split("<h2>", 3)[-1]
    assert re.search(r"<td>\d{4}-\d{2}-\d{2} \d{2}:\d{2}</td>", table), table[:400]
    # Any 12-hour form in a cell ("9:48 p.m.", "9:48 PM"); not a bare "PM", which a CSRF
    # token on the page can contain.
    assert not re.search(r"\d:\d{2}\s*(?:[ap]\.\s?m\.|[AP]M)", table), table[:400]


def test_after_the_event_no_credential_reads_as_active_and_last_used_follows_the_phone() -> None:
    """Walkthrough: after the event the list said "1 active credential" beside a credential
    marked "expired"; and "Last used" was the link's opening only, though the phone went on
    using the credential through its session all day."""
    from datetime import timedelta

    from django.utils import timezone

    from tournament.models import RefereeToken

    tournament, client, url = _page()
    client.post(url, {"op": "create", "username": "ref-eva", "display_name": "Eva"})
    role = _role(tournament, "ref-eva")
    issued = client.post(url, {"op": "issue", "user": str(role.user_id)}, follow=True)
    key = re.search(r'id="issued-key">([^<]+)<', issued.content.decode())
    assert key
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.RUNNING)
    phone = Client()
    phone.get("/ref/")
    assert phone.post("/ref/", {"key": key.group(1)}, REMOTE_ADDR="10.1.2.3").status_code == 200
    token = RefereeToken.objects.get(role=role)
    opened = timezone.now() - timedelta(hours=3)
    RefereeToken.objects.filter(pk=token.pk).update(last_used_at=opened)
    assert phone.get("/referee/").status_code == 200  # the session's credential acts
    token.refresh_from_db()
    assert token.last_used_at is not None
    assert token.last_used_at > opened + timedelta(hours=2)
    touched = token.last_used_at
    phone.get("/referee/")  # within the minute: no second write
    token.refresh_from_db()
    assert token.last_used_at == touched

    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    html = client.get(url).content.decode()
    assert "active credential" not in html
    assert "expired" in html


def test_a_credentials_state_reads_active_and_revoking_asks_first() -> None:
    """Walkthrough: the State column of a working credential showed only a Revoke button (no
    word for its state), and a tap revoked a referee's phone mid-match without a question;
    the page also said a referee "cannot sign in" while its link signs the phone in."""
    tournament, client, url = _page()
    client.post(url, {"op": "create", "username": "ref-lia", "display_name": "Lia Cruz"})
    role = _role(tournament, "ref-lia")
    client.post(url, {"op": "issue", "user": str(role.user_id)})
    html = client.get(url).content.decode()
    state = html.split('class="credential-state">', 1)[1].split("</td>", 1)[0]
    assert '<span class="state-active">active</span>' in state
    prefix = role.tokens.get().prefix
    asks = f"Revoke Lia Cruz's credential {prefix}? A phone using it stops recording at once."
    assert f'data-confirm="{asks}"' in state
    assert "js/director.js" in html  # the script that asks
    assert "cannot sign in" not in html
    client.post(url, {"op": "revoke", "token": str(role.tokens.get().pk)})
    revoked = client.get(url).content.decode().split('class="credential-state">', 1)[1]
    assert revoked.startswith("revoked ")
    assert "state-active" not in revoked.split("</td>", 1)[0]


def test_chain_issue_then_reload_shows_the_key_once_and_issues_nothing() -> None:
    """Bug: "Issue credential" answered its POST with the page showing the key, so the address
    stayed the POST's and a reload offered to send the form again, issuing ANOTHER credential
    (the first one kept working, unseen). Now the POST redirects to the page (POST-redirect-
    GET); the key waits in the director's session for that one view (never in the URL). A
    reload is a GET: no key, no new credential; the key shown still opens the referee page."""
    from tournament.models import RefereeToken

    tournament, client, url = _page()
    client.post(url, {"op": "create", "username": "ref-rosa", "display_name": "Rosa Vega"})
    role = _role(tournament, "ref-rosa")
    posted = client.post(url, {"op": "issue", "user": str(role.user_id)})
    assert posted.status_code == 302
    assert posted["Location"] == url  # the key is in no URL
    shown = client.get(url)
    assert "no-store" in shown["Cache-Control"]
    html = shown.content.decode()
    assert "Credential for Rosa Vega: shown once" in html
    key = re.search(r'id="issued-key">([^<]+)<', html)
    assert key
    token = RefereeToken.objects.get(role=role)
    assert key.group(1).startswith(f"{token.prefix}.")
    assert f"/ref/#{key.group(1)}" in html
    assert key.group(1) not in str(dict(client.session))  # taken out when shown

    for _reload in range(2):
        again = client.get(url).content.decode()
        assert key.group(1) not in again
        assert 'id="issued-key"' not in again
        assert "1 active credential" in again
    assert RefereeToken.objects.filter(role=role).count() == 1
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.RUNNING)
    phone = Client()
    phone.get("/ref/")
    assert phone.post("/ref/", {"key": key.group(1)}, REMOTE_ADDR="10.1.2.4").status_code == 200


def test_a_key_kept_for_one_tournament_is_not_shown_on_another() -> None:
    """The key waits for its own page: a director of two tournaments who issues on one and
    opens the other's referees page sees no key there, and still sees it on the first."""
    tournament, client, url = _page()
    client.post(url, {"op": "create", "username": "ref-ivo", "display_name": "Ivo"})
    role = _role(tournament, "ref-ivo")
    other = TournamentFactory(status=Tournament.Status.REGISTRATION)
    director = User.objects.get(pk=client.session["_auth_user_id"])
    RoleFactory(tournament=other, user=director, role=TournamentRole.Role.DIRECTOR)
    client.post(url, {"op": "issue", "user": str(role.user_id)})
    elsewhere = client.get(reverse("tournament:referees", args=[other.slug])).content.decode()
    assert 'id="issued-key"' not in elsewhere
    assert 'id="issued-key"' in client.get(url).content.decode()
