"""Play a tournament with seeded bots through the real services (``simulate_event``).

Two uses (README, "Simulating an event"):

* keep the demo live: ``manage.py simulate_event --delay 3`` plays one hand at a time on every
  open table of ``demo-open`` (round-robin over the tables), a few seconds apart, until a
  champion is crowned; rounds and stages advance through the same services and task as in
  production. On the embedded default the channel layer lives in one process, so add
  ``--serve 127.0.0.1:8000`` to run the development server in the same process and see each
  hand pushed to the spectator pages at once (with Redis any process will do);
* simulate a whole event from registration to champion under any preset (the one-match CLI,
  ``python -m scoring.engine simulate``, extended to a tournament):
  ``manage.py simulate_event --new --preset block --players 24 --seed 7 --until champion``.

Every hand is dealt and played by the rules engine's simulator from a seed made of the stage,
round, table and hand numbers, and recorded with ``scoring.services.hand_record`` by the table's
referee (the director where a match has none): what the API enforces, the bots obey.
"""

from __future__ import annotations

import math
import os
import random
import threading
import time
from argparse import ArgumentParser
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import close_old_connections, connection

from brackets import services as brackets_services
from brackets.models import Round, RoundMatch, Stage
from brackets.selectors import tournament_placings
from brackets.selectors.pairs import pairs_placings
from brackets.simulation import OPEN, MatchBot, current_round, table_seed
from scoring.engine.__main__ import parse_override
from scoring.engine.rules import PRESETS
from scoring.engine.simulate import BOTS
from scoring.models import Match
from tournament import services as tournament_services
from tournament.models import Tournament, TournamentRole
from tournament.partnerships import is_pairs_event

UNTIL = ("champion", "stage", "round")


@dataclass
class Progress:
    hands: int = 0
    rounds_done: int = 0
    stages_done: int = 0


