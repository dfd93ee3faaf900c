"""Co-director invitations through the archive (format version 2, archive.services).

A director role that an invitation granted is marked by the used invitation linked to it, and
the mark limits the account: it directs its one tournament and creates none
(``user_directs_any(by_invitation=False)``, docs/security.md). Export and import keep the mark,
with the used invitation's facts only: never a key hash, a label, or a pending or revoked
invitation. A version 1 archive (no invitations) still imports; a crafted invitation row
cannot plant a working link.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from archive.services import (
    FORMAT_VERSION,
    INVITATION_FIELDS,
    ArchiveError,
    archive_export,
    archive_import,
)
from tests.archive.helpers import exported_then_emptied, rewrite_archive
from tests.factories import EntryFactory, TournamentFactory, director_of
from tournament.models import DirectorInvitation, Tournament, TournamentRole
from tournament.selectors import user_directs_any
from tournament.services import (
    director_invitation_accept,
    director_invitation_issue,
    director_invitation_revoke,
    role_revoke,
)

pytestmark = pytest.mark.django_db

User = get_user_model()
FILE = "tournament_directorinvitation.json"


def _accept(invitation: DirectorInvitation, username: str) -> Any:
    return director_invitation_accept(
        key=invitation.key,  # type: ignore[attr-defined]
        username=username,
        password="Domino-table-42",
        client_ip="10.78.0.1",
    )


def event_with_invitations() -> tuple[Tournament, dict[str, Any]]:
    """A tournament with one co-director who joined by invitation, one whose invited role was
    revoked since, one pending and one revoked invitation."""
    t = TournamentFactory(status=Tournament.Status.REGISTRATION)
    EntryFactory(tournament=t)
    d = director_of(t)
    used = director_invitation_issue(tournament=t, actor=d, label="Ana (private note)")
    ana = _accept(used, "ana-co")
    gone = director_invitation_issue(tournament=t, actor=d, label="Beto")
    beto = _accept(gone, "beto-co")
    role_revoke(role=TournamentRole.objects.get(tournament=t, user=beto), actor=d)
    pending = director_invitation_issue(tournament=t, actor=d, label="Cid pending")
    revoked = director_invitation_issue(tournament=t, actor=d, label="Dora revoked")
    director_invitation_revoke(invitation=revoked, actor=d)
    invitations = {
        name: DirectorInvitation.objects.get(pk=i.pk)
        for name, i in {"used": used, "gone": gone, "pending": pending, "revoked": revoked}.items()
    }
    return t, {"director": d, "ana": ana, **invitations}


def _zip(data: bytes) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(data))


def test_the_round_trip_keeps_the_by_invitation_mark_and_nothing_secret() -> None:
    t, x = event_with_invitations()
    assert user_directs_any(user=x["ana"], by_invitation=False) is False  # the mark, before
    data = exported_then_emptied(t)

    with _zip(data) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        assert manifest["format_version"] == FORMAT_VERSION >= 2
        invitations = json.loads(zf.read(FILE))
        everything = b"".join(zf.read(n) for n in zf.namelist())
    assert tuple(invitations["fields"]) == INVITATION_FIELDS
    assert "key_hash" not in invitations["fields"]
    assert "label" not in invitations["fields"]
    [row] = invitations["rows"]  # the used invitation that still marks a role, only
    assert dict(zip(invitations["fields"], row, strict=True))["prefix"] == x["used"].prefix
    for name in ("used", "gone", "pending", "revoked"):
        assert x[name].key_hash.encode() not in everything, name

    tournament = archive_import(data)
    restored = DirectorInvitation.objects.get()
    role = TournamentRole.objects.get(tournament=tournament, invitation=restored)
    ana = role.user
    assert ana.username.startswith("ana-co")
    assert (restored.prefix, restored.used_by_id, restored.label) == (x["used"].prefix, ana.pk, "")
    assert (restored.used_at, restored.expires_at) == (x["used"].used_at, x["used"].expires_at)
    assert restored.revoked_at is None
    assert restored.key_hash != x["used"].key_hash  # a random hash: no key opens it
    assert len(restored.key_hash) == 64
    # The mark, after: the invited co-director still directs this tournament and creates none;
    # the director who invited is still a full director.
    assert user_directs_any(user=ana, by_invitation=True) is True
    assert user_directs_any(user=ana, by_invitation=False) is False
    issuer = User.objects.get(pk=restored.issued_by_id)
    assert issuer.username.startswith(x["director"].username)
    assert user_directs_any(user=issuer, by_invitation=False) is True

    admin = User.objects.create_superuser("admin-archive", "a@example.org", "x")
    client = Client()
    client.force_login(admin)
    page = client.get(f"/director/tournaments/{tournament.slug}/directors/").content.decode()
    assert page.count("joined through an invitation") == 1
    assert "No pending invitation." in page


def test_a_version_1_archive_still_imports_without_invitations() -> None:
    """Before version 2 the archive had no invitations: it imports as it always did, the
    co-director restored as a director, unmarked."""
    t, _ = event_with_invitations()
    data = exported_then_emptied(t)
    with _zip(data) as zf:
        manifest = json.loads(zf.read("manifest.json"))
    old = {
        **manifest,
        "format_version": 1,
        "files": [f for f in manifest["files"] if f["file"] != FILE],
    }
    src = _zip(data)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name in src.namelist():
            if name not in (FILE, "manifest.json"):
                zf.writestr(name, src.read(name))
        zf.writestr("manifest.json", json.dumps(old))
    assert FILE not in _zip(out.getvalue()).namelist()

    tournament = archive_import(out.getvalue())
    assert not DirectorInvitation.objects.exists()
    ana = User.objects.get(username__startswith="ana-co", tournament_roles__isnull=False)
    assert TournamentRole.objects.filter(tournament=tournament, user=ana).exists()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("key_hash", "unknown columns"),  # a crafted archive cannot choose the hash
        ("pending", "an invitation that was not used to make a director"),
    ],
)
def test_a_crafted_invitation_row_is_refused_and_nothing_is_imported(
    change: str, message: str
) -> None:
    t, _ = event_with_invitations()
    data = exported_then_emptied(t)
    with _zip(data) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        invitations = json.loads(zf.read(FILE))
    fields, [row] = invitations["fields"], invitations["rows"]
    if change == "key_hash":
        fields, row = [*fields, "key_hash"], [*row, "0" * 64]
    else:
        row[fields.index("used_at")] = None
    body = json.dumps({**invitations, "fields": fields, "rows": [row]}).encode()
    files = [
        {**f, "sha256": hashlib.sha256(body).hexdigest()} if f["file"] == FILE else f
        for f in manifest["files"]
    ]
    crafted = rewrite_archive(
        data, {FILE: body, "manifest.json": json.dumps({**manifest, "files": files}).encode()}
    )
    with pytest.raises(ArchiveError) as err:
        archive_import(crafted)
    assert err.value.code == "archive_format"
    assert message in err.value.message
    assert not Tournament.objects.exists()
    assert not DirectorInvitation.objects.exists()


def test_an_archive_of_a_tournament_without_invitations_has_an_empty_file() -> None:
    t = TournamentFactory()
    EntryFactory(tournament=t)
    with _zip(archive_export(t)) as zf:
        assert json.loads(zf.read(FILE))["rows"] == []
