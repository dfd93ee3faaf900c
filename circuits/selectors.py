"""Reads of circuits: the member tournaments, their final places and the cached standings.

The standings document of a circuit is built once per *circuit version*: the circuit's own
``updated_at`` (its points settings) and the ``(tournament id, version)`` tuple of its public
member tournaments. ``Tournament.version`` is bumped by every recording, so the circuit follows
the tournaments' live update path for the price of one indexed query per request, and a key
never needs invalidating (:mod:`live.cache`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _

from brackets.models import StageEntry
from circuits.models import Circuit, CircuitTournament
from circuits.ranking import Result, circuit_standings
from core.choice_labels import choice_label
from core.page_links import PageLink
from live.cache import cached_bytes
from tournament.models import Entry, Player, Tournament

PUBLIC_STATUSES = ("registration", "running", "finished")


def public_circuits() -> list[Circuit]:
    return list(Circuit.objects.filter(public=True))


def public_circuit(*, slug: str) -> Circuit | None:
    return Circuit.objects.filter(slug=slug, public=True).first()


@dataclass(frozen=True, slots=True)
class MemberLine:
    tournament_id: int
    name: str
    slug: str
    status: str
    starts_on: str | None
    version: int

    @property
    def status_label(self) -> str:
        """The tournament's status in the page's language."""
        return choice_label(Tournament.Status, self.status)


def circuit_members(*, circuit_id: int) -> list[MemberLine]:
    """The circuit's public member tournaments (drafts are never shown), by start date."""
    rows = (
        CircuitTournament.objects.filter(
            circuit_id=circuit_id, tournament__status__in=PUBLIC_STATUSES
        )
        .order_by("tournament__starts_on", "tournament_id")
        .values_list(
            "tournament_id",
            "tournament__name",
            "tournament__slug",
            "tournament__status",
            "tournament__starts_on",
            "tournament__version",
        )
    )
    return [
        MemberLine(tid, name, slug, status, starts.isoformat() if starts else None, version)
        for tid, name, slug, status, starts, version in rows
    ]


def circuit_etag(circuit: Circuit, members: list[MemberLine]) -> str:
    """A short strong ETag from the circuit's settings and its members' versions."""
    raw = repr(
        (
            circuit.pk,
            circuit.updated_at.isoformat(),
            tuple((m.tournament_id, m.version) for m in members),
        )
    )
    return hashlib.sha256(raw.encode()).hexdigest()[:24]


def circuit_results(*, tournament_ids: list[int]) -> list[Result]:
    """Every player's final result in the given tournaments (one query).

    As in ``brackets.selectors.tournament_placings``, the place in the deepest stage an entrant
    reached is their tournament place; that stage's number is the "stage reached".
    """
    best: dict[int, tuple[int, int, int, str, int, str]] = {}
    for entry_id, place, number, tid, pid, name, status in (
        StageEntry.objects.filter(stage__tournament_id__in=tournament_ids, placing__isnull=False)
        .order_by("stage__number")
        .values_list(
            "entry_id",
            "placing",
            "stage__number",
            "stage__tournament_id",
            "entry__player_id",
            "entry__player__name",
            "entry__status",
        )
    ):
        best[entry_id] = (int(place or 0), number, tid, name, pid, status)
    return [
        Result(
            player_id=pid,
            name=name,
            tournament_id=tid,
            place=place,
            stage_reached=number,
            disqualified=status == Entry.Status.DISQUALIFIED,
        )
        for place, number, tid, name, pid, status in best.values()
    ]


@dataclass(frozen=True, slots=True)
class PlayerFacts:
    club: str
    country: str


def player_facts(*, player_ids: list[int]) -> dict[int, PlayerFacts]:
    """Club and country of each player (one query): the standings tell namesakes apart by
    them, as a tournament's standings and the players directory do."""
    return {
        pid: PlayerFacts(club, country)
        for pid, club, country in Player.objects.filter(pk__in=player_ids).values_list(
            "pk", "club", "country"
        )
    }


