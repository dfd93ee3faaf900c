"""What the referee and director pages show about a match, as plain values (no queries here).

The views fetch a match with its seats, players and hands (a fixed number of queries) and hand
them to :func:`match_view`, which turns the stored snapshot (``Match.scores``, ``next_hand``,
``winner_seat``) into the sentences a referee reads: who poses the next hand and why (R5-R10),
what it is worth (R26), who is on love (section 0), and the result when the match is over
(R31c, R33). Wording lives here so the page and its live panel say the same thing; it follows
the match's frozen ruleset (section 1): a replay's stakes (R28, R30-R32) and whether a tie
raises the value (R26) come from :mod:`scoring.presenters.ruleset_words`; pip scoring (R40)
and partnerships (R42-R44) change the words too. static/js/referee.js mirrors
describe_next_hand and the reset sentences of explain_hand word for word.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.text import get_text_list
from django.utils.translation import gettext as _

from core.reasons import reason_text
from scoring.engine import ALL_TILES, Llave, Ruleset, RuleViolation, Scoring, Tile
from scoring.engine.match import match_start as engine_match_start
from scoring.engine.match_state import match_context
from scoring.engine.placing import seat_side_places
from scoring.engine.rules import Opening
from scoring.presenters.bodies import next_hand_json
from scoring.presenters.partnership import SideView, partnership_sides
from scoring.presenters.ruleset_words import replay_stakes, tie_words

SEAT_LETTERS = "ABCD"
DASH = "\u2013"  # between scores: 6\u20130\u20130\u20130
SEAT_SEPARATOR = " \u00b7 "  # "A · Ana": the one way a seat is named on every page


def seat_label(seat: int, name: str) -> str:
    """The seat's letter in play order with the player's name, e.g. "A · Ana" (section 0).

    Spectators, referees and directors all read seats this way; the engine's 0-based numbers
    never reach a page.
    """
    letter = SEAT_LETTERS[seat] if 0 <= seat < len(SEAT_LETTERS) else str(seat + 1)
    return f"{letter}{SEAT_SEPARATOR}{name}" if name else letter


@dataclass(frozen=True)
class SeatView:
    seat: int
    letter: str
    name: str
    label: str  # "A · Ana"
    club: str
    country: str
    score: int
    on_love: bool
    is_leader: bool
    is_poser: bool
    is_winner: bool
    six_love: bool


@dataclass(frozen=True)
class NextHandView:
    number: int
    title: str
    description: str
    rule: str
    poser: int | None
    forced: bool
    forced_tile: str | None
    value: int
    kind: str  # "normal" | "replay" | "playoff"
    explanation: str = ""  # why this hand is a replay or a play-off, in words


@dataclass(frozen=True)
class HandRow:
    number: int
    poser: str
    pose_tile: str
    end: str
    result: str
    value: int
    paid: int
    scores_after: str
    void: bool
    void_reason: str
    recorded_at: Any
    explanation: str = ""  # a reset, a tie or a play-off explained in words
    voided_by_id: int | None = None  # who undid it (the referee page names a director's undo)


@dataclass(frozen=True)
class MatchView:
    seats: tuple[SeatView, ...]
    next_hand: NextHandView | None
    over: bool
    result_title: str
    result_detail: str
    llave_enabled: bool
    counts_on_domino: bool
    max_count: int
    tiles: tuple[str, ...]
    hands: tuple[HandRow, ...]
    last_live: HandRow | None
    score_line: str
    target: int
    scoring_label: str
    last_event: str = ""  # the last hand's reset or tie, explained, shown above the next hand
    sides: tuple[SideView, ...] = ()  # partnerships AC and BD under teams = partners (R42)
    # The tiles a forced pose may lead under this ruleset and player count (R5): 6-6 alone when
    # every tile is dealt, else 6-6 and the fallbacks R5 allows.
    forced_tiles: tuple[str, ...] = ()
    # A match over: each placing stored on the seats (R33, T3, T4) and the players holding
    # it, shared placings together; empty until the result is placed.
    placings: tuple[tuple[int, str], ...] = ()
    # A match a sudden-death hand decided (T3): who won it, in words, on the result card.
    sudden_death_won: str = ""
    # A forfeited match (T7): the hands list's last line, why the score line differs from the
    # last hand's scores ("Forfeit (T7): C · Luis 0, loses 0-6"); "" for any other match.
    forfeit_line: str = ""

    @property
    def pose_forced(self) -> bool:
        """The next hand is a forced pose of a known tile: the form offers only the tiles R5
        allows, the forced tile chosen (the server still checks the record)."""
        nh = self.next_hand
        return bool(nh is not None and nh.forced and nh.forced_tile and self.forced_tiles)


def _tile_label(raw: object) -> str | None:
    if raw in (None, ""):
        return None
    if isinstance(raw, Tile):
        return str(raw)
    if isinstance(raw, str):
        try:
            return str(Tile.parse(raw))
        except Exception:
            return raw
    if isinstance(raw, Sequence) and len(raw) == 2:
        return str(Tile.of(int(raw[0]), int(raw[1])))
    return str(raw)


def ruleset_of(match: Any) -> Ruleset:
    """The ruleset frozen on the match (RULES.md §1), or the tournament's before it starts."""
    data = match.ruleset or getattr(match.tournament, "ruleset", None) or {}
    if data:
        return Ruleset.from_json(data)
    return Ruleset.from_preset(match.tournament.ruleset_preset, match.tournament.ruleset_overrides)


