"""The referee's last hand of the tournament (QA: the phone stayed on "Sending…").

The last hand of the final ends the tournament, and a referee credential works only while its
tournament runs. Least privilege after the finish: the session opened from the referee link may
still READ its own match for a short while (the answer to that hand, the result), never write;
the link itself no longer opens a session, and says the referee's work is done, in the page's
language. Also: "My matches" names who is signed in.
"""

from __future__ import annotations

import json
import random
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client, override_settings
from django.utils import timezone
from django.utils.translation import gettext, override

from core.exceptions import ApplicationError
from scoring.models import Hand, Match
from scoring.services import hand_record
from tests.pages.conftest import Setup
from tests.pages.final_table import FinalTable, final_table_one_hand_from_the_end
from tournament.context import SESSION_CREDENTIAL_KEY, RefereeActor, session_referee
from tournament.models import RefereeToken, Tournament

DONE = "Your work as referee is done: thank you!"


def _address() -> str:
    return "10." + ".".join(str(random.randint(1, 254)) for _ in range(3))


def _open_link(client: Client, key: str, **extra: Any) -> Any:
    """The phone opens ``/ref/#<key>``: the page, then its script POSTs the fragment."""
    assert client.get("/ref/", **extra).status_code == 200
    return client.post("/ref/", {"key": key}, REMOTE_ADDR=_address(), **extra)


def _post_hand(client: Client, match: Match, number: int, payload: dict[str, Any]) -> Any:
    """What the referee page sends: JSON, the CSRF header, a fresh Idempotency-Key."""
    return client.post(
        f"/api/matches/{match.pk}/hands/",
        json.dumps({"number": number, **payload}),
        content_type="application/json",
        HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value,
        HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()),
    )


def _post(client: Client, path: str, body: dict[str, Any]) -> Any:
    return client.post(
        path,
        json.dumps(body),
        content_type="application/json",
        HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value,
    )


@pytest.fixture
def final(transactional_db: Any, settings: Any) -> FinalTable:
    # Spectator broadcasts are not under test here (Redis round trips per hand are slow).
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    return final_table_one_hand_from_the_end()


def _phone(final: FinalTable) -> Client:
    """The referee's phone, signed in through its private link, on its match page."""
    client = Client()
    answer = _open_link(client, final.token.key)
    assert answer.status_code == 200, answer.content
    assert client.get(f"/matches/{final.match.pk}/").status_code == 200
    return client


def _finish(phone: Client, final: FinalTable) -> None:
    answer = _post_hand(phone, final.match, final.number, final.last.to_dict())
    assert answer.status_code == 201, answer.content
    final.tournament.refresh_from_db()
    assert final.tournament.status == Tournament.Status.FINISHED  # the final table ended it


def test_last_hand_then_the_panel_then_every_write_is_refused(final: FinalTable) -> None:
    phone = _phone(final)
    match = final.match
    _finish(phone, final)

    # The page's follow-up: the panel of its own match, read-only, with the result.
    panel = phone.get(f"/matches/{match.pk}/panel/")
    assert panel.status_code == 200, panel.get("Location")
    html = panel.content.decode()
    assert "Match over" in html
    assert "No further hands are accepted (R33)." in html
    assert 'id="tournament-done"' in html
    assert "The tournament is finished." in html
    assert DONE in html
    assert 'id="hand-form"' not in html
    assert 'id="undo"' not in html
    assert phone.get(f"/matches/{match.pk}/").status_code == 200

    # Never a write: another hand, an undo, a player's confirmation.
    stored = Hand.objects.filter(match=match).count()
    again = _post_hand(phone, match, final.number + 1, final.last.to_dict())
    assert again.status_code in (401, 403), again.content
    for path, body in [
        (f"/api/matches/{match.pk}/hands/void-last/", {"number": final.number, "reason": "x"}),
        (f"/api/matches/{match.pk}/confirmations/", {"number": final.number, "seat": 0}),
        (f"/api/matches/{match.pk}/disputes/", {"number": final.number, "seat": 0}),
        (f"/api/matches/{match.pk}/start/", {}),
    ]:
        refused = _post(phone, path, body)
        assert refused.status_code in (401, 403), (path, refused.status_code, refused.content)
    assert Hand.objects.filter(match=match).count() == stored
    assert Hand.objects.filter(match=match, void=True).count() == 0

    # The refused write did not end the short read: the page can still show the result.
    assert phone.get(f"/matches/{match.pk}/panel/").status_code == 200
    assert phone.session[SESSION_CREDENTIAL_KEY] == final.token.pk

    # ... of its own match only: another match of the tournament stays closed.
    other = Match.objects.filter(tournament=final.tournament).exclude(pk=match.pk).first()
    assert other is not None
    assert phone.get(f"/matches/{other.pk}/panel/").status_code == 403

    # "My matches" says who is signed in and that the work is done.
    home = phone.get("/referee/").content.decode()
    assert "Signed in as Rosa Méndez." in home
    assert DONE in home

    # The key itself (an API client) is dead at once, as before.
    api = Client(HTTP_AUTHORIZATION=f"Token {final.token.key}")
    assert api.get(f"/api/matches/{match.pk}/hands/").status_code == 401


def test_a_credential_acting_after_the_finish_is_refused_by_the_service(final: FinalTable) -> None:
    """Defence in depth: even a read-only credential handed to the hot path cannot record."""
    phone = _phone(final)
    _finish(phone, final)
    actor = RefereeActor.of(final.token, read_only=True)
    with pytest.raises(ApplicationError) as refused:
        hand_record(
            match_id=final.match.pk,
            actor=actor,
            expected_number=final.number + 1,
            payload=final.last.to_dict(),
        )
    assert refused.value.status_code == 409
    assert refused.value.code == "tournament_finished"


