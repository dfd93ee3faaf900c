"""The director's archive download: ``/director/tournaments/<slug>/archive.zip``."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from archive.services import archive_export
from brackets.views.base import DirectorTournamentMixin


class ArchiveDownloadView(DirectorTournamentMixin):
    """GET: the tournament's ZIP archive (directors of the tournament; any status)."""

    nav = "archive"

    def get(self, request: HttpRequest, slug: str) -> HttpResponse:
        data = archive_export(self.tournament)
        response = HttpResponse(data, content_type="application/zip")
        response["Content-Disposition"] = (
            f'attachment; filename="{self.tournament.slug}-archive.zip"'
        )
        response["Cache-Control"] = "no-store"
        return response
