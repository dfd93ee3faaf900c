"""Data for the page tests: a tournament with a director, two referees and a match in progress."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import pytest

from scoring.models import Match
from tests.factories import TournamentFactory, director_of, match_in_progress, referee_of
from tournament.models import RefereeToken, Tournament
from tournament.services import referee_token_issue


@dataclass
class Setup:
    tournament: Tournament
    director: Any
    referee: Any
    other_referee: Any
    match: Match
    token: RefereeToken


def make_tournament(**kwargs: Any) -> Tournament:
    return cast(Tournament, TournamentFactory(**kwargs))  # type: ignore[no-untyped-call]


@pytest.fixture
def setup(db: None) -> Setup:
    tournament = make_tournament(name="Spring Open", slug="spring-open")
    director = director_of(tournament, username="dir")
    referee = referee_of(tournament, username="ref1", first_name="Rosa")
    other = referee_of(tournament, username="ref2")
    match = match_in_progress(tournament, referee=referee)
    token = referee_token_issue(tournament=tournament, actor=director, user=referee)
    return Setup(tournament, director, referee, other, match, token)