class Command(BaseCommand):
    help = (
        "Play a tournament hand by hand with seeded bots through the services: keep the demo "
        "live, or simulate a whole event (--new) under any preset until a champion."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--tournament", default="demo-open", help="slug to play on")
        parser.add_argument(
            "--new", action="store_true", help="create a new event and play it from registration"
        )
        parser.add_argument("--preset", default="wsod", choices=sorted(PRESETS))
        parser.add_argument(
            "--set",
            dest="overrides",
            action="append",
            default=[],
            type=parse_override,
            metavar="KEY=VALUE",
            help="ruleset override for --new (repeatable), e.g. --set target=3",
        )
        parser.add_argument("--players", type=int, default=16, help="players for --new")
        parser.add_argument("--seed", type=int, default=1, help="every seat and hand follows it")
        parser.add_argument("--until", choices=UNTIL, default="champion")
        parser.add_argument("--delay", type=float, default=0.0, help="seconds between hands")
        parser.add_argument("--hands", type=int, default=None, help="stop after this many hands")
        parser.add_argument("--bot", choices=sorted(BOTS), default="heuristic")
        parser.add_argument(
            "--serve",
            metavar="ADDR:PORT",
            default=None,
            help="also run the development server in this process (live pushes on the "
            "embedded default's in-memory channel layer)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["new"]:
            tournament = self._create(options)
        else:
            found = Tournament.objects.filter(slug=options["tournament"]).first()
            if found is None:
                raise CommandError(
                    f"No tournament {options['tournament']!r}: run `manage.py demo_load` "
                    "first, or pass --new."
                )
            tournament = found
        player = Player(self, tournament, options)
        if options["serve"]:
            self._serve(player, options["serve"])
            return
        player.run()

    # -- a new event ------------------------------------------------------------------------

    def _create(self, options: dict[str, Any]) -> Tournament:
        n, seed = options["players"], options["seed"]
        if n < 2:
            raise CommandError("--players must be at least 2.")
        overrides = dict(options["overrides"])
        user_model = get_user_model()
        preset = str(options["preset"]).replace("_", "-")  # a slug has no underscore
        slug = f"sim-{preset}-{n}-{seed}"
        if Tournament.objects.filter(slug=slug).exists():
            raise CommandError(f"{slug!r} exists; pick another --seed.")
        director = user_model.objects.filter(username=f"{slug}-director").first()
        if director is None:
            # No password (it never signs in), no staff flag: the permission to create
            # tournaments is what creating one takes (docs/security.md).
            director = user_model.objects.create_user(f"{slug}-director", password=None)
            director.user_permissions.add(
                Permission.objects.get(
                    content_type__app_label="tournament", codename="add_tournament"
                )
            )
            director = user_model.objects.get(pk=director.pk)  # no stale permission cache
        ts, bs = tournament_services, brackets_services
        t = ts.tournament_create(
            actor=director,
            name=f"Simulated {options['preset']} event ({n} players, seed {seed})",
            slug=slug,
            ruleset_preset=options["preset"],
            ruleset_overrides=overrides or None,
        )
        t = ts.tournament_update(
            tournament=t, actor=director, data={"status": Tournament.Status.REGISTRATION}
        )
        rng = random.Random(seed)
        for i in range(n):
            player = ts.player_create(
                actor=director,
                name=f"Player {i + 1:03d}",
                club=f"Club {i % 8 + 1}",
                rating=2400 - rng.randrange(900),
            )
            ts.entry_create(tournament=t, actor=director, player=player)
        ts.entries_check_in(tournament=t, actor=director)
        for k in range(max(1, math.ceil(n / 4))):
            ts.referee_create(tournament=t, actor=director, username=f"{slug}-ref{k + 1}")
        t = ts.tournament_update(
            tournament=t, actor=director, data={"status": Tournament.Status.RUNNING}
        )
        # Rounds follow each other as soon as the last match ends, as in an event whose
        # director chose it (the stages' default is off: a preview before each round).
        knockout: dict[str, Any] = {
            "advance_per_table": 2,
            "rng_seed": seed + 1,
            "auto_advance": True,
        }
        if n > 4:
            cut = 8 if n >= 16 else 4
            first = bs.stage_create(
                tournament=t,
                actor=director,
                name="Qualifying",
                kind=Stage.Kind.QUALIFYING,
                swiss_rounds=max(2, min(5, math.ceil(math.log2(n / 2)))),
                cut_size=cut,
                rng_seed=seed,
                auto_advance=True,
            )
            bs.stage_create(
                tournament=t, actor=director, name="Knockout", kind="knockout", **knockout
            )
        else:
            first = bs.stage_create(
                tournament=t, actor=director, name="Final", kind="knockout", **knockout
            )
        bs.stage_seed(stage=first, actor=director, method="rating")
        bs.round_publish(stage=first, actor=director, expected_number=1)
        self.stdout.write(f"Created {t.name!r} ({slug}); director user {director.username}.")
        return t

    # -- serving ----------------------------------------------------------------------------

    def _serve(self, player: Player, address: str) -> None:
        """Run the development server here and play in a thread on the server's event loop, the
        way a view runs (``sync_to_async``), so pushes reach this process's sockets."""
        from asgiref.sync import sync_to_async

        def play_on_server_loop() -> None:
            import asyncio

            from twisted.internet import reactor

            time.sleep(2.0)  # let the server start
            loop = reactor._asyncioEventloop
            step = sync_to_async(player.step, thread_sensitive=False)
            while True:
                done = asyncio.run_coroutine_threadsafe(step(), loop).result()
                if done:
                    player.summary()
                    return
                time.sleep(player.delay)

        threading.Thread(target=play_on_server_loop, name="simulate_event", daemon=True).start()
        call_command("runserver", address, use_reloader=False)
        # The server has stopped (Ctrl-C): a hand in flight may wait forever for the stopped
        # loop in an executor thread that interpreter shutdown would join; leave at once.
        self.stdout.flush()
        os._exit(0)


class Player:
    """Plays the event one hand at a time, each open table in turn."""

    def __init__(self, command: Command, tournament: Tournament, options: dict[str, Any]):
        self.out = command.stdout
        self.tournament_id = tournament.pk
        self.seed: int = options["seed"] if options["new"] else 2026
        self.until: str = options["until"]
        self.delay: float = options["delay"]
        self.max_hands: int | None = options["hands"]
        self.bot: str = options["bot"]
        self.progress = Progress()
        self.turn = 0
        self.start_round: int | None = None
        self.start_stage: int | None = None
        role = (
            TournamentRole.objects.filter(
                tournament_id=tournament.pk, role=TournamentRole.Role.DIRECTOR
            )
            .select_related("user")
            .order_by("pk")
            .first()
        )
        # A tournament a superuser created has no director row (the demo's): its creator
        # directs it as every superuser directs every tournament.
        self.director: Any = role.user if role is not None else tournament.created_by

    def run(self) -> None:
        while not self.step():
            if self.delay:
                time.sleep(self.delay)
        self.summary()

    def step(self) -> bool:
        """Play one hand (or advance a finished round); True when there is nothing left to do."""
        if not connection.in_atomic_block:  # a long run: drop a stale connection, as a request does
            close_old_connections()
        if self.max_hands is not None and self.progress.hands >= self.max_hands:
            return True
        t = Tournament.objects.get(pk=self.tournament_id)
        if t.status == Tournament.Status.FINISHED:
            return True
        rnd = current_round(self.tournament_id)
        if rnd is None:
            return not self._advance_idle()
        if self.start_round is None:
            self.start_round, self.start_stage = rnd.pk, rnd.stage_id
        if self.until == "round" and rnd.pk != self.start_round:
            return True
        if self.until == "stage" and rnd.stage_id != self.start_stage:
            return True
        tables = self._open_tables(rnd)
        if not tables:
            actor = self.director
            result = brackets_services.round_advance(round_id=rnd.pk, actor=actor)
            self.out.write(f"{rnd}: {result.outcome} {result.message}".rstrip())
            self.progress.rounds_done += 1
            return result.outcome not in ("published", "stage_finished", "already_done")
        table_number, match = tables[self.turn % len(tables)]
        self.turn += 1
        actor = match.referee or self.director
        bot = MatchBot(match, actor, random.Random(), bot=self.bot)
        bot.start()
        assert bot.state is not None
        bot.rng = random.Random(table_seed(self.seed, rnd, table_number, 100 + bot.state.hands))
        if bot.play_hand():
            self.progress.hands += 1
            m = bot.match
            scores = "-".join(map(str, m.scores))
            end = f" ({m.get_status_display().lower()})" if m.status not in OPEN else ""
            where = f"{rnd.stage.name} round {rnd.number} table {table_number}"
            self.out.write(f"{where}: hand {m.hands_count}, {scores}{end}")
        return False

    def _open_tables(self, rnd: Round) -> list[tuple[int, Match]]:
        links = (
            RoundMatch.objects.filter(round=rnd, match__status__in=OPEN)
            .select_related("match__referee", "match__tournament")
            .order_by("table_number", "match_id")
        )
        return [(link.table_number, link.match) for link in links]

    def _advance_idle(self) -> bool:
        """No round in play: let the director advance a stage that waits (auto-advance off).
        Returns True if something was published."""
        stage = (
            Stage.objects.filter(tournament_id=self.tournament_id)
            .exclude(status=Stage.Status.FINISHED)
            .order_by("number")
            .first()
        )
        if stage is None or self.director is None:
            return False
        last = stage.rounds.order_by("-number").first()
        if last is not None and last.advanced_at is None:
            brackets_services.round_advance(round_id=last.pk, actor=self.director)
            return True
        try:
            brackets_services.round_publish(stage=stage, actor=self.director)
        except Exception as exc:  # nothing to publish: the event cannot go on by itself
            self.out.write(f"Stopped: {exc}")
            return False
        return True

    def summary(self) -> None:
        t = Tournament.objects.get(pk=self.tournament_id)
        self.out.write(f"Played {self.progress.hands} hands; {t.name} is {t.status}.")
        if t.status != Tournament.Status.FINISHED:
            return
        if is_pairs_event(t):  # T9: a place is a partnership's, named once
            for pair in pairs_placings(tournament_id=t.pk)[:4]:
                self.out.write(f"  {pair.place}. {pair.label}")
            return
        for p in tournament_placings(tournament_id=t.pk)[:4]:
            self.out.write(f"  {p.place}. {p.name}")
