"""T3 (RULES.md): players still level after score, reached-first and hands won share the
placing, and a shared first place is no match win; seat or seed order never decides."""

from __future__ import annotations

from typing import Any

import pytest

from core.exceptions import ApplicationError
from scoring import services
from scoring.models import Match, Seat
from tests.factories import TournamentFactory, director_of, match_in_progress


@pytest.mark.django_db
def test_t3_override_with_a_shared_first_stores_no_winner() -> None:
    tournament = TournamentFactory()  # type: ignore[no-untyped-call]
    director: Any = director_of(tournament)
    match = match_in_progress(tournament)
    m = services.match_result_override(
        match_id=match.pk,
        actor=director,
        scores=[0, 0, 0, 0],
        placings=[1, 1, 1, 1],
        reason="time before any hand (T3)",
    ).match
    assert (m.status, m.winner_seat) == (Match.Status.FINISHED, None)
    assert list(Seat.objects.filter(match=m).values_list("placing", flat=True)) == [1, 1, 1, 1]
    with pytest.raises(ApplicationError) as exc:
        services.match_result_override(
            match_id=match.pk,
            actor=director,
            scores=[0, 0, 0, 0],
            placings=[1, 1, 2, 3],
            reason="not a ranking",
        )
    assert (exc.value.code, exc.value.rule) == ("bad_placings", "T3")