#: The standings document's shape, in its cache key: a document cached before a change of
#: shape (2: each row's ``club`` and ``country``) is never served for the new one.
STANDINGS_FORMAT = 2


def standings_document(circuit: Circuit, members: list[MemberLine]) -> dict[str, Any]:
    """The circuit's standings as the API serves them (and the page reads them). Each row
    holds the player's club and country, which tell namesakes apart: an edit of a player
    (``player_update``) bumps the version of every tournament they entered, so of the
    circuit too, and the document is built again."""
    results = circuit_results(tournament_ids=[m.tournament_id for m in members])
    rows = circuit_standings(results, circuit.points_table, circuit.stage_bonus)
    facts = player_facts(player_ids=[r.player_id for r in rows])
    unknown = PlayerFacts(club="", country="")
    return {
        "circuit": {
            "name": circuit.name,
            "slug": circuit.slug,
            "season": circuit.season,
            "points_table": circuit.points_table,
            "stage_bonus": circuit.stage_bonus,
        },
        "tournaments": [asdict(m) for m in members],
        "standings": [
            {
                "rank": r.rank,
                "player_id": r.player_id,
                "name": r.name,
                "club": facts.get(r.player_id, unknown).club,
                "country": facts.get(r.player_id, unknown).country,
                "points": r.points,
                "events": r.events,
                "best_place": r.best_place,
                "results": [
                    {
                        "tournament_id": a.tournament_id,
                        "place": a.place,
                        "points": a.points,
                        "bonus": a.bonus,
                        "disqualified": a.disqualified,
                    }
                    for a in r.awards
                ],
            }
            for r in rows
        ],
    }


def standings_bytes(circuit: Circuit, members: list[MemberLine], etag: str) -> bytes:
    """The standings document as JSON bytes, built once per circuit version."""
    return cached_bytes(
        f"circuit:standings:{STANDINGS_FORMAT}:{circuit.pk}:{etag}",
        lambda: json.dumps(
            standings_document(circuit, members), separators=(",", ":"), ensure_ascii=False
        ).encode(),
    )


def _circuit_title(circuit: Circuit) -> str:
    return f"{circuit.name} {circuit.season}".strip()


def tournament_circuit_links(tournament_id: int) -> list[PageLink]:
    """The public circuits a public tournament is part of (one query), for its pages'
    "Part of ..." line (:mod:`core.page_links`)."""
    circuits = Circuit.objects.filter(
        public=True,
        members__tournament_id=tournament_id,
        members__tournament__status__in=PUBLIC_STATUSES,
    ).order_by("-season", "name", "id")
    return [(_circuit_title(c), reverse("circuits:detail", args=[c.slug])) for c in circuits]


def player_circuit_links(player_id: int) -> list[PageLink]:
    """The public circuits a player has a result in, with their rank and points there, for
    the player's profile (:mod:`core.page_links`): two queries, then one per circuit whose
    standings are not cached at its current version."""
    circuits = list(
        Circuit.objects.filter(
            public=True,
            members__tournament__status__in=PUBLIC_STATUSES,
            members__tournament__entries__player_id=player_id,
        )
        .distinct()
        .order_by("-season", "name", "id")
    )
    links: list[PageLink] = []
    for circuit in circuits:
        members = circuit_members(circuit_id=circuit.pk)
        doc = json.loads(standings_bytes(circuit, members, circuit_etag(circuit, members)))
        row = next((r for r in doc["standings"] if r["player_id"] == player_id), None)
        if row is None:  # entered, but no final place yet
            continue
        text = _("%(circuit)s: rank %(rank)s, %(points)s points") % {
            "circuit": _circuit_title(circuit),
            "rank": row["rank"],
            "points": row["points"],
        }
        links.append((text, reverse("circuits:detail", args=[circuit.slug])))
    return links
