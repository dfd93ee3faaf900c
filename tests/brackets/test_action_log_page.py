"""The director's action log speaks the director's language (QA: headlines showed raw codes
such as ``table_feature_on``, ``tournament.update``, ``referee_token.issue``, objects showed
as "tournament #1" or "table #1", and the Spanish page, its filter included, stayed English).

Every verb any service records has a label in both languages (the test reads the code, so a
new verb without a label fails here), and targets are named from the data."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from brackets.models import RoundMatch
from brackets.presenters.action_log import VERBS
from brackets.services import round_publish, stage_seed
from scoring.models import Match
from scoring.moves import table_feature_set
from scoring.services import match_result_override
from scoring.services.confirmations import RESOLUTIONS
from tests.brackets.factories_pages import director_client, tournament_with_stage
from tournament.models import Entry, RefereeToken, Table
from tournament.services import referee_create, referee_token_issue, tournament_update

pytestmark = pytest.mark.django_db

APPS = ("archive", "brackets", "circuits", "core", "live", "notify", "ratings", "scoring")
APPS += ("tournament",)
LITERAL = r'f?"([^"]+)"'
# verb="a.b", verb="a" if x else "b", verb=f"entry.{status}"; and the system's own marks
# (tournament.services.tournaments._mark(..., "tournament.running")).
VERB_ARG = re.compile(rf"\bverb\s*=\s*{LITERAL}(?:\s+if\s+[\w.]+\s+else\s+{LITERAL})?")
MARK_CALL = re.compile(rf"_mark\(\s*[^)]*?,\s*{LITERAL},?\s*\)", re.S)
EXPANSIONS = {
    "entry.{status}": [s.value for s in Entry.Status if s != Entry.Status.ACTIVE],
    "result.dispute.{decision}": list(RESOLUTIONS),
}


def recorded_verbs() -> set[str]:
    """Every verb a service can record, read from the source."""
    found: set[str] = set()
    root = Path(settings.BASE_DIR)
    for app in APPS:
        for path in (root / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            for match in VERB_ARG.finditer(text):
                found.update(v for v in match.groups() if v)
            for match in MARK_CALL.finditer(text):
                found.add(match.group(1))
    verbs: set[str] = set()
    for verb in found:
        if "{" in verb:
            assert verb in EXPANSIONS, f"a new formatted verb {verb!r}: list its values here"
            verbs.update(verb.split("{")[0] + v for v in EXPANSIONS[verb])
        else:
            verbs.add(verb)
    return verbs


def test_every_recorded_verb_has_a_label_in_both_languages() -> None:
    verbs = recorded_verbs()
    # the scan finds the verbs of every layer
    assert {"tournament.update", "table_feature_on", "referee_token.issue"} <= verbs
    assert {"tournament.running", "entry.withdrawn", "result.dispute.uphold"} <= verbs
    assert {"webhook.create", "player.merge", "partnership.substitute"} <= verbs
    assert sorted(verbs - set(VERBS)) == []
    with translation.override("en"):
        english = {verb: str(label) for verb, label in VERBS.items()}
    with translation.override("es"):
        spanish = {verb: str(label) for verb, label in VERBS.items()}
    assert [verb for verb in VERBS if spanish[verb] == english[verb]] == []


def _event() -> tuple[Any, Any, dict[str, Any]]:
    """A tournament whose log holds a referee, a credential, a settings change, a seeding, a
    round, a feature table and a director's result."""
    tournament, director, stage = tournament_with_stage(8)
    role = referee_create(
        tournament=tournament, actor=director, username="ref-ana", display_name="Ana Ruiz"
    )
    token = referee_token_issue(tournament=tournament, actor=director, user=role.user)
    tournament_update(tournament=tournament, actor=director, data={"confirmation": "off"})
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    link = RoundMatch.objects.filter(round=rnd).order_by("table_number").first()
    assert link is not None
    match = Match.objects.get(pk=link.match_id)
    table_feature_set(match_id=match.pk, actor=director, feature=True)
    match_result_override(
        match_id=match.pk, actor=director, scores=[6, 2, 1, 0], reason="score sheet"
    )
    table = Table.objects.get(pk=match.table_id)
    facts = {
        "prefix": RefereeToken.objects.get(pk=token.pk).prefix,
        "table": table.number,
        "round_table": link.table_number,
        "tournament": tournament.name,
    }
    return tournament, director, facts


