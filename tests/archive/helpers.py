"""An exported archive in an emptied system, and archives rewritten file by file."""

from __future__ import annotations

import io
import zipfile

from archive.services import archive_export
from tournament.models import Entry, Player, Tournament


def exported_then_emptied(tournament: Tournament) -> bytes:
    """``tournament``'s archive, with the system emptied so that it may be imported."""
    data = archive_export(tournament)
    Entry.objects.all().delete()
    Tournament.objects.all().delete()
    Player.objects.all().delete()
    return data


def rewrite_archive(data: bytes, change: dict[str, bytes]) -> bytes:
    """``data`` with the members named in ``change`` replaced."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name in src.namelist():
            zf.writestr(name, change.get(name, src.read(name)))
    return out.getvalue()
