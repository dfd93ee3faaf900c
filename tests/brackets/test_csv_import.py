"""Players CSV import: golden validation reports (pure) and the import page and service."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from brackets.csv_import import ImportReport, PlayerRow, RowError, parse_players_csv, player_key
from brackets.services.imports import players_import_csv
from core.exceptions import ApplicationError
from tests.brackets.factories_pages import director_client, other_director
from tests.factories import EntryFactory, PlayerFactory, TournamentFactory, director_of
from tournament.models import ActionLog, Entry, Player

HEADER = "name,nickname,country,club,rating\n"


def errors(report: ImportReport) -> list[tuple[int, str]]:
    return [(e.row, e.field) for e in report.errors]


# -- golden cases (no database) ---------------------------------------------------------------

GOLDEN: list[tuple[str, str | bytes, list[tuple[int, str, str]], list[str]]] = [
    (
        "all good, any column order and case, spaces trimmed",
        "Rating, NAME ,Club,country\n1830,  Ana   Rivera ,Club Bayamón,pr\n,José,,\n",
        [],
        ["Ana Rivera", "José"],
    ),
    (
        "semicolons (European spreadsheets) and a byte-order mark",
        "\ufeffname;club;rating\nAna;Club A;1500\n".encode(),
        [],
        ["Ana"],
    ),
    (
        "no header: the first row is a player",
        "Ana Rivera,PR,Club A,1830\n",
        [(1, "header", "The first row must be a header naming the columns")],
        [],
    ),
    (
        "unknown and repeated columns",
        "name,club,elo,club\nAna,A,1,A\n",
        [(1, "elo", "Unknown column"), (1, "club", "The column appears twice.")],
        [],
    ),
    (
        "every field wrong on one row, one good row",
        HEADER + "Ana,,PR,,1500\n" + ",x,ZZ,," + "1.5\n",
        [
            (3, "name", "Required."),
            (3, "country", "'ZZ' is not an ISO 3166-1 alpha-2 country code"),
            (3, "rating", "'1.5' is not a whole number from 0 to 9999."),
        ],
        ["Ana"],
    ),
    (
        "too long, rating out of range, negative rating",
        HEADER + ("N" * 121) + ",,,," + "\nBo,,,,10000\nCy,,,,-3\n",
        [
            (2, "name", "At most 120 characters (121)."),
            (3, "rating", "At most 9999 (10000)."),
            (4, "rating", "'-3' is not a whole number"),
        ],
        [],
    ),
    (
        "ratings in other digits or too long to be a number are refused, not a 500",
        HEADER + "Ana,,,,\u00b2\nBo,,,,\u0663\nCy,,,," + "9" * 5000 + "\nDi,,,,+1500\n",
        [
            (2, "rating", "'\u00b2' is not a whole number from 0 to 9999."),
            (3, "rating", "'\u0663' is not a whole number from 0 to 9999."),
            (4, "rating", "'" + "9" * 5000 + "' is not a whole number"),  # was int()'s 500
        ],
        ["Di"],
    ),
    (
        "a repeated row (same name and club, any case) and a namesake from another club",
        HEADER + "Ana Rivera,,,Club A,\nana rivera,,,CLUB A,\nAna Rivera,,,Club B,\n",
        [(3, "name", "Repeats row 2 (same name and club).")],
        ["Ana Rivera", "Ana Rivera"],
    ),
    (
        "blank rows are skipped but keep the row numbers a spreadsheet shows",
        HEADER + "\nAna,,,,\n\n,,,,\nBo,,XX,,\n",
        [(6, "country", "'XX' is not")],
        ["Ana"],
    ),
    (
        "an unquoted comma makes an extra value",
        'name,club\nAna,Club A, Ponce\nBo,"Club B, Ponce"\n',
        [(2, "row", "3 values for 2 columns (a comma inside a value needs quotes).")],
        ["Bo"],
    ),
    (
        "empty trailing header columns from a spreadsheet are ignored",
        "name,rating,,\nAna,1500,,\n",
        [],
        ["Ana"],
    ),
    ("an empty file", "", [(0, "file", "The file is empty.")], []),
    ("a header only", HEADER, [(0, "file", "The file has a header but no players.")], []),
    (
        "not UTF-8 (a Latin-1 export)",
        "name,club\nJosé,A\n".encode("latin-1"),
        [(2, "file", "The file is not UTF-8 text")],
        [],
    ),
]


@pytest.mark.parametrize(
    ("content", "expected", "names"),
    [pytest.param(c, e, n, id=title) for title, c, e, n in GOLDEN],
)
def test_golden_reports(
    content: str | bytes, expected: list[tuple[int, str, str]], names: list[str]
) -> None:
    report = parse_players_csv(content)
    assert [(e.row, e.field) for e in report.errors] == [(r, f) for r, f, _ in expected]
    for error, (_, _, reason) in zip(report.errors, expected, strict=True):
        assert error.reason.startswith(reason), error.reason
    assert [p.name for p in report.players] == names


def test_cleaned_values() -> None:
    report = parse_players_csv(
        "Rating, NAME ,Club,country,nickname\n1830,  Ana   Rivera ,Club Bayamón,pr, La  Maestra\n"
    )
    assert report.players == (
        PlayerRow(
            row=2,
            name="Ana Rivera",
            nickname="La Maestra",
            country="PR",
            club="Club Bayamón",
            rating=1830,
        ),
    )


def test_already_entered_players_are_bad_rows() -> None:
    report = parse_players_csv(
        HEADER + "Ana Rivera,,,Club A,\nBo,,,,\n", entered={player_key(" ana  rivera", "club a")}
    )
    assert errors(report) == [(2, "name")]
    assert "already entered" in report.errors[0].reason
    assert [p.name for p in report.players] == ["Bo"]
    assert report.bad_rows == (2,)
    assert report.can_import_valid_rows


def test_file_errors_block_importing_valid_rows() -> None:
    report = parse_players_csv("nombre,club\nAna,A\n")
    assert report.file_errors
    assert not report.can_import_valid_rows
    assert str(report.errors[0]).startswith("Row 1, header: ")
    assert str(RowError(0, "file", "x")) == "File, file: x"


# -- the service --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_service_creates_players_and_entries_reusing_known_players() -> None:
    tournament = TournamentFactory()
    director = director_of(tournament)
    known = PlayerFactory(name="Ana Rivera", club="Club A", rating=1700)
    rows = [
        PlayerRow(2, "ana rivera", club="club a"),
        PlayerRow(3, "Bo Díaz", country="DO", club="Club B", rating=1600),
    ]
    result = players_import_csv(
        tournament=tournament, actor=director, rows=rows, check_in=True, source="players.csv"
    )
    assert (result.created, result.reused) == (1, 1)
    entries = Entry.objects.filter(tournament=tournament).select_related("player")
    assert {e.player.name for e in entries} == {"Ana Rivera", "Bo Díaz"}
    assert all(e.checked_in for e in entries)
    assert Player.objects.filter(name="Ana Rivera").count() == 1
    assert entries.get(player=known).player.rating == 1700
    log = ActionLog.objects.get(verb="players.import")
    assert log.actor == director
    assert log.reason == "CSV import players.csv"
    assert log.data["created_players"] == 1
    assert log.data["reused_players"] == 1


@pytest.mark.django_db
def test_service_is_all_or_nothing() -> None:
    tournament = TournamentFactory()
    director = director_of(tournament)
    entered = EntryFactory(tournament=tournament, player=PlayerFactory(name="Cy", club=""))
    rows = [PlayerRow(2, "Ana"), PlayerRow(3, entered.player.name)]
    with pytest.raises(ApplicationError) as exc:
        players_import_csv(tournament=tournament, actor=director, rows=rows)
    assert "Row 3 (Cy)" in exc.value.message
    assert Entry.objects.filter(tournament=tournament).count() == 1


@pytest.mark.django_db
def test_service_is_for_directors_of_the_tournament() -> None:
    tournament = TournamentFactory()
    with pytest.raises(ApplicationError) as exc:
        players_import_csv(tournament=tournament, actor=other_director(), rows=[PlayerRow(2, "A")])
    assert exc.value.status_code == 403


# -- the page -----------------------------------------------------------------------------------


@pytest.fixture
def page() -> dict[str, Any]:
    tournament = TournamentFactory()
    director = director_of(tournament)
    return {
        "t": tournament,
        "client": director_client(director),
        "url": reverse("brackets:import", args=[tournament.slug]),
    }


def upload(text: str | bytes, name: str = "players.csv") -> SimpleUploadedFile:
    data = text.encode() if isinstance(text, str) else text
    return SimpleUploadedFile(name, data, content_type="text/csv")


BAD_FILE = HEADER + "Ana,,PR,Club A,1830\n,,XX,,abc\nBo,,DO,Club B,1700\nAna,,,club a,\n"


@pytest.mark.django_db
def test_page_reports_bad_rows_and_imports_nothing(page: dict[str, Any]) -> None:
    response = page["client"].post(page["url"], {"file": upload(BAD_FILE)})
    assert response.status_code == 400
    text = response.content.decode()
    assert "2 bad rows" in text
    assert "Nothing was imported." in text
    report = response.context["report"]
    assert [(e.row, e.field) for e in report.errors] == [
        (3, "name"),
        (3, "country"),
        (3, "rating"),
        (5, "name"),
    ]
    for row, field in [(3, "name"), (3, "country"), (3, "rating"), (5, "name")]:
        assert f'data-row="{row}" data-field="{field}"' in text
    assert Entry.objects.filter(tournament=page["t"]).count() == 0
    assert "Import the 2 valid rows and skip the bad ones" in text


@pytest.mark.django_db
def test_page_reports_bad_rows_in_the_directors_language(page: dict[str, Any]) -> None:
    """A director reading Spanish gets the row problems in Spanish; the column names stay
    the CSV's own (name, country, rating), as they are typed in the file."""
    client = page["client"]
    client.cookies["django_language"] = "es"
    response = client.post(page["url"], {"file": upload(BAD_FILE)})
    assert response.status_code == 400
    text = response.content.decode()
    assert "Obligatorio." in text  # row 3, name
    assert "&#x27;XX&#x27; no es un código de país ISO 3166-1 alfa-2" in text
    assert "&#x27;abc&#x27; no es un número entero de 0 a 9999." in text
    assert "Repite la fila 2 (mismo nombre y club)." in text  # row 5 repeats Ana of Club A
    assert "is not an ISO" not in text
    header = client.post(page["url"], {"file": upload("nombre,club\nAna,A\n")})
    assert "La primera fila debe ser una cabecera con los nombres de las columnas" in (
        header.content.decode()
    )


