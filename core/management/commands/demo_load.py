"""Load demo data for ``make demo``: a director login (later issues add a whole tournament)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create demo data (idempotent) and print where to look."

    def handle(self, *args: Any, **options: Any) -> None:
        user_model = get_user_model()
        if not user_model.objects.filter(username="director").exists():
            user_model.objects.create_superuser("director", "director@example.com", "director")
        site = settings.SITE_URL
        self.stdout.write(
            "\nDemo ready.\n"
            f"  Site:            {site}/\n"
            f"  Director login:  {site}/admin/  (user: director, password: director)\n"
            f"  API docs:        {site}/api/docs/\n"
        )
