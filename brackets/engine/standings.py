"""Standings of a stage from its match records (T4, T5, T7, T1).

Glossary:
    match record   -- one player's line in one finished match (T4): placing at the table,
                      points, hands won, six-loves given and received, llaves, ties, replays won.
                      A match win is placing 1 held alone: players level after every T3 key
                      share the placing (1, 1, 3, 4) and a shared first is no match win (T3).
    forfeit        -- a no-show or disqualification, recorded as a 0-6 loss (T7): no match win,
                      no points, no hands; :meth:`MatchRecord.forfeit_loss` builds the line.
    bye            -- a round without a table (T1); per :class:`ByePolicy` it is one match win
                      or nothing. It never adds hands or six-loves.
    tiebreak keys  -- T5 in order: match wins, hands won, six-loves given, head-to-head.
    head-to-head   -- among players level on the first three keys, a mini-table over the matches
                      two or more of them played together: one point for every tied opponent a
                      player finished ahead of (a lower placing). Applied again inside any
                      smaller group still level, the way group tables usually are. A withdrawn
                      player is never level with a player still in (below), so finishing ahead
                      of one earns no head-to-head point against the players still in.
    play-off       -- players still level after head-to-head share a rank and carry
                      ``tied_with``; the director decides with a play-off match (T5).
    withdrawn      -- a player withdrawn or disqualified (T7) is ranked after every player
                      still in, whatever their record: who went further (a later round out)
                      first, then T5; withdrawn players level on both share a rank. Seed order
                      never decides (T3). Their matches still count for everyone else.

Ranks are competition ranks: 1, 2, 2, 4. Players level after all keys are listed by id.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, fields
from enum import StrEnum

from brackets.engine.errors import BracketError
from brackets.engine.model import ByePolicy, PlayerId, Record
from dominoes.records import unchecked

MatchId = int
_GroupKey = tuple[int, int, int, int, int]
"""A level group: (0 still in / -1 withdrawn, round out, match wins, hands won, six-loves)."""


class Tiebreak(StrEnum):
    """The T5 level that placed a row against its neighbours, in T5 order."""

    MATCH_WINS = "match_wins"
    HANDS_WON = "hands_won"
    SIX_LOVES_GIVEN = "six_loves_given"
    HEAD_TO_HEAD = "head_to_head"
    PLAYOFF = "playoff"
    """Still level after head-to-head: the director orders a play-off (T5)."""


_LEVEL = {t: i for i, t in enumerate(Tiebreak)}


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One player's line in one finished match (T4; forfeits per T7)."""

    match_id: MatchId
    player_id: PlayerId
    placing: int
    points: int = 0
    hands_won: int = 0
    six_loves_given: int = 0
    six_loves_received: int = 0
    llaves: int = 0
    ties: int = 0
    replays_won: int = 0
    forfeit: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.placing <= 4:
            self._reject("bad_placing", "placing", "T4", "placing must be 1st to 4th")
        if (
            min(
                self.points,
                self.hands_won,
                self.six_loves_given,
                self.six_loves_received,
                self.llaves,
                self.ties,
                self.replays_won,
            )
            >= 0
            and not self.forfeit
        ):
            return  # the usual line: nothing to reject (a stage builds tens of thousands)
        for name in (
            "points",
            "hands_won",
            "six_loves_given",
            "six_loves_received",
            "llaves",
            "ties",
            "replays_won",
        ):
            if getattr(self, name) < 0:
                self._reject("negative_count", name, "T4", f"{name} cannot be negative")
        if self.forfeit and (self.placing == 1 or self.points or self.hands_won):
            self._reject(
                "bad_forfeit",
                "forfeit",
                "T7",
                "a forfeit is a 0-6 loss: not 1st, no points, no hands won",
            )

    def _reject(self, code: str, field: str, rule: str, what: str) -> None:
        raise BracketError(
            code=code,
            rule=rule,
            field=field,
            message=f"Match {self.match_id}, player {self.player_id}: {what} ({rule}).",
        )

    @property
    def match_win(self) -> bool:
        """Placing 1 (T4), if no other player of the match shares it (T3: a shared first is
        no match win; :func:`compute_standings` checks that); a forfeit never is (T7)."""
        return self.placing == 1 and not self.forfeit

    @classmethod
    def forfeit_loss(cls, match_id: MatchId, player_id: PlayerId, placing: int) -> MatchRecord:
        """The T7 line for a no-show or disqualification: a 0-6 loss at ``placing``."""
        return cls(
            match_id=match_id,
            player_id=player_id,
            placing=placing,
            six_loves_received=1,
            forfeit=True,
        )


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One player's line in the standings (T5), with the tiebreak columns."""

    rank: int
    player_id: PlayerId
    match_wins: int
    hands_won: int
    six_loves_given: int
    head_to_head: int | None
    """Mini-table points among the players level on the first three keys; ``None`` if none."""
    tied_with: tuple[PlayerId, ...]
    """Players still level after head-to-head (same rank): a play-off is needed (T5)."""
    decided_by: Tiebreak
    """The deepest T5 level needed to place this row against the rows next to it."""
    played: int = 0
    byes: int = 0
    points: int = 0
    six_loves_received: int = 0
    llaves: int = 0
    ties: int = 0
    replays_won: int = 0
    forfeits: int = 0

    @property
    def needs_playoff(self) -> bool:
        return bool(self.tied_with)

    @property
    def record(self) -> Record:
        return Record(match_wins=self.match_wins, hands_won=self.hands_won)


