"""A director's result override accepts only scores a match can end with (R31-R34, R42/R44).

Under ``six_love`` with ``reset_rule = all_scored`` at least one player (partnership) is on 0
between hands and a match ends only with one on 0 (R31c/d, R34; partners reset as soon as
both partnerships have scored, R44); under ``any_challenger`` at most one player ever has
points (R32). ``straight_six`` (R30) and ``pips`` (R40) have no such constraint. A
time-called score (T3) is between hands, so it is held to the same rule.
"""

from __future__ import annotations

import pytest

from core.exceptions import ApplicationError
from scoring import services
from scoring.engine import Ruleset
from scoring.models import Match
from scoring.services import override_placings, override_ruleset
from tests.factories import TournamentFactory, director_of, match_in_progress, scheduled_match

ANY_CHALLENGER = {"reset_rule": "any_challenger"}

# preset, overrides, scores, the refusing rule (None: accepted)
CASES = [
    # R31c/R34: 6-1-1-1 would have reset when the last player scored; the match needs one on 0.
    ("wsod", {}, [6, 1, 1, 1], "R31c"),
    ("wsod", {}, [6, 1, 1, 0], None),
    ("wsod", {}, [7, 1, 1, 0], None),  # R33: final scores may exceed the target
    # T3 time called: still between hands, so someone is on love (R34), whatever the target.
    ("wsod", {}, [3, 1, 1, 1], "R34"),
    ("wsod", {}, [3, 1, 1, 0], None),
    ("wsod", {}, [0, 0, 0, 0], None),  # time called before anyone scored
    ("wsod", {}, [6, 1, 1], "R31c"),  # three players
    ("wsod", {}, [6, 1], "R31c"),  # two players: the loser's point would have reset
    ("wsod", {}, [6, 0], None),
    ("wsod_playoff", {}, [6, 1, 1, 1], "R31c"),
    ("jamaican", {}, [6, 2, 3, 1], "R31c"),
    # R32: a win while another player has points resets, so only one ever has points.
    ("wsod", ANY_CHALLENGER, [6, 2, 0, 0], "R32"),
    ("wsod", ANY_CHALLENGER, [6, 0, 0, 0], None),
    ("wsod", ANY_CHALLENGER, [3, 1, 0, 0], "R32"),  # time called (T3)
    ("wsod", ANY_CHALLENGER, [3, 0, 0, 0], None),
    # R30/R40: no reset, any score below the target for the others (the stored reset_rule
    # has no effect under these scorings, §1).
    ("straight_six", {}, [6, 1, 1, 1], None),
    ("wsod", {"scoring": "straight_six"}, [6, 3, 2, 1], None),
    ("straight_six", ANY_CHALLENGER, [6, 2, 0, 0], None),
    ("block", {}, [61, 20, 15, 30], None),
    ("block", {}, [30, 20, 15, 10], None),  # time called
    # R42/R44: the sides are the partnerships; all_scored resets once both have scored.
    ("wsod_partners", {}, [6, 1, 6, 1], "R31c"),
    ("wsod_partners", {}, [6, 0, 6, 0], None),
    ("wsod_partners", {}, [2, 3, 2, 3], "R34"),  # time called
    ("wsod_partners", ANY_CHALLENGER, [6, 1, 6, 1], "R32"),
    ("wsod_partners", {"scoring": "straight_six"}, [6, 1, 6, 1], None),
    ("partnership_block", {}, [100, 40, 100, 40], None),
]


@pytest.mark.parametrize(("preset", "overrides", "scores", "rule"), CASES)
def test_override_accepts_only_scores_a_match_can_end_with(
    preset: str, overrides: dict[str, object], scores: list[int], rule: str | None
) -> None:
    ruleset = Ruleset.from_preset(preset, overrides)
    n = len(scores)
    partners = ruleset.teams == "partners"
    if rule is None:
        # Nobody scored (time called first, T3): all share first place, given explicitly.
        shared = [1] * n if max(scores) == 0 else None
        placings = override_placings(scores, shared, n=n, partners=partners, ruleset=ruleset)
        assert len(placings) == n
        return
    with pytest.raises(ApplicationError) as exc:
        override_placings(scores, None, n=n, partners=partners, ruleset=ruleset)
    assert (exc.value.code, exc.value.rule) == ("bad_scores", rule)
    # The message names the rule, and the scores field carries it.
    assert rule in exc.value.message
    assert exc.value.fields == {"scores": [exc.value.message]}