def describe_next_hand(
    next_hand: Mapping[str, Any],
    names: Sequence[str],
    ruleset: Ruleset,
    sides: Sequence[SideView] = (),
    *,
    sudden_death: bool = False,
) -> NextHandView:
    """Title and sentence for the next hand, e.g. "Replay worth 3" / "Ana leads and poses (R10)".

    ``ruleset`` decides what a replay's explanation says (R26, R28, R30-R32, R40);
    ``sides``: the partnerships of a partnership match, whose tie run a partnership leads (R42);
    ``sudden_death``: the table plays for a sudden-death hand (T3), where whoever wins the
    replay wins the match, whatever R31a or R31b would do to the scores.
    """
    number = int(next_hand.get("number") or 1)
    poser = next_hand.get("poser")
    forced = bool(next_hand.get("forced"))
    forced_tile = _tile_label(next_hand.get("forced_tile"))
    value = int(next_hand.get("value") or 0)
    is_replay = bool(next_hand.get("is_replay"))
    is_playoff = bool(next_hand.get("is_playoff"))
    leader = next_hand.get("leader")
    rule = str(next_hand.get("rule") or "")
    pips = ruleset.scoring is Scoring.PIPS

    if is_playoff and is_replay:
        title = _("Hand %(n)s — play-off replay worth %(v)s") % {"n": number, "v": value}
        kind = "playoff"
    elif is_playoff:
        title = _("Hand %(n)s — play-off worth %(v)s") % {"n": number, "v": value}
        kind = "playoff"
    elif is_replay and pips:  # a pip-scored hand has no value (R40)
        title = _("Hand %(n)s — replay") % {"n": number}
        kind = "replay"
    elif is_replay:
        title = _("Hand %(n)s — replay worth %(v)s") % {"n": number, "v": value}
        kind = "replay"
    elif value > 1:
        title = _("Hand %(n)s — worth %(v)s") % {"n": number, "v": value}
        kind = "normal"
    else:
        title = _("Hand %(n)s") % {"n": number}
        kind = "normal"

    # A match not started under lot_then_rotate: any seat may pose hand 1, freely, and the
    # seat that does is the lot winner (R6), not the holder of a forced 6-6 (R5).
    lot = not forced and poser is None and rule == "R6" and number == 1
    if lot:
        description = _("The winner of the draw for the lead poses any tile")
    elif forced or poser is None:
        tile = forced_tile or "6-6"
        description = _("The holder of %(tile)s poses the %(tile)s") % {"tile": tile}
        rule = "R5" if rule in ("", "R6") else f"{rule}, R5"
    else:
        name = names[int(poser)] if 0 <= int(poser) < len(names) else str(poser)
        if rule == "R10" and leader is not None and int(leader) == int(poser):
            description = _("%(name)s leads and poses any tile") % {"name": name}
        elif rule == "R7":
            description = _("%(name)s won the last hand and poses any tile") % {"name": name}
        elif rule == "R8":
            description = _("%(name)s won the hand that reset and poses any tile") % {"name": name}
        elif rule == "R6" and number == 1:
            description = _("%(name)s won the draw for the lead and poses any tile") % {
                "name": name
            }
        elif rule == "R6":
            description = _("%(name)s poses any tile (the lead rotates)") % {"name": name}
        else:
            description = _("%(name)s poses any tile") % {"name": name}
    if kind == "playoff" and is_replay:
        explanation = _(
            "Play-off replay: the play-off hand was tied, so it is played again and is still a "
            "play-off, worth %(v)s (R26, R27)."
        ) % {"v": value}
    elif kind == "playoff":
        explanation = _(
            "Play-off: the last hand sent every score back to 0 with everyone on one point. "
            "This hand is posed by the holder of 6-6 and is worth %(v)s (R9, R26)."
        ) % {"v": value}
    elif kind == "replay" and pips:
        explanation = _("Replay: the last hand was tied, so nobody scored (R40).")
    elif kind == "replay":
        # The tie run's leader (R28): a seat, or under partnerships a partnership (R42).
        partners = len(sides) == 2
        leader_name: str | None = None
        if leader is not None:
            k = int(leader)
            if partners:
                leader_name = sides[k % 2].label
            else:
                leader_name = names[k] if 0 <= k < len(names) else str(k)
        # At a sudden-death table (T3) the replay's winner wins the match, even one who
        # would score nothing under R31a (scoring.services): the stakes of a replay played
        # on would contradict the sudden-death note on the same screen.
        stakes = (
            str(_("Sudden death (T3): whoever wins this replay wins the match."))
            if sudden_death
            else replay_stakes(ruleset, leader_name, partners=partners)
        )
        explanation = (
            _(
                "Replay: the last hand was tied, so nobody scored and this hand is worth %(v)s "
                "(R26, R27)."
            )
            % {"v": value}
            + " "
            + stakes
        )
    else:
        explanation = ""
    return NextHandView(
        number=number,
        title=title,
        description=description,
        rule=rule,
        poser=None if forced or poser is None else int(poser),
        forced=not lot and (forced or poser is None),
        forced_tile=forced_tile if not lot and (forced or poser is None) else None,
        value=value,
        kind=kind,
        explanation=explanation,
    )


