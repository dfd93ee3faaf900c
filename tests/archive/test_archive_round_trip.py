"""The tournament archive round trip (issue 16: "the archive round trip reproduces every
standings page byte for byte").

A whole event is played by the seeded bots (``simulate_event``, through the services) to its
champion. Every public page and API document of it is rendered: the spectator pages (home,
standings, bracket, tables, every player and every match), the live API, each stage's standings
and the final placings, and the public exports. Then the archive is exported, the database is
flushed, the cache cleared, the archive imported into the empty system, and everything is
rendered again and compared byte for byte. The only part of a page that is not data, the
per-request CSRF token of the language form, is masked before comparing.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import call_command
from django.test import Client

from archive.services import FORMAT_VERSION, ArchiveError, archive_export, archive_import
from brackets.models import Round, Stage
from scoring.models import Hand, Match
from tests.archive.helpers import exported_then_emptied, rewrite_archive
from tournament.models import Entry, Player, Tournament

CSRF = re.compile(rb'name="csrfmiddlewaretoken" value="[^"]+"')


def _urls(t: Tournament) -> list[str]:
    slug = t.slug
    urls = [f"/live/{slug}/{page}" for page in ("", "standings/", "bracket/", "tables/")]
    urls += [f"/api/live/{slug}/{doc}" for doc in ("", "standings/", "bracket/", "tables/")]
    urls += [
        f"/live/{slug}/export/{k}.{f}"
        for k in ("players", "matches", "hands", "standings")
        for f in ("csv", "json")
    ]
    urls.append(f"/api/tournaments/{slug}/placings/")
    for stage_id in Stage.objects.filter(tournament=t).order_by("pk").values_list("pk", flat=True):
        urls.append(f"/api/tournaments/{slug}/stages/{stage_id}/standings/")
    for round_id in (
        Round.objects.filter(stage__tournament=t).order_by("pk").values_list("pk", flat=True)
    ):
        urls.append(f"/live/{slug}/rounds/{round_id}/results/")  # printable results sheets
    for entry_id in Entry.objects.filter(tournament=t).order_by("pk").values_list("pk", flat=True):
        urls += [f"/live/{slug}/players/{entry_id}/", f"/api/live/{slug}/players/{entry_id}/"]
    for match_id in Match.objects.filter(tournament=t).order_by("pk").values_list("pk", flat=True):
        urls += [f"/live/{slug}/matches/{match_id}/", f"/api/live/{slug}/matches/{match_id}/"]
    return urls


def _render(urls: list[str]) -> dict[str, bytes]:
    cache.clear()  # rendered from the database, not from what the cache kept
    client = Client()
    out = {}
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        out[url] = CSRF.sub(b'name="csrfmiddlewaretoken" value="-"', response.content)
    return out


@pytest.mark.django_db(transaction=True)
def test_archive_round_trip_reproduces_every_page_byte_for_byte(tmp_path) -> None:  # type: ignore[no-untyped-def]
    call_command(
        "simulate_event",
        "--new",
        "--players",
        "9",
        "--seed",
        "11",
        "--set",
        "target=2",
        stdout=StringIO(),
    )
    t = Tournament.objects.get()
    assert t.status == Tournament.Status.FINISHED
    urls = _urls(t)
    before = _render(urls)
    counts = (Player.objects.count(), Match.objects.count(), Hand.objects.count())
    assert counts[2] > 0

    path = tmp_path / "event.zip"
    call_command("tournament_archive", "export", t.slug, str(path), stdout=StringIO())
    with zipfile.ZipFile(path) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        assert manifest["format_version"] == FORMAT_VERSION
        names = set(zf.namelist())
        assert {f["file"] for f in manifest["files"]} | {"manifest.json"} == names
        hands = json.loads(zf.read("scoring_hand.json"))
        assert len(hands["rows"]) == counts[2]
        assert "client_ip" not in hands["fields"]  # personal audit data stays behind
        users = json.loads(zf.read("auth_user.json"))
        assert "password" not in users["fields"]
        assert "tournament_refereetoken.json" not in names  # credentials are never archived

    call_command("flush", interactive=False, verbosity=0)
    assert not Tournament.objects.exists()
    get_user_model().objects.create_superuser("admin", "admin@example.org", "x")  # a fresh site

    call_command("tournament_archive", "import", str(path), stdout=StringIO())
    assert (Player.objects.count(), Match.objects.count(), Hand.objects.count()) == counts
    after = _render(urls)
    differing = [u for u in urls if before[u] != after[u]]
    assert not differing, differing[:5]
    # Imported accounts cannot sign in until staff activate them.
    imported = get_user_model().objects.exclude(username="admin")
    assert imported.exists()
    assert not imported.filter(is_active=True).exists()
    assert not any(u.has_usable_password() for u in imported)
    # The system keeps working after the import: new rows get fresh ids (sequences moved on).
    assert Player.objects.create(name="New").pk > max(
        Player.objects.exclude(name="New").values_list("pk", flat=True)
    )


@pytest.mark.django_db
def test_import_refuses_a_system_that_is_not_empty_and_changes_nothing() -> None:
    from tests.factories import EntryFactory, TournamentFactory

    t = TournamentFactory()
    EntryFactory(tournament=t)
    data = archive_export(t)
    with pytest.raises(ArchiveError) as err:
        archive_import(data)
    assert err.value.code == "system_not_empty"
    assert err.value.status_code == 409
    assert Tournament.objects.count() == 1


@pytest.mark.django_db
def test_import_refuses_damaged_or_foreign_archives() -> None:
    from tests.factories import EntryFactory, TournamentFactory

    t = TournamentFactory()
    EntryFactory(tournament=t)
    data = exported_then_emptied(t)

    def rewrite(change: dict[str, bytes]) -> bytes:
        return rewrite_archive(data, change)

    manifest = json.loads(zipfile.ZipFile(io.BytesIO(data)).read("manifest.json"))
    tampered = rewrite({"tournament_player.json": b'{"rows": []}'})
    newer = rewrite({"manifest.json": json.dumps({**manifest, "format_version": 99}).encode()})
    for bad, code in [
        (b"not a zip", "archive_format"),
        (tampered, "archive_corrupt"),
        (newer, "archive_version"),
    ]:
        with pytest.raises(ArchiveError) as err:
            archive_import(bad)
        assert err.value.code == code
        assert not Tournament.objects.exists()
        assert not Player.objects.exists()


@pytest.mark.django_db
def test_director_downloads_the_archive_and_others_cannot() -> None:
    from tests.factories import EntryFactory, TournamentFactory, UserFactory, director_of

    t = TournamentFactory()
    EntryFactory(tournament=t)
    director = director_of(t)
    client = Client()
    url = f"/director/tournaments/{t.slug}/archive.zip"
    assert client.get(url).status_code == 302  # sign in first
    client.force_login(UserFactory())
    assert client.get(url).status_code == 403
    client.force_login(director)
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert f"{t.slug}-archive.zip" in response["Content-Disposition"]
    with zipfile.ZipFile(io.BytesIO(response.content)) as zf:
        manifest = json.loads(zf.read("manifest.json"))
    assert manifest["tournament"]["slug"] == t.slug
    # The director pages link to it.
    assert url in client.get(f"/director/tournaments/{t.slug}/log/").content.decode()
