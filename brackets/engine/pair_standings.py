"""Standings of partnerships in a pairs event (T10): one line per partnership and finished
match, ranked by match wins, hands won, then points for minus against (pip scoring) or
six-loves given (win-count scoring), head to head, and a play-off.

Split from :mod:`brackets.engine.pairs` (seating), which re-exports these names. Pure Python.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from brackets.engine.errors import BracketError
from brackets.engine.model import ByePolicy
from brackets.engine.standings import StandingRow, Standings, Tiebreak

PairId = int


@dataclass(frozen=True, slots=True)
class PairLine:
    """One partnership's result in one finished match (T10).

    ``won`` is a match win (T4: the partnership placed first alone, T3); ``forfeit`` a no-show
    (T7: a loss, nothing else counts). ``llaves``, ``ties`` and ``replays_won`` are the
    partnership's R35 statistics in the match, each event counted once (R42, R46); not T10
    keys, shown beside them.
    """

    match_id: int
    pair_id: PairId
    opponent_id: PairId
    won: bool
    hands_won: int = 0
    points_for: int = 0
    points_against: int = 0
    six_loves_given: int = 0
    forfeit: bool = False
    llaves: int = 0
    ties: int = 0
    replays_won: int = 0

    def __post_init__(self) -> None:
        for name in (
            "hands_won",
            "points_for",
            "points_against",
            "six_loves_given",
            "llaves",
            "ties",
            "replays_won",
        ):
            if getattr(self, name) < 0:
                raise BracketError(
                    code="negative_count",
                    rule="T10",
                    field=name,
                    message=f"Match {self.match_id}: {name} cannot be negative (T10).",
                )


@dataclass(frozen=True, slots=True)
class PairRow:
    """One partnership's standings line (T10)."""

    rank: int
    pair_id: PairId
    match_wins: int
    hands_won: int
    third: int
    """Points for minus points against (pip scoring) or six-loves given (win-count scoring)."""
    head_to_head: int | None
    tied_with: tuple[PairId, ...]
    decided_by: Tiebreak
    played: int = 0
    byes: int = 0
    points_for: int = 0
    points_against: int = 0
    six_loves_given: int = 0
    six_loves_received: int = 0
    """Matches the opposing partnership won 6-0 (R46: once per partnership); not a T10 key."""
    forfeits: int = 0
    """Matches lost by the partnership's no-show (T7); not a T10 key."""
    llaves: int = 0
    ties: int = 0
    replays_won: int = 0
    """The partnership's R35 statistics (R42), each event once per partnership (R46), summed
    over its matches (a match it forfeited counts none, T7); not T10 keys."""


@dataclass(frozen=True, slots=True)
class PairStandings:
    """Partnerships best first (T10)."""

    rows: tuple[PairRow, ...]
    pip_scoring: bool = False

    def order(self) -> tuple[PairId, ...]:
        return tuple(r.pair_id for r in self.rows)

    def as_standings(self) -> Standings:
        """The same ranks as the engine's :class:`Standings` (player id = partnership id), the
        input of T6's :func:`~brackets.engine.advancement.advance_cut` (T10: cut and
        advancement follow T6 over partnerships)."""
        return Standings(
            rows=tuple(
                StandingRow(
                    rank=r.rank,
                    player_id=r.pair_id,
                    match_wins=r.match_wins,
                    hands_won=r.hands_won,
                    six_loves_given=r.six_loves_given,
                    head_to_head=r.head_to_head,
                    tied_with=r.tied_with,
                    decided_by=r.decided_by,
                    played=r.played,
                    byes=r.byes,
                    points=r.points_for,
                )
                for r in self.rows
            )
        )


def _h2h(group: Sequence[PairId], lines: Sequence[PairLine]) -> dict[PairId, int]:
    """Mini-table among ``group``: one point per match won against another member."""
    members = set(group)
    points = dict.fromkeys(group, 0)
    for line in lines:
        if line.pair_id in members and line.opponent_id in members and line.won:
            points[line.pair_id] += 1
    return points


