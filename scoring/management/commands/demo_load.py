"""Load demo data for ``make demo`` (idempotent) and print where to look.

A running tournament, "Demo Open", played under the default ``wsod`` preset: 16 players with
clubs, countries and ratings, 4 tables of 4, a director (``director`` / ``director``) and one
referee per table with a private link. Tables 1 and 2 are in progress with hands already played,
table 3 is finished, table 4 is fresh (started, no hand yet). Every hand is played by the
engine's simulator and recorded through the real service (``hand_record``), exactly as a
referee's phone would, so the demo's data obeys every rule the API enforces.

Running it again changes nothing: it finds the tournament and only prints the links (issuing a
referee token where none is active). Works on the embedded default (SQLite, in-memory channel
layer, Celery eager) as well as on PostgreSQL.

The command lives in ``scoring`` (it used to be a placeholder in ``core``): it records hands
through the scoring and tournament services, and ``core`` may import neither (the layers
contract in pyproject.toml).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.urls import reverse

from scoring import services as scoring_services
from scoring.engine import Ruleset
from scoring.engine.simulate import simulate_match
from scoring.models import Match
from tournament import services as tournament_services
from tournament.models import Entry, RefereeToken, Table, Tournament

SLUG = "demo-open"
NAME = "Demo Open"

# name, nickname, country, club, rating
PLAYERS: list[tuple[str, str, str, str, int]] = [
    ("Ana Rivera", "La Flaca", "PR", "Club Dominó Bayamón", 2140),
    ("Ben Okafor", "", "NG", "Lagos Bones", 2075),
    ("Carmen Díaz", "", "DO", "Santo Domingo Capicúa", 2060),
    ("Desmond Clarke", "Dez", "JM", "Kingston Six-Love", 2035),
    ("Elena Petrova", "", "US", "Brooklyn Tiles", 1990),
    ("Félix Ramos", "", "CU", "Habana Doble Seis", 1975),
    ("Grace Thompson", "", "GB", "London Cut-Throat", 1950),
    ("Hugo Martín", "", "ES", "Madrid Fichas", 1930),
    ("Imani Brown", "", "TT", "Port of Spain Blockers", 1910),
    ("Jorge Vega", "El Tigre", "VE", "Caracas Trancadores", 1895),
    ("Keisha Morgan", "", "JM", "Kingston Six-Love", 1880),
    ("Luis Ortega", "", "PR", "Club Dominó Bayamón", 1860),
    ("María Santos", "", "DO", "Santo Domingo Capicúa", 1840),
    ("Nathan Green", "", "US", "Brooklyn Tiles", 1825),
    ("Olga Ivanova", "", "US", "Miami Bones", 1800),
    ("Pedro Castillo", "", "MX", "Ciudad de México Mulas", 1785),
]
REFEREES: list[tuple[str, str]] = [
    ("ref-table-1", "Rosa Méndez"),
    ("ref-table-2", "Samuel Ortiz"),
    ("ref-table-3", "Teresa Vidal"),
    ("ref-table-4", "Victor Lamb"),
]
# Per table: how many simulated hands to record ("all" finishes the match) and the seed.
TABLE_PLAN: list[tuple[int | str, int]] = [(5, 101), (8, 202), ("all", 303), (0, 404)]


class Command(BaseCommand):
    help = "Create demo data (idempotent) and print where to look."

    def handle(self, *args: Any, **options: Any) -> None:
        director = self._director()
        tournament = Tournament.objects.filter(slug=SLUG).first()
        if tournament is None:
            with transaction.atomic():
                tournament = self._build(director)
            self.stdout.write(self.style.SUCCESS(f"Created the tournament {NAME!r}."))
        else:
            self.stdout.write(f"{NAME!r} already exists; nothing changed.")
        self._print_links(tournament, director)

    # -- building ---------------------------------------------------------------------------

    def _director(self) -> Any:
        user_model = get_user_model()
        user = user_model.objects.filter(username="director").first()
        if user is None:
            user = user_model.objects.create_superuser(
                "director", "director@example.com", "director", first_name="Demo Director"
            )
        return user

    def _build(self, director: Any) -> Tournament:
        ts = tournament_services
        tournament = ts.tournament_create(
            actor=director, name=NAME, slug=SLUG, venue="Main Hall", ruleset_preset="wsod"
        )
        tournament = ts.tournament_update(
            tournament=tournament, actor=director, data={"status": Tournament.Status.RUNNING}
        )
        entries: list[Entry] = []
        for seed, (name, nickname, country, club, rating) in enumerate(PLAYERS, start=1):
            player = ts.player_create(
                actor=director,
                name=name,
                nickname=nickname,
                country=country,
                club=club,
                rating=rating,
            )
            entries.append(
                ts.entry_create(tournament=tournament, actor=director, player=player, seed=seed)
            )
        ruleset = Ruleset.from_json(tournament.ruleset)
        for number, ((username, display), (plan, seed)) in enumerate(
            zip(REFEREES, TABLE_PLAN, strict=True), start=1
        ):
            table = ts.table_create(tournament=tournament, actor=director, number=number)
            role = ts.referee_create(
                tournament=tournament, actor=director, username=username, display_name=display
            )
            ts.referee_token_issue(
                tournament=tournament, actor=director, user=role.user, label=f"Table {number}"
            )
            # Snake seating (T8): table k gets seeds k, 9-k, 8+k, 17-k.
            seated = [entries[i - 1] for i in (number, 9 - number, 8 + number, 17 - number)]
            self._play_table(tournament, director, role.user, table, seated, plan, seed, ruleset)
        return tournament

    def _play_table(
        self,
        tournament: Tournament,
        director: Any,
        referee: Any,
        table: Table,
        seated: list[Entry],
        plan: int | str,
        seed: int,
        ruleset: Ruleset,
    ) -> Match:
        sim = simulate_match(ruleset, len(seated), seed)
        match = scoring_services.match_create(
            tournament=tournament,
            actor=director,
            entries=seated,
            table=table,
            referee=referee,
            label=f"Round 1 · Table {table.number}",
            lot_winner=sim.lot_winner,
        )
        scoring_services.match_start(match_id=match.pk, actor=referee)
        records = (
            sim.records if plan == "all" else sim.records[: min(int(plan), len(sim.records) - 1)]
        )
        for number, record in enumerate(records, start=1):
            payload = record.to_dict()
            payload.pop("sporting", None)
            scoring_services.hand_record(
                match_id=match.pk,
                actor=referee,
                expected_number=number,
                payload=payload,
                idempotency_key=f"demo-{match.pk}-{number}",
                client=scoring_services.ClientInfo(ip="127.0.0.1", user_agent="demo_load"),
            )
        return match

    # -- printing ---------------------------------------------------------------------------

    def _print_links(self, tournament: Tournament, director: Any) -> None:
        site = settings.SITE_URL.rstrip("/")
        lines = [
            "",
            "Demo ready.",
            f"  Site:                {site}/",
            f"  Director dashboard:  {site}{reverse('scoring:director-dashboard', args=[SLUG])}"
            "  (user: director, password: director)",
            f"  Admin:               {site}{reverse('admin:index')}",
            f"  API docs:            {site}{reverse('api-docs')}",
            "  Referee links (private; open one on a phone):",
        ]
        for table in Table.objects.filter(tournament=tournament).order_by("number"):
            match = (
                Match.objects.filter(tournament=tournament, table=table)
                .select_related("referee")
                .order_by("-id")
                .first()
            )
            if match is None or match.referee is None:
                continue
            token = self._token_for(tournament, director, match.referee)
            link = reverse("tournament:referee-link") + f"#{token.key}"  # type: ignore[attr-defined]
            state = match.get_status_display().lower()
            if match.hands_count:
                state += f", {match.hands_count} hands, scores {'-'.join(map(str, match.scores))}"
            else:
                state += ", no hand yet"
            lines.append(f"    Table {table.number} ({state}): {site}{link}")
        self.stdout.write("\n".join(lines) + "\n")

    def _token_for(self, tournament: Tournament, director: Any, referee: Any) -> RefereeToken:
        """A fresh credential: only its hash is stored, so a link is printable only when
        issued (docs/security.md)."""
        return tournament_services.referee_token_issue(
            tournament=tournament, actor=director, user=referee, label="demo"
        )
