"""No credential material in a tournament archive (archive.services, docs/operations.md §10).

A security tester found ``Entry.pin_hash`` in the archive: a hash of a 4-digit PIN, which at
most 10,000 guesses find offline, and an import restored it. Now the archive leaves PIN hashes
out (an imported entry has no PIN; the director issues new ones if the event goes on), an
older archive that holds them (versions 2 and 3) imports without them, and a webhook's URL in
the action log keeps only its scheme and host (the rest of a receiver's URL is often its key).
Every archived column whose name speaks of a credential is listed here with why it is no
secret, so a column added later fails until someone decides.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from typing import Any

import pytest
from django.contrib.auth.hashers import check_password

from archive.contents import PARTS
from archive.services import (
    EXCLUDED,
    _archived_fields,
    archive_export,
    archive_import,
    webhook_url_shortened,
)
from notify.services import endpoint_create
from tests.archive.helpers import exported_then_emptied
from tests.factories import EntryFactory, TournamentFactory, director_of
from tournament.models import ActionLog, Entry, Tournament
from tournament.pins import entry_check_in, pin_check

pytestmark = pytest.mark.django_db

ENTRY_FILE = "tournament_entry.json"
LOG_FILE = "tournament_actionlog.json"
# A receiver whose URL is its key (a "catch hook"); on loopback, which the tests may call.
HOOK = "http://127.0.0.1:8765/services/T0001/B0002/s3cr3tKeyOfTheReceiver?token=abc"

#: Archived columns whose names speak of keys, hashes, tokens, secrets or PINs, and why each
#: may be archived.
REVIEWED = {
    ("tournament.DirectorInvitation", "prefix"): "the non-secret lookup half of a used key",
    ("scoring.Hand", "idempotency_key"): "the phone's retry key of a hand already stored",
    ("scoring.Hand", "idempotency_fingerprint"): "a digest of that hand's own request body",
    ("scoring.HandConfirmation", "with_pin"): "whether a PIN was typed, never the PIN",
}
CREDENTIAL_WORDS = re.compile(
    r"hash|key|token|secret|password|pin|salt|otp|nonce|prefix|fingerprint|digest|signature|cred",
    re.I,
)


def _zip(data: bytes) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(data))


def _event() -> tuple[Tournament, Any, Entry, str]:
    """A running tournament with a player holding a PIN and a webhook added."""
    t = TournamentFactory(status=Tournament.Status.RUNNING)
    director = director_of(t)
    entry = EntryFactory(tournament=t)
    EntryFactory(tournament=t)
    entry, pin = entry_check_in(entry=entry, actor=director, issue_pin=True)
    assert pin is not None
    endpoint_create(tournament=t, actor=director, url=HOOK, events=["match_finished"])
    return t, director, Entry.objects.get(pk=entry.pk), pin


def _with_file(data: bytes, name: str, body: dict[str, Any], version: int | None = None) -> bytes:
    """``data`` with ``name`` replaced by ``body`` and the manifest's checksum (and, given,
    format version) to match: what an older exporter wrote."""
    src = _zip(data)
    manifest = json.loads(src.read("manifest.json"))
    raw = json.dumps(body, separators=(",", ":")).encode()
    for f in manifest["files"]:
        if f["file"] == name:
            f["sha256"] = hashlib.sha256(raw).hexdigest()
            f["rows"] = len(body["rows"])
    if version is not None:
        manifest["format_version"] = version
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for member in src.namelist():
            if member == name:
                zf.writestr(member, raw)
            elif member == "manifest.json":
                zf.writestr(member, json.dumps(manifest))
            else:
                zf.writestr(member, src.read(member))
    return out.getvalue()


def test_every_archived_column_named_like_a_credential_was_reviewed() -> None:
    found = {
        (part.model._meta.label, field.attname)
        for part in PARTS
        for field in _archived_fields(part.model)
        if CREDENTIAL_WORDS.search(field.attname)
    }
    assert found == set(REVIEWED), "archive no credential: exclude it (EXCLUDED) or review it"
    assert "pin_hash" in EXCLUDED[Entry]


def test_the_archive_has_no_pin_hash_and_an_import_restores_no_pin() -> None:
    t, _director, entry, pin = _event()
    assert check_password(pin, entry.pin_hash)  # the player has a PIN before
    data = archive_export(t)
    with _zip(data) as zf:
        entries = json.loads(zf.read(ENTRY_FILE))
        everything = b"".join(zf.read(n) for n in zf.namelist())
    assert "pin_hash" not in entries["fields"]
    assert entry.pin_hash.encode() not in everything
    assert entry.pin_hash.split("$")[-1].encode() not in everything  # nor its digest alone
    assert len(entries["rows"]) == 2

    exported_then_emptied(t)
    archive_import(data)
    restored = Entry.objects.get(pk=entry.pk)
    assert restored.pin_hash == ""
    assert pin_check(restored, None, 0) is False  # no PIN to ask for: confirms without one


@pytest.mark.parametrize("version", [2, 3])
def test_an_older_archive_with_pin_hashes_imports_without_them(version: int) -> None:
    """Versions 2 and 3 wrote ``pin_hash``: such an archive still imports, with no PIN."""
    t, _director, entry, pin = _event()
    data = archive_export(t)
    with _zip(data) as zf:
        entries = json.loads(zf.read(ENTRY_FILE))
    entries["fields"].append("pin_hash")
    for row in entries["rows"]:
        row.append(entry.pin_hash if row[0] == entry.pk else "")
    old = _with_file(data, ENTRY_FILE, entries, version=version)

    exported_then_emptied(t)
    tournament = archive_import(old)
    restored = Entry.objects.get(pk=entry.pk)
    assert restored.tournament_id == tournament.pk
    assert restored.pin_hash == ""
    assert not check_password(pin, restored.pin_hash)
    assert Entry.objects.filter(tournament=tournament).count() == 2


def test_a_webhook_url_in_the_action_log_keeps_only_its_scheme_and_host() -> None:
    t, _director, _entry, _pin = _event()
    data = archive_export(t)
    with _zip(data) as zf:
        log = json.loads(zf.read(LOG_FILE))
        everything = b"".join(zf.read(n) for n in zf.namelist())
    assert b"s3cr3tKeyOfTheReceiver" not in everything
    verb, data_at = log["fields"].index("verb"), log["fields"].index("data")
    [created] = [row[data_at] for row in log["rows"] if row[verb] == "webhook.create"]
    assert created["url"] == "http://127.0.0.1:8765/…"
    assert created["events"] == ["match_finished"]  # the rest of the entry as it was

    # An older archive holds the whole URL: the import shortens it too.
    for row in log["rows"]:
        if row[verb] == "webhook.create":
            row[data_at]["url"] = HOOK
    old = _with_file(data, LOG_FILE, log)
    exported_then_emptied(t)
    archive_import(old)
    restored = ActionLog.objects.get(verb="webhook.create")
    assert restored.data["url"] == "http://127.0.0.1:8765/…"
    # Other entries come back as they were.
    assert ActionLog.objects.filter(verb="entry.pin_issue").count() == 1


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        (HOOK, "http://127.0.0.1:8765/…"),
        ("https://hooks.example.org/catch/123/abc/", "https://hooks.example.org/…"),
        ("https://example.org", "https://example.org/"),
        ("https://example.org/", "https://example.org/"),
        ("http://[2001:db8::1]:8080/hook", "http://[2001:db8::1]:8080/…"),
        ("https://example.org/?k=1", "https://example.org/…"),
        ("not a url", "…"),
        ("http://[bad", "…"),
    ],
)
def test_webhook_url_shortened(url: str, kept: str) -> None:
    assert webhook_url_shortened(url) == kept
