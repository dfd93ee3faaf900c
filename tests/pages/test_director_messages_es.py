"""Director page messages follow the page's language: a director browsing in Spanish reads the
confirmations of seeding, publishing, the clock and calling time (T3) in Spanish, with the
numbers filled in; the same POSTs in English keep their English text."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from archive.services import FORMAT_VERSION, archive_import
from brackets.models import Round
from brackets.services import stage_entry_withdraw, stage_seed, stage_update
from brackets.services._common import stage_lock
from core.exceptions import ApplicationError
from scoring.services import hand_void_last, match_result_override, match_start
from tests.archive.helpers import exported_then_emptied, rewrite_archive
from tests.brackets.conftest import make_tournament
from tests.brackets.factories_pages import director_client, tournament_with_stage
from tests.factories import (
    EntryFactory,
    TournamentFactory,
    director_of,
    match_in_progress,
    scheduled_match,
)
from tournament.models import Entry, Tournament
from tournament.services import (
    referee_create,
    referee_token_issue,
    referee_token_resolve,
    table_create,
)

pytestmark = pytest.mark.django_db


def url(name: str, *args: Any) -> str:
    return reverse(f"brackets:{name}", args=args)


def messages_after(client: Client, response: Any) -> list[str]:
    assert response.status_code == 302, response.status_code
    page = client.get(response["Location"])
    return [str(m) for m in page.context["messages"]]


@pytest.mark.parametrize(
    ("language", "seeded", "published", "clock", "time_called"),
    [
        (
            "es",
            "8 jugadores sembrados: por rating.",
            "La ronda 1 de {stage} está publicada.",
            "Reloj en marcha: 25 minutos.",
            "Tiempo cumplido (T3): 2 partidas terminaron por tiempo.",
        ),
        (
            "en",
            "Seeded 8 players by rating.",
            "Round 1 of {stage} is published.",
            "Clock started: 25 minutes.",
            "Time called (T3): 2 matches ended on time.",
        ),
    ],
)
def test_round_messages_are_in_the_directors_language(
    language: str, seeded: str, published: str, clock: str, time_called: str
) -> None:
    tournament, director, stage = tournament_with_stage(8, time_limit=30)
    client = director_client(director)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    slug = tournament.slug

    response = client.post(url("seed", slug, stage.pk), {"method": "rating"})
    assert messages_after(client, response) == [seeded]

    response = client.post(url("publish", slug, stage.pk), {"expected_number": "1"})
    assert messages_after(client, response) == [published.format(stage=stage.name)]
    rnd = Round.objects.get(stage=stage, number=1)

    response = client.post(url("clock", slug, rnd.pk), {"minutes": "25"})
    assert messages_after(client, response) == [clock]

    response = client.post(url("call-time", slug, rnd.pk), {"reason": "late", "confirm": "on"})
    assert messages_after(client, response) == [time_called]


@pytest.mark.parametrize(
    ("language", "plan", "stale", "in_play"),
    [
        (
            "es",
            "Ronda 1 de ",
            "La próxima ronda es la 1, no la 5: vuelve a ver la vista previa.",
            "La ronda 1 está en juego: se cierra cuando termina su última partida.",
        ),
        (
            "en",
            "Round 1 of ",
            "The next round is round 1, not 5: preview again.",
            "Round 1 is in play: it closes when its last match ends.",
        ),
    ],
)
def test_the_round_plan_and_its_refusals_are_in_the_directors_language(
    language: str, plan: str, stale: str, in_play: str
) -> None:
    """The preview's plan line and the service's refusals come from the services in the
    request's language (brackets.services.planning, rounds), numbers filled in."""
    tournament, director, stage = tournament_with_stage(8, time_limit=30)
    client = director_client(director)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    slug = tournament.slug
    client.post(url("seed", slug, stage.pk), {"method": "rating"})

    preview = client.get(url("preview", slug, stage.pk)).content.decode()
    assert plan in preview

    response = client.post(url("publish", slug, stage.pk), {"expected_number": "5"})
    assert stale in messages_after(client, response)[0]
    assert not Round.objects.filter(stage=stage).exists()

    client.post(url("publish", slug, stage.pk), {"expected_number": "1"})
    preview = client.get(url("preview", slug, stage.pk)).content.decode()
    assert in_play in preview


