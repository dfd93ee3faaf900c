"""The words of the next hand and of the hands so far follow the match's ruleset (section 1).

scoring/presenters/match.py explains a replay (describe_next_hand) and a tie or a reset
(explain_hand). Each case below plays hands through the engine (the authority) and checks the
words against what the engine then does: R31a resets only under ``replay_leader_loss = reset``
and only when the tie run has a leader (R28); otherwise the replay is scored like any hand (R30,
R31b, R32); "worth more" only when R26 raises the value; pip scoring has no value (R40); at a
partnership table the partnerships lead, win and reset (R42-R44). No database is needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import pytest
from django.utils import translation

from scoring.engine import Ruleset
from scoring.engine.match import HandScored, MatchState, match_apply, match_start
from scoring.engine.record import HandRecord
from scoring.presenters.bodies import next_hand_json
from scoring.presenters.match import describe_next_hand, explain_hand
from scoring.presenters.partnership import SideView
from scoring.presenters.ruleset_words import replay_raises_value


@pytest.fixture(autouse=True)
def _english() -> Any:
    """The words are checked in English whatever an earlier test in this process left active."""
    with translation.override("en"):
        yield


NAMES = ("A · Ana", "B · Bea", "C · Cris", "D · Dan")
SIDES = (
    SideView(0, "AC", ("Ana", "Cris"), "", 0, False),
    SideView(1, "BD", ("Bea", "Dan"), "", 0, False),
)
AC, BD = SIDES[0].label, SIDES[1].label  # "AC · Ana & Cris", "BD · Bea & Dan"
FREE_TILES = ("5-5", "4-4", "3-3", "2-2", "1-1", "5-4")

# A hand: ("domino", winner[, llave]) or ("block", counts); pip scoring needs counts on a
# domino too (R40), given as ("domino", winner, counts).
Spec = tuple[Any, ...]


def _play(ruleset: Ruleset, n: int, specs: Sequence[Spec]) -> list[tuple[MatchState, HandScored]]:
    """The engine's state and scored line after each hand; the poser is the engine's (the
    holder of 6-6, seat 0, when the pose is forced)."""
    state = match_start(ruleset, n)
    out = []
    for i, spec in enumerate(specs):
        nxt = state.next
        forced = nxt.forced or nxt.poser is None
        data: dict[str, Any] = {
            "poser": 0 if forced else nxt.poser,
            "pose_tile": "6-6" if forced else FREE_TILES[i],
            "end": spec[0],
        }
        if spec[0] == "domino":
            data["winner"] = spec[1]
            if len(spec) > 2 and isinstance(spec[2], bool):
                data["llave"] = spec[2]
            elif len(spec) > 2:
                data["counts"] = list(spec[2])
        else:
            data["counts"] = list(spec[1])
        state, scored = match_apply(state, HandRecord.from_dict(data))
        out.append((state, scored))
    return out


def _row(scored: HandScored) -> SimpleNamespace:
    """The stored hand as the presenter reads it (scoring.models.Hand's fields)."""
    return SimpleNamespace(
        number=scored.number,
        winner=scored.winner,
        value=scored.value,
        tied=bool(scored.tied),
        reset=scored.reset,
        notes=list(scored.notes),
    )


def _next_words(ruleset: Ruleset, n: int, state: MatchState) -> Any:
    sides = SIDES if n == 4 and ruleset.teams.value == "partners" else ()
    nh = next_hand_json(state.next)
    assert nh is not None
    return describe_next_hand(nh, NAMES[:n], ruleset, sides)


def _hand_words(ruleset: Ruleset, n: int, scored: HandScored) -> str:
    sides = SIDES if n == 4 and ruleset.teams.value == "partners" else ()
    return explain_hand(_row(scored), NAMES[:n], ruleset, sides)


REPLAY_WORTH = (
    "Replay: the last hand was tied, so nobody scored and this hand is worth {v} (R26, R27)."
)

# (id, preset, overrides, players, hands up to a tie, replay value, the replay's stakes,
#  the tied hand's row, the replay itself, the engine resets after it, the replay's row)
REPLAY_CASES: list[tuple[Any, ...]] = [
    pytest.param(
        "jamaican",  # the tester's match: award (R31b), tie_value none (R26)
        {},
        3,
        [("domino", 1, True), ("block", (5, 10, 5))],
        1,
        "B · Bea led the tie run, but under this ruleset whoever wins this replay is scored as "
        "after any other hand (R31b).",
        "Tied hand: nobody scores and the next hand is a replay worth the same under this "
        "ruleset (R20, R26, R27).",
        ("domino", 0),
        False,
        "",
        id="award-flat-leader",
    ),
    pytest.param(
        "wsod",  # reset (R31a), escalate (R26)
        {},
        3,
        [("domino", 1), ("block", (5, 10, 5))],
        2,
        "B · Bea led the tie run: if anyone else wins this replay, every score returns to 0 and "
        "the winner scores nothing (R31a).",
        "Tied hand: nobody scores and the next hand is a replay worth more (R20, R26, R27).",
        ("domino", 0),
        True,
        "Reset: B · Bea led the tie run and lost the replay, so every score returns to 0 and "
        "A · Ana scores nothing (R31a).",
        id="reset-escalate-leader",
    ),
    pytest.param(
        "wsod",  # reset, but everyone on love: no leader (R28), so no R31a
        {},
        3,
        [("block", (5, 10, 5))],
        2,
        "Whoever wins this replay is scored as after any other hand (R28, R31b).",
        "Tied hand: nobody scores and the next hand is a replay worth more (R20, R26, R27).",
        ("domino", 1),
        False,
        "",
        id="reset-no-leader",
    ),
    pytest.param(
        "wsod",  # shared top score: no leader either (R28)
        {},
        3,
        [("domino", 0), ("domino", 1), ("block", (5, 5, 10))],
        2,
        "Whoever wins this replay is scored as after any other hand (R28, R31b).",
        "Tied hand: nobody scores and the next hand is a replay worth more (R20, R26, R27).",
        ("domino", 1),
        False,
        "",
        id="reset-shared-top-no-leader",
    ),
    pytest.param(
        "wsod",  # award with escalating value
        {"replay_leader_loss": "award"},
        3,
        [("domino", 1), ("block", (5, 10, 5))],
        2,
        "B · Bea led the tie run, but under this ruleset whoever wins this replay is scored as "
        "after any other hand (R31b).",
        "Tied hand: nobody scores and the next hand is a replay worth more (R20, R26, R27).",
        ("domino", 0),
        False,
        "",
        id="award-escalate-leader",
    ),
    pytest.param(
        "jamaican",  # award, no leader: nothing about a leader
        {},
        3,
        [("block", (5, 10, 5))],
        1,
        "Whoever wins this replay is scored as after any other hand (R31b).",
        "Tied hand: nobody scores and the next hand is a replay worth the same under this "
        "ruleset (R20, R26, R27).",
        ("domino", 1),
        False,
        "",
        id="award-flat-no-leader",
    ),
    pytest.param(
        "wsod",  # reset with a flat tie value: R31a still applies
        {"tie_value": "none"},
        3,
        [("domino", 1), ("block", (5, 10, 5))],
        1,
        "B · Bea led the tie run: if anyone else wins this replay, every score returns to 0 and "
        "the winner scores nothing (R31a).",
        "Tied hand: nobody scores and the next hand is a replay worth the same under this "
        "ruleset (R20, R26, R27).",
        ("domino", 2),
        True,
        "Reset: B · Bea led the tie run and lost the replay, so every score returns to 0 and "
        "C · Cris scores nothing (R31a).",
        id="reset-flat-leader",
    ),
    pytest.param(
        "straight_six",  # award under R30
        {},
        3,
        [("domino", 1), ("block", (5, 10, 5))],
        2,
        "B · Bea led the tie run, but under this ruleset whoever wins this replay is scored as "
        "after any other hand (R30).",
        "Tied hand: nobody scores and the next hand is a replay worth more (R20, R26, R27).",
        ("domino", 0),
        False,
        "",
        id="straight-six-award",
    ),
    pytest.param(
        "straight_six",  # R30: R31a applies first under reset
        {"replay_leader_loss": "reset"},
        3,
        [("domino", 1), ("block", (5, 10, 5))],
        2,
        "B · Bea led the tie run: if anyone else wins this replay, every score returns to 0 and "
        "the winner scores nothing (R30, R31a).",
        "Tied hand: nobody scores and the next hand is a replay worth more (R20, R26, R27).",
        ("domino", 0),
        True,
        "Reset: B · Bea led the tie run and lost the replay, so every score returns to 0 and "
        "A · Ana scores nothing (R31a).",
        id="straight-six-reset",
    ),
    pytest.param(
        "wsod",  # any_challenger: R32 alone, replay_leader_loss not consulted (decision 5)
        {"reset_rule": "any_challenger"},
        3,
        [("domino", 1), ("block", (5, 10, 5))],
        2,
        "Whoever wins this replay is scored as after any other hand (R32).",
        "Tied hand: nobody scores and the next hand is a replay worth more (R20, R26, R27).",
        ("domino", 0),
        True,
        "Reset: A · Ana won while B · Bea had points, so every score returns to 0 and A · Ana "
        "scores nothing (R32).",
        id="any-challenger",
    ),
    pytest.param(
        "wsod_partners",  # R42: the leading partnership; R31a for partnerships (R44)
        {},
        4,
        [("domino", 1), ("block", (4, 4, 9, 11))],
        2,
        f"{BD} led the tie run: if the other partnership wins this replay, every score returns "
        "to 0 and the winners score nothing (R31a, R44).",
        "Tied hand: players of both partnerships share the lowest count, nobody scores and the "
        "next hand is a replay worth more (R43, R26, R27).",
        ("domino", 0),
        True,
        f"Reset: {BD} led the tie run and lost the replay, so every score returns to 0 and {AC} "
        "score nothing (R31a, R44).",
        id="partners-reset-leader",
    ),
    pytest.param(
        "wsod_partners",  # partnerships on level terms: no leading partnership (R28, R42)
        {},
        4,
        [("block", (4, 4, 9, 11))],
        2,
        "Whoever wins this replay is scored as after any other hand (R28, R31b, R44).",
        "Tied hand: players of both partnerships share the lowest count, nobody scores and the "
        "next hand is a replay worth more (R43, R26, R27).",
        ("domino", 0),
        False,
        "",
        id="partners-no-leader",
    ),
    pytest.param(
        "wsod_partners",  # award and flat at a partnership table
        {"replay_leader_loss": "award", "tie_value": "none"},
        4,
        [("domino", 1), ("block", (4, 4, 9, 11))],
        1,
        f"{BD} led the tie run, but under this ruleset whoever wins this replay is scored as "
        "after any other hand (R31b, R44).",
        "Tied hand: players of both partnerships share the lowest count, nobody scores and the "
        "next hand is a replay worth the same under this ruleset (R43, R26, R27).",
        ("domino", 2),
        True,  # AC scores while BD has points: R31d (both partnerships have scored)
        "Reset: with this hand both partnerships had scored, so every score returns to 0 "
        "(R31d, R44).",
        id="partners-award-flat",
    ),
]


@pytest.mark.parametrize(
    ("preset", "overrides", "n", "hands", "value", "stakes", "tie_row", "replay", "resets", "row"),
    REPLAY_CASES,
)
def test_a_replay_is_explained_as_this_ruleset_scores_it(
    preset: str,
    overrides: dict[str, Any],
    n: int,
    hands: list[Spec],
    value: int,
    stakes: str,
    tie_row: str,
    replay: Spec,
    resets: bool,
    row: str,
) -> None:
    ruleset = Ruleset.from_preset(preset, overrides)
    played = _play(ruleset, n, [*hands, replay])
    state, tied = played[-2]
    assert state.next.is_replay
    assert state.next.value == value
    view = _next_words(ruleset, n, state)
    assert view.kind == "replay"
    assert view.title == f"Hand {len(hands) + 1} — replay worth {value}"
    assert view.explanation == REPLAY_WORTH.format(v=value) + " " + stakes
    if state.next.leader is None:  # R28: no leader, so nothing is said about one
        assert "leader" not in view.explanation
        assert "led" not in view.explanation
    assert _hand_words(ruleset, n, tied) == tie_row
    # What the words promised is what the engine does with the replay.
    _, scored = played[-1]
    assert scored.reset is resets
    assert _hand_words(ruleset, n, scored) == row


def test_the_tester_s_jamaican_match() -> None:
    """jamaican, 3 players: B dominoes with a llave (0-2-0), a tied block (5-10-5): A wins the
    replay and scores (1-2-0) — the words never promise a reset (R31a) nor a raise (R26)."""
    ruleset = Ruleset.from_preset("jamaican")
    played = _play(ruleset, 3, [("domino", 1, True), ("block", (5, 10, 5)), ("domino", 0)])
    assert [s.scores for s, _ in played] == [(0, 2, 0), (0, 2, 0), (1, 2, 0)]
    view = _next_words(ruleset, 3, played[1][0])
    assert view.title == "Hand 3 — replay worth 1"
    assert "R31a" not in view.explanation
    assert "returns to 0" not in view.explanation
    assert "worth more" not in _hand_words(ruleset, 3, played[1][1])


@pytest.mark.parametrize(
    ("preset", "overrides", "n", "tie", "raised"),
    [
        # escalate: 1 -> 2 -> 3 (R26)
        pytest.param("wsod", {}, 3, (5, 5, 10), (True, True), id="escalate"),
        # flat2: 1 -> 2, then it stays 2
        pytest.param("wsod", {"tie_value": "flat2"}, 3, (5, 5, 10), (True, False), id="flat2"),
        # escalate capped at 2: 1 -> 2, then the cap holds it
        pytest.param("wsod", {"tie_value_cap": 2}, 3, (5, 5, 10), (True, False), id="cap"),
        # none: 1 -> 1 -> 1
        pytest.param("jamaican", {}, 3, (5, 5, 10), (False, False), id="none"),
    ],
)
def test_worth_more_only_when_the_value_rises(
    preset: str, overrides: dict[str, Any], n: int, tie: tuple[int, ...], raised: tuple[bool, ...]
) -> None:
    """Two tied hands in a row: each row says "worth more" exactly when R26 raises the value
    of the hand after it, as the engine computes it."""
    ruleset = Ruleset.from_preset(preset, overrides)
    played = _play(ruleset, n, [("block", tie), ("block", tie)])
    for (state, scored), rises in zip(played, raised, strict=True):
        assert (state.next.value > scored.value) is rises  # the engine (R26)
        assert replay_raises_value(ruleset, scored.value) is rises
        words = _hand_words(ruleset, n, scored)
        assert ("worth more" in words) is rises
        assert ("worth the same" in words) is not rises


@pytest.mark.parametrize(
    ("preset", "n", "tie", "row"),
    [
        pytest.param(
            "block",
            4,
            (5, 5, 9, 11),
            "Tied hand: nobody scores and the next hand is a replay (R20, R40).",
            id="block",
        ),
        pytest.param(
            "partnership_block",
            4,
            (5, 5, 9, 11),
            "Tied hand: players of both partnerships share the lowest count, nobody scores and "
            "the next hand is a replay (R43, R40).",
            id="partnership-block",
        ),
    ],
)
def test_a_pip_scored_replay_has_no_value_and_no_reset(
    preset: str, n: int, tie: tuple[int, ...], row: str
) -> None:
    """R40: a tie scores nobody; a pip-scored hand has no value and nothing resets."""
    ruleset = Ruleset.from_preset(preset)
    played = _play(ruleset, n, [("block", tie)])
    state, scored = played[0]
    assert state.next.is_replay
    assert state.next.value == 0
    view = _next_words(ruleset, n, state)
    assert view.title == "Hand 2 — replay"
    assert view.explanation == "Replay: the last hand was tied, so nobody scored (R40)."
    assert _hand_words(ruleset, n, scored) == row


@pytest.mark.parametrize(
    ("overrides", "hands", "row"),
    [
        pytest.param(
            {},
            [("domino", 1), ("domino", 0)],
            "Reset: with this hand both partnerships had scored, so every score returns to 0 "
            "(R31d, R44).",
            id="all-scored",
        ),
        pytest.param(
            {"reset_rule": "any_challenger"},
            [("domino", 1), ("domino", 0)],
            f"Reset: {AC} won while {BD} had points, so every score returns to 0 and {AC} "
            "score nothing (R32, R44).",
            id="any-challenger",
        ),
    ],
)
def test_a_partnership_reset_names_the_partnerships(
    overrides: dict[str, Any], hands: list[Spec], row: str
) -> None:
    """R42, R44: at a partnership table the partnerships score and reset, not the players."""
    ruleset = Ruleset.from_preset("wsod_partners", overrides)
    played = _play(ruleset, 4, hands)
    _, scored = played[-1]
    assert scored.reset
    words = _hand_words(ruleset, 4, scored)
    assert words == row
    assert "every player" not in words


def test_an_individual_reset_still_speaks_of_every_player() -> None:
    """R31d at an individual table: every player had scored."""
    ruleset = Ruleset.from_preset("wsod")
    played = _play(ruleset, 3, [("domino", 0), ("domino", 1), ("domino", 2)])
    _, scored = played[-1]
    assert scored.reset
    assert _hand_words(ruleset, 3, scored) == (
        "Reset: with this hand every player had scored, so every score returns to 0 (R31d)."
    )
