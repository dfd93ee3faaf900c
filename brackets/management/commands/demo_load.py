"""Load ``make demo``'s live event (idempotent) and print where to look.

"Demo Open", a championship in progress under the default ``wsod`` preset:

* 32 players with clubs, countries and ratings, checked in; a director (``director`` /
  ``director``) and eight referees, one per table, each with a private link;
* a qualifying stage of three Swiss rounds with a cut to the best 8 (T6), seeded by rating and
  seated by snake order (T8); round 1 is finished, round 2 is in play and its time has been
  called (T3): tables 1-4 finished, table 8 ended by time, and tables 5-6 (mid-match) and 7
  (no hand yet) are kept for a sudden-death hand: the next hand won ends each of them;
* a knockout stage after it: two tables of four, the top two of each to a final table of four.

Beside it, "Demo Pairs" (``brackets.demo_pairs``): eight partnerships of the same players under
``wsod_partners``, a Swiss stage of partnerships cut to four, then the knockout to the final
between two partnerships (T9, T10); round 2 is in play.

Built only through the real services (``tournament.services``, ``brackets.services``,
``scoring.services.hand_record``) with hands played by the rules engine's simulator from fixed
seeds (``brackets.simulation``), so the data obeys every rule the API enforces and a fresh load
is the same event every time. Referee links come from ``tournament.services.referee_token_issue``.

Running it again changes nothing: it finds the tournament and only prints the links (issuing a
referee token where none is active). Works on the embedded default (SQLite, in-memory channel
layer, Celery eager) as well as on PostgreSQL. ``manage.py simulate_event`` keeps it playing.

Lives in ``brackets``: it drives the brackets, scoring and tournament services, and only the
top of the layers contract (pyproject.toml) may import all three.
"""

from __future__ import annotations

import logging
import random
import time
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.urls import reverse

from brackets import services as brackets_services
from brackets.demo_pairs import PAIRS_SLUG, build_pairs_demo
from brackets.models import Round, RoundMatch, Stage
from brackets.simulation import MatchBot, play_round, round_tables, table_seed
from scoring.models import Match
from scoring.moves import table_feature_set
from tournament import services as tournament_services
from tournament.models import RefereeToken, Tournament, TournamentRole

SLUG = "demo-open"
NAME = "Demo Open"
SEED = 2026
"""Every seating and every hand of the demo derives from this number."""

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
    ("Quentin Baptiste", "", "HT", "Port-au-Prince Doubles", 1770),
    ("Rosa Jiménez", "Rosita", "CU", "Habana Doble Seis", 1755),
    ("Samuel Adeyemi", "", "NG", "Lagos Bones", 1740),
    ("Tatiana López", "", "VE", "Caracas Trancadores", 1725),
    ("Umberto Rossi", "", "IT", "Milano Tessere", 1710),
    ("Valeria Cruz", "", "MX", "Ciudad de México Mulas", 1695),
    ("Winston Hall", "", "BB", "Bridgetown Blockers", 1680),
    ("Ximena Flores", "", "CO", "Barranquilla Capicúa", 1665),
    ("Yusuf Demir", "", "TR", "Istanbul Taşlar", 1650),
    ("Zoe Campbell", "", "GB", "London Cut-Throat", 1635),
    ("Andrés Molina", "", "ES", "Madrid Fichas", 1620),
    ("Beatriz Nunes", "", "BR", "Rio Pedras", 1605),
    ("Carlos Medina", "Carlitos", "PR", "Club Dominó Bayamón", 1590),
    ("Dalia Haddad", "", "US", "Miami Bones", 1575),
    ("Emilio Santana", "", "DO", "Santo Domingo Capicúa", 1560),
    ("Fiona Walsh", "", "IE", "Dublin Bones", 1545),
]
REFEREES: list[tuple[str, str]] = [
    ("ref-table-1", "Rosa Méndez"),
    ("ref-table-2", "Samuel Ortiz"),
    ("ref-table-3", "Teresa Vidal"),
    ("ref-table-4", "Victor Lamb"),
    ("ref-table-5", "Wanda Pérez"),
    ("ref-table-6", "Xavier Soto"),
    ("ref-table-7", "Yolanda Reyes"),
    ("ref-table-8", "Zacarías Gil"),
]
QUALIFYING_ROUNDS = 3
CUT = 8
# Round 2, table -> hands to play now (None: to the end). Table 8 then has its time called.
ROUND_2_PLAN: dict[int, int | None] = {1: None, 2: None, 3: None, 4: None, 5: 9, 6: 5, 7: 0, 8: 6}
TIME_CALLED_TABLE = 8