@pytest.mark.parametrize(
    ("language", "headlines", "targets"),
    [
        (
            "es",
            [
                "Árbitro creado",
                "Credencial de árbitro emitida",
                "Ajustes del torneo cambiados",
                "Fase sembrada",
                "Ronda publicada",
                "Mesa destacada activada",
                "Resultado fijado por el director",
            ],
            [
                "árbitro Ana Ruiz",
                "credencial {prefix} de Ana Ruiz",
                "{tournament}",
                "fase 1, Qualifying",
                "Qualifying, ronda 1",
                "mesa {table}",
                "Qualifying, ronda 1 · mesa {round_table}",
            ],
        ),
        (
            "en",
            [
                "Referee created",
                "Referee credential issued",
                "Tournament settings changed",
                "Stage seeded",
                "Round published",
                "Feature table on",
                "Result set by the director",
            ],
            [
                "referee Ana Ruiz",
                "credential {prefix} of Ana Ruiz",
                "{tournament}",
                "stage 1, Qualifying",
                "Qualifying, round 1",
                "table {table}",
                "Qualifying, round 1 · table {round_table}",
            ],
        ),
    ],
)
def test_the_log_names_actions_and_their_objects_in_the_page_language(
    language: str, headlines: list[str], targets: list[str]
) -> None:
    tournament, director, facts = _event()
    client = director_client(director)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    response = client.get(reverse("brackets:log", args=[tournament.slug]))
    rows = response.context["rows"]
    assert [r.what for r in rows if r.what == r.log.verb] == []  # no raw code as a headline
    whats = {r.what for r in rows}
    for headline in headlines:
        assert headline in whats, headline
    names = {r.target for r in rows}
    for target in targets:
        assert target.format(**facts) in names, target
    html = response.content.decode()
    for raw in ("tournament #", "table #", "refereetoken #", "tournamentrole #", "match #"):
        assert raw not in html
    select = re.search(r'<select id="verb".*?</select>', html, re.S)
    assert select is not None
    options = dict(re.findall(r'<option value="([^"]+)"[^>]*>([^<]+)</option>', select.group(0)))
    assert set(options) == {r.log.verb for r in rows}
    assert [verb for verb, label in options.items() if label == verb] == []
    if language == "en":
        assert options["table_feature_on"] == "Feature table on"
    if language == "es":
        assert options["round.publish"] == "Ronda publicada"
        assert options["table_feature_on"] == "Mesa destacada activada"


@pytest.mark.parametrize(
    ("language", "hand", "by_hand", "csv"),
    [
        (
            "es",
            "mano 1 de Qualifying, ronda 1 · mesa {table}",
            "Añadido a mano",
            "Importación CSV de club.csv",
        ),
        (
            "en",
            "hand 1 of Qualifying, round 1 · table {table}",
            "Added by hand",
            "CSV import of club.csv",
        ),
    ],
)
def test_an_undone_hand_and_the_player_imports_read_in_the_page_language(
    language: str, hand: str, by_hand: str, csv: str
) -> None:
    """An undone hand is named by its number at its table (never its row id); the fixed
    words the import service records are shown in the director's language."""
    from brackets.csv_import import PlayerRow
    from brackets.services.imports import players_import_csv
    from scoring.engine import Ruleset
    from scoring.engine.simulate import simulate_match
    from scoring.services import hand_record, hand_void_last

    tournament, director, stage = tournament_with_stage(8)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    link = RoundMatch.objects.filter(round=rnd).order_by("table_number").first()
    assert link is not None
    match = Match.objects.get(pk=link.match_id)
    record = simulate_match(Ruleset.from_json(tournament.ruleset), match.n_players, 5).records[0]
    hand_record(match_id=match.pk, actor=director, expected_number=1, payload=record.to_dict())
    hand_void_last(match_id=match.pk, actor=director, reason="wrong counts")
    players_import_csv(
        tournament=tournament, actor=director, rows=[PlayerRow(2, "Zoe Nieves")], by_hand=True
    )
    players_import_csv(
        tournament=tournament, actor=director, rows=[PlayerRow(2, "Yara Cruz")], source="club.csv"
    )
    client = director_client(director)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    rows = client.get(reverse("brackets:log", args=[tournament.slug])).context["rows"]
    voided = next(r for r in rows if r.log.verb == "hand.void")
    assert voided.target == hand.format(table=link.table_number)
    assert voided.reason == "wrong counts"  # the director's own words, as written
    reasons = {r.log.verb: r.reason for r in rows if r.log.verb.startswith("players.")}
    assert reasons == {"players.add": by_hand, "players.import": csv}


def test_service_prefixes_of_reasons_read_in_the_page_language() -> None:
    """ "dispute: ..." (a corrected dispute's undo) and "Time called (T3). ..." (the matches a
    call of time ends) are stored as written; pages show the prefix in the reader's words."""
    from core.reasons import reason_text

    with translation.override("es"):
        assert reason_text("dispute: checked at the table") == "impugnación: checked at the table"
        assert reason_text("Time called (T3). Round time is up") == (
            "Tiempo cumplido (T3). Round time is up"
        )
        assert reason_text("Time called (T3).") == "Tiempo cumplido (T3)."
        assert reason_text("my own words") == "my own words"
    with translation.override("en"):
        assert reason_text("dispute: x") == "dispute: x"
