"""The table QR (issue 15; live/table_join.py): one stable, non-secret address per physical
table. A spectator scanning it never gets a credential; the referee signed in with their own
link reaches only their current match at that table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from scoring.models import Match
from tests.factories import TableFactory, TournamentFactory, director_of, scheduled_match
from tests.security.conftest import fresh_ip, open_link
from tournament import services
from tournament.models import Tournament

pytestmark = pytest.mark.django_db


@dataclass
class Event:
    t: Tournament
    director: Any
    keys: list[str]
    matches: list[Match]
    refs: list[Any]


def _event() -> Event:
    t = TournamentFactory()
    director = director_of(t)
    tables = [TableFactory(tournament=t, number=n) for n in (1, 2)]
    refs, keys, matches = [], [], []
    for i, table in enumerate(tables):
        role = services.referee_create(tournament=t, actor=director, username=f"qr{t.pk}-{i}")
        key = services.referee_token_issue(tournament=t, actor=director, user=role.user).key
        refs.append(role.user)
        keys.append(key)
        matches.append(scheduled_match(t, referee=role.user, table=table))
    return Event(t, director, keys, matches, refs)


def _referee_phone(key: str) -> Client:
    client = Client(REMOTE_ADDR=fresh_ip())
    assert open_link(client, key).status_code == 200
    return client


def test_a_spectator_gets_the_public_view_and_never_a_credential() -> None:
    e = _event()
    t, match = e.t, e.matches[0]
    spectator = Client(REMOTE_ADDR=fresh_ip())
    r = spectator.get(f"/t/{t.slug}/table/1/")
    assert r.status_code == 302
    assert r["Location"] == f"/live/{t.slug}/matches/{match.pk}/"
    assert "sessionid" not in r.cookies  # nothing is signed in, nothing is issued
    assert "/ref/" not in r["Location"]
    # Following it: the public page, with no referee key anywhere.
    page = spectator.get(r["Location"])
    assert page.status_code == 200
    for key in e.keys:
        assert key.split(".")[0] not in page.content.decode()
    # A referee page is still refused to the spectator.
    assert spectator.get(f"/matches/{match.pk}/").status_code in (302, 403)


def test_the_referee_reaches_their_current_match_and_only_theirs() -> None:
    e = _event()
    t = e.t
    m1, m2 = e.matches
    phone = _referee_phone(e.keys[0])
    r = phone.get(f"/t/{t.slug}/table/1/")
    assert r.status_code == 302
    assert r["Location"] == f"/matches/{m1.pk}/"
    assert phone.get(r["Location"]).status_code == 200
    # Another table's QR: the public view, not the other referee's page.
    r = phone.get(f"/t/{t.slug}/table/2/")
    assert r["Location"] == f"/live/{t.slug}/matches/{m2.pk}/"
    # The table moves on to the next round's match, refereed by the other referee: the
    # same QR now opens the public view for the first referee.
    Match.objects.filter(pk=m1.pk).update(status=Match.Status.FINISHED, started_at=timezone.now())
    later = scheduled_match(t, referee=e.refs[1], table=m1.table)
    r = phone.get(f"/t/{t.slug}/table/1/")
    assert r["Location"] == f"/live/{t.slug}/matches/{later.pk}/"
    other_phone = _referee_phone(e.keys[1])
    r = other_phone.get(f"/t/{t.slug}/table/1/")
    assert r["Location"] == f"/matches/{later.pk}/"


def test_a_revoked_credential_is_nobody_and_unknown_tables_or_drafts_are_404() -> None:
    e = _event()
    t = e.t
    phone = _referee_phone(e.keys[0])
    Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.FINISHED)
    r = phone.get(f"/t/{t.slug}/table/1/")
    # Finished: the credential expired; the QR is a public page like any other.
    assert r.status_code == 302
    assert r["Location"].startswith(f"/live/{t.slug}/")
    assert Client().get(f"/t/{t.slug}/table/9/").status_code == 404
    draft = TournamentFactory(status=Tournament.Status.DRAFT)
    TableFactory(tournament=draft, number=1)
    assert Client().get(f"/t/{draft.slug}/table/1/").status_code == 404
