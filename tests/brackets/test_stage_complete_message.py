"""The words a director reads when a stage is complete (T6, T10, T5): counted in proper
singular and plural, partnerships in a pairs stage, and the event's last stage says its places
are final instead of "0 go on"."""

from __future__ import annotations

import pytest
from django.utils import translation

from brackets.services.steps import stage_complete_message


@pytest.mark.parametrize(
    ("advanced", "out", "pairs", "expected"),
    [
        (8, 12, False, "Heats is complete: 8 players go on, 12 are out (T6)."),
        (1, 1, False, "Heats is complete: 1 player goes on, 1 is out (T6)."),
        (0, 4, False, "Heats is complete: its places are the final places (T5)."),
        (2, 3, True, "Heats is complete: 2 partnerships go on, 3 are out (T10)."),
        (1, 1, True, "Heats is complete: 1 partnership goes on, 1 is out (T10)."),
        (0, 2, True, "Heats is complete: its places are the final places (T10)."),
    ],
)
def test_stage_complete_words(advanced: int, out: int, pairs: bool, expected: str) -> None:
    with translation.override("en"):
        assert stage_complete_message("Heats", advanced, out, pairs=pairs) == expected
