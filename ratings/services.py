"""Ratings from finished matches: an idempotent update per match and a deterministic rebuild.

Matches are rated in one global order, by ``(finished_at, match id)``. Updating a match that
is already rated with the same placings changes nothing; a match whose result changed (a
corrected hand, an override, a reopened match) is rated again *from its place in that order*:
every later rating change is recomputed from the stored results. Players whose matches do not
depend on the corrected one get exactly the values they had, so a correction changes exactly
the ratings it affects. One writer at a time (a PostgreSQL advisory lock; SQLite serialises
writers anyway).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import Count, OuterRef, Q, Subquery

from ratings.model import Skill, rate_table, starting_skill
from ratings.models import PlayerRating, RatingChange
from ratings.selectors import rated_matches
from scoring.models import Seat
from tournament.models import Player

# An arbitrary constant naming the ratings writer's advisory lock.
_LOCK_KEY = 0x52415445  # "RATE"

Key = tuple[dt.datetime, int]


@dataclass(frozen=True, slots=True)
class RatingUpdate:
    changed: bool
    since: Key | None = None
    matches_rated: int = 0


def _lock() -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK_KEY])


def _after(key: Key) -> Q:
    """Rows at or after ``key`` in the global order (``rated_at``/``finished_at`` then id)."""
    at, match_id = key
    return Q(rated_at__gt=at) | Q(rated_at=at, match_id__gte=match_id)


def _table(match_id: int) -> list[tuple[int, int]] | None:
    """``(player id, placing)`` per seat of a rated match, or ``None`` if it is not rated."""
    seats = list(
        Seat.objects.filter(match_id=match_id)
        .order_by("seat")
        .values_list("entry__player_id", "placing")
    )
    table = [(player, placing) for player, placing in seats if placing is not None]
    return table if len(table) == len(seats) >= 2 else None


@transaction.atomic
def rating_update_for_match(*, match_id: int) -> RatingUpdate:
    """Bring the ratings up to date with match ``match_id`` (idempotent).

    No change when the stored rating changes already describe this match's current result
    (same players, same placings, same place in the order); otherwise the ratings are rebuilt
    from the earliest of the match's old and new place in the order.
    """
    _lock()
    match = rated_matches().filter(pk=match_id).first()
    table = _table(match_id) if match is not None else None
    stored = list(
        RatingChange.objects.filter(match_id=match_id).values_list(
            "player_id", "placing", "rated_at"
        )
    )
    keys: list[Key] = [(at, match_id) for _, _, at in stored[:1]]
    if match is not None and table is not None:
        assert match.finished_at is not None
        new_key: Key = (match.finished_at, match_id)
        same = sorted(table) == sorted((p, pl) for p, pl, _ in stored) and all(
            at == match.finished_at for _, _, at in stored
        )
        if same:
            return RatingUpdate(changed=False)
        keys.append(new_key)
    elif not stored:
        return RatingUpdate(changed=False)
    return ratings_rebuild(since=min(keys))


@transaction.atomic
def ratings_rebuild(*, since: Key | None = None) -> RatingUpdate:
    """Recompute every rating change at or after ``since`` (all of them when ``None``) from the
    stored match results, in the global order. Deterministic: the same results always give
    the same ratings."""
    _lock()
    changes = (
        RatingChange.objects.all() if since is None else RatingChange.objects.filter(_after(since))
    )
    affected = set(changes.values_list("player_id", flat=True).distinct())
    changes.delete()

    matches = rated_matches()
    if since is not None:
        at, match_id = since
        matches = matches.filter(Q(finished_at__gt=at) | Q(finished_at=at, pk__gte=match_id))
    ordered = list(
        matches.order_by("finished_at", "pk").values_list(
            "pk", "tournament_id", "finished_at", "ruleset__teams"
        )
    )
    tables = _tables(pk for pk, _, _, _ in ordered)
    players = affected | {p for rows in tables.values() for p, _ in rows}
    skills = _skills_before(players)
    # A player's first rated match starts from the rating the director typed (model.starting_skill).
    typed = _typed_ratings(players - skills.keys())

    rows: list[RatingChange] = []
    for match_id, tournament_id, finished_at, teams in ordered:
        table = tables.get(match_id)
        if table is None or finished_at is None:
            continue
        before = [skills.get(p) or starting_skill(typed.get(p)) for p, _ in table]
        # R42: a partnership table (seats in order, 0/2 against 1/3) is rated team against team.
        partners = teams == "partners" and len(table) == 4
        after = rate_table(before, [pl for _, pl in table], partners=partners)
        for (player, placing), b, a in zip(table, before, after, strict=True):
            skills[player] = a
            rows.append(
                RatingChange(
                    player_id=player,
                    match_id=match_id,
                    tournament_id=tournament_id,
                    rated_at=finished_at,
                    placing=placing,
                    table_size=len(table),
                    mu_before=b.mu,
                    sigma_before=b.sigma,
                    mu_after=a.mu,
                    sigma_after=a.sigma,
                )
            )
    RatingChange.objects.bulk_create(rows, batch_size=1000)
    _store_current(players, skills)
    return RatingUpdate(changed=True, since=since, matches_rated=len({r.match_id for r in rows}))


def _tables(match_ids: Iterable[int]) -> dict[int, list[tuple[int, int]]]:
    """Seats of many matches in one query: match id -> [(player id, placing)] in seat order;
    matches with a seat lacking a placing are left out."""
    ids = list(match_ids)
    out: dict[int, list[tuple[int, int | None]]] = {}
    for start in range(0, len(ids), 2000):
        chunk = ids[start : start + 2000]
        for match_id, player, placing in (
            Seat.objects.filter(match_id__in=chunk)
            .order_by("match_id", "seat")
            .values_list("match_id", "entry__player_id", "placing")
        ):
            out.setdefault(match_id, []).append((player, placing))
    return {
        m: [(p, pl) for p, pl in rows if pl is not None]
        for m, rows in out.items()
        if len(rows) >= 2 and all(pl is not None for _, pl in rows)
    }


def _typed_ratings(players: Iterable[int]) -> dict[int, int | None]:
    """The rating the director typed for each player (``Player.rating``), in chunks."""
    ids = sorted(players)
    out: dict[int, int | None] = {}
    for start in range(0, len(ids), 2000):
        chunk = ids[start : start + 2000]
        out.update(Player.objects.filter(pk__in=chunk).values_list("pk", "rating"))
    return out


def _skills_before(players: set[int]) -> dict[int, Skill]:
    """Each player's skill after their latest remaining change (the rebuild point)."""
    if not players:
        return {}
    latest = RatingChange.objects.filter(player_id=OuterRef("player_id")).order_by(
        "-rated_at", "-match_id"
    )
    rows = (
        RatingChange.objects.filter(player_id__in=players)
        .values("player_id")
        .distinct()
        .annotate(
            mu=Subquery(latest.values("mu_after")[:1]),
            sigma=Subquery(latest.values("sigma_after")[:1]),
        )
        .values_list("player_id", "mu", "sigma")
    )
    return {player: Skill(mu, sigma) for player, mu, sigma in rows}