class Command(BaseCommand):
    help = "Create the demo event (idempotent) and print where to look."

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.perf_counter()
        self.issued: dict[int, RefereeToken] = {}  # the links issued by this run
        director = self._director()
        tournament = Tournament.objects.filter(slug=SLUG).first()
        if tournament is None:
            # Hundreds of in-process (eager) tasks would each log a line: keep the output to
            # the links.
            logging.getLogger("celery.app.trace").setLevel(logging.WARNING)
            with transaction.atomic():
                tournament = self._build(director)
                build_pairs_demo(director)  # the pairs event beside it (issue 17)
            elapsed = time.perf_counter() - started
            self.stdout.write(self.style.SUCCESS(f"Created {NAME!r} in {elapsed:.1f} s."))
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
        ts, bs = tournament_services, brackets_services
        tournament = ts.tournament_create(
            actor=director, name=NAME, slug=SLUG, venue="Main Hall", ruleset_preset="wsod"
        )
        tournament = ts.tournament_update(
            tournament=tournament,
            actor=director,
            data={"status": Tournament.Status.REGISTRATION},
        )
        for name, nickname, country, club, rating in PLAYERS:
            player = ts.player_create(
                actor=director,
                name=name,
                nickname=nickname,
                country=country,
                club=club,
                rating=rating,
            )
            ts.entry_create(tournament=tournament, actor=director, player=player)
        ts.entries_check_in(tournament=tournament, actor=director)  # one log line, as the page
        for number, (username, display) in enumerate(REFEREES, start=1):
            ts.table_create(tournament=tournament, actor=director, number=number)
            role = ts.referee_create(
                tournament=tournament, actor=director, username=username, display_name=display
            )
            self.issued[role.user.pk] = ts.referee_token_issue(
                tournament=tournament, actor=director, user=role.user, label=f"Table {number}"
            )
        tournament = ts.tournament_update(
            tournament=tournament, actor=director, data={"status": Tournament.Status.RUNNING}
        )
        qualifying = bs.stage_create(
            tournament=tournament,
            actor=director,
            name="Qualifying",
            kind=Stage.Kind.QUALIFYING,
            swiss_rounds=QUALIFYING_ROUNDS,
            cut_size=CUT,
            rng_seed=SEED,
            round_time_limit=60,
            # The demo is a live event that runs itself (round 2 below, the bots of
            # `make demo-live`): each round follows the last at once. A stage created on
            # the pages starts with this off (a preview before every round).
            auto_advance=True,
        )
        bs.stage_create(
            tournament=tournament,
            actor=director,
            name="Knockout",
            kind=Stage.Kind.KNOCKOUT,
            advance_per_table=2,
            final_table_size=4,
            rng_seed=SEED + 1,
            auto_advance=True,
        )
        bs.stage_seed(stage=qualifying, actor=director, method="rating")
        first = bs.round_publish(stage=qualifying, actor=director, expected_number=1)
        # Table 1 is the feature table: its hands go in move by move and spectators can replay
        # them (issue 15).
        table_feature_set(match_id=round_tables(first)[1].pk, actor=director, feature=True)
        play_round(first, base_seed=SEED)
        # The round's last match queues its advance after commit; run it now (idempotent: the
        # queued task finds it done) so round 2 is published inside this transaction.
        bs.round_advance(round_id=first.pk)
        second = Round.objects.get(stage=qualifying, number=2)
        self._play_round_2(second, director)
        return tournament

    def _play_round_2(self, rnd: Round, director: Any) -> None:
        tables = round_tables(rnd)
        for table_number, match in tables.items():
            hands = ROUND_2_PLAN.get(table_number)
            rng = random.Random(table_seed(SEED, rnd, table_number, 1))
            bot = MatchBot(match, match.referee, rng)
            bot.start()  # every table of the round has started, table 7 without a hand yet
            bot.play(hands)
        # Time is called: table 8 is placed by T3, and the director keeps the other open
        # tables for a sudden-death hand (T3), so the demo shows both; each of those tables
        # ends with its next hand won (recorded by its referee, or by simulate_event's bots).
        timed = tables.get(TIME_CALLED_TABLE)
        if timed is None:
            return
        keep = [
            m.pk
            for n, m in round_tables(rnd).items()
            if n != TIME_CALLED_TABLE and m.status in (Match.Status.SCHEDULED, "in_progress")
        ]
        brackets_services.round_call_time(
            round=rnd,
            actor=director,
            reason="Table 8 over the hour (demo)",
            sudden_death=keep,
        )

    # -- printing ---------------------------------------------------------------------------

    def _print_links(self, tournament: Tournament, director: Any) -> None:
        site = settings.SITE_URL.rstrip("/")
        lines = [
            "",
            "Demo ready: a championship in progress (qualifying round 2 in play).",
            f"  Site:                {site}/",
            f"  Spectators:          {site}{reverse('live:home', args=[SLUG])}",
            f"  Pairs event:         {site}{reverse('live:home', args=[PAIRS_SLUG])}"
            " (partnerships, T9)",
            f"  Director dashboard:  {site}{reverse('scoring:director-dashboard', args=[SLUG])}"
            "  (user: director, password: director)",
            f"  Admin:               {site}{reverse('admin:index')}",
            f"  API docs:            {site}{reverse('api-docs')}",
            "  Keep it playing:     python manage.py simulate_event --delay 3",
            "  Referee links (private; open one on a phone):",
        ]
        current = (
            Round.objects.filter(stage__tournament=tournament)
            .select_related("stage")
            .order_by("-stage__number", "-number")
            .first()
        )
        matches: dict[int, Match] = {}
        if current is not None:
            for link in (
                RoundMatch.objects.filter(round=current)
                .select_related("match__referee")
                .order_by("table_number", "match_id")
            ):
                matches[link.table_number] = link.match
        for table_number, match in sorted(matches.items()):
            if match.referee is None:
                continue
            token = self._token_for(tournament, director, match.referee)
            # The key rides in the fragment: it never reaches a server log (docs/security.md).
            url = reverse("tournament:referee-link") + f"#{token.key}"  # type: ignore[attr-defined]
            state = match.get_status_display().lower()
            if match.end_reason == Match.EndReason.TIME:
                state = "ended by time, T3"
            if match.hands_count:
                state += f", {match.hands_count} hands, scores {'-'.join(map(str, match.scores))}"
            else:
                state += ", no hand yet"
            if match.sudden_death and match.status != Match.Status.FINISHED:
                state += "; sudden death: the next hand won ends it (T3)"
            lines.append(f"    Table {table_number} ({state}): {site}{url}")
        self.stdout.write("\n".join(lines) + "\n")

    def _token_for(self, tournament: Tournament, director: Any, referee: Any) -> RefereeToken:
        """The referee's link: the one this run issued, else their newest active token if its
        key can be read back, else a new one (``referee_token_issue``, whatever the credential
        design behind it)."""
        token = self.issued.get(referee.pk) or (
            RefereeToken.objects.filter(
                role__tournament=tournament,
                role__user=referee,
                role__role=TournamentRole.Role.REFEREE,
                revoked_at__isnull=True,
            )
            .order_by("-created_at")
            .first()
        )
        if token is None or not getattr(token, "key", None):
            token = tournament_services.referee_token_issue(
                tournament=tournament, actor=director, user=referee, label="demo"
            )
        return token


__all__ = ["CUT", "NAME", "PLAYERS", "SLUG", "Command"]
