"""Importing an archive names its referee identities as ``referee_create`` does
(``ref:<tournament id>:<name>``, ``tournament.referee_names``), also an archive made before names
were per tournament: a referee never takes a name a site account has or could take, and the name
pages show is the one its director typed."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from archive.services import archive_import
from tests.archive.helpers import exported_then_emptied, rewrite_archive
from tests.factories import EntryFactory, TournamentFactory, UserFactory, director_of
from tournament import services
from tournament.models import Tournament, TournamentRole
from tournament.referee_names import person_name

pytestmark = pytest.mark.django_db

User = get_user_model()


def _event() -> tuple[Tournament, Any, Any]:
    tournament = TournamentFactory()
    EntryFactory(tournament=tournament)
    director = director_of(tournament, username="dir-archive")
    referee = services.referee_create(tournament=tournament, actor=director, username="Ana").user
    return tournament, director, referee


def _emptied(tournament: Tournament) -> bytes:
    """The archive, in a system emptied of the tournament and of the accounts it names."""
    names = list(
        TournamentRole.objects.filter(tournament=tournament).values_list("user_id", flat=True)
    )
    data = exported_then_emptied(tournament)
    User.objects.filter(pk__in=names).delete()
    return data


def _with_users(data: bytes, rename: dict[str, str]) -> bytes:
    """``data`` with archived user names changed (and the manifest's checksum to match)."""
    archive = zipfile.ZipFile(io.BytesIO(data))
    users = json.loads(archive.read("auth_user.json"))
    at = users["fields"].index("username")
    for row in users["rows"]:
        row[at] = rename.get(row[at], row[at])
    body = json.dumps(users).encode()
    manifest = json.loads(archive.read("manifest.json"))
    for f in manifest["files"]:
        if f["file"] == "auth_user.json":
            f["sha256"] = hashlib.sha256(body).hexdigest()
    return rewrite_archive(
        data, {"auth_user.json": body, "manifest.json": json.dumps(manifest).encode()}
    )


def _referee_of(tournament: Tournament) -> Any:
    return TournamentRole.objects.get(tournament=tournament, role="referee").user


def test_a_referee_comes_back_under_its_tournament_s_name() -> None:
    tournament = _event()[0]
    data = _emptied(tournament)
    imported = archive_import(data)
    assert imported.pk == tournament.pk
    back = _referee_of(imported)
    assert back.username == f"ref:{tournament.pk}:Ana"
    assert person_name(back) == "Ana"
    assert User.objects.get(username="dir-archive")  # an account keeps its name


def test_an_old_archive_s_referee_moves_into_the_namespace_and_leaves_site_names_alone() -> None:
    """An archive made before names were per tournament has the bare name; a site account of
    that name is neither taken over nor renamed."""
    tournament, _, referee = _event()
    data = _with_users(_emptied(tournament), {referee.username: "ana"})
    site = UserFactory(username="ana")
    imported = archive_import(data)
    back = _referee_of(imported)
    assert back.username == f"ref:{tournament.pk}:ana"
    assert back.pk != site.pk
    site.refresh_from_db()
    assert site.get_username() == "ana"
    assert site.is_active


def test_a_name_left_behind_in_any_case_gets_a_suffix() -> None:
    """A referee identity of a deleted tournament of the same id keeps its row (its name in
    any case is one referee name): the imported one gets a suffix, as an account does."""
    tournament = _event()[0]
    data = _emptied(tournament)
    UserFactory(username=f"ref:{tournament.pk}:ANA", is_active=False)
    back = _referee_of(archive_import(data))
    assert back.username == f"ref:{tournament.pk}:Ana-2"
    assert person_name(back) == "Ana-2"
