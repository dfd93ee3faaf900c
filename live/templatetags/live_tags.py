"""Template filters of the live pages: translated labels, seat names, chunks for slides."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from django import template
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from live.labels import TABLE_PLACINGS
from live.labels import label as _label
from scoring.engine.placing import seat_side_places
from scoring.presenters.match import (
    forfeit_hands_line,
    forfeit_words,
    scores_after_line,
    tie_line,
)
from scoring.presenters.partnership import SideView

SEAT_LETTERS = "ABCD"

register = template.Library()


@register.filter
def clock_time(value: str | None) -> str:
    """A time of the round JSON (an ISO string: when time was called, T3) as the pages write
    times, "17:39" in the site's time zone; "" without one."""
    when = parse_datetime(value) if value else None
    if when is None:
        return ""
    if timezone.is_aware(when):
        when = timezone.localtime(when)
    return when.strftime("%H:%M")


@register.filter
def label(code: object, group: str) -> str:
    """``{{ m.status|label:"match" }}``: the translated label of a document code."""
    return _label(group, code)


@register.filter
def stage_kind(stage: dict[str, Any], stages: Sequence[dict[str, Any]]) -> str:
    """``{{ st|stage_kind:s.stages }}``: the stage's kind, translated; a knockout stage whose
    field is the previous stage's cut (cut = final table seats) is "Final table only" (T6),
    as the director chose it. A pairs stage's cut counts partnerships, two to a table, and its
    final is one match between two partnerships (T10): its knockout is "Partnership knockout
    to the final", or "The final only" when the previous stage's cut is two."""
    kind = stage.get("kind")
    if kind == "knockout":
        ordered = sorted(stages, key=lambda s: s["number"])
        previous = next(
            (p for p, s in pairwise(ordered) if s["id"] == stage["id"]),
            None,
        )
        cut = None if previous is None else previous.get("cut_size")
        if stage.get("pairs"):
            return _label("stage_kind", "final_only_pairs" if cut == 2 else "knockout_pairs")
        if cut is not None and cut == stage.get("final_table_size"):
            return _label("stage_kind", "final_only")
    return _label("stage_kind", kind)


@register.filter
def round_kind(kind: str, stage: dict[str, Any] | None) -> str:
    """``{{ r.kind|round_kind:s.current_stage }}``: the round's kind, translated; a pairs
    stage's final is "The final (two partnerships)", not a final table of four players (T10).
    ``stage`` is the round's stage, or the round itself where it carries ``pairs``."""
    if kind == "final" and stage and stage.get("pairs"):
        return _label("round_kind", "final_pairs")
    return _label("round_kind", kind)


@register.filter
def table_placing(placing: int | None) -> str:
    """1st..4th at a table (T4), translated."""
    if placing is None:
        return ""
    found = TABLE_PLACINGS.get(int(placing))
    return str(found) if found is not None else str(placing)


@register.simple_tag
def match_placing(match: dict[str, Any], seat: int | None) -> dict[str, Any] | None:
    """``{% match_placing m.match m.seat as pl %}``: where the player in ``seat`` placed at a
    finished table (T4): ``place`` 1..4 and ``shared`` when another seat holds the same
    placing (players still level share it, T3). At a partnership table (R42) the place of
    the player's partnership among the two, 1 or 2 (both 1 when level, T3; a forfeit loses
    for the partnership, T7), as the bracket reads it, with ``pair`` true. ``None`` before the
    match is finished or without a placing."""
    if match.get("status") != "finished" or seat is None:
        return None
    seats = sorted(match.get("seats") or [], key=lambda s: int(s["seat"]))
    placings = [s.get("placing") for s in seats]
    if match.get("partners") and len(seats) == 4:
        places = seat_side_places(placings, [bool(s.get("forfeited")) for s in seats])
        place = places[int(seat)] if 0 <= int(seat) < 4 else None
        if place is None:
            return None
        return {"place": place, "shared": places[0] == places[1], "pair": True}
    mine = next((s.get("placing") for s in seats if int(s["seat"]) == int(seat)), None)
    if mine is None:
        return None
    return {"place": mine, "shared": placings.count(mine) > 1, "pair": False}


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
def seat_label_in(seats: Sequence[dict[str, Any]], seat: int | None) -> str:
    """``{{ m.seats|seat_label_in:m.next_hand.poser }}``: "A · Ana", the letter and name of
    ``seat`` as every page reads it (RULES.md section 10); empty for none."""
    name = seat_name(seats, seat)
    letter = seat_letter(seat)
    if not letter:
        return ""
    return f"{letter} · {name}" if name else letter


