"""Template filters of the live pages: translated labels, seat names, chunks for slides."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import template

from live.labels import TABLE_PLACINGS
from live.labels import label as _label

register = template.Library()


@register.filter
def label(code: object, group: str) -> str:
    """``{{ m.status|label:"match" }}``: the translated label of a document code."""
    return _label(group, code)


@register.filter
def table_placing(placing: int | None) -> str:
    """1st..4th at a table (T4), translated."""
    if placing is None:
        return ""
    found = TABLE_PLACINGS.get(int(placing))
    return str(found) if found is not None else str(placing)


@register.filter
def seat_name(seats: Sequence[dict[str, Any]], seat: int | None) -> str:
    """The name of the player in ``seat`` (seats in seat order)."""
    if seat is None:
        return ""
    for s in seats:
        if s["seat"] == seat:
            return str(s["name"])
    return ""


@register.filter
def chunked(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    """``items`` in slices of ``size`` (projector slides)."""
    size = max(int(size), 1)
    return [items[i : i + size] for i in range(0, len(items), size)]


@register.filter
def by_placing(seats: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Seats best placing first (unplaced seats last, in seat order)."""
    return sorted(seats, key=lambda s: (s.get("placing") is None, s.get("placing") or 0, s["seat"]))


@register.filter
def in_play_first(tables: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tables in play first, then the others, each in table order (projector)."""
    return sorted(tables, key=lambda t: t["status"] != "in_progress")


PROJECTOR_TOP_ROWS = 48  # four slides of 12 rows, read from the back of the hall
PROJECTOR_ROWS_PER_SLIDE = 12


@register.filter
def projector_standings(stage: dict[str, Any] | None) -> list[dict[str, Any]]:
    """A stage's standings as projector slides: the top rows, and, when the cut line (T6)
    falls below them, one more slide centred on it (the bubble the hall is watching).

    Each slide is ``{"rows": [...], "cut": bool}``; the whole field would take minutes to
    cycle at a hundred players and more, so the rest is for the phones.
    """
    if not stage:
        return []
    rows: Sequence[dict[str, Any]] = stage.get("rows") or []
    size = PROJECTOR_ROWS_PER_SLIDE
    slides = [{"rows": chunk, "cut": False} for chunk in chunked(rows[:PROJECTOR_TOP_ROWS], size)]
    cut = stage.get("cut")
    if cut and cut < len(rows) and cut > PROJECTOR_TOP_ROWS - size // 4:
        start = max(0, cut - size // 2)
        slides.append({"rows": rows[start : start + size], "cut": True})
    return slides
