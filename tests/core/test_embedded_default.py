"""The embedded default (``make demo``: SQLite, in-memory channel layer, eager Celery) runs the
referees' hot path, whose SQL is written per database (PostgreSQL statements for production,
portable ones for SQLite). Everything else in the suite runs on PostgreSQL, so this test
starts a separate process with no ``DATABASE_URL``/``REDIS_URL``, exactly as ``make demo``
does, on a SQLite file of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BASE = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import json
import django
django.setup()
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from rest_framework.test import APIClient

assert connection.vendor == "sqlite", connection.vendor
assert settings.CHANNEL_LAYERS["default"]["BACKEND"].endswith("InMemoryChannelLayer")
call_command("migrate", verbosity=0)
call_command("demo_load", verbosity=0)

from scoring.engine import Ruleset
from scoring.engine.match import match_fold
from scoring.engine.simulate import simulate_match
from scoring.models import Hand, Match, Seat
from scoring.selectors import match_hand_records, match_state

for m in Match.objects.exclude(status="scheduled"):
    state = match_fold(Ruleset.from_json(m.ruleset), m.n_players,
                       match_hand_records(match_id=m.pk), lot_winner=m.lot_winner)
    assert list(m.scores) == list(state.scores), (m.pk, m.scores, state.scores)

# A fresh match recorded through the API: snapshot path, replay, stale number, match end.
# A stand-alone match of the demo's individual event, created and started through the services
# (the demo's own open tables are kept for a sudden-death hand, T3: their first hand won ends
# them).
from django.contrib.auth import get_user_model
from scoring import services as scoring_services
from tournament.models import Entry, Tournament
open_event = Tournament.objects.get(slug="demo-open")
director = get_user_model().objects.get(username="director")
referee = Match.objects.filter(tournament=open_event).exclude(referee=None).first().referee
m = scoring_services.match_create(
    tournament=open_event, actor=director, referee=referee, label="embedded check",
    entries=list(Entry.objects.filter(tournament=open_event).order_by("pk")[:4]),
)
scoring_services.match_start(match_id=m.pk, actor=director)
m.refresh_from_db()
assert m.status == "in_progress" and m.hands_count == 0
api = APIClient(HTTP_HOST="localhost")
api.force_authenticate(m.referee)
sim = simulate_match(Ruleset.from_json(m.ruleset), m.n_players, 3)
last = None
for n, record in enumerate(sim.records, start=1):
    body = {"number": n, **record.to_dict()}
    body.pop("sporting", None)
    r = api.post(f"/api/matches/{m.pk}/hands/", data=json.dumps(body),
                 content_type="application/json", headers={"Idempotency-Key": f"k{n}"})
    assert r.status_code == 201, r.content
    again = api.post(f"/api/matches/{m.pk}/hands/", data=json.dumps(body),
                     content_type="application/json", headers={"Idempotency-Key": f"k{n}"})
    assert again.status_code == 201 and again.json() == r.json(), again.content
    kept = Hand.objects.get(idempotency_key=f"k{n}")
    answer = r.json()
    assert kept.pk == answer["hand"]["id"]
    assert kept.tournament_version == answer["tournament_version"]
    last = r.json()
first = {"number": 1, **sim.records[0].to_dict()}
stale = api.post(f"/api/matches/{m.pk}/hands/", data=json.dumps(first),
                 content_type="application/json")
assert stale.status_code in (400, 409), stale.content
m.refresh_from_db()
assert m.status == "finished", m.status
assert m.scores == list(sim.scored[-1].scores_after) == last["match"]["scores"]
assert m.scores == list(match_state(match=m).scores)
seats = Seat.objects.filter(match=m).order_by("seat")
assert list(seats.values_list("points", flat=True)) == m.scores
from scoring.engine.placing import shared_placings_valid
placings = list(seats.values_list("placing", flat=True))
assert shared_placings_valid(placings), placings  # competition ranks (T3)
assert placings[m.winner_seat] == 1 and placings.count(1) == 1
assert Hand.objects.filter(match=m).count() == len(sim.records)
print("EMBEDDED-OK")
"""


def test_the_embedded_default_records_hands_on_sqlite(tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")
    }
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.local"
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'demo.sqlite3'}"
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=BASE,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[:3000]
    assert "EMBEDDED-OK" in proc.stdout


def _local_database(**env: str) -> str:
    """``config.settings.local``'s default database, as ``make demo``/``runserver`` read it."""
    clean = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json; from config.settings import local; "
            "d = local.DATABASES['default']; "
            "print(json.dumps([d['ENGINE'], d['CONN_MAX_AGE'], d.get('OPTIONS', {})]))",
        ],
        cwd=BASE,
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings.local", **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def test_the_demo_on_postgresql_closes_each_requests_connection() -> None:
    """runserver answers every request on a thread of its own: a persistent connection is
    never reused there, and they piled up (50+ idle after minutes of play on PostgreSQL)."""
    engine_age_options = _local_database(DATABASE_URL="postgres://postgres@127.0.0.1:5432/x")
    assert engine_age_options.startswith('["django.db.backends.postgresql", 0,')
    kept = _local_database(
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/x", DATABASE_CONN_MAX_AGE="30"
    )
    assert kept.startswith('["django.db.backends.postgresql", 30,')


def test_the_demo_on_sqlite_queues_its_writers() -> None:
    """The embedded default's SQLite options (config.settings.base.embedded_sqlite)."""
    sqlite = _local_database()
    assert sqlite.startswith('["django.db.backends.sqlite3"')
    assert '"transaction_mode": "IMMEDIATE"' in sqlite
    assert '"timeout": 20' in sqlite