@register.filter
def forfeited_names(seats: Sequence[dict[str, Any]], partners: bool = False) -> str:
    """The names of the players who forfeited the match (T7), "Ana" or "Ana, Bea". At a
    partnership table (``{{ m.seats|forfeited_names:m.partners }}``) a forfeit is the
    partnership's: both partners are named, "Ana & Cy" (R42, T7)."""
    if not partners:
        return ", ".join(str(s["name"]) for s in seats if s.get("forfeited"))
    sides = sorted({int(s["seat"]) % 2 for s in seats if s.get("forfeited")})
    return ", ".join(
        " & ".join(str(s["name"]) for s in seats if int(s["seat"]) % 2 == side) for side in sides
    )


def _forfeit_parts(seats: Sequence[dict[str, Any]], partners: bool) -> tuple[str, str]:
    """Who forfeited (their names) and, at a partnership table, the partnership that loses
    with them (both partners' names, R42, T7)."""
    name = ", ".join(str(s["name"]) for s in seats if s.get("forfeited"))
    return name, (forfeited_names(seats, True) if partners and name else "")


@register.filter
def forfeit_note(seats: Sequence[dict[str, Any]], partners: bool = False) -> str:
    """``{{ m.seats|forfeit_note:m.partners }}``: a forfeited match's result as every page
    says it, "Forfeit by Ana: a 0-6 loss (T7)" (:func:`scoring.presenters.match.forfeit_words`,
    the referee's page's words); "" when no seat forfeited."""
    name, side = _forfeit_parts(seats, partners)
    return forfeit_words(name, side=side) if name else ""


@register.simple_tag
def forfeit_row(
    seats: Sequence[dict[str, Any]], status: str, end_reason: str, partners: bool = False
) -> dict[str, str] | None:
    """The last line of a forfeited match's hands list (T7) and the scores it leaves: why the
    forfeiting player is on 0 when the last hand left them more. None for another match."""
    if status != "finished" or end_reason != "forfeit":
        return None
    name, side = _forfeit_parts(seats, partners)
    if not name:
        return None
    # At a table that plays on the others are unplaced here: their line is the next match's.
    played_on = not partners and any(
        s.get("placing") is None for s in seats if not s.get("forfeited")
    )
    ordered = sorted(seats, key=lambda s: int(s["seat"]))
    scores = [int(s.get("score") or 0) for s in ordered]
    return {
        "line": forfeit_hands_line(name, side=side, played_on=played_on),
        "scores": scores_after_line(scores, partners=partners),
    }


@register.filter
def side_label(sides: Sequence[dict[str, Any]] | None, seat: int | None) -> str:
    """``{{ m.sides|side_label:m.winner_seats.0 }}``: the partnership of ``seat`` as the match
    and referee pages name it, "AC · Los Primos (Ana & Cy)" (R42, T9); "" for none."""
    if seat is None or not sides:
        return ""
    for side in sides:
        if int(side["index"]) == int(seat) % 2:
            return SideView(**{**side, "names": tuple(side["names"])}).label
    return ""


@register.simple_tag
def hand_winner(
    seats: Sequence[dict[str, Any]],
    hand: dict[str, Any],
    partners: bool,
    sides: Sequence[dict[str, Any]] | None = None,
) -> str:
    """``{% hand_winner seats h m.partners as w %}``: who won ``hand``. At a partnership table a
    block is the partnership's (R43: its lowest count, perhaps shared by both partners), so both
    partners are named ("Ann & Cy"); a domino names the partner who dominoed. Given the table's
    ``sides`` (``{% hand_winner m.seats h m.partners m.sides as w %}``, the table cards), every
    hand is its partnership's, named as the partnerships list names it: "AC · Ann & Cy" (R43)."""
    winner = hand.get("winner")
    if winner is None:
        return ""
    if partners and sides:
        return side_label(sides, int(winner)) or seat_name(seats, winner)
    if not (partners and hand.get("end") == "block"):
        return seat_name(seats, winner)
    names = [str(s["name"]) for s in seats if s["seat"] % 2 == int(winner) % 2]
    return " & ".join(names)


@register.simple_tag
def tied_hand(seats: Sequence[dict[str, Any]], hand: dict[str, Any]) -> str:
    """``{% tied_hand seats h %}``: a tied hand as the referee page says it, who tied on what
    count: "tie: Ana and Luis (12-20-12-31)" (R20, ``scoring.presenters.match.tie_line``)."""
    counts = hand.get("counts")
    return tie_line(counts if isinstance(counts, list) else None, lambda i: seat_name(seats, i))


