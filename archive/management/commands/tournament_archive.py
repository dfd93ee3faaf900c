"""``manage.py tournament_archive export <slug> <file.zip>`` / ``import <file.zip>``.

Export writes the tournament's ZIP archive (archive/services.py); import reads one into an
empty system (no tournament, no player yet) in one transaction.
"""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from archive.services import ArchiveError, archive_export, archive_import, tournament_for_archive


class Command(BaseCommand):
    help = "Export a tournament to a ZIP archive, or import one into an empty system."

    def add_arguments(self, parser: ArgumentParser) -> None:
        sub = parser.add_subparsers(dest="direction", required=True)
        export = sub.add_parser("export", help="write <slug>'s archive to <file>")
        export.add_argument("slug")
        export.add_argument("file")
        imp = sub.add_parser("import", help="import <file> into an empty system")
        imp.add_argument("file")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            if options["direction"] == "export":
                tournament = tournament_for_archive(options["slug"])
                data = archive_export(tournament)
                Path(options["file"]).write_bytes(data)
                self.stdout.write(
                    f"Wrote {options['file']} ({len(data):,} bytes): {tournament.name}."
                )
            else:
                path = Path(options["file"])
                if not path.is_file():
                    raise CommandError(f"No such file: {path}")
                tournament = archive_import(path.read_bytes())
                self.stdout.write(
                    f"Imported {tournament.name} ({tournament.slug}). Accounts named in the "
                    "archive were created inactive, without passwords: staff activate them."
                )
        except ArchiveError as exc:
            raise CommandError(exc.message) from exc
