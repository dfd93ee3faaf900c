"""What each webhook says: the payload of an event, read by id after its commit.

Each builder returns ``(event_key, data)`` or ``None`` when the object is gone. The event key
names the fact once (a repeated domain event finds its delivery row already written); the
data is the state when the delivery row is written. Player names are public (standings pages);
nothing private (e-mail addresses, referee credentials) is ever in a payload.
"""

from __future__ import annotations

from typing import Any

from brackets.models import Round, RoundMatch
from scoring.models import Hand, Match, Seat


def _seats(match_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = {m: [] for m in match_ids}
    rows = (
        Seat.objects.filter(match_id__in=match_ids)
        .order_by("match_id", "seat")
        .values("match_id", "seat", "placing", "points", "entry__player_id", "entry__player__name")
    )
    for r in rows:
        out[r["match_id"]].append(
            {
                "seat": r["seat"],
                "player_id": r["entry__player_id"],
                "name": r["entry__player__name"],
                "placing": r["placing"],
                "points": r["points"],
            }
        )
    return out


def round_key(round_id: int) -> str:
    return f"round_published:{round_id}"


def round_published(round_id: int) -> tuple[str, dict[str, Any]] | None:
    rnd = Round.objects.select_related("stage").filter(pk=round_id).first()
    if rnd is None:
        return None
    links = list(
        RoundMatch.objects.filter(round=rnd)
        .order_by("table_number", "match_id")
        .values_list("table_number", "match_id")
    )
    seats = _seats([m for _, m in links])
    return round_key(rnd.pk), {
        "round": {
            "id": rnd.pk,
            "number": rnd.number,
            "kind": rnd.kind,
            "published_at": rnd.published_at.isoformat() if rnd.published_at else None,
            "stage": {"id": rnd.stage_id, "name": rnd.stage.name, "kind": rnd.stage.kind},
        },
        "tables": [
            {
                "table": table,
                "match_id": match_id,
                "players": [
                    {k: s[k] for k in ("seat", "player_id", "name")} for s in seats[match_id]
                ],
            }
            for table, match_id in links
        ],
    }


def match_key(match_id: int, finished_at: Any) -> str:
    stamp = finished_at.isoformat() if finished_at else "-"
    return f"match_finished:{match_id}:{stamp}"


def match_finished(match_id: int) -> tuple[str, dict[str, Any]] | None:
    match = (
        Match.objects.filter(pk=match_id)
        .values(
            "id",
            "label",
            "status",
            "end_reason",
            "scores",
            "hands_count",
            "winner_seat",
            "finished_at",
            "round_link__table_number",
            "round_link__round_id",
        )
        .first()
    )
    if match is None or match["status"] != Match.Status.FINISHED:
        return None
    return match_key(match_id, match["finished_at"]), {
        "match": {
            "id": match["id"],
            "label": match["label"],
            "round_id": match["round_link__round_id"],
            "table": match["round_link__table_number"],
            "end_reason": match["end_reason"],
            "scores": match["scores"],
            "hands": match["hands_count"],
            "winner_seat": match["winner_seat"],
            "finished_at": match["finished_at"].isoformat() if match["finished_at"] else None,
            "seats": _seats([match_id])[match_id],
        }
    }


def hand_key(hand_id: int) -> str:
    return f"hand_recorded:{hand_id}"


def hand_recorded(match_id: int, hand_number: int) -> tuple[str, dict[str, Any]] | None:
    hand = (
        Hand.objects.filter(match_id=match_id, number=hand_number, void=False)
        .values(
            "id",
            "number",
            "end",
            "winner",
            "poser",
            "pose_tile",
            "value",
            "llave",
            "tied",
            "reset",
            "scores_after",
            "recorded_at",
            "match__round_link__table_number",
        )
        .first()
    )
    if hand is None:
        return None
    return hand_key(hand["id"]), {
        "hand": {
            "match_id": match_id,
            "table": hand["match__round_link__table_number"],
            "number": hand["number"],
            "end": hand["end"],
            "winner_seat": hand["winner"],
            "poser_seat": hand["poser"],
            "pose_tile": hand["pose_tile"],
            "value": hand["value"],
            "llave": hand["llave"],
            "tied": hand["tied"],
            "reset": hand["reset"],
            "scores_after": hand["scores_after"],
            "recorded_at": hand["recorded_at"].isoformat(),
        }
    }