# Rows built positionally, without the frozen __init__'s keyword handling (StandingRow has no
# checks to skip); the field order is asserted here.
_new_row = unchecked(StandingRow)
assert [f.name for f in fields(StandingRow)] == [
    "rank",
    "player_id",
    "match_wins",
    "hands_won",
    "six_loves_given",
    "head_to_head",
    "tied_with",
    "decided_by",
    "played",
    "byes",
    "points",
    "six_loves_received",
    "llaves",
    "ties",
    "replays_won",
    "forfeits",
]


@dataclass(frozen=True, slots=True)
class Standings:
    """Standings rows, best first (T5)."""

    rows: tuple[StandingRow, ...]

    def __iter__(self) -> Iterator[StandingRow]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def order(self) -> tuple[PlayerId, ...]:
        """Player ids best first."""
        return tuple(r.player_id for r in self.rows)

    def row(self, player_id: PlayerId) -> StandingRow:
        for r in self.rows:
            if r.player_id == player_id:
                return r
        raise BracketError(
            code="unknown_player",
            rule="T5",
            field="player_id",
            message=f"Player {player_id} is not in these standings (T5).",
        )

    def records(self) -> dict[PlayerId, Record]:
        """Each player's record, the input :func:`reseat_swiss` groups by (T8)."""
        return {r.player_id: r.record for r in self.rows}


@dataclass(slots=True)
class _Totals:
    played: int = 0
    byes: int = 0
    match_wins: int = 0
    hands_won: int = 0
    six_loves_given: int = 0
    points: int = 0
    six_loves_received: int = 0
    llaves: int = 0
    ties: int = 0
    replays_won: int = 0
    forfeits: int = 0

    def key(self) -> tuple[int, int, int]:
        return (self.match_wins, self.hands_won, self.six_loves_given)


def _sole(placings: Iterable[int], placing: int) -> bool:
    return sum(1 for p in placings if p == placing) == 1


def check_shared_placings(match_id: MatchId, placings: Iterable[int]) -> None:
    """Placings at one table are competition ranks (T3, T4): ``k`` players sharing placing
    ``p`` cover places ``p .. p+k-1``, so no one else may hold one of the places after ``p``
    (1, 1, 3, 4 is right; 1, 1, 2 is not). Lines may be partial (a forfeit's line alone)."""
    values = list(placings)
    distinct = set(values)
    if len(distinct) == len(values):
        return  # nobody shares a placing: nothing is covered
    for p in distinct:
        k = values.count(p)
        clash = sorted(q for q in values if p < q < p + k)
        if clash:
            raise BracketError(
                code="duplicate_placing",
                rule="T3",
                field="records",
                message=f"{k} players share placing {p} in match {match_id}, so nobody can be "
                f"placed {clash[0]}: a shared placing covers the places after it (T3, T4).",
            )


def _split(
    group: list[PlayerId], pairs: list[tuple[PlayerId, PlayerId]], score: dict[PlayerId, int]
) -> list[list[PlayerId]]:
    """Split a group level on the first three keys into tiers by head-to-head (T5), applied
    again inside any smaller group still level. ``pairs`` are (winner, loser): every time one
    player of the group finished ahead of another of it at a table; ``score`` is the group's
    head-to-head (a point per such win)."""
    buckets: dict[int, list[PlayerId]] = defaultdict(list)
    for p in group:
        buckets[score[p]].append(p)
    tiers: list[list[PlayerId]] = []
    for s in sorted(buckets, reverse=True):
        bucket = sorted(buckets[s])
        if 1 < len(bucket) < len(group):
            members = set(bucket)
            inside = [(a, b) for a, b in pairs if a in members and b in members]
            sub = dict.fromkeys(bucket, 0)
            for a, _ in inside:
                sub[a] += 1
            tiers.extend(_split(bucket, inside, sub))
        else:
            tiers.append(bucket)
    return tiers


def compute_standings(
    records: Iterable[MatchRecord],
    *,
    players: Iterable[PlayerId] = (),
    byes: Iterable[PlayerId] = (),
    bye_policy: ByePolicy = ByePolicy.WIN,
    withdrawn: Mapping[PlayerId, int] | None = None,
) -> Standings:
    """Rank a stage's players by T5: match wins, hands won, six-loves given, head-to-head.

    ``records`` are the T4 lines of the stage's finished matches (forfeits per T7); ``players``
    adds players with no line yet (0 everywhere); ``byes`` lists one player id per bye, worth a
    match win under :attr:`ByePolicy.WIN` (T1). Players still level after head-to-head share a
    rank and name each other in ``tied_with`` (a play-off decides, T5).

    ``withdrawn`` maps players withdrawn or disqualified (T7) to the round they went out in:
    they rank after every other player, who went further first, then by T5, and share a rank
    only with withdrawn players level on both (never by seed, T3). The others keep their T5
    order and ties, ranked among themselves: a withdrawn player never takes or shares the
    place of one still in. The matches a withdrawn player played still count for everyone's
    keys (T7: a forfeit is a 0-6 loss, the table plays on), but head-to-head is "among the
    tied players" (T5) and a withdrawn player is never tied with one still in: a place ahead
    of them earns no head-to-head point there (README, "Rule decisions").

    Players level at a table after every T3 key share its placing (1, 1, 3, 4); a shared
    first is no match win (T3).

    Raises :class:`BracketError` ``duplicate_record`` (a player twice in one match) or
    ``duplicate_placing`` (a shared placing that does not skip the places it covers, T3/T4).
    """
    totals: dict[PlayerId, _Totals] = {p: _Totals() for p in players}
    placings: dict[MatchId, dict[PlayerId, int]] = {}
    firsts: list[tuple[_Totals, MatchId]] = []  # match wins unless the first is shared (T3)
    # One pass over the lines (a 5,000-player stage has tens of thousands).
    for rec in records:
        m, p = rec.match_id, rec.player_id
        at_table = placings.get(m)
        if at_table is None:
            at_table = placings[m] = {}
        elif p in at_table:
            raise BracketError(
                code="duplicate_record",
                rule="T4",
                field="records",
                message=f"Player {p} has two lines in match {m} (T4).",
            )
        at_table[p] = rec.placing
        t = totals.get(p)
        if t is None:
            t = totals[p] = _Totals()
        t.played += 1
        # Placing 1 and no forfeit (MatchRecord.match_win, inlined): a match win (T4, T7)
        # unless another player of the match shares the first place (T3), known below.
        if rec.placing == 1 and not rec.forfeit:
            firsts.append((t, m))
        t.hands_won += rec.hands_won
        t.six_loves_given += rec.six_loves_given
        t.points += rec.points
        t.six_loves_received += rec.six_loves_received
        t.llaves += rec.llaves
        t.ties += rec.ties
        t.replays_won += rec.replays_won
        if rec.forfeit:
            t.forfeits += 1
    shared_first: set[MatchId] = set()
    for match_id, at_table in placings.items():
        values = list(at_table.values())
        check_shared_placings(match_id, values)
        if values.count(1) > 1:
            shared_first.add(match_id)
    for t, m in firsts:
        if m not in shared_first:
            t.match_wins += 1
    for p in byes:
        t = totals.setdefault(p, _Totals())
        t.byes += 1
        if bye_policy is ByePolicy.WIN:
            t.match_wins += 1

    # Level groups, best first: the players still in on the first three T5 keys, then the
    # withdrawn (T7) by the round they went out in (a later round first) and the same keys.
    # A withdrawn player is in no group of players still in, so head-to-head (T5: among the
    # tied players) never counts a match against them there; head-to-head splits each group.
    out_round = withdrawn or {}
    # still in: 0; withdrawn: 1 + the round they went out in (players of two bands are never
    # level: a withdrawal, not a T5 key, placed them apart)
    band = {p: 0 if p not in out_round else 1 + out_round[p] for p in totals}
    key_of: dict[PlayerId, _GroupKey] = {}
    for p, t in totals.items():
        mine = t.key()
        key_of[p] = (0, 0, *mine) if p not in out_round else (-1, out_round[p], *mine)
    by_key: dict[_GroupKey, list[PlayerId]] = defaultdict(list)
    for p, group_key in key_of.items():
        by_key[group_key].append(p)
    # Head-to-head inside every level group at once (T5): one pass over the tables lists who
    # finished ahead of whom among players of the same group, and every smaller group still
    # level reads only its own group's list (a scan of each group's matches was most of a
    # 5,000-player build's engine time).
    ahead_of: dict[_GroupKey, list[tuple[PlayerId, PlayerId]]] = defaultdict(list)
    for at_table in placings.values():
        if len(at_table) < 2:
            continue
        seated = [(key_of[p], pl, p) for p, pl in at_table.items()]
        if len({key for key, _, _ in seated}) == len(seated):
            continue  # nobody at this table is level with another: no head-to-head here
        for key_a, pl_a, a in seated:
            for key_b, pl_b, b in seated:
                if pl_a < pl_b and key_a == key_b:
                    ahead_of[key_a].append((a, b))
    tiers: list[list[PlayerId]] = []
    h2h: dict[PlayerId, int] = {}
    for key in sorted(by_key, reverse=True):
        group = sorted(by_key[key])
        if len(group) == 1:
            tiers.append(group)
            continue
        pairs = ahead_of.get(key, [])
        score = dict.fromkeys(group, 0)
        for a, _ in pairs:
            score[a] += 1
        h2h.update(score)
        tiers.extend(_split(group, pairs, score))

    ordered: list[tuple[PlayerId, int, tuple[PlayerId, ...]]] = []  # (player, rank, tied_with)
    rank = 1
    for tier in tiers:
        if len(tier) == 1:
            ordered.append((tier[0], rank, ()))
        else:
            # Each member's tied_with is the tier without it: slices, not a scan per member
            # (a large tie made this quadratic in Python).
            whole = tuple(tier)
            for k, p in enumerate(whole):
                ordered.append((p, rank, whole[:k] + whole[k + 1 :]))
        rank += len(tier)

    keys = [totals[p].key() for p, _, _ in ordered]
    playoff, head_to_head = _LEVEL[Tiebreak.PLAYOFF], _LEVEL[Tiebreak.HEAD_TO_HEAD]

    def separation(a: int, b: int) -> int:
        if ordered[a][1] == ordered[b][1]:
            return playoff
        if band[ordered[a][0]] != band[ordered[b][0]]:
            return 0  # a withdrawal (T7), not a T5 key, placed them apart
        ka, kb = keys[a], keys[b]
        if ka[0] != kb[0]:
            return 0
        if ka[1] != kb[1]:
            return 1
        if ka[2] != kb[2]:
            return 2
        return head_to_head

    levels = list(Tiebreak)
    last = len(ordered) - 1
    rows: list[StandingRow] = []
    for i, (p, r, tied_with) in enumerate(ordered):
        if last == 0:
            level = 0
        elif i == 0:
            level = separation(0, 1)
        elif i == last:
            level = separation(i, i - 1)
        else:
            level = max(separation(i, i - 1), separation(i, i + 1))
        t = totals[p]
        rows.append(
            _new_row(  # StandingRow's fields in order (a 5,000-player stage builds 5,000)
                r,
                p,
                t.match_wins,
                t.hands_won,
                t.six_loves_given,
                h2h.get(p),
                tied_with,
                levels[level],
                t.played,
                t.byes,
                t.points,
                t.six_loves_received,
                t.llaves,
                t.ties,
                t.replays_won,
                t.forfeits,
            )
        )
    return Standings(rows=tuple(rows))
