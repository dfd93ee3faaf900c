"""``manage.py ratings_recalculate``: rebuild every rating from the stored match results."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand

from ratings.services import ratings_rebuild


class Command(BaseCommand):
    help = "Rebuild all ratings from the stored match results (deterministic, idempotent)."

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.perf_counter()
        result = ratings_rebuild(since=None)
        self.stdout.write(
            f"Rated {result.matches_rated} matches in {time.perf_counter() - started:.2f} s."
        )
