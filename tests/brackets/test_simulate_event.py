"""``manage.py simulate_event``: seeded bots play an event through the services (issue 13)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from brackets.models import Round, Stage
from brackets.selectors import tournament_placings
from scoring.models import Hand, Match
from tournament.models import Tournament

pytestmark = pytest.mark.django_db


def _simulate(*args: str) -> str:
    out = StringIO()
    call_command("simulate_event", *args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("preset", ["wsod", "block"])
def test_a_whole_event_from_registration_to_champion(preset: str) -> None:
    out = _simulate(
        "--new", "--preset", preset, "--players", "6", "--seed", "5", "--set", "target=2"
    )
    t = Tournament.objects.get(slug=f"sim-{preset}-6-5")
    assert t.status == Tournament.Status.FINISHED
    assert t.ruleset["preset"] == preset
    assert set(Stage.objects.filter(tournament=t).values_list("status", flat=True)) == {"finished"}
    assert Round.objects.filter(stage__tournament=t, kind="final").count() == 1
    assert not Match.objects.filter(tournament=t, status__in=["scheduled", "in_progress"]).exists()
    placings = tournament_placings(tournament_id=t.pk)
    assert len(placings) == 6
    assert f"1. {placings[0].name}" in out
    # Every hand went through the service: numbered from 1 per match, by the table's referee.
    assert Hand.objects.filter(match__tournament=t, recorded_by__isnull=True).count() == 0
    assert Hand.objects.filter(match__tournament=t).count() == out.count(": hand ")


def test_the_demo_plays_on_until_its_round_ends() -> None:
    call_command("demo_load", stdout=StringIO())
    t = Tournament.objects.get(slug="demo-open")
    r2 = Round.objects.get(stage__tournament=t, stage__number=1, number=2)
    before = Hand.objects.filter(match__tournament=t).count()
    _simulate("--hands", "3")
    assert Hand.objects.filter(match__tournament=t).count() == before + 3
    _simulate("--until", "round")
    r2.refresh_from_db()
    assert r2.status == Round.Status.CLOSED
    assert Round.objects.filter(stage=r2.stage, number=3, status="published").exists()


def test_unknown_tournament_says_what_to_do() -> None:
    with pytest.raises(CommandError, match="demo_load"):
        _simulate("--tournament", "nope")


def test_the_demo_pairs_event_ends_with_partnerships_placed_t9() -> None:
    """A pairs event's summary names partnerships, each once (T9), not its players apart."""
    from brackets.selectors.pairs import pairs_placings

    call_command("demo_load", stdout=StringIO())
    out = _simulate("--tournament", "demo-pairs")
    t = Tournament.objects.get(slug="demo-pairs")
    assert t.status == Tournament.Status.FINISHED
    places = pairs_placings(tournament_id=t.pk)
    lines = [line.strip() for line in out.splitlines() if line.startswith("  ")]
    assert lines == [f"{p.place}. {p.label}" for p in places[:4]]
    assert all(" & " in line for line in lines)
