"""The address of a physical table for the whole event (issue 15): printed as the table
sheet's QR code; served by ``live.table_join`` (a URL name, so no app imports the live layer)."""

from __future__ import annotations

from django.urls import reverse


def table_url(*, slug: str, number: int) -> str:
    """``/t/<slug>/table/<n>/``: stable and non-secret (it carries no credential)."""
    return reverse("live:table-join", args=[slug, number])
