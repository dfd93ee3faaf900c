"""Service refusals a director reads on a page go through gettext (the partnerships of a pairs
event, T9-T11; the seeding method, T8; the last director; a missing PIN).

Bug: these messages were plain English literals and f-strings, so a director browsing in
Spanish read English. Now each is a msgid with ``%(name)s`` placeholders, filled in after
translation; the English text, the code and the field are as before. The tests swap each
module's ``_`` for a marker, so they fail for any message that bypasses gettext, whatever the
catalogue holds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from brackets.services import _common as brackets_common
from brackets.services import pairs as brackets_pairs
from brackets.services import stage_create
from core.exceptions import ApplicationError
from tests.brackets.pairs_helpers import make_pairs_tournament
from tests.factories import TournamentFactory, director_of
from tournament import partnerships
from tournament.models import Entry, Player, TournamentRole
from tournament.partnerships import partnership_register, tournament_entry_format_set
from tournament.services import roles

pytestmark = pytest.mark.django_db


def marked(text: str) -> str:
    return f"<<{text}>>"


@pytest.fixture
def gettext_marked(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in (partnerships, brackets_pairs, brackets_common, roles):
        monkeypatch.setattr(module, "_", marked)


def refusal(call: Callable[[], Any]) -> ApplicationError:
    with pytest.raises(ApplicationError) as exc:
        call()
    return exc.value


def test_partnership_refusals_are_translated(gettext_marked: None) -> None:
    tournament, director, pairs = make_pairs_tournament(2)
    ana, bea = Player.objects.create(name="Ana"), Player.objects.create(name="Bea")

    exc = refusal(
        lambda: partnership_register(tournament=tournament, actor=director, players=[ana, ana])
    )
    assert (exc.code, exc.fields) == ("bad_partnership", {"players": [exc.message]})
    assert exc.message == "<<A partnership is two different players (T9).>>"

    taken = pairs[0].members.first().entry.player  # type: ignore[union-attr]
    exc = refusal(
        lambda: partnership_register(tournament=tournament, actor=director, players=[taken, ana])
    )
    assert exc.code == "in_partnership"
    assert exc.message == f"<<{taken} already plays in a partnership of this event (T9).>>"
    assert exc.fields == {"player_a": [exc.message]}

    Entry.objects.create(tournament=tournament, player=bea, status=Entry.Status.WITHDRAWN)
    exc = refusal(
        lambda: partnership_register(tournament=tournament, actor=director, players=[ana, bea])
    )
    assert exc.code == "not_active"
    assert exc.message == "<<Bea is withdrawn in this tournament (T9).>>"

    exc = refusal(
        lambda: tournament_entry_format_set(
            tournament=tournament, actor=director, entry_format="teams"
        )
    )
    assert exc.code == "bad_choice"
    assert exc.message == "<<Entry format must be individual or pairs (T9).>>"
    exc = refusal(
        lambda: tournament_entry_format_set(
            tournament=tournament, actor=director, entry_format="individual"
        )
    )
    assert exc.code == "partnerships_registered"
    assert exc.message.startswith("<<Partnerships are registered")

    exc = refusal(
        lambda: stage_create(
            tournament=tournament, actor=director, name="Q", kind="qualifying", cut_size=1
        )
    )
    assert exc.code == "bad_stage"
    assert exc.message == "<<A cut lets at least 2 partnerships through: the final (T10).>>"


def test_individual_event_refusals_are_translated(gettext_marked: None) -> None:
    tournament = TournamentFactory()
    director = director_of(tournament)
    ana, bea = Player.objects.create(name="Ana"), Player.objects.create(name="Bea")
    exc = refusal(
        lambda: partnership_register(tournament=tournament, actor=director, players=[ana, bea])
    )
    assert (exc.code, exc.message) == ("not_pairs_event", "<<This is not a pairs event (T9).>>")
    exc = refusal(
        lambda: tournament_entry_format_set(
            tournament=tournament, actor=director, entry_format="pairs"
        )
    )
    assert exc.code == "not_partnership_ruleset"
    assert exc.message.startswith("<<A pairs event needs a partnership ruleset")
    role = TournamentRole.objects.get(tournament=tournament, user=director)
    exc = refusal(lambda: roles.role_revoke(role=role, actor=director))
    assert exc.message == "<<A tournament keeps at least one director.>>"


def test_the_english_messages_are_unchanged() -> None:
    tournament = TournamentFactory()
    director = director_of(tournament)
    ana = Player.objects.create(name="Ana")
    exc = refusal(
        lambda: partnership_register(tournament=tournament, actor=director, players=[ana, ana])
    )
    assert exc.message == "This is not a pairs event (T9)."
    tournament, director, pairs = make_pairs_tournament(1)
    taken = pairs[0].members.first().entry.player  # type: ignore[union-attr]
    exc = refusal(
        lambda: partnership_register(tournament=tournament, actor=director, players=[taken, ana])
    )
    assert exc.message == f"{taken} already plays in a partnership of this event (T9)."