def test_pairs_file_problems_are_translated() -> None:
    from django.utils import translation

    from brackets.pairs_csv import parse_pairs_csv

    with translation.override("es"):
        report = parse_pairs_csv("name,pair\nAna,P1\nBo,\n")
    reasons = [e.reason for e in report.all_errors]
    assert "La pareja «P1» tiene 1 fila válida; necesita dos (T9)." in reasons
    assert "Indica la pareja del jugador (T9)." in reasons


@pytest.mark.django_db
def test_page_imports_valid_rows_when_asked(page: dict[str, Any]) -> None:
    client = page["client"]
    response = client.post(page["url"], {"file": upload(BAD_FILE), "check_in": "on"})
    # The report's button posts the same text back with "import valid rows".
    retry = response.context["retry"].initial
    response = client.post(
        page["url"],
        {
            "csv_text": retry["csv_text"],
            "source": retry["source"],
            "check_in": "on",
            "import_valid": "on",
        },
    )
    assert response.status_code == 302
    messages = [str(m) for m in client.get(response["Location"]).context["messages"]]
    assert messages == [
        "Imported 2 players (2 new, 0 known), checked in; "
        "skipped 2 bad rows (spreadsheet rows 3, 5)."
    ]
    entries = Entry.objects.filter(tournament=page["t"])
    assert sorted(e.player.name for e in entries) == ["Ana", "Bo"]
    assert all(e.checked_in for e in entries)
    log = ActionLog.objects.get(verb="players.import")
    assert log.data["skipped_rows"] == [3, 5]