def _store_current(players: set[int], skills: dict[int, Skill]) -> None:
    counts = dict(
        RatingChange.objects.filter(player_id__in=players)
        .values("player_id")
        .annotate(n=Count("id"))
        .values_list("player_id", "n")
    )
    gone = [p for p in players if not counts.get(p)]
    PlayerRating.objects.filter(player_id__in=gone).delete()
    current = [
        PlayerRating(player_id=p, mu=skills[p].mu, sigma=skills[p].sigma, matches=counts[p])
        for p in sorted(players)
        if counts.get(p)
    ]
    PlayerRating.objects.bulk_create(
        current,
        batch_size=1000,
        update_conflicts=True,
        unique_fields=["player"],
        update_fields=["mu", "sigma", "matches", "updated_at"],
    )


def ratings_rebuild_for_player(*, player_id: int) -> RatingUpdate:
    """Rebuild from the player's first rated match: their typed rating (where they start,
    :func:`ratings.model.starting_skill`) changed. Nothing when they have no rated match yet
    (seeding reads the typed rating directly until then)."""
    first = (
        RatingChange.objects.filter(player_id=player_id)
        .order_by("rated_at", "match_id")
        .values_list("rated_at", "match_id")
        .first()
    )
    if first is None:
        return RatingUpdate(changed=False)
    return ratings_rebuild(since=(first[0], first[1]))


def ratings_reconcile() -> RatingUpdate:
    """Bring the stored ratings in line with :func:`rated_matches`. Run by beat.

    Rebuilds from the earliest of: a rated match with no rating change yet (its update was
    lost: a crash between commit and the task) and a rating change of a match that no longer
    counts (a lost update of a reopened match; or ratings stored before the rule of what
    counts changed: after an upgrade the sweep removes them by itself, README "Ratings")."""
    missing = (
        rated_matches()
        .filter(rating_changes__isnull=True)
        .order_by("finished_at", "pk")
        .values_list("finished_at", "pk")
        .first()
    )
    stale = (
        RatingChange.objects.exclude(match_id__in=rated_matches().values("pk"))
        .order_by("rated_at", "match_id")
        .values_list("rated_at", "match_id")
        .first()
    )
    keys: list[Key] = [(at, pk) for at, pk in filter(None, (missing, stale)) if at is not None]
    if not keys:
        return RatingUpdate(changed=False)
    return ratings_rebuild(since=min(keys))
