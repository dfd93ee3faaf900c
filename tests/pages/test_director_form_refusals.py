"""Director forms name the field they refuse, and refuse what they do not understand."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.factories import TournamentFactory, director_of
from tournament.models import ActionLog, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def director_page() -> tuple[Client, Tournament]:
    tournament: Tournament = TournamentFactory(
        status=Tournament.Status.REGISTRATION, slug="life-cup"
    )
    client = Client()
    client.force_login(director_of(tournament))
    return client, tournament


def _text(response: Any) -> str:
    return str(response.content.decode())


@pytest.mark.parametrize(
    ("reason", "words"),
    [
        ("x" * 5000, "Reason: at most 2000 characters (this one has 5000)."),
        ("late\x00start", "Reason: no control characters"),
        ("late\x07start", "Reason: no control characters"),
    ],
)
def test_lifecycle_names_the_reason_not_the_status(
    director_page: tuple[Client, Tournament], reason: str, words: str
) -> None:
    """Bug: a status change with a 5,000-character reason (or one holding NUL) answered
    "Choose a status." after a redirect. Now the page again (400) says what is wrong with
    the reason, keeps the status chosen, and changes nothing."""
    client, tournament = director_page
    r = client.post(
        "/director/tournaments/life-cup/lifecycle/", {"status": "running", "reason": reason}
    )
    assert r.status_code == 400
    assert words in _text(r)
    assert "Choose a status." not in _text(r)
    assert '<option value="running" selected>' in _text(r)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTRATION


def test_lifecycle_refusals_of_the_service_and_of_the_status(
    director_page: tuple[Client, Tournament],
) -> None:
    client, tournament = director_page
    r = client.post("/director/tournaments/life-cup/lifecycle/", {"status": "nonsense"})
    assert r.status_code == 400
    assert "Status: choose one of the statuses offered." in _text(r)
    r = client.post(
        "/director/tournaments/life-cup/lifecycle/", {"status": "draft", "reason": "back"}
    )
    assert r.status_code == 400
    assert "Status cannot go from registration to draft." in _text(r)
    assert 'value="back"' in _text(r)  # what was typed is kept
    r = client.post(
        "/director/tournaments/life-cup/lifecycle/", {"status": "running", "reason": "go"}
    )
    assert r.status_code == 302
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    assert ActionLog.objects.filter(verb="tournament.status", reason="go").count() == 1


@pytest.mark.parametrize("page", ["referees", "directors"])
@pytest.mark.parametrize("op", ["", "delete-everything"])
def test_an_unknown_op_is_refused_with_a_message(
    director_page: tuple[Client, Tournament], page: str, op: str
) -> None:
    """Bug: a POST with an unknown ``op`` redirected and said nothing. Now 400 saying so."""
    client, _tournament = director_page
    r = client.post(f"/director/tournaments/life-cup/{page}/", {"op": op})
    assert r.status_code == 400
    assert "Unknown action" in _text(r)


@pytest.mark.parametrize("body", [{}, {"key": "k" * 32}])
def test_pinging_a_webhook_that_does_not_exist_is_404(
    director_page: tuple[Client, Tournament], body: dict[str, str]
) -> None:
    """Bug: ``ping/`` of a webhook that does not exist said "Reload the page ... (the request
    has no key)", while ``disable/`` answered 404. Now 404 as well."""
    client, _tournament = director_page
    for action in ("ping", "disable"):
        r = client.post(f"/director/tournaments/life-cup/webhooks/987654/{action}/", body)
        assert r.status_code == 404, action


def test_reason_and_label_refusals_name_their_field(
    director_page: tuple[Client, Tournament],
) -> None:
    """Bug: the call-time form and the directors page said "Ensure this value has at most 500
    characters" without naming the field. Now "Reason: ..." / "Label: ..."."""
    from brackets.forms import CallTimeForm

    form = CallTimeForm({"confirm": "on", "reason": "x" * 5000})
    assert not form.is_valid()
    assert form.errors["reason"] == ["Reason: at most 500 characters (this one has 5000)."]
    client, _tournament = director_page
    r = client.post(
        "/director/tournaments/life-cup/directors/", {"op": "issue", "label": "x" * 500}
    )
    assert r.status_code == 400
    assert "Label: at most" in _text(r)
    assert "Ensure this value" not in _text(r)


def test_lifecycle_change_sent_from_a_page_open_before_the_finish_says_why(
    director_page: tuple[Client, Tournament],
) -> None:
    """A director's walkthrough on ``make demo``: with the Lifecycle page open in two tabs,
    one finished the tournament; "Change status" in the other answered 400 with no word (the
    refusal sat on the status list, which a finished tournament's page does not show). It
    is now said at the top, above the Reopen form."""
    client, tournament = director_page
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    r = client.post("/director/tournaments/life-cup/lifecycle/", {"status": "finished"})
    assert r.status_code == 400
    text = _text(r)
    assert 'role="alert" id="status-error"' in text
    alert = text.split('id="status-error">', 1)[1].split("</div>", 1)[0]
    assert "is finished" in alert
    assert "reopen the tournament first" in alert
    assert 'name="reopen"' in text  # the Reopen form is there below it


def test_a_backward_status_is_named_in_the_pages_language_not_by_its_code(
    director_page: tuple[Client, Tournament],
) -> None:
    """The refusal names the statuses as the Lifecycle page does: in Spanish, "inscripción"
    and "borrador", never the codes "registration" and "draft"."""
    client, tournament = director_page
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "es"
    r = client.post("/director/tournaments/life-cup/lifecycle/", {"status": "draft"})
    assert r.status_code == 400
    text = _text(r)
    assert "de inscripción a borrador" in text
    assert "registration" not in text.split("<main", 1)[-1].split("</main>", 1)[0]
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTRATION
