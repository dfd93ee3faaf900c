"""Where the live standings draw a qualifying stage's cut line (T6): one rule for a stage of
players (T5) and a stage of partnerships (T10), so both tables place it alike.

Pure Python, no database. Rows are given in their listed order as ``(id, rank)``: a player's
entry id or a partnership's id, and its rank (rows level on every key share a rank).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence


def cut_line_at(
    ordered: Sequence[tuple[int, int]],
    cut: int | None,
    *,
    counted: Collection[int],
    ranked: bool,
    settled: bool,
) -> int | None:
    """Index of the row the cut line (T6) is drawn under, or ``None`` for no line.

    The line falls under the ``cut``-th row still in the stage (``counted``: a withdrawn
    player or partnership, T7, takes no place). No line before the first result (every row
    is level on nothing), none when the whole field goes through, and none through a tie
    (rows sharing a rank on both sides of it) while rounds are still to be played
    (``settled`` false): the next rounds will separate them, and a line drawn through a
    14-way tie would split it by seed (T3). Once every round is played a tie across the line
    stays drawn through, its rows marked "play-off needed" (T6).
    """
    if not cut or not ranked:
        return None
    seen = 0
    line_at = None
    for i, (row_id, _rank) in enumerate(ordered):
        if row_id in counted:
            seen += 1
            if seen == cut:
                line_at = i
                break
    if line_at is None:
        return None
    below = next((rank for row_id, rank in ordered[line_at + 1 :] if row_id in counted), None)
    if below is None:
        return None  # nobody still in is below it: everyone goes through
    if not settled and below == ordered[line_at][1]:
        return None
    return line_at


def above_cut(i: int, rank: int, cut: int | None, line_at: int | None) -> bool | None:
    """Whether the ``i``-th row (of ``rank``) reads above the cut: ``None`` without a cut;
    above the drawn line; without a line (no result yet, or a tie across it before the last
    round) by rank: within the top ``cut`` or level with the line."""
    if cut is None:
        return None
    if line_at is not None:
        return i <= line_at
    return rank <= cut