@pytest.mark.parametrize(
    ("language", "expected", "absent"),
    [
        (
            "es",
            {
                "stages": [
                    "Clasificatoria (estilo suizo)",
                    "En marcha",
                    "Publicada (en juego)",
                    "Ronda clasificatoria 1 en juego: 0 de 2 terminadas.",
                ],
                "round": ["Publicada (en juego)", "Programada"],
                "bracket": ["Publicada (en juego)", "Clasificatoria (estilo suizo)"],
                "seeding": ["En marcha"],
                "lifecycle": ["En marcha", "Terminado"],
            },
            ["Published (in play)", "Scheduled", "Running", "Qualifying (Swiss-style)"],
        ),
        (
            "en",
            {
                "stages": [
                    "Qualifying (Swiss-style)",
                    "Running",
                    "Published (in play)",
                    "Qualifying round 1 in play: 0 of 2 done.",
                ],
                "round": ["Published (in play)", "Scheduled"],
                "bracket": ["Published (in play)", "Qualifying (Swiss-style)"],
                "seeding": ["Running"],
                "lifecycle": ["Running", "Finished"],
            },
            ["Publicada (en juego)", "Programada", "En marcha"],
        ),
    ],
)
def test_statuses_and_kinds_are_shown_in_the_directors_language(
    language: str, expected: dict[str, list[str]], absent: list[str]
) -> None:
    """Choice labels (tournament, stage, round and match statuses, stage and round kinds) and
    the stage list's next-step hint are in the page's language (core.choice_labels)."""
    from html import unescape

    tournament, director, stage = tournament_with_stage(8)
    client = director_client(director)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    slug = tournament.slug
    client.post(url("seed", slug, stage.pk), {"method": "rating"})
    client.post(url("publish", slug, stage.pk), {"expected_number": "1"})
    rnd = Round.objects.get(stage=stage, number=1)
    pages = {
        "stages": url("stages", slug),
        "round": url("round", slug, rnd.pk),
        "bracket": url("bracket", slug),
        "seeding": url("seeding", slug, stage.pk),
        "lifecycle": reverse("tournament:lifecycle", args=[slug]),
    }
    for name, path in pages.items():
        response = client.get(path)
        assert response.status_code == 200, (name, response.status_code)
        html = unescape(response.content.decode())
        for text in expected[name]:
            assert text in html, (name, text)
        for text in absent:
            assert text not in html, (name, text)


# -- service refusals: translated at the source, values filled in --------------------------------


def refusal(call: Any, language: str) -> ApplicationError:
    """The error ``call()`` raises, with the messages built while ``language`` is active."""
    with translation.override(language), pytest.raises(ApplicationError) as exc:
        call()
    return exc.value


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "es",
            {
                "again": "La inscripción ya está en estado «retirado o descalificado (T7)».",
                "read_only": "number no se puede cambiar.",
                "no_stage": "No existe la fase 987654.",
            },
        ),
        (
            "en",
            {
                "again": "The entry is already withdrawn or disqualified (T7).",
                "read_only": "number cannot be changed.",
                "no_stage": "No stage 987654.",
            },
        ),
    ],
)
def test_bracket_refusals_are_in_the_directors_language(
    language: str, expected: dict[str, str]
) -> None:
    """brackets.services: the stage entry's status is shown by its label in the language."""
    tournament, director, stage = tournament_with_stage(8)
    stage_seed(stage=stage, actor=director, method="rating")
    entry = Entry.objects.filter(tournament=tournament).order_by("pk").first()
    assert entry is not None
    stage_entry_withdraw(stage=stage, actor=director, entry=entry, reason="ill")

    def withdraw_again() -> Any:
        return stage_entry_withdraw(stage=stage, actor=director, entry=entry, reason="ill")

    again = refusal(withdraw_again, language)
    assert (again.code, again.message) == ("entry_not_active", expected["again"])
    read_only = refusal(
        lambda: stage_update(stage=stage, actor=director, data={"number": 3}), language
    )
    assert (read_only.code, read_only.message) == ("read_only", expected["read_only"])
    no_stage = refusal(lambda: stage_lock(987654), language)
    assert (no_stage.code, no_stage.message) == ("not_found", expected["no_stage"])