def test_the_refusals_say_why_in_the_directors_words() -> None:
    wsod = Ruleset.from_preset("wsod")
    with pytest.raises(ApplicationError) as exc:
        override_placings([6, 1, 1, 1], None, n=4, partners=False, ruleset=wsod)
    assert exc.value.message == (
        "Under this ruleset at least one player is always on 0 (R31c, R34): a match cannot "
        "end 6-1-1-1."
    )
    with pytest.raises(ApplicationError) as exc:
        override_placings(
            [6, 2, 0, 0],
            None,
            n=4,
            partners=False,
            ruleset=Ruleset.from_preset("wsod", ANY_CHALLENGER),
        )
    assert exc.value.message.startswith("Under this ruleset only one player ever has points")
    assert exc.value.message.endswith("(R32), so a match cannot end 6-2-0-0.")
    # A partnership table names the partnerships' scores (R42), not the four seats'.
    with pytest.raises(ApplicationError) as exc:
        override_placings(
            [6, 1, 6, 1], None, n=4, partners=True, ruleset=Ruleset.from_preset("wsod_partners")
        )
    assert exc.value.message.startswith("Under this ruleset one partnership is always on 0")
    assert exc.value.message.endswith("(R31c, R34, R44), so a match cannot end 6-1.")


def test_r33_still_comes_first_and_an_explicit_target_still_counts() -> None:
    """R33 is unchanged: two players at the target is refused as before, under any scoring;
    a target given by the caller wins over the ruleset's."""
    wsod = Ruleset.from_preset("wsod")
    for preset in ("wsod", "straight_six"):
        with pytest.raises(ApplicationError) as exc:
            override_placings(
                [6, 6, 0, 0],
                [1, 2, 3, 4],
                n=4,
                partners=False,
                ruleset=Ruleset.from_preset(preset),
            )
        assert exc.value.rule == "R33"
    with pytest.raises(ApplicationError) as exc:
        override_placings([3, 3, 0, 0], [1, 2, 3, 4], n=4, partners=False, target=3, ruleset=wsod)
    assert exc.value.rule == "R33"
    # Without a ruleset (the tournament's does not hold) only R33 is checked, as before.
    assert override_placings([6, 1, 1, 1], None, n=4, partners=False, target=6) == [1, 2, 2, 2]


@pytest.mark.django_db
def test_the_service_refuses_with_the_matchs_frozen_ruleset() -> None:
    """The API client's path: match_result_override checks against the ruleset frozen on the
    match, not the tournament's later settings (§1)."""
    tournament = TournamentFactory()
    director = director_of(tournament)
    match = match_in_progress(tournament, referee=director)
    # Changing the tournament to any_challenger later does not change this match (§1).
    tournament.ruleset = Ruleset.from_preset("wsod", ANY_CHALLENGER).to_json()
    tournament.save()
    frozen = override_ruleset(match)
    assert frozen == Ruleset.from_preset("wsod")
    assert frozen.target_for(match.n_players) == 6  # R33's target for this table
    with pytest.raises(ApplicationError) as exc:
        services.match_result_override(
            match_id=match.pk, actor=director, scores=[6, 1, 1, 1], reason="sheet"
        )
    assert (exc.value.code, exc.value.rule) == ("bad_scores", "R31c")
    match.refresh_from_db()
    assert match.status == Match.Status.IN_PROGRESS
    # 6-2-1-0 is a six-love result under all_scored (not under the tournament's new rule).
    done = services.match_result_override(
        match_id=match.pk, actor=director, scores=[6, 2, 1, 0], reason="sheet"
    ).match
    assert (done.status, done.winner_seat) == (Match.Status.FINISHED, 0)


@pytest.mark.django_db
def test_a_scheduled_match_is_checked_against_the_tournaments_ruleset() -> None:
    """Before it starts a match has no frozen ruleset: the tournament's applies (R32 here)."""
    tournament = TournamentFactory(ruleset_overrides=ANY_CHALLENGER)
    director = director_of(tournament)
    match = scheduled_match(tournament)
    with pytest.raises(ApplicationError) as exc:
        services.match_result_override(
            match_id=match.pk, actor=director, scores=[6, 2, 0, 0], reason="sheet"
        )
    assert (exc.value.code, exc.value.rule) == ("bad_scores", "R32")
    match.refresh_from_db()
    assert (match.status, match.started_at, match.ruleset) == (Match.Status.SCHEDULED, None, {})
    done = services.match_result_override(
        match_id=match.pk, actor=director, scores=[6, 0, 0, 0], reason="sheet"
    ).match
    assert done.status == Match.Status.FINISHED


@pytest.mark.django_db
def test_the_api_answers_400_naming_the_rule() -> None:
    from rest_framework.test import APIClient

    tournament = TournamentFactory()
    director = director_of(tournament)
    match = match_in_progress(tournament, referee=director)
    api = APIClient()
    api.force_authenticate(director)
    r = api.post(
        f"/api/matches/{match.pk}/override/",
        {"scores": [6, 1, 1, 1], "reason": "sheet"},
        format="json",
    )
    assert r.status_code == 400, r.content
    error = r.json()["error"]
    assert (error["code"], error["rule"]) == ("bad_scores", "R31c")
    assert error["fields"]["scores"] == [
        "Under this ruleset at least one player is always on 0 (R31c, R34): a match cannot "
        "end 6-1-1-1."
    ]
    r = api.post(
        f"/api/matches/{match.pk}/override/",
        {"scores": [6, 1, 1, 0], "reason": "sheet"},
        format="json",
    )
    assert r.status_code == 200, r.content
    assert r.json()["end_reason"] == "override"