@register.simple_tag
def hand_won_by(hand: dict[str, Any], seat: int | None, partners: bool) -> bool:
    """``{% hand_won_by h mine m.partners as won %}``: did ``seat`` win ``hand``? At a
    partnership table every hand the partnership won is the partner's too (R42, R43)."""
    winner = hand.get("winner")
    if seat is None or winner is None or hand.get("tied"):
        return False
    if partners:
        return int(winner) % 2 == int(seat) % 2
    return int(winner) == int(seat)


@register.filter
def seat_letter(seat: int | None) -> str:
    """Seat 0..3 as A..D: the one seat naming of every page (RULES.md section 10)."""
    if seat is None or not 0 <= int(seat) < len(SEAT_LETTERS):
        return ""
    return SEAT_LETTERS[int(seat)]


@register.filter
def seat_label(seat: int | None, names: Sequence[str]) -> str:
    """Seat 0..3 as "B · Marta Sol" (letter and name, RULES.md section 10); a dash for none."""
    letter = seat_letter(seat)
    if not letter:
        return "\u2013"
    name = names[int(seat)] if seat is not None and int(seat) < len(names) else ""
    return f"{letter} · {name}" if name else letter


@register.filter
def player_summary(player: dict[str, Any], standings: dict[str, Any] | None) -> dict[str, Any]:
    """What a player's page opens with: their line in the latest stage they played that has a
    result (the standings list the latest stage first): the event place once the last stage is
    finished (T6), else the rank (T5; in a pairs stage their partnership's, T10), and the
    record of that stage, named; the earlier stages' lines and records after it; and the table
    they are playing at now, if any."""
    entry_id = player["entry"]["id"]
    lines: list[dict[str, Any]] = []
    stages = (standings or {}).get("stages") or []
    for st in stages:
        if not st.get("ranked", True):
            continue  # no match of the stage finished yet: its rank says nothing (T5)
        # A pairs stage ranks partnerships (T10): the player's row is their partnership's.
        row = next(
            (
                r
                for r in st.get("rows") or []
                if r.get("entry_id") == entry_id
                or any(p.get("entry_id") == entry_id for p in r.get("players") or [])
            ),
            None,
        )
        if row is not None:
            lines.append(
                {
                    "row": row,
                    "stage": st["stage"],
                    "field": len(st.get("rows") or []),
                    # A bye is not a match played (T1): the record counts the matches won at
                    # a table and names the byes apart (and whether they count as wins).
                    "table_wins": row["match_wins"] - row.get("bye_wins", 0),
                }
            )
    # An event place is out of the whole field: the largest stage's (the first one's) rows.
    entrants = max((len(st.get("rows") or []) for st in stages), default=0)
    current = None
    for m in player.get("matches") or []:
        if m["match"].get("status") in ("in_progress", "scheduled"):
            current = m
    latest = lines[0] if lines else None
    mine = latest["row"] if latest else None
    return {
        "row": mine,
        "table_wins": latest["table_wins"] if latest else 0,
        # The record counts as the standings do (T5): a forfeited match's hands are not in it
        # (T7), though its hands list shows them; the page says so.
        "forfeit_hands": any(
            m["match"].get("end_reason") == "forfeit" and m["match"].get("hands_count")
            for m in player.get("matches") or []
        ),
        "stage": latest["stage"] if latest else None,
        "field": latest["field"] if latest else 0,
        "entrants": entrants,
        "earlier": lines[1:],
        "current": current,
        "seat": None if current is None else current.get("seat"),
    }


@register.filter
def chunked(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    """``items`` in slices of ``size`` (projector slides)."""
    size = max(int(size), 1)
    return [items[i : i + size] for i in range(0, len(items), size)]


@register.filter
def by_placing(seats: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Seats best placing first (unplaced seats last, in seat order); a pairs table's
    partnerships (``sides``, placed 1 and 2) the same way, AC before BD."""
    return sorted(
        seats,
        key=lambda s: (
            s.get("placing") is None,
            s.get("placing") or 0,
            s["seat"] if "seat" in s else s["seats"][0],
        ),
    )


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


@register.filter
def scores_line(scores: Sequence[int] | None, partners: bool = False) -> str:
    """The score line after a hand as the match pages write it (``scoring.presenters``):
    every seat's, or under partnerships the two partnerships' (R43)."""
    return scores_after_line(scores or [], partners=bool(partners))