@pytest.mark.django_db
def test_page_says_one_player_not_one_players(page: dict[str, Any]) -> None:
    client = page["client"]
    response = client.post(page["url"], {"file": upload(HEADER + "Ana,,PR,Club A,1830\n")})
    assert response.status_code == 302
    messages = [str(m) for m in client.get(response["Location"]).context["messages"]]
    assert messages == ["Imported 1 player (1 new, 0 known)."]


@pytest.mark.django_db
def test_page_import_valid_rows_checkbox_on_first_upload(page: dict[str, Any]) -> None:
    response = page["client"].post(page["url"], {"file": upload(BAD_FILE), "import_valid": "on"})
    assert response.status_code == 302
    assert Entry.objects.filter(tournament=page["t"]).count() == 2


@pytest.mark.django_db
def test_page_never_imports_past_a_file_error(page: dict[str, Any]) -> None:
    response = page["client"].post(
        page["url"], {"file": upload("Ana,PR\nBo,DO\n"), "import_valid": "on"}
    )
    assert response.status_code == 400
    assert "The file could not be read; nothing was imported." in response.content.decode()
    assert Entry.objects.filter(tournament=page["t"]).count() == 0


@pytest.mark.django_db
def test_page_imports_a_good_file(page: dict[str, Any]) -> None:
    good = HEADER + "Ana Rivera,La Maestra,PR,Club Bayamón,1830\nJosé Pérez,,DO,SD Dominó,1712\n"
    response = page["client"].post(page["url"], {"file": upload(good)})
    assert response.status_code == 302
    ana = Entry.objects.select_related("player").get(
        tournament=page["t"], player__name="Ana Rivera"
    )
    assert (ana.player.nickname, ana.player.country, ana.player.rating) == (
        "La Maestra",
        "PR",
        1830,
    )
    assert not ana.checked_in
    # The same file again: every row is now "already entered".
    response = page["client"].post(page["url"], {"file": upload(good)})
    assert response.status_code == 400
    assert response.context["report"].bad_rows == (2, 3)


@pytest.mark.django_db
def test_page_requires_a_file(page: dict[str, Any]) -> None:
    response = page["client"].post(page["url"], {})
    assert response.status_code == 400
    assert "Choose a CSV file." in response.content.decode()
