"""Players' confirmation PINs from the director's pages (issue 15; tournament.pins): issued
from the roster (the stage's seeding list), shown once by the page the POST redirects to
(never in a message; a reload issues none); a new PIN replaces the old one and lifts a
lockout. Only offered when players confirm."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.hashers import check_password
from django.urls import reverse

from core.exceptions import ApplicationError
from tests.brackets.factories_pages import director_client, tournament_with_stage
from tournament.models import ActionLog, Entry, Tournament
from tournament.pins import PIN_MAX_FAILURES, pin_check

pytestmark = pytest.mark.django_db


def _setup(confirmation: str) -> tuple[Tournament, object, str]:
    tournament, director, stage = tournament_with_stage(8)
    Tournament.objects.filter(pk=tournament.pk).update(confirmation=confirmation)
    tournament.refresh_from_db()
    return tournament, director, reverse("brackets:seeding", args=[tournament.slug, stage.pk])


def test_the_roster_offers_pins_only_when_players_confirm() -> None:
    _, director, url = _setup("off")
    assert "issue a PIN" not in director_client(director).get(url).content.decode()
    tournament, director, url = _setup("match_end")
    html = director_client(director).get(url).content.decode()
    assert (
        html.count(">issue a PIN</button>") == Entry.objects.filter(tournament=tournament).count()
    )


def test_a_finished_tournaments_roster_offers_no_pin() -> None:
    """A director's walkthrough on ``make demo``: the seeding list of a finished tournament
    (players confirming at the table) still had an "issue a PIN" button on every row, each
    answered "... is finished: changing the tournament is no longer possible". The roster
    offers none once the tournament is finished, and again once it is reopened."""
    tournament, director, url = _setup("match_end")
    client = director_client(director)
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    html = client.get(url).content.decode()
    assert "issue a PIN" not in html
    assert 'id="pin-' not in html
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.RUNNING)
    html = client.get(url).content.decode()
    assert (
        html.count(">issue a PIN</button>") == Entry.objects.filter(tournament=tournament).count()
    )


def test_a_pin_is_shown_once_replaces_the_old_one_and_lifts_a_lockout() -> None:
    tournament, director, url = _setup("every_hand")
    client = director_client(director)
    entry = Entry.objects.filter(tournament=tournament).order_by("id").first()
    assert entry is not None
    pin_url = reverse("brackets:entry-pin", args=[tournament.slug, entry.pk])
    answer = client.post(pin_url, {"next": url})
    # POST-redirect-GET: the PIN is shown by the GET of the same address (no PIN in it).
    assert answer.status_code == 302
    assert answer["Location"] == pin_url
    answer = client.get(pin_url)
    assert answer.status_code == 200
    assert answer["Cache-Control"] == "no-store"
    html = answer.content.decode()
    first = re.search(r'id="issued-pin">(\d{4})<', html)
    assert first is not None
    assert f"PIN for {entry.player.name}: shown once" in html
    assert f'href="{url}"' in html  # back to the roster
    entry.refresh_from_db()
    assert check_password(first.group(1), entry.pin_hash)
    assert first.group(1) not in entry.pin_hash
    assert ActionLog.objects.filter(verb="entry.pin_issue").count() == 1
    # Bug: a reload re-sent the POST: a new PIN replaced the one just told to the player.
    # Now a reload is a GET: no PIN shown, none issued, the PIN told still works.
    reload = client.get(pin_url)
    assert reload.status_code == 302
    assert first.group(1) not in client.get(reload["Location"]).content.decode()
    assert ActionLog.objects.filter(verb="entry.pin_issue").count() == 1
    entry.refresh_from_db()
    assert check_password(first.group(1), entry.pin_hash)
    # The roster says the player has one, and asks before replacing it.
    roster = client.get(url).content.decode()
    assert ">new PIN</button>" in roster
    assert "Give " + entry.player.name + " a new PIN? The old one stops working." in roster
    # Locked by wrong tries; a new PIN works at once and the old one no longer does.
    for _ in range(PIN_MAX_FAILURES):
        with pytest.raises(ApplicationError):
            pin_check(entry, "0000" if first.group(1) != "0000" else "1111", 0)
    with pytest.raises(ApplicationError) as locked:
        pin_check(entry, first.group(1), 0)
    assert locked.value.code == "pin_locked"
    again = client.post(pin_url, {"next": url}, follow=True).content.decode()
    second = re.search(r'id="issued-pin">(\d{4})<', again)
    assert second is not None
    entry.refresh_from_db()
    assert pin_check(entry, second.group(1), 0) is True
    if second.group(1) != first.group(1):
        with pytest.raises(ApplicationError):
            pin_check(entry, first.group(1), 0)


def test_a_pin_for_another_tournaments_player_is_404() -> None:
    tournament, director, _ = _setup("match_end")
    other, _, _ = _setup("match_end")
    entry = Entry.objects.filter(tournament=other).first()
    assert entry is not None
    r = director_client(director).post(
        reverse("brackets:entry-pin", args=[tournament.slug, entry.pk])
    )
    assert r.status_code == 404
    entry.refresh_from_db()
    assert not entry.pin_hash