def _seat_player(seat: Any) -> Any:
    entry = getattr(seat, "entry", None)
    return getattr(entry, "player", None)


_NOTE_SEAT = re.compile(r"\b(?:leader )?([A-H])\b (?:lost the replay|had points)")
# The partnership counterpart (R42, R44): "leader AC lost the replay", "BD had points".
_NOTE_SIDE = re.compile(r"\b(?:leader )?(AC|BD)\b (?:lost the replay|had points)")


def explain_hand(
    hand: Any, names: Sequence[str], ruleset: Ruleset, sides: Sequence[SideView] = ()
) -> str:
    """A reset, a tie or a coming play-off in words (R27, R31a, R31d, R32, R9) as ``ruleset``
    has it (R26, R40); ``sides``: the partnerships of a partnership match (R42), which score,
    lead a tie run and reset as partnerships (R43, R44).

    The engine's notes (English, stored with the hand) say which rule applied; the sentence is
    written here so it can be translated and name seats as "A · Ana" (partnerships as
    "AC · Ana & Carla").
    """
    notes = " ".join(str(n) for n in (getattr(hand, "notes", None) or []))
    partners = len(sides) == 2

    def nm(i: int | None) -> str:
        if i is not None and partners:
            return sides[i % 2].label  # R43: the hand is won by the partnership
        return names[i] if i is not None and 0 <= i < len(names) else "—"

    winner = nm(hand.winner)
    playoff = "play-off next" in notes
    if hand.reset:
        if partners:
            side = _NOTE_SIDE.search(notes)
            other = sides[("AC", "BD").index(side.group(1))].label if side else ""
        else:
            match = _NOTE_SEAT.search(notes)
            other = nm("ABCDEFGH".index(match.group(1))) if match else ""
        if "R31a" in notes and partners:
            text = _(
                "Reset: %(leader)s led the tie run and lost the replay, so every score returns "
                "to 0 and %(winner)s score nothing (R31a, R44)."
            ) % {"leader": other or _("the leader"), "winner": winner}
        elif "R31a" in notes:
            text = _(
                "Reset: %(leader)s led the tie run and lost the replay, so every score returns "
                "to 0 and %(winner)s scores nothing (R31a)."
            ) % {"leader": other or _("the leader"), "winner": winner}
        elif "R32" in notes and partners:
            text = _(
                "Reset: %(winner)s won while %(holder)s had points, so every score returns to 0 "
                "and %(winner)s score nothing (R32, R44)."
            ) % {"winner": winner, "holder": other or _("another player")}
        elif "R32" in notes:
            text = _(
                "Reset: %(winner)s won while %(holder)s had points, so every score returns to 0 "
                "and %(winner)s scores nothing (R32)."
            ) % {"winner": winner, "holder": other or _("another player")}
        elif partners:
            text = _(
                "Reset: with this hand both partnerships had scored, so every score returns "
                "to 0 (R31d, R44)."
            )
        else:
            text = _(
                "Reset: with this hand every player had scored, so every score returns to 0 (R31d)."
            )
        if playoff:
            text += " " + _("Everyone was on one point: the next hand is a play-off (R9).")
        return str(text)
    if hand.tied:
        return tie_words(ruleset, int(hand.value or 0), partners=partners)
    return ""


def scores_after_line(scores: Sequence[int], *, partners: bool) -> str:
    """The score line after a hand: every seat's, or under partnerships (R42, R43) the two
    partnerships' ("AC 3 \u2013 BD 1": partners share one score)."""
    if partners and len(scores) == 4:
        return f"AC {scores[0]} {DASH} BD {scores[1]}"
    return DASH.join(str(s) for s in scores)


def forfeit_words(name: str, *, side: str = "") -> str:
    """The one sentence a forfeited match's result reads on every page (T7): "Forfeit by C ·
    Luis: a 0-6 loss (T7)"; at a partnership table (R42) the partnership loses, ``side`` (its
    label or its players' names). A forfeit is no six-love won at the table (R31c): nobody
    reached the target, the 0-6 is the rule's."""
    if side:
        return str(_("Forfeit by %(name)s: %(side)s lose 0–6 (T7)") % {"name": name, "side": side})
    return str(_("Forfeit by %(name)s: a 0–6 loss (T7)") % {"name": name})


def forfeit_hands_line(name: str, *, side: str = "", played_on: bool = False) -> str:
    """The last line of a forfeited match's hands (T7): why the score line shows the
    forfeiting player on 0 when the last hand left them more, and, at a table that plays on,
    that the others' scores end with this match (their standings line is the next match's)."""
    if side:
        # Named once (a partner of the side is its forfeiting player), as forfeit_words.
        line = _("Forfeit (T7) by %(name)s: %(side)s lose 0–6") % {"name": name, "side": side}
    else:
        line = _("Forfeit (T7): %(name)s 0, loses 0–6") % {"name": name}
    if played_on:
        line += " · " + _("the others' scores end with this match; they play on from love (T7)")
    return str(line)


def _six_love(seat: Any, *, over: bool, score: int) -> bool:
    """Whether a seat of a match that is over was given a six-love (R31c): what the engine
    counted on the seat (``six_love_received``, written with every hand). A match ended by
    time (T3) or a forfeit at a table that plays on (T7) leaves players on 0 without one,
    while a two-player forfeit is a six-love loss."""
    return over and score == 0 and seat.six_love_received > 0


def tie_result(counts: Sequence[int] | None, name: Callable[[int], str]) -> str:
    """A tied block as the match pages say it (R20): "tie: Ana and Luis", the seats sharing
    the lowest count named by ``name``; "tie" without counts."""
    if not counts:
        return str(_("tie"))
    low = min(counts)
    tied = [name(i) for i, c in enumerate(counts) if c == low]
    return str(_("tie: %(names)s") % {"names": get_text_list(tied, _("and"))})


def tie_line(counts: Sequence[int] | None, name: Callable[[int], str]) -> str:
    """:func:`tie_result` with the counts, "tie: Ana and Luis (12-20-12-31)", as the referee
    page's hands list shows a tied hand; the spectators' match page shows the same."""
    result = tie_result(counts, name)
    if counts:
        result += " (" + DASH.join(str(c) for c in counts) + ")"
    return result