@pytest.mark.parametrize(
    ("language", "table", "taken", "name", "not_running"),
    [
        (
            "es",
            "La mesa 3 ya existe.",
            "Ocupado.",
            "Este torneo ya tiene un árbitro llamado 'mesa-ana': elige otro nombre.",
            "{name} está en estado «terminado»: los enlaces de árbitro solo funcionan mientras "
            "el torneo está en marcha.",
        ),
        (
            "en",
            "Table 3 exists.",
            "Taken.",
            "This tournament already has a referee named 'mesa-ana': choose another name.",
            "{name} is finished: referee keys work only while it is running.",
        ),
    ],
)
def test_tournament_refusals_are_in_the_directors_language(
    language: str, table: str, taken: str, name: str, not_running: str
) -> None:
    """tournament.services: tables, referees and a referee key of a tournament not running."""
    tournament, director = make_tournament(0)
    table_create(tournament=tournament, actor=director, number=3)
    exc = refusal(lambda: table_create(tournament=tournament, actor=director, number=3), language)
    assert (exc.code, exc.message, exc.fields) == ("table_exists", table, {"number": [taken]})

    referee = referee_create(tournament=tournament, actor=director, username="mesa-ana").user
    exc = refusal(
        lambda: referee_create(tournament=tournament, actor=director, username="Mesa-Ana"),
        language,
    )
    assert (exc.code, exc.message, exc.fields) == ("username_taken", name, {"username": [name]})

    token = referee_token_issue(tournament=tournament, actor=director, user=referee)
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    exc = refusal(lambda: referee_token_resolve(key=token.key, client_ip="203.0.113.9"), language)
    assert exc.code == "tournament_not_running"
    assert exc.message == not_running.format(name=tournament.name)


@pytest.mark.parametrize(
    ("language", "undo", "start", "scores", "per_seat"),
    [
        (
            "es",
            "La partida está en estado «programada»; no hay nada que deshacer.",
            "La partida está en estado «en juego», no programada.",
            "scores debe tener 4 números enteros >= 0, uno por asiento.",
            "4 números enteros >= 0.",
        ),
        (
            "en",
            "The match is scheduled; there is nothing to undo.",
            "The match is in progress, not scheduled.",
            "scores must hold 4 integers >= 0, one per seat.",
            "4 integers >= 0.",
        ),
    ],
)
def test_scoring_refusals_are_in_the_directors_language(
    language: str, undo: str, start: str, scores: str, per_seat: str
) -> None:
    """scoring.services corrections and matches: the match status by its label, counts filled."""
    tournament = TournamentFactory()
    director = director_of(tournament)
    scheduled = scheduled_match(tournament)
    exc = refusal(
        lambda: hand_void_last(match_id=scheduled.pk, actor=director, reason="oops"), language
    )
    assert (exc.code, exc.message) == ("match_not_in_progress", undo)

    running = match_in_progress(tournament)
    exc = refusal(lambda: match_start(match_id=running.pk, actor=director), language)
    assert (exc.code, exc.message) == ("match_not_scheduled", start)

    exc = refusal(
        lambda: match_result_override(
            match_id=running.pk, actor=director, scores=[1, 2], reason="typo"
        ),
        language,
    )
    assert (exc.code, exc.message, exc.fields) == ("bad_scores", scores, {"scores": [per_seat]})


@pytest.mark.parametrize(
    ("language", "checksum", "rows", "version"),
    [
        (
            "es",
            "tournament_player.json no coincide con su suma de control del manifiesto.",
            "tournament_player.json tiene un número de filas distinto del que indica el "
            "manifiesto.",
            "La versión de formato de archivo 99 no es compatible (este sistema lee la "
            "versión {supported}).",
        ),
        (
            "en",
            "tournament_player.json does not match its checksum in the manifest.",
            "tournament_player.json has a different row count than the manifest says.",
            "Archive format version 99 is not supported (this system reads version {supported}).",
        ),
    ],
)
def test_archive_refusals_are_in_the_directors_language(
    language: str, checksum: str, rows: str, version: str
) -> None:
    """archive.services: a damaged or newer archive is refused naming the file or version."""
    tournament = TournamentFactory()
    EntryFactory(tournament=tournament)
    data = exported_then_emptied(tournament)

    def rewrite(change: dict[str, bytes]) -> bytes:
        return rewrite_archive(data, change)

    manifest = json.loads(zipfile.ZipFile(io.BytesIO(data)).read("manifest.json"))
    empty = b'{"rows": []}'
    tampered = rewrite({"tournament_player.json": empty})
    files = [
        {**f, "sha256": hashlib.sha256(empty).hexdigest()}
        if f["file"] == "tournament_player.json"
        else f
        for f in manifest["files"]
    ]
    short = rewrite(
        {
            "tournament_player.json": empty,
            "manifest.json": json.dumps({**manifest, "files": files}).encode(),
        }
    )
    newer = rewrite({"manifest.json": json.dumps({**manifest, "format_version": 99}).encode()})

    exc = refusal(lambda: archive_import(tampered), language)
    assert (exc.code, exc.message) == ("archive_corrupt", checksum)
    exc = refusal(lambda: archive_import(short), language)
    assert (exc.code, exc.message) == ("archive_corrupt", rows)
    exc = refusal(lambda: archive_import(newer), language)
    assert (exc.code, exc.message) == ("archive_version", version.format(supported=FORMAT_VERSION))


