"""The entry format on the director's Settings page (issue 17, RULES.md T9): the same rule as
the Partnerships page and API (tournament.partnerships), a refusal on the field naming T9, and
nothing saved when it is refused. Runs embedded (SQLite) too."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.factories import PlayerFactory, TournamentFactory, director_of
from tournament.models import ActionLog, Tournament
from tournament.partnerships import partnership_register, tournament_entry_format_set

pytestmark = pytest.mark.django_db


def _form(t: Tournament, **changes: Any) -> dict[str, Any]:
    """The Settings form as the page sends it: every override at "the preset's value"."""
    data = {
        "name": t.name,
        "venue": t.venue,
        "starts_on": "",
        "ends_on": "",
        "confirmation": t.confirmation,
        "ruleset_preset": t.ruleset_preset,
        "entry_format": t.entry_format,
    }
    data.update(changes)
    return data


def _post(client: Client, t: Tournament, **changes: Any) -> Any:
    return client.post(f"/director/tournaments/{t.slug}/settings/", _form(t, **changes))


@pytest.fixture
def director_client(client: Client) -> Any:
    def login(t: Tournament) -> Client:
        client.force_login(director_of(t))
        return client

    return login


def test_the_settings_page_offers_the_entry_format(director_client: Any) -> None:
    t = TournamentFactory(status="registration")
    html = director_client(t).get(f"/director/tournaments/{t.slug}/settings/").content.decode()
    assert 'name="entry_format"' in html
    assert 'value="individual" selected' in html or 'value="individual" checked' in html


def test_pairs_without_a_partnership_ruleset_is_refused_on_the_field_and_nothing_saved(
    director_client: Any,
) -> None:
    t = TournamentFactory(status="registration", ruleset_preset="wsod")
    r = _post(director_client(t), t, entry_format="pairs", name="Renamed")
    assert r.status_code == 400
    errors = r.context["form"].errors
    assert "entry_format" in errors
    assert "T9" in errors["entry_format"][0]
    assert "teams = partners" in errors["entry_format"][0]
    t.refresh_from_db()
    assert t.entry_format == "individual"
    assert str(t.name) != "Renamed"  # the whole form was refused


def test_pairs_with_the_partnership_ruleset_saved_together(director_client: Any) -> None:
    t = TournamentFactory(status="registration", ruleset_preset="wsod")
    r = _post(director_client(t), t, entry_format="pairs", ruleset_preset="wsod_partners")
    assert r.status_code == 302, r.context["form"].errors if r.context else r
    t.refresh_from_db()
    assert t.entry_format == "pairs"
    assert t.ruleset["teams"] == "partners"
    # The Partnerships service made the change: its action log line.
    assert ActionLog.objects.filter(tournament=t, verb="tournament.entry_format").count() == 1


def test_a_pairs_event_cannot_leave_its_partnership_ruleset(director_client: Any) -> None:
    t = TournamentFactory(status="registration", ruleset_preset="wsod_partners")
    tournament_entry_format_set(tournament=t, actor=director_of(t), entry_format="pairs")
    t.refresh_from_db()
    r = _post(director_client(t), t, ruleset_preset="wsod")
    assert r.status_code == 400
    assert "T9" in r.context["form"].errors["entry_format"][0]
    t.refresh_from_db()
    assert (t.ruleset_preset, t.entry_format) == ("wsod_partners", "pairs")


def test_a_form_without_the_field_keeps_the_pairs_rule(director_client: Any) -> None:
    """An older form (no entry_format field): the event stays pairs, so the ruleset must
    stay a partnership one."""
    t = TournamentFactory(status="registration", ruleset_preset="wsod_partners")
    tournament_entry_format_set(tournament=t, actor=director_of(t), entry_format="pairs")
    t.refresh_from_db()
    data = _form(t, ruleset_preset="wsod")
    del data["entry_format"]
    r = director_client(t).post(f"/director/tournaments/{t.slug}/settings/", data)
    assert r.status_code == 400
    assert "T9" in r.context["form"].errors["entry_format"][0]
    t.refresh_from_db()
    assert t.ruleset_preset == "wsod_partners"


def test_back_to_individual_with_another_ruleset_in_one_save(director_client: Any) -> None:
    t = TournamentFactory(status="registration", ruleset_preset="wsod_partners")
    tournament_entry_format_set(tournament=t, actor=director_of(t), entry_format="pairs")
    t.refresh_from_db()
    r = _post(director_client(t), t, entry_format="individual", ruleset_preset="wsod")
    assert r.status_code == 302
    t.refresh_from_db()
    assert (t.entry_format, t.ruleset_preset) == ("individual", "wsod")


def test_the_service_refusal_is_shown_on_the_field_and_rolls_back(director_client: Any) -> None:
    t = TournamentFactory(status="registration", ruleset_preset="wsod_partners")
    director = director_of(t)
    tournament_entry_format_set(tournament=t, actor=director, entry_format="pairs")
    partnership_register(tournament=t, actor=director, players=[PlayerFactory(), PlayerFactory()])
    t.refresh_from_db()
    r = _post(director_client(t), t, entry_format="individual", venue="Hall B")
    assert r.status_code == 400
    message = r.context["form"].errors["entry_format"][0]
    assert "T9" in message
    assert "Partnerships are registered" in message
    t.refresh_from_db()
    assert (t.entry_format, t.venue) == ("pairs", "Hall A")  # the venue change rolled back


def _create(client: Client, **fields: str) -> Any:
    """The new-tournament form as the page sends it (every rule override left blank: the
    preset's value)."""
    data = {"name": "Pairs Cup", "slug": "", "venue": "", "starts_on": "", "ends_on": ""}
    data.update(fields)
    return client.post("/director/new/", data)


@pytest.mark.parametrize(
    ("preset", "chosen", "expected"),
    [
        ("wsod_partners", "", "pairs"),  # follows the partnership ruleset (R42): no 2nd step
        ("partnership_block", "", "pairs"),
        ("wsod", "", "individual"),
        ("wsod_partners", "individual", "individual"),  # the director's explicit choice
        ("wsod_partners", "pairs", "pairs"),
    ],
)
def test_the_create_page_sets_the_entry_format_from_the_ruleset_or_the_choice(
    client: Client, preset: str, chosen: str, expected: str
) -> None:
    """T9: a new tournament under a partnership preset is a pairs event at once, so its first
    stage is a partnership stage; the director may still choose explicitly (logged)."""
    client.force_login(director_of(TournamentFactory()))
    html = client.get("/director/new/").content.decode()
    assert 'name="entry_format"' in html
    r = _create(client, ruleset_preset=preset, entry_format=chosen)
    assert r.status_code == 302, r.content.decode()[:2000]
    t = Tournament.objects.get(slug="pairs-cup")
    assert t.entry_format == expected
    logged = ActionLog.objects.filter(tournament=t, verb="tournament.entry_format").exists()
    assert logged is (expected == "pairs")
    stages = client.get(r["Location"]).content.decode()
    # The first stage's form is a partnership stage's (T10): no 3-player tables.
    assert ('name="allow_three"' not in stages) is (expected == "pairs")


def test_the_create_page_refuses_pairs_without_a_partnership_ruleset_and_creates_nothing(
    client: Client,
) -> None:
    client.force_login(director_of(TournamentFactory()))
    r = _create(client, ruleset_preset="wsod", entry_format="pairs")
    assert r.status_code == 400
    assert "T9" in r.context["form"].errors["entry_format"][0]
    assert not Tournament.objects.filter(slug="pairs-cup").exists()