def hand_row(
    hand: Any, names: Sequence[str], ruleset: Ruleset, sides: Sequence[SideView] = ()
) -> HandRow:
    """One hand as the match page lists it, explained as ``ruleset`` has it; ``sides``: the
    partnerships of a partnership match, which win a block together (R43)."""

    def nm(i: int | None) -> str:
        return names[i] if i is not None and 0 <= i < len(names) else "—"

    if hand.end == "domino":
        end = _("domino")
        result = _("%(name)s dominoes") % {"name": nm(hand.winner)}
        if hand.llave:
            result += " · " + _("llave")
    else:
        end = _("block")
        if hand.winner is not None and len(sides) == 2:
            # R43: the lowest count wins for its owner's partnership (also when shared by
            # the two partners).
            result = _("%(side)s win the block") % {"side": sides[hand.winner % 2].label}
        elif hand.winner is not None:
            result = _("%(name)s wins the block") % {"name": nm(hand.winner)}
        else:
            result = tie_result(hand.counts, nm)
        if hand.counts:
            result += " (" + DASH.join(str(c) for c in hand.counts) + ")"
    if hand.reset:
        result += " · " + _("RESET")
    return HandRow(
        number=hand.number,
        poser=nm(hand.poser),
        pose_tile=_tile_label(hand.pose_tile) or "",
        end=end,
        result=result,
        value=hand.value,
        paid=hand.paid,
        scores_after=scores_after_line(hand.scores_after or [], partners=len(sides) == 2),
        void=hand.void,
        void_reason=reason_text(hand.void_reason or ""),
        recorded_at=hand.recorded_at,
        explanation=explain_hand(hand, names, ruleset, sides),
        voided_by_id=getattr(hand, "voided_by_id", None) if hand.void else None,
    )


def _winner_seats(match: Any, sides: Sequence[SideView]) -> frozenset[int]:
    """The seats that won the finished match: both partners of the winning partnership (R42,
    T4), else the winner's seat."""
    if match.status != "finished" or match.winner_seat is None:
        return frozenset()
    if sides:
        return frozenset(k for k in range(4) if k % 2 == match.winner_seat % 2)
    return frozenset({match.winner_seat})