def pairs_standings(
    lines: Iterable[PairLine],
    *,
    pairs: Iterable[PairId],
    byes: Iterable[PairId] = (),
    bye_policy: ByePolicy = ByePolicy.WIN,
    pip_scoring: bool = False,
    withdrawn: Mapping[PairId, int] | None = None,
) -> PairStandings:
    """Rank partnerships (T10): match wins, then hands won, then points for minus points
    against (``pip_scoring``) or six-loves given (win-count scoring), then head-to-head among
    those still level (applied again inside a smaller group still level). Partnerships level
    after every key share a rank and list each other in ``tied_with`` (a play-off, T6).

    ``withdrawn`` maps partnerships withdrawn or disqualified (T7 over partnerships) to the
    round they went out in: they rank after every partnership still in, who went further
    first, then by T10, exactly as :func:`brackets.engine.standings.compute_standings` ranks
    withdrawn players. A withdrawn partnership is never level with one still in: head-to-head
    (among the tied, T10/T5) never counts a match against it there, and seed never decides
    a place (T3).

    A bye is one match win or nothing per ``bye_policy`` (T1). Ranks are competition ranks
    (1, 2, 2, 4); level partnerships are listed by id.
    """
    ids = list(dict.fromkeys(pairs))
    line_list = list(lines)
    known = set(ids)
    totals = {p: [0, 0, 0, 0, 0, 0, 0] for p in ids}  # wins hands pf pa slg played byes
    # Not keys (T10), shown beside them: six-loves received (the opponent's given in the same
    # match, R46), plus one for each forfeit (T7: the forfeiting partnership's 0-6 loss is a
    # six-love received, as ``standings_line`` counts a forfeited seat), and forfeits (T7).
    given = {(x.match_id, x.pair_id): x.six_loves_given for x in line_list if not x.forfeit}
    received = dict.fromkeys(ids, 0)
    forfeits = dict.fromkeys(ids, 0)
    # R35 over partnerships (R42), beside the keys: llaves, ties, replays won.
    r35 = {p: [0, 0, 0] for p in ids}
    for line in line_list:
        if line.pair_id not in known:
            raise BracketError(
                code="unknown_player",
                rule="T10",
                field="pair_id",
                message=f"Match {line.match_id}: partnership {line.pair_id} is not entered (T10).",
            )
        t = totals[line.pair_id]
        t[5] += 1
        if line.forfeit:
            forfeits[line.pair_id] += 1
            received[line.pair_id] += 1
            continue
        received[line.pair_id] += given.get((line.match_id, line.opponent_id), 0)
        t[0] += 1 if line.won else 0
        t[1] += line.hands_won
        t[2] += line.points_for
        t[3] += line.points_against
        t[4] += line.six_loves_given
        stats = r35[line.pair_id]
        stats[0] += line.llaves
        stats[1] += line.ties
        stats[2] += line.replays_won
    for p in byes:
        if p in totals:
            totals[p][6] += 1
            if bye_policy == ByePolicy.WIN:
                totals[p][0] += 1

    def third(p: PairId) -> int:
        t = totals[p]
        return t[2] - t[3] if pip_scoring else t[4]

    def key(p: PairId) -> tuple[int, int, int]:
        t = totals[p]
        return (t[0], t[1], third(p))

    out_round = withdrawn or {}

    def group_key(p: PairId) -> tuple[int, int, int, int, int]:
        """Still in first, then the withdrawn by their round out, a later one first (T7);
        then the T10 keys. Only partnerships with one group key are level."""
        if p in out_round:
            return (-1, out_round[p], *key(p))
        return (0, 0, *key(p))

    ordered = sorted(ids, key=lambda p: (tuple(-k for k in group_key(p)), p))
    # Resolve groups level on the first three keys by head-to-head, recursively.
    h2h: dict[PairId, int | None] = dict.fromkeys(ids, None)
    tied: dict[PairId, tuple[PairId, ...]] = dict.fromkeys(ids, ())
    blocks: list[list[PairId]] = []
    for p in ordered:
        if blocks and group_key(blocks[-1][0]) == group_key(p):
            blocks[-1].append(p)
        else:
            blocks.append([p])
    final: list[list[PairId]] = []

    def resolve(group: list[PairId]) -> None:
        if len(group) == 1:
            final.append(group)
            return
        pts = _h2h(group, line_list)
        for p in group:
            h2h[p] = pts[p] if h2h[p] is None else h2h[p]
        if len(set(pts.values())) == 1:
            for p in group:
                tied[p] = tuple(q for q in group if q != p)
            final.append(sorted(group))
            return
        by_pts: dict[int, list[PairId]] = {}
        for p in group:
            by_pts.setdefault(pts[p], []).append(p)
        for v in sorted(by_pts, reverse=True):
            resolve(sorted(by_pts[v]))

    for block in blocks:
        resolve(block)

    rows: list[PairRow] = []
    position = 0
    for group in final:
        rank = position + 1
        for p in group:
            t = totals[p]
            rows.append(
                PairRow(
                    rank=rank,
                    pair_id=p,
                    match_wins=t[0],
                    hands_won=t[1],
                    third=third(p),
                    head_to_head=h2h[p],
                    tied_with=tied[p],
                    decided_by=Tiebreak.MATCH_WINS,
                    played=t[5],
                    byes=t[6],
                    points_for=t[2],
                    points_against=t[3],
                    six_loves_given=t[4],
                    six_loves_received=received[p],
                    forfeits=forfeits[p],
                    llaves=r35[p][0],
                    ties=r35[p][1],
                    replays_won=r35[p][2],
                )
            )
        position += len(group)
    return PairStandings(
        rows=tuple(_decided(rows, lambda p: group_key(p)[:2])), pip_scoring=pip_scoring
    )


def _decided(rows: list[PairRow], band: Callable[[PairId], tuple[int, int]]) -> list[PairRow]:
    """Fill ``decided_by``: the deepest T10 level separating a row from its neighbours; a
    withdrawal (T7), not a T10 key, separates partnerships of two ``band`` values."""
    from dataclasses import replace

    def level(a: PairRow, b: PairRow) -> Tiebreak:
        if a.rank == b.rank:
            return Tiebreak.PLAYOFF
        if band(a.pair_id) != band(b.pair_id) or a.match_wins != b.match_wins:
            return Tiebreak.MATCH_WINS
        if a.hands_won != b.hands_won:
            return Tiebreak.HANDS_WON
        if a.third != b.third:
            return Tiebreak.SIX_LOVES_GIVEN
        return Tiebreak.HEAD_TO_HEAD

    order = list(Tiebreak)
    out = []
    for i, r in enumerate(rows):
        levels = [level(r, rows[j]) for j in (i - 1, i + 1) if 0 <= j < len(rows)]
        deepest = max(levels, key=order.index) if levels else Tiebreak.MATCH_WINS
        out.append(replace(r, decided_by=deepest))
    return out
