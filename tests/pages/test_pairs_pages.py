"""Pairs events on every page (issue 17): the director's partnerships page, the referee page
showing partners together with the R43 outcome wording, and the spectator pages and live API
showing partnerships (T9-T11). Runs on PostgreSQL and in the embedded SQLite run."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from brackets import services
from brackets.models import Round, RoundMatch
from scoring.models import Match
from tests.brackets.pairs_helpers import (
    decide_round,
    make_pairs_tournament,
    pairs_stages,
    qualified_for_the_final,
)
from tournament.models import Partnership, PartnershipMember

pytestmark = pytest.mark.django_db


def finished_pairs_event() -> tuple[Any, Any]:
    """Four partnerships: one Swiss round, cut to two, the final (director results)."""
    t, d, _q, k = qualified_for_the_final(4, status="registration")
    final = services.round_publish(stage=k, actor=d)
    decide_round(final, d, winners={1: 1})
    t.refresh_from_db()
    # The end of the final ends the event by itself (T6, T10) when the match's events run
    # (after commit: a browser test's transactional database); otherwise the director does.
    if t.status != "finished":
        services.round_close(round=final, actor=d)
        services.stage_advance(stage=k, actor=d)
        t.refresh_from_db()
    assert t.status == "finished"
    return t, d


def test_spectator_pages_and_live_api_show_partnerships(client: Client) -> None:
    t, _ = finished_pairs_event()
    assert t.status == "finished"
    p1 = Partnership.objects.get(tournament=t, number=1)
    names = list(
        PartnershipMember.objects.filter(partnership=p1).values_list(
            "entry__player__name", flat=True
        )
    )
    page = client.get(f"/live/{t.slug}/standings/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Partnership" in html
    assert f"{names[0]} &amp; {names[1]}" in html or all(n in html for n in names)
    assert "T10" in html
    api = client.get(f"/api/v1/live/{t.slug}/standings/")
    if api.status_code == 404:
        api = client.get(f"/api/live/{t.slug}/standings/")
    assert api.status_code == 200
    stages = api.json()["stages"]
    final_stage = stages[0]
    assert final_stage["pairs"] is True
    champion = final_stage["final_table"][0]
    assert champion["place"] == 1
    qualifying = stages[1]
    assert {len(r["players"]) for r in qualifying["rows"]} == {2}
    for path in ("", "tables/", "bracket/", "projector/", "export/standings.csv"):
        response = client.get(f"/live/{t.slug}/{path}")
        assert response.status_code == 200, path
    projector = client.get(f"/live/{t.slug}/projector/").content.decode()
    assert "Partnership" in projector  # the standings slides name partnerships
    spanish = client.get(f"/live/{t.slug}/standings/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Parejas clasificadas" in spanish  # T10 wording in Spanish


def test_director_registers_a_partnership_on_the_pairs_page(client: Client) -> None:
    t, d, _ = make_pairs_tournament(1, status="registration")
    client.force_login(d)
    url = f"/director/tournaments/{t.slug}/pairs/"
    page = client.get(url)
    assert page.status_code == 200
    assert "Register a partnership" in page.content.decode()
    response = client.post(
        url,
        {
            "action": "register",
            "name": "Los Primos",
            "player_a": "Ana Ruiz",
            "club_a": "Bayamón",
            "player_b": "Beto Cruz",
            "club_b": "Bayamón",
            "check_in": "on",
        },
    )
    assert response.status_code == 302
    p = Partnership.objects.get(tournament=t, name="Los Primos")
    assert sorted(
        PartnershipMember.objects.filter(partnership=p).values_list(
            "entry__player__name", flat=True
        )
    ) == ["Ana Ruiz", "Beto Cruz"]
    # The same player again: the page says why, naming T9, and nothing is written.
    again = client.post(
        url, {"action": "register", "player_a": "Ana Ruiz", "club_a": "Bayamón", "player_b": "Cid"}
    )
    assert again.status_code == 400
    assert "T9" in again.content.decode()
    assert Partnership.objects.filter(tournament=t).count() == 2


def test_director_imports_partnerships_from_csv(client: Client) -> None:
    t, d, _ = make_pairs_tournament(0, status="registration")
    client.force_login(d)
    url = f"/director/tournaments/{t.slug}/pairs/"
    bad = client.post(
        url, {"action": "import", "csv_text": "name,club,pair\nAna,X,P1\nBeto,X,P2\n"}
    )
    assert bad.status_code == 400
    assert "needs two" in bad.content.decode()
    assert Partnership.objects.filter(tournament=t).count() == 0
    ok = client.post(
        url,
        {
            "action": "import",
            "csv_text": (
                "name,club,pair\nAna,X,Primos\nBeto,X,Primos\nCid,Y,Tigres\nDani,Y,Tigres\n"
            ),
            "check_in": "on",
        },
    )
    assert ok.status_code == 302
    assert sorted(Partnership.objects.filter(tournament=t).values_list("name", flat=True)) == [
        "Primos",
        "Tigres",
    ]


def test_director_uploads_a_partnerships_file_as_the_players_import_takes_one(
    client: Client,
) -> None:
    """The Partnerships page takes the CSV as a file too (T9), read as the players import reads
    one: UTF-8 with or without a BOM, a non-UTF-8 file refused naming the row, nothing chosen
    refused; the paste box stays."""
    t, d, _ = make_pairs_tournament(0, status="registration")
    client.force_login(d)
    url = f"/director/tournaments/{t.slug}/pairs/"
    page = client.get(url).content.decode()
    found = re.search(r'<form [^>]*id="pairs-import"[^>]*>.*?</form>', page, re.S)
    assert found is not None
    form = found.group(0)
    assert 'enctype="multipart/form-data"' in form
    assert 'type="file" name="file"' in form
    assert 'name="csv_text"' in form  # the paste box stays

    latin = SimpleUploadedFile("pairs.csv", "name,pair\nJosé,P1\nBeto,P1\n".encode("latin-1"))
    refused = client.post(url, {"action": "import", "file": latin})
    assert refused.status_code == 400
    assert "The file is not UTF-8 text" in html.unescape(refused.content.decode())
    empty = client.post(url, {"action": "import"})
    assert empty.status_code == 400
    assert "Choose a CSV file or paste its text." in empty.content.decode()
    assert Partnership.objects.filter(tournament=t).count() == 0

    body = "name,club,pair\nAna,X,Primos\nBeto,X,Primos\nCid,Y,Tigres\nDani,Y,Tigres\n"
    upload = SimpleUploadedFile("pairs.csv", "\ufeff".encode() + body.encode(), "text/csv")
    ok = client.post(url, {"action": "import", "file": upload, "check_in": "on"})
    assert ok.status_code == 302
    rows = Partnership.objects.filter(tournament=t).order_by("name")
    assert [p.name for p in rows] == ["Primos", "Tigres"]
    members = PartnershipMember.objects.filter(partnership__tournament=t).order_by("entry_id")
    assert [m.entry.player.name for m in members] == ["Ana", "Beto", "Cid", "Dani"]
    assert all(m.entry.checked_in for m in members)


def test_referee_page_shows_partners_together_and_the_r43_wording(client: Client) -> None:
    t, d, _ = make_pairs_tournament(2, status="registration")
    q, _ = pairs_stages(t, d, swiss_rounds=1, cut_size=2)
    services.stage_seed(stage=q, actor=d, method="rating")
    rnd = services.round_publish(stage=q, actor=d)
    match = Match.objects.get(pk=RoundMatch.objects.get(round=rnd).match_id)
    client.force_login(d)
    page = client.get(f"/matches/{match.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    seats = list(match.seats.order_by("seat").values_list("entry__player__name", flat=True))
    assert f"{seats[0]} &amp; {seats[2]}" in html  # AC: partners opposite, shown together
    assert f"{seats[1]} &amp; {seats[3]}" in html
    assert 'data-partners="1"' in html
    assert "R43" in html
    assert Round.objects.filter(stage=q).count() == 1


def test_every_page_answers_after_a_substitute(client: Client) -> None:
    """T11: the replaced player has match lines but is no longer an entrant; no page trips."""
    from brackets.services.pairs import partnership_substitute
    from tests.factories import PlayerFactory

    t, d, pairs = make_pairs_tournament(4, status="registration")
    q, _k = pairs_stages(t, d, swiss_rounds=2, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    r1 = services.round_publish(stage=q, actor=d)
    decide_round(r1, d)
    services.round_close(round=r1, actor=d)
    leaving = PartnershipMember.objects.get(partnership=pairs[0], slot=1).entry
    partnership_substitute(
        partnership=pairs[0], actor=d, leaving=leaving, player=PlayerFactory(), reason="ill"
    )
    client.force_login(d)
    base = f"/director/tournaments/{t.slug}"
    preview = client.get(f"{base}/stages/{q.pk}/preview/")
    assert preview.status_code == 200
    api_preview = client.get(f"/api/tournaments/{t.slug}/stages/{q.pk}/preview/")
    assert api_preview.status_code == 200
    tables = api_preview.json()["tables"]
    assert [len(x["seats"]) for x in tables] == [4, 4]  # two partnerships per table (T9)
    r2 = services.round_publish(stage=q, actor=d)
    for path in (
        f"{base}/stages/",
        f"{base}/stages/{q.pk}/seeding/",
        f"{base}/rounds/{r1.pk}/",
        f"{base}/rounds/{r2.pk}/",
        f"{base}/bracket/",
        f"{base}/pairs/",
        f"{base}/log/",
        f"/live/{t.slug}/standings/",
        f"/live/{t.slug}/players/{leaving.pk}/",
        f"/api/tournaments/{t.slug}/stages/{q.pk}/standings/",
        f"/api/tournaments/{t.slug}/stages/{q.pk}/pair-standings/",
    ):
        assert client.get(path).status_code == 200, path