def match_view(match: Any, seats: Sequence[Any], hands: Sequence[Any]) -> MatchView:
    """Everything the pages show; ``seats`` in play order, ``hands`` oldest first."""
    ruleset = ruleset_of(match)
    n = match.n_players
    names = []
    for s in seats:
        player = _seat_player(s)
        names.append(player.name if player is not None else "")
    # Sentences name a seat as "A · Ana", like the form and the spectators' pages.
    labels = [seat_label(s.seat, name) for s, name in zip(seats, names, strict=False)]
    scores = list(match.scores or [0] * n)
    if len(scores) < n:
        scores += [0] * (n - len(scores))
    over = match.status == "finished"
    sides = partnership_sides(match, ruleset, names, scores)
    nh_data = match.next_hand or {}
    sudden_death = bool(getattr(match, "sudden_death", False))
    next_view = (
        describe_next_hand(nh_data, labels, ruleset, sides, sudden_death=sudden_death)
        if (nh_data and not over)
        else None
    )
    # (A match whose last hand waits for the players' confirmation has no next hand and is not
    # over yet: nothing to record, issue 15.)
    if next_view is None and not over and match.status != "void" and not match.hands_count:
        # Not started: the first hand starts the match (scoring.services), as the engine
        # would open it; under lot_then_rotate any seat may pose (the lot winner, R6).
        first: dict[str, Any] = {
            "number": 1,
            "forced": True,
            "forced_tile": "6-6",
            "value": 1,
            "rule": "R6",
        }
        with contextlib.suppress(RuleViolation):
            first = dict(next_hand_json(engine_match_start(ruleset, n).next) or first)
            if ruleset.opening is Opening.LOT_THEN_ROTATE:
                first["poser"] = None
        next_view = describe_next_hand(first, labels, ruleset, sides)
    leader = nh_data.get("leader") if nh_data else None
    pips = ruleset.scoring is Scoring.PIPS

    winners = _winner_seats(match, sides)
    seat_views = []
    for s, name in zip(seats, names, strict=False):
        player = _seat_player(s)
        score = scores[s.seat]
        seat_views.append(
            SeatView(
                seat=s.seat,
                letter=SEAT_LETTERS[s.seat],
                name=name or SEAT_LETTERS[s.seat],
                label=seat_label(s.seat, name),
                club=getattr(player, "club", "") or "",
                country=getattr(player, "country", "") or "",
                score=score,
                # Section 0: a score of 0. The winner of a finished match is never "on love",
                # though a sudden-death hand (T3) may end a match on 0-0-0-0: a replay its
                # leader lost resets every score and the winner scores nothing (R31a).
                on_love=(score == 0 and not pips and s.seat not in winners),
                # A partnership table's tie run is led by a partnership (R42): both partners.
                is_leader=(
                    leader is not None
                    and not over
                    and int(leader) == (s.seat % 2 if len(sides) == 2 else s.seat)
                ),
                is_poser=(
                    next_view is not None
                    and next_view.poser is not None
                    and next_view.poser == s.seat
                ),
                is_winner=s.seat in winners,
                six_love=_six_love(s, over=over and not pips, score=score),
            )
        )

    result_title = result_detail = sudden_death_won = forfeit_line = ""
    if over:
        w = match.winner_seat
        won = [side for side in sides if side.is_winner]
        if won:  # R42: a partnership match is won by the partnership
            result_title = _("Match over — %(side)s win") % {"side": won[0].label}
        elif w is not None and 0 <= w < len(names):
            result_title = _("Match over — %(name)s wins") % {"name": labels[w]}
        else:
            result_title = _("Match over")
        reason = getattr(match, "end_reason", "")
        forfeiting = [s for s in seats if getattr(s, "forfeited", False)]
        if reason == "forfeit" and forfeiting:
            # T7: the forfeit is the 0-6 loss, not a six-love given at the table (R31c);
            # nobody reached the target. The hands list's last line says why the scores
            # differ from the last hand's.
            f_names = ", ".join(seat_label(s.seat, names[s.seat]) for s in forfeiting)
            lost = [side for side in sides if not side.is_winner]
            f_side = lost[0].label if sides and won and lost else ""
            result_detail = forfeit_words(f_names, side=f_side)
            forfeit_line = forfeit_hands_line(
                f_names, side=f_side, played_on=not sides and w is None
            )
        else:
            loves = [sv.label for sv in seat_views if sv.six_love and sv.seat not in winners]
            if loves:
                result_detail = _("Six-love to %(names)s (R31c)") % {"names": ", ".join(loves)}
        if reason and reason != "normal" and not forfeit_line:
            result_detail = (result_detail + " · " if result_detail else "") + _(
                match.get_end_reason_display()  # marked in core/choice_labels.py
            )
        if reason == "time" and getattr(match, "sudden_death", False) and (won or w is not None):
            # T3: the first hand won after time was called ended the match.
            sudden_death_won = _(
                "%(name)s won the sudden-death hand and with it the match (T3)."
            ) % {"name": won[0].label if won else labels[w]}

    by_place: dict[int, list[str]] = {}
    if over:
        places: list[int | None] = [getattr(seat_row, "placing", None) for seat_row in seats]
        if sides and len(places) == 4:
            # R42/T4: a partnership's place among the two (1st, 2nd), as the spectators'
            # pages, the exports and the players' confirmation read it, not the seat
            # placings (1, 3) the match stores.
            forfeited = [bool(getattr(seat_row, "forfeited", False)) for seat_row in seats]
            places = seat_side_places(places, forfeited)
        for place, label in zip(places, labels, strict=False):
            if place is not None:
                by_place.setdefault(place, []).append(label)
    placings = tuple((place, ", ".join(names)) for place, names in sorted(by_place.items()))

    rows = tuple(hand_row(h, labels, ruleset, sides) for h in hands)
    live = [r for r in rows if not r.void]
    last_event = ""
    live_hands = [h for h in hands if not h.void]
    # The last hand's reset, explained above the next hand; on a match a sudden-death hand
    # decided (T3) the result card says so when that hand reset (R31a: a replay its leader
    # lost), as it is why the winner stands on 0.
    if live and live_hands[-1].reset and (not over or sudden_death_won):
        last = live[-1]
        last_event = _("Hand %(n)s: %(text)s") % {"n": last.number, "text": last.explanation}
    in_use = ruleset.set_mask(n)
    ordered = sorted(ALL_TILES, key=lambda t: (-t.high, -t.low))
    tiles = tuple(str(t) for t in ordered if in_use >> t.index & 1)
    forced_tiles: tuple[str, ...] = ()
    with contextlib.suppress(RuleViolation):
        allowed = in_use & match_context(ruleset, n).forced_mask
        forced_tiles = tuple(str(t) for t in ordered if allowed >> t.index & 1)
    return MatchView(
        seats=tuple(seat_views),
        next_hand=next_view,
        over=over,
        result_title=result_title,
        result_detail=result_detail,
        llave_enabled=ruleset.llave is not Llave.OFF,
        counts_on_domino=pips,
        max_count=ruleset.max_count(n),
        tiles=tiles,
        hands=rows,
        last_live=live[-1] if live else None,
        score_line=DASH.join(str(s) for s in scores[:n]),
        target=ruleset.target_for(n),
        scoring_label=ruleset.scoring.value,
        last_event=last_event,
        sides=sides,
        forced_tiles=forced_tiles,
        placings=placings,
        sudden_death_won=sudden_death_won,
        forfeit_line=forfeit_line,
    )
