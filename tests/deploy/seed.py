"""Build the smoke test's tournament in the stack's database (run as a child process).

``python tests/deploy/seed.py <matches>`` with the stack's environment (production settings):
a running public tournament, one referee signed in (a session cookie, as after their link),
``matches`` started matches whose hands come from the engine's simulator (seeded). Prints one
JSON document: the slug, the referee's session cookie and each match's id and hand payloads.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main(n_matches: int) -> None:
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from scoring import services as ss
    from scoring.engine import Ruleset
    from scoring.engine.simulate import simulate_match
    from tournament import services as ts

    director = get_user_model().objects.create_superuser("smoke-director", "", "smoke")
    tournament = ts.tournament_create(
        actor=director, name="Smoke Open", slug="smoke-open", ruleset_preset="wsod"
    )
    tournament = ts.tournament_update(
        tournament=tournament, actor=director, data={"status": "running"}
    )
    ruleset = Ruleset.from_json(tournament.ruleset)
    role = ts.referee_create(tournament=tournament, actor=director, username="smoke-ref")
    entries = [
        ts.entry_create(
            tournament=tournament,
            actor=director,
            player=ts.player_create(actor=director, name=f"Smoke {p}", country="PR"),
        )
        for p in range(4)
    ]
    rng = random.Random(14)
    matches = []
    for m in range(n_matches):
        sim = simulate_match(ruleset, 4, rng.randrange(2**31))
        match = ss.match_create(
            tournament=tournament,
            actor=director,
            entries=entries[m % 4 :] + entries[: m % 4],
            referee=role.user,
            label=f"smoke {m}",
            lot_winner=sim.lot_winner,
        )
        ss.match_start(match_id=match.pk, actor=director)
        payloads = []
        for record in sim.records:
            body = record.to_dict()
            body.pop("sporting", None)
            payloads.append(body)
        matches.append({"id": match.pk, "payloads": payloads})
    # What the referee's phone does with the private link /ref/#<key>: the page's script posts
    # the key and the session then holds the credential (never a login of the account).
    token = ts.referee_token_issue(tournament=tournament, actor=director, user=role.user)
    client = Client(HTTP_HOST=settings.ALLOWED_HOSTS[0], enforce_csrf_checks=False)
    client.get("/ref/")
    exchanged = client.post("/ref/", {"key": token.key})
    assert exchanged.status_code == 200, exchanged.content
    session = client.cookies["sessionid"].value
    print(json.dumps({"slug": tournament.slug, "session": session, "matches": matches}))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
