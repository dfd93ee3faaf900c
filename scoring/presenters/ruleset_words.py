"""What a replay is played for, in words that follow the match's ruleset (RULES.md section 1).

scoring/presenters/match.py explains the next hand and the hands so far; the parts that depend
on the ruleset are here:

- :func:`replay_stakes`: what winning a replay does. R31a resets every score when the leader
  of the tie run (R28) loses it, but only under ``replay_leader_loss = reset``, never under
  R32 (the engine's decision 5), and only when there is a leader; otherwise the replay is
  scored like any hand (R30, R31b, R32).
- :func:`replay_raises_value` and :func:`tie_words`: a tie says "worth more" only when R26
  raises the replay's value (``tie_value``, ``tie_value_cap``); a pip-scored hand has no
  value (R40).

At a partnership table (R42) the partnerships lead, win and reset (R43, R44).
static/js/referee.js mirrors :func:`replay_stakes` word for word (its ``replayStakes``).
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from scoring.engine import Ruleset, Scoring
from scoring.engine.rules import ReplayLeaderLoss, ResetRule, TieValue


def _any_challenger(ruleset: Ruleset) -> bool:
    """R32 applies (``six_love`` with ``reset_rule = any_challenger``), and R31 does not."""
    return ruleset.scoring is Scoring.SIX_LOVE and ruleset.reset_rule is ResetRule.ANY_CHALLENGER


def _leader_loss_resets(ruleset: Ruleset) -> bool:
    """A leader of the tie run who loses the replay resets every score (R31a; R30 applies it
    first under ``straight_six``): ``replay_leader_loss = reset`` and not R32, which the
    engine applies alone (decision 5 of scoring.engine.match); never under pip scoring."""
    return (
        ruleset.scoring is not Scoring.PIPS
        and ruleset.replay_leader_loss is ReplayLeaderLoss.RESET
        and not _any_challenger(ruleset)
    )


def replay_stakes(ruleset: Ruleset, leader: str | None, *, partners: bool) -> str:
    """What winning the replay does under this ruleset, for a replay whose tie run was led by
    ``leader`` (a seat's or a partnership's name, R28, R42) or by nobody (``None``).

    R31a resets only under ``replay_leader_loss = reset`` and only when a leader exists;
    otherwise the replay is scored like any decided hand: R30 (``straight_six``), R31b
    (``six_love``, ``all_scored``) or R32 (``any_challenger``).
    """
    straight = ruleset.scoring is Scoring.STRAIGHT_SIX
    if leader is not None and _leader_loss_resets(ruleset):
        rules = ("R30, R31a" if straight else "R31a") + (", R44" if partners else "")
        if partners:
            text = _(
                "%(leader)s led the tie run: if the other partnership wins this replay, every "
                "score returns to 0 and the winners score nothing (%(rules)s)."
            )
        else:
            text = _(
                "%(leader)s led the tie run: if anyone else wins this replay, every score "
                "returns to 0 and the winner scores nothing (%(rules)s)."
            )
        return str(text % {"leader": leader, "rules": rules})
    rules = "R30" if straight else ("R32" if _any_challenger(ruleset) else "R31b")
    if partners:
        rules += ", R44"
    if leader is None and _leader_loss_resets(ruleset):
        rules = "R28, " + rules  # no unique leader, so R31a cannot apply
    if leader is not None and not _any_challenger(ruleset):
        # replay_leader_loss = award: the leader's loss changes nothing (R31a does not apply).
        return str(
            _(
                "%(leader)s led the tie run, but under this ruleset whoever wins this replay is "
                "scored as after any other hand (%(rules)s)."
            )
            % {"leader": leader, "rules": rules}
        )
    return str(
        _("Whoever wins this replay is scored as after any other hand (%(rules)s).")
        % {"rules": rules}
    )


def replay_raises_value(ruleset: Ruleset, tied_value: int) -> bool:
    """Whether the replay after a tied hand worth ``tied_value`` is worth more (R26):
    ``escalate`` adds 1 and ``flat2`` raises to 2, both up to ``tie_value_cap``; ``none``
    keeps the value; a pip-scored hand has no value (R40)."""
    if ruleset.scoring is Scoring.PIPS:
        return False
    if ruleset.tie_value is TieValue.ESCALATE:
        raised = tied_value + 1
    elif ruleset.tie_value is TieValue.FLAT2:
        raised = max(tied_value, 2)
    else:
        return False
    if ruleset.tie_value_cap is not None:
        # V <= max(cap, base) and base <= tied_value: a value at the cap stays there.
        raised = min(raised, max(ruleset.tie_value_cap, tied_value))
    return raised > tied_value


def tie_words(ruleset: Ruleset, tied_value: int, *, partners: bool) -> str:
    """A tied hand worth ``tied_value`` in the hands list (R20, R43; R40 under pip scoring):
    "worth more" only when R26 raises the replay's value under this ruleset."""
    if ruleset.scoring is Scoring.PIPS:
        if partners:
            return str(
                _(
                    "Tied hand: players of both partnerships share the lowest count, nobody "
                    "scores and the next hand is a replay (R43, R40)."
                )
            )
        return str(_("Tied hand: nobody scores and the next hand is a replay (R20, R40)."))
    if replay_raises_value(ruleset, tied_value):
        if partners:
            return str(
                _(
                    "Tied hand: players of both partnerships share the lowest count, nobody "
                    "scores and the next hand is a replay worth more (R43, R26, R27)."
                )
            )
        return str(
            _("Tied hand: nobody scores and the next hand is a replay worth more (R20, R26, R27).")
        )
    if partners:
        return str(
            _(
                "Tied hand: players of both partnerships share the lowest count, nobody scores "
                "and the next hand is a replay worth the same under this ruleset (R43, R26, R27)."
            )
        )
    return str(
        _(
            "Tied hand: nobody scores and the next hand is a replay worth the same under this "
            "ruleset (R20, R26, R27)."
        )
    )


__all__ = ["replay_raises_value", "replay_stakes", "tie_words"]