def test_the_read_after_the_finish_is_short(final: FinalTable) -> None:
    phone = _phone(final)
    _finish(phone, final)
    assert phone.get(f"/matches/{final.match.pk}/panel/").status_code == 200
    # 16 minutes later: the session forgets the credential, the page is for signed-in users.
    Tournament.objects.filter(pk=final.tournament.pk).update(
        updated_at=timezone.now() - timedelta(minutes=16)
    )
    late = phone.get(f"/matches/{final.match.pk}/panel/")
    assert late.status_code == 302
    assert "/accounts/login/" in late["Location"]
    assert SESSION_CREDENTIAL_KEY not in phone.session


def test_the_read_window_is_a_setting_and_a_revoked_credential_never_reads(
    final: FinalTable,
) -> None:
    phone = _phone(final)
    with override_settings(REFEREE_READ_AFTER_FINISH=0):
        _finish(phone, final)
        assert phone.get(f"/matches/{final.match.pk}/panel/").status_code == 302
    phone = Client()
    session = phone.session
    session[SESSION_CREDENTIAL_KEY] = final.token.pk
    session.save()
    assert phone.get(f"/matches/{final.match.pk}/panel/").status_code == 200
    RefereeToken.objects.filter(pk=final.token.pk).update(revoked_at=timezone.now())
    assert phone.get(f"/matches/{final.match.pk}/panel/").status_code == 302


# -- no finish needed (plain database) ------------------------------------------------------------


@pytest.mark.django_db
def test_a_write_never_gets_the_read_only_credential(setup: Setup, rf: Any) -> None:
    """session_referee: a GET in the short read gets a read-only actor, a POST none."""
    Tournament.objects.filter(pk=setup.tournament.pk).update(status=Tournament.Status.FINISHED)
    for method, expected in [("get", True), ("head", True), ("post", False), ("delete", False)]:
        request = getattr(rf, method)("/matches/1/panel/")
        request.session = {SESSION_CREDENTIAL_KEY: setup.token.pk}
        actor = session_referee(request)
        assert (actor is not None) is expected, method
        if actor is not None:
            assert actor.read_only
        assert request.session == {SESSION_CREDENTIAL_KEY: setup.token.pk}  # kept for the read
    Tournament.objects.filter(pk=setup.tournament.pk).update(status=Tournament.Status.RUNNING)
    request = rf.post("/api/matches/1/hands/")
    request.session = {SESSION_CREDENTIAL_KEY: setup.token.pk}
    actor = session_referee(request)
    assert actor is not None
    assert not actor.read_only


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["es", "en"])
def test_the_link_opened_after_the_finish_says_the_work_is_done_in_the_pages_language(
    setup: Setup, language: str
) -> None:
    Tournament.objects.filter(pk=setup.tournament.pk).update(status=Tournament.Status.FINISHED)
    client = Client()
    client.cookies["django_language"] = language
    answer = _open_link(client, setup.token.key, HTTP_ACCEPT_LANGUAGE=language)
    assert answer.status_code == 403
    error = answer.json()["error"]
    assert error["code"] == "tournament_finished"
    with override(language):
        done = gettext(DONE)
    if language == "es":
        # The service's refusal, as the director's catalogue translates it, and the thanks.
        assert error["message"] == (
            "Spring Open está en estado «terminado»: los enlaces de árbitro solo funcionan "
            f"mientras el torneo está en marcha. {done}"
        )
    else:
        assert error["message"] == (
            f"Spring Open is finished: referee keys work only while it is running. {done}"
        )
    assert SESSION_CREDENTIAL_KEY not in client.session  # no session after the finish


@pytest.mark.django_db
def test_the_link_of_a_tournament_not_yet_running_does_not_say_the_work_is_done(
    setup: Setup,
) -> None:
    Tournament.objects.filter(pk=setup.tournament.pk).update(status=Tournament.Status.REGISTRATION)
    error = _open_link(Client(), setup.token.key).json()["error"]
    assert error["code"] == "referee_link"
    assert error["message"] == (
        "Spring Open is registration: referee keys work only while it is running."
    )
    assert DONE not in error["message"]


# -- "My matches" names who is signed in (QA: "Signed in as .") -----------------------------------


@pytest.mark.django_db
def test_my_matches_names_the_referee_by_display_name_username_or_label(setup: Setup) -> None:
    phone = Client()
    assert _open_link(phone, setup.token.key).status_code == 200
    html = phone.get("/referee/").content.decode()
    assert "Signed in as Rosa." in html  # the display name (first name of the identity)
    assert "Signed in as ." not in html

    referee = setup.referee
    referee.first_name = referee.last_name = ""
    referee.save()
    html = phone.get("/referee/").content.decode()
    assert f"Signed in as {referee.username}." in html

    # An identity without a username (an API-made row) falls back to the credential's label.
    RefereeToken.objects.filter(pk=setup.token.pk).update(label="Table 3 phone")
    type(referee).objects.filter(pk=referee.pk).update(username="")
    html = phone.get("/referee/").content.decode()
    assert "Signed in as Table 3 phone." in html


@pytest.mark.django_db
def test_my_matches_in_spanish_names_the_referee(setup: Setup) -> None:
    phone = Client()
    phone.cookies["django_language"] = "es"
    assert _open_link(phone, setup.token.key, HTTP_ACCEPT_LANGUAGE="es").status_code == 200
    html = phone.get("/referee/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Sesión iniciada como Rosa." in html