@pytest.mark.parametrize(
    ("language", "labels", "absent"),
    [
        (
            "es",
            ["Puntuación", "Meta", "Regla de reinicio", "Pozo", "Reserva del pozo"],
            ["Reset rule"],
        ),
        ("en", ["Scoring", "Target", "Reset rule", "Boneyard", "Boneyard reserve"], ["Pozo"]),
    ],
)
def test_ruleset_options_are_labelled_in_the_directors_language(
    language: str, labels: list[str], absent: list[str]
) -> None:
    """The ruleset overrides on the new-tournament and settings pages (§1) carry labels in the
    page's language (brackets.tournament_forms.LABELS), not their keys."""
    from html import unescape

    tournament, director, _stage = tournament_with_stage(8)
    client = director_client(director)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    for path in (url("tournament-create"), url("settings", tournament.slug)):
        html = unescape(client.get(path).content.decode())
        for text in labels:
            assert f">{text}" in html, (path, text)
        for text in absent:
            assert f">{text}<" not in html, (path, text)


@pytest.mark.parametrize(
    ("language", "options"),
    [
        ("es", ["Un descanso cuenta como partida ganada", "Equilibrado (T8)"]),
        ("en", ["A bye counts as a match win", "Balanced (T8)"]),
    ],
)
def test_the_stage_forms_choices_are_in_the_directors_language(
    language: str, options: list[str]
) -> None:
    """The bye policy and seat order selects of the stage form (core.choice_labels)."""
    from html import unescape

    tournament, director, stage = tournament_with_stage(8)
    client = director_client(director)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    for path in (url("stage-edit", tournament.slug, stage.pk), url("stages", tournament.slug)):
        html = unescape(client.get(path).content.decode())
        for text in options:
            assert f">{text}</option>" in html, (path, text)


@pytest.mark.parametrize(
    ("language", "table", "qr"), [("es", "Mesa 1", "Código QR"), ("en", "Table 1", "QR code")]
)
def test_call_time_tables_and_the_sheets_qr_are_named_in_the_directors_language(
    language: str, table: str, qr: str
) -> None:
    from html import unescape

    tournament, director, stage = tournament_with_stage(8)
    client = director_client(director)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    client.post(url("seed", tournament.slug, stage.pk), {"method": "rating"})
    client.post(url("publish", tournament.slug, stage.pk), {"expected_number": "1"})
    rnd = Round.objects.get(stage=stage, number=1)
    page = unescape(client.get(url("round", tournament.slug, rnd.pk)).content.decode())
    assert f"> {table}</label>" in page  # the call-time dialog's sudden-death checkboxes
    sheets = unescape(client.get(url("sheets", tournament.slug, rnd.pk)).content.decode())
    assert f'aria-label="{qr}"' in sheets


def test_a_status_agrees_with_its_noun_in_spanish() -> None:
    """ "Finished" is *Terminada* for a match (la partida) and a stage (la fase) and *Terminado*
    for a tournament (el torneo): the model names the translation's context
    (core.choice_labels); English is unchanged and labels without a context fall back."""
    from django.template import Context, Template

    from brackets.models import Stage
    from core.choice_labels import choice_label
    from scoring.models import Match
    from tournament.models import Tournament

    with translation.override("es"):
        assert choice_label(Match.Status, "finished") == "Terminada"
        assert choice_label(Stage.Status, "finished") == "Terminada"
        assert choice_label(Tournament.Status, "finished") == "Terminado"
        assert choice_label(Match.Status, "scheduled") == "Programada"  # no context: the label
        page = Template("{% load choices %}{{ m|status_label }} / {{ t|status_label }}")
        rendered = page.render(
            Context({"m": Match(status="finished"), "t": Tournament(status="finished")})
        )
        assert rendered == "Terminada / Terminado"
    with translation.override("en"):
        assert choice_label(Match.Status, "finished") == "Finished"
        assert choice_label(Stage.Status, "seeded") == "Seeded"
