"""Read-side building blocks of the director pages: plain rows for the templates.

Reads only (the writes are the services'). Each builder runs a fixed number of queries,
whatever the number of players or tables, and returns frozen dataclasses.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, F, Prefetch, Q
from django.utils.text import get_text_list
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from brackets.engine import MatchRecord
from brackets.models import Round, RoundMatch, Stage, StageEntry
from brackets.presenters.pairs import SideLine, pair_sides, round_kind_label
from brackets.presenters.seat_line import SeatLine
from brackets.selectors import DONE_STATUSES, StageData, stage_data_for
from brackets.selectors.pair_roster import roster_for
from brackets.selectors.pairs import pair_seed, pairs_of_entries, stage_pairs
from brackets.selectors.stage_data import counted_lines, seat_data
from brackets.services.store import referee_for_tables
from core.choice_labels import choice_label
from ratings.selectors import seeding_ratings
from scoring.models import Match, Seat
from scoring.presenters.match import SEAT_LETTERS
from tournament.models import Entry, Tournament
from tournament.partnerships import PartnershipView, partnership_list
from tournament.referee_names import person_name

# -- people -----------------------------------------------------------------------------------


def user_label(user: Any) -> str:
    """A person as the director pages name them: a referee by its display name or the name
    its director typed, never its internal user name (``tournament.referee_names``)."""
    return person_name(user)


def referee_names(user_ids: Iterable[int | None]) -> dict[int, str]:
    ids = {i for i in user_ids if i is not None}
    if not ids:
        return {}
    return {u.pk: user_label(u) for u in get_user_model().objects.filter(pk__in=ids)}


# -- players page -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RosterLine:
    """One entry of the Players page with the rating seeding by rating uses (T8)."""

    entry: Entry
    seeding_rating: int | None
    """The system's rating once the player has a rated match, else the one the director
    entered (``Player.rating``); ``None`` when neither exists (README "Ratings")."""

    @property
    def entered(self) -> int | None:
        """The entered rating, when seeding no longer uses it (the player has rated matches
        and the system's rating differs): the page shows it beside the one seeding uses."""
        typed = self.entry.player.rating
        return typed if typed is not None and typed != self.seeding_rating else None


def roster_lines(entries: Iterable[Entry]) -> list[RosterLine]:
    """``entries`` (their players loaded) with each one's seeding rating (T8), in order; the
    seeding page's "Rating (T8)" column, so both pages show one number. Two queries besides
    the entries' own."""
    rows = list(entries)
    ratings = seeding_ratings(player_ids=[e.player_id for e in rows], unrated=None)
    return [
        RosterLine(
            entry=e,
            seeding_rating=None if e.player_id not in ratings else round(ratings[e.player_id]),
        )
        for e in rows
    ]


# -- seeding list -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeedRow:
    entry_id: int
    seed: int | None
    name: str
    nickname: str
    country: str
    club: str
    rating: int | None
    checked_in: bool
    entry_status: str
    stage_status: str = ""
    joined_round: int = 1
    has_pin: bool = False  # a confirmation PIN was issued (issue 15; tournament.pins)
    # A pairs stage (T9): the partnership the player plays for; partners move together.
    # The rating seeding by rating uses (T8): the system's once rated, else the entered one.
    seeding_rating: int | None = None
    player_id: int = 0
    unit: int | None = None
    unit_label: str = ""
    unit_first: bool = False  # the first row of its partnership in the seed order
    unit_seed: int | None = None  # the partnership's one seed (1, 2, ...), T8 over partnerships

    @property
    def seed_shown(self) -> int | None:
        """The seed the list shows: the player's, or in a pairs stage the partnership's."""
        return self.unit_seed if self.unit is not None else self.seed

    @property
    def active(self) -> bool:
        return self.entry_status == Entry.Status.ACTIVE and self.stage_status in ("", "active")

    @property
    def entry_status_label(self) -> str:
        """The entry's status in the page's language."""
        return choice_label(Entry.Status, self.entry_status)

    @property
    def stage_status_label(self) -> str:
        """The entrant's status in the stage, in the page's language ("" when not in it)."""
        return choice_label(StageEntry.Status, self.stage_status)


def _with_partnerships(views: Sequence[PartnershipView], rows: list[SeedRow]) -> list[SeedRow]:
    """``rows`` (in seed order) of a pairs stage with each player's partnership and its one
    seed, its first player's (T8 over partnerships, T9)."""
    unit_of = {entry_id: view for view in views for entry_id, *_ in view.players}
    out: list[SeedRow] = []
    seeds: dict[int, int | None] = {}
    for row in rows:
        view = unit_of.get(row.entry_id)
        if view is None:
            out.append(row)
            continue
        first = view.id not in seeds
        if first:
            seeds[view.id] = None if row.seed is None else pair_seed(row.seed)
        out.append(
            replace(
                row,
                unit=view.id,
                unit_label=view.label,
                unit_first=first,
                unit_seed=seeds[view.id],
            )
        )
    return out


def _grouped_by_partnership(views: Sequence[PartnershipView], rows: list[SeedRow]) -> list[SeedRow]:
    """``rows`` with partners next to each other (T9), in their partnership's slot order: the
    partnerships whose players are all checked in first, then by name; players of no
    partnership last, in their own order."""
    position = {entry_id: i for view in views for i, (entry_id, *_) in enumerate(view.players)}
    view_of = {entry_id: view for view in views for entry_id, *_ in view.players}

    def key(row: SeedRow) -> tuple[bool, bool, str, int, int]:
        view = view_of.get(row.entry_id)
        if view is None:
            return (True, True, "", 0, 0)
        return (False, not view.checked_in, view.label.casefold(), view.id, position[row.entry_id])

    return sorted(rows, key=key)  # stable: players of no partnership keep their order


def pairs_not_ready(others: Sequence[SeedRow]) -> list[str]:
    """Why checked-in players of a pairs stage are left out of the seeding (T9: a partnership
    is seeded once both partners are checked in), one line per partnership: "Desert Bones:
    Omar Haddad is not checked in". ``others``: the entries outside the seeding, as
    :func:`seeding_rows` gives them (partners together)."""
    by_unit: dict[int, list[SeedRow]] = {}
    for row in others:
        if row.unit is not None and row.entry_status == Entry.Status.ACTIVE:
            by_unit.setdefault(row.unit, []).append(row)
    lines = []
    for rows in by_unit.values():
        missing = [r.name for r in rows if not r.checked_in]
        if not missing or len(missing) == len(rows):
            continue  # all checked in (seed again) or none (nothing to say yet)
        name = rows[0].unit_label  # its registered name, else its players' names
        lines.append(
            ngettext(
                "%(partnership)s: %(players)s is not checked in.",
                "%(partnership)s: %(players)s are not checked in.",
                len(missing),
            )
            % {"partnership": name, "players": get_text_list(missing, _("and"))}
        )
    return lines


def _with_seeding_rating(row: SeedRow, ratings: dict[int, float]) -> SeedRow:
    value = ratings.get(row.player_id)
    return replace(row, seeding_rating=None if value is None else round(value))


def seeding_rows(stage: Stage) -> tuple[list[SeedRow], list[SeedRow]]:
    """The stage's entrants in seed order, and the tournament's entries not in the stage
    (checked-in first, then by name; in a pairs stage partners together, T9). Two queries
    (four in a pairs stage)."""
    in_stage = [
        SeedRow(
            entry_id=se.entry_id,
            player_id=se.entry.player_id,
            seed=se.seed,
            name=se.entry.player.name,
            nickname=se.entry.player.nickname,
            country=se.entry.player.country,
            club=se.entry.player.club,
            rating=se.entry.player.rating,
            checked_in=se.entry.checked_in,
            entry_status=se.entry.status,
            stage_status=se.status,
            joined_round=se.joined_round,
            has_pin=bool(se.entry.pin_hash),
        )
        for se in StageEntry.objects.filter(stage=stage)
        .select_related("entry__player")
        .order_by("seed")
    ]
    views = partnership_list(tournament_id=stage.tournament_id) if stage.pairs else []
    if stage.pairs:
        in_stage = _with_partnerships(views, in_stage)
    seeded = {r.entry_id for r in in_stage}
    others = [
        SeedRow(
            entry_id=e.pk,
            player_id=e.player_id,
            seed=None,
            name=e.player.name,
            nickname=e.player.nickname,
            country=e.player.country,
            club=e.player.club,
            rating=e.player.rating,
            checked_in=e.checked_in,
            entry_status=e.status,
            has_pin=bool(e.pin_hash),
        )
        for e in Entry.objects.filter(tournament_id=stage.tournament_id)
        .select_related("player")
        .order_by("-checked_in", "player__name", "id")
        if e.pk not in seeded
    ]
    if stage.pairs:
        others = _with_partnerships(views, _grouped_by_partnership(views, others))
    ratings = seeding_ratings(player_ids=[r.player_id for r in [*in_stage, *others]], unrated=None)
    in_stage = [_with_seeding_rating(r, ratings) for r in in_stage]
    others = [_with_seeding_rating(r, ratings) for r in others]
    return in_stage, others


# -- stages overview --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundLine:
    id: int
    number: int
    kind: str
    kind_label: str
    status: str
    status_label: str
    tables: int
    done: int
    advanced: bool
    advance_error: str


def rounds_by_stage(tournament: Tournament) -> dict[int, list[RoundLine]]:
    """Every round of the tournament with its table and finished counts: one query."""
    out: dict[int, list[RoundLine]] = {}
    for r in (
        Round.objects.filter(stage__tournament=tournament)
        .annotate(
            n_tables=Count("round_matches__table_number", distinct=True),
            # A table is done when none of its matches (a forfeit's continuation too) plays.
            n_open=Count(
                "round_matches__table_number",
                filter=~Q(round_matches__match__status__in=DONE_STATUSES),
                distinct=True,
            ),
            in_pairs_stage=F("stage__pairs"),
        )
        .order_by("stage__number", "number")
    ):
        out.setdefault(r.stage_id, []).append(
            RoundLine(
                id=r.pk,
                number=r.number,
                kind=r.kind,
                kind_label=round_kind_label(r.kind, pairs=r.in_pairs_stage),
                status=r.status,
                status_label=choice_label(Round.Status, r.status),
                tables=r.n_tables,
                done=r.n_tables - r.n_open,
                advanced=r.advanced_at is not None,
                advance_error=r.advance_error,
            )
        )
    return out


# -- round preview ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatingWarning:
    kind: str  # "repeat", "club" or "bye"
    table: int | None
    text: str


@dataclass(frozen=True, slots=True)
class PreviewTable:
    number: int
    seats: tuple[SeatLine, ...]
    referee: str
    warnings: tuple[SeatingWarning, ...] = ()
    sides: tuple[SideLine, ...] = ()
    """In a pairs stage (T9), the table's two partnerships, AC then BD, each with its seed."""


@dataclass(frozen=True, slots=True)
class PreviewPair:
    """A partnership with a bye in a pairs round's preview (T9, T1): named once, its seed."""

    label: str
    seed: int | None


@dataclass(frozen=True, slots=True)
class Preview:
    tables: tuple[PreviewTable, ...]
    byes: tuple[SeatLine, ...]
    warnings: tuple[SeatingWarning, ...]
    referees: int
    bye_pairs: tuple[PreviewPair, ...] = ()
    """In a pairs stage, the partnerships of ``byes``, each once."""

    @property
    def seated(self) -> int:
        return sum(len(t.seats) for t in self.tables)

    @property
    def three_tables(self) -> int:
        return sum(1 for t in self.tables if len(t.seats) == 3)

    @property
    def table_size(self) -> int | None:
        """The seats of every table when they all seat the same number ("3 players at 1
        table of 3"), else ``None`` (the page then counts the tables of 3)."""
        sizes = {len(t.seats) for t in self.tables}
        return sizes.pop() if len(sizes) == 1 else None


def _earlier_meetings(data: StageData) -> dict[frozenset[int], list[int]]:
    """Pairs that sat at one table in an earlier round of the stage, with those rounds."""
    met: dict[frozenset[int], list[int]] = {}
    for rnd in data.rounds:
        for table in rnd.seating().tables:
            seats = table.seats
            for i, a in enumerate(seats):
                for b in seats[i + 1 :]:
                    met.setdefault(frozenset((a, b)), []).append(rnd.number)
    return met


def seating_warnings(
    data: StageData, tables: Sequence[tuple[int, Sequence[int]]], byes: Sequence[int]
) -> list[SeatingWarning]:
    """What T8 asks to avoid "where possible", as found in a proposed seating: opponents who
    met before in this stage, players of one club at a table, and a second bye (T1).

    A seating of one table (a final table, a lone play-off table, a field of four) cannot
    seat anyone apart, so it has no repeat or same-club warning: T8 avoids them "where
    possible", and warning of what no seating can avoid (with "avoided from round 2 on")
    only alarmed the director."""
    names = {e.entry_id: e.name for e in data.entrants}
    clubs = {e.entry_id: e.club.strip() for e in data.entrants}
    met = _earlier_meetings(data)
    # T9: in a pairs stage partners sit together by design; only opponents count (T8 over
    # partnerships: repeat opposing partnerships, same-club players across the table).
    pair_of = data.pairs.pair_of if data.pairs is not None else {}

    def partners(a: int, b: int) -> bool:
        return a in pair_of and pair_of.get(a) == pair_of.get(b)

    out: list[SeatingWarning] = []
    for number, seats in tables if len(tables) > 1 else ():
        for i, a in enumerate(seats):
            for b in seats[i + 1 :]:
                if partners(a, b):
                    continue
                rounds = met.get(frozenset((a, b)))
                if rounds:
                    when = ", ".join(str(r) for r in rounds)
                    out.append(
                        SeatingWarning(
                            "repeat",
                            number,
                            ngettext(
                                "Table %(n)s: %(a)s and %(b)s met before (round %(rounds)s).",
                                "Table %(n)s: %(a)s and %(b)s met before (rounds %(rounds)s).",
                                len(rounds),
                            )
                            % {
                                "n": number,
                                "a": names.get(a, a),
                                "b": names.get(b, b),
                                "rounds": when,
                            },
                        )
                    )
        by_club: dict[str, list[int]] = {}
        for p in seats:
            club = clubs.get(p, "")
            if club:
                by_club.setdefault(club.casefold(), []).append(p)
        for members in by_club.values():
            if len(members) > 1 and not all(partners(members[0], p) for p in members[1:]):
                who = [str(names.get(p, p)) for p in members]
                out.append(
                    SeatingWarning(
                        "club",
                        number,
                        _("Table %(n)s: %(players)s are from the same club, %(club)s.")
                        % {
                            "n": number,
                            "players": get_text_list(who, _("and")),
                            "club": clubs[members[0]],
                        },
                    )
                )
    out.extend(bye_warnings(data, byes, names))
    return out


def bye_warnings(
    data: StageData, byes: Sequence[int], names: dict[int, str]
) -> list[SeatingWarning]:
    """A second bye (T1) for someone the proposed seating gives one. In a pairs stage the bye
    is a partnership's (T9): one warning for it, named as the pairs pages name it ("Los
    Primos (Ana & Bea)", its current players), counting the byes it had with any player
    (T11: a substitute's partnership keeps its record), never one warning per partner."""
    # Who had the bye: the partnership in a pairs stage (every player who ever played for
    # it, T11 history), else the player.
    pair_of = data.pairs.pair_of if data.pairs is not None else {}
    label = {p.pair_id: p.label for p in pairs_of_entries(data, byes)}

    def holder(entry_id: int) -> tuple[str, int]:
        pair_id = pair_of.get(entry_id)
        return ("pair", pair_id) if pair_id is not None else ("player", entry_id)

    earlier: dict[tuple[str, int], list[int]] = {}
    for rnd in data.rounds:
        for p in rnd.byes:
            rounds = earlier.setdefault(holder(p), [])
            if rnd.number not in rounds:
                rounds.append(rnd.number)
    out: list[SeatingWarning] = []
    seen: set[tuple[str, int]] = set()
    for p in byes:
        key = holder(p)
        if key in seen or key not in earlier:
            continue
        seen.add(key)
        who = label.get(key[1], "") if key[0] == "pair" else ""
        out.append(
            SeatingWarning(
                "bye",
                None,
                _("%(who)s had a bye already (round %(rounds)s).")
                % {
                    "who": who or names.get(p, str(p)),
                    "rounds": ", ".join(str(r) for r in earlier[key]),
                },
            )
        )
    return out


def seating_note(stage: Stage, round_kind: str | None, round_number: int | None) -> str:
    """What the preview's warnings (T8) can expect of the seating, as the planners seat each
    kind of round (:mod:`brackets.services.planning`, :mod:`brackets.services.pairs_planning`):
    only a qualifying round after the first is seated Swiss-style, away from repeat meetings
    and same-club tables where possible (``reseat_swiss``, ``reseat_pairs``). Round 1 deals
    the seeds in snake order; a knockout round deals the current seeds in snake order, and a
    play-off table seats those level on the line in standings order (T6): neither moves anyone
    apart, so neither may say "avoided" or "avoids these where it can"."""
    if round_kind == Round.Kind.SWISS:
        if round_number == 1:
            if (stage.swiss_rounds or 1) > 1:
                return _(
                    "Round 1 deals the seeds over the tables in snake order (T8), so top seeds "
                    "meet late; same-club tables and repeat meetings are avoided from round 2 "
                    "on. Publishing is still allowed."
                )
            return _(
                "Round 1 deals the seeds over the tables in snake order (T8), so top seeds "
                "meet late. Publishing is still allowed."
            )
        return _("The seating avoids these where it can; publishing is still allowed.")
    if round_kind == Round.Kind.PLAYOFF:
        return _(
            "A play-off seats the players level on the line by their standing (T6); it does "
            "not seat them apart by club or earlier meetings. Publishing is still allowed."
        )
    return _(
        "A knockout round deals the players over the tables by seed in snake order (T8), so "
        "top seeds meet late; it does not seat them apart by club or earlier meetings. "
        "Publishing is still allowed."
    )


def build_preview(stage: Stage, seating: Any) -> Preview:
    """A proposed seating (the engine's, from ``round_preview``) with names, referees (as
    publishing will assign them) and warnings. Five queries (and the partnerships of a pairs
    stage, which stage data loads with it). A pairs stage's seeds are its partnerships'
    (T8 over partnerships, T9): each table lists its two partnerships with theirs."""
    data = stage_data_for(stage)
    by_entry = {e.entry_id: e for e in data.entrants}
    seed_of = {p: e.seed for p, e in by_entry.items()}
    if data.pairs is not None:
        seed_of = {
            entry_id: pair_seed(sp.seed) for sp in stage_pairs(data) for entry_id in sp.info.players
        }
    tables = [(t.number, tuple(t.seats)) for t in seating.tables]
    byes = tuple(seating.byes)
    warnings = seating_warnings(data, tables, byes)
    referees = referee_for_tables(stage.tournament_id)
    names = referee_names(referees)

    def line(i: int, p: int) -> SeatLine:
        e = by_entry.get(p)
        return SeatLine(
            letter=SEAT_LETTERS[i] if i < len(SEAT_LETTERS) else str(i + 1),
            entry_id=p,
            name=e.name if e else f"#{p}",
            club=e.club if e else "",
            seed=seed_of.get(p),
            rating=e.rating if e else None,
        )

    def table(number: int, seats: Sequence[int]) -> PreviewTable:
        lines = tuple(line(i, p) for i, p in enumerate(seats))
        return PreviewTable(
            number=number,
            seats=lines,
            referee=names.get(referees[(number - 1) % len(referees)], "") if referees else "",
            warnings=tuple(w for w in warnings if w.table == number),
            sides=pair_sides(lines, data.pairs.roster.table_pairs(list(seats)), finished=False)
            if data.pairs is not None
            else (),
        )

    return Preview(
        tables=tuple(table(number, seats) for number, seats in tables),
        byes=tuple(line(0, p) for p in byes),
        warnings=tuple(warnings),
        referees=len(referees),
        bye_pairs=tuple(
            PreviewPair(label=p.label, seed=seed_of.get(p.entry_ids[0]) if p.entry_ids else None)
            for p in pairs_of_entries(data, byes)
        ),
    )


# -- round progress and table sheets ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchLine:
    match_id: int
    table_number: int
    label: str
    status: str
    status_label: str
    end_reason: str
    end_reason_label: str
    hands: int
    referee_id: int | None
    referee: str
    seats: tuple[SeatLine, ...]
    continuation: bool = False
    last_change: datetime | None = None
    partners: bool = False
    """A partnership match (R42): seats 0/2 against 1/3."""
    sides: tuple[SideLine, ...] = ()
    """In a pairs stage (T9), the table's two partnerships, each once, AC then BD."""
    hold: str = ""
    """``Match.confirmation_hold`` (issue 15): "disputed" (frozen until the director resolves
    it), "result" or "hand" (waiting for the players' taps), or "" - the Dashboard's column."""

    @property
    def done(self) -> bool:
        return self.status in DONE_STATUSES

    @property
    def winner_entries(self) -> tuple[int, ...]:
        """Every seat that won: the one placed first, or at a partnership table both partners
        placed first (R42, T4); none when first is shared otherwise (T3)."""
        firsts = [i for i, s in enumerate(self.seats) if s.placing == 1]
        if len(firsts) == 1 or (self.partners and len(firsts) == 2 and firsts[1] - firsts[0] == 2):
            return tuple(self.seats[i].entry_id for i in firsts)
        return ()


def round_matches(rnd: Round) -> list[MatchLine]:
    """Every match of a round (forfeit continuations too) with seats in play order; in a
    pairs stage each table's two partnerships too (T9). Two queries, three in a pairs stage
    (the partnerships' registered names)."""
    links = list(
        RoundMatch.objects.filter(round=rnd)
        .select_related("match__referee", "match__tournament")
        .prefetch_related(
            Prefetch(
                "match__seats",
                queryset=Seat.objects.select_related("entry__player").order_by("seat"),
            )
        )
        .order_by("table_number", "match_id")
    )
    pairs = rnd.stage.pairs
    # T11: each table's partnerships as they sat there (one query).
    roster = (
        roster_for(entry_ids=[s.entry_id for link in links for s in link.match.seats.all()])
        if pairs
        else None
    )
    seen_tables: set[int] = set()
    out: list[MatchLine] = []
    for link in links:
        m = link.match
        partners = m.n_players == 4 and (m.ruleset or {}).get("teams") == "partners"
        stored = list(m.seats.all())
        # A finished match's points as the standings count them (T5, T7; the public pages'
        # rule): a forfeit is a 0-6 loss, and the players who played on have no line here.
        lines = (
            counted_lines(m.pk, [seat_data(s) for s in stored], partners=partners)
            if m.status == Match.Status.FINISHED
            else None
        )
        forfeit = any(s.forfeited for s in stored)
        seats = tuple(
            SeatLine(
                letter=SEAT_LETTERS[s.seat] if s.seat < len(SEAT_LETTERS) else str(s.seat + 1),
                entry_id=s.entry_id,
                name=s.entry.player.name,
                club=s.entry.player.club,
                points=s.points if lines is None else _counted_points(lines[i]),
                placing=s.placing,
                forfeited=s.forfeited,
                played_on=lines is not None and lines[i] is None and forfeit,
            )
            for i, s in enumerate(stored)
        )
        out.append(
            MatchLine(
                match_id=m.pk,
                table_number=link.table_number,
                label=m.label,
                status=m.status,
                status_label=choice_label(Match.Status, m.status),
                end_reason=m.end_reason,
                end_reason_label=choice_label(Match.EndReason, m.end_reason),
                hands=m.hands_count,
                referee_id=m.referee_id,
                referee=user_label(m.referee),
                seats=seats,
                continuation=link.table_number in seen_tables,
                last_change=m.updated_at,
                # Frozen on the match when it starts (an override freezes it too), so every
                # match with a result knows it.
                partners=partners,
                sides=pair_sides(
                    seats,
                    roster.table_pairs([s.entry_id for s in seats]),
                    finished=m.status == Match.Status.FINISHED,
                )
                if roster is not None
                else (),
                hold=m.confirmation_hold,
            )
        )
        seen_tables.add(link.table_number)
    return out


def table_current_matches(lines: list[MatchLine]) -> list[MatchLine]:
    """Each table's current match, in table order: the last of :func:`round_matches`' lines
    at the table, so after a forfeit (T7) the continuation the others play on in (its
    seating and referee), never the forfeited match it replaces."""
    current: dict[int, MatchLine] = {}
    for line in lines:  # table, then match id order: a continuation comes after
        current[line.table_number] = line
    return [current[t] for t in sorted(current)]


def _counted_points(line: MatchRecord | None) -> int | None:
    """A seat's points as its standings line counts them; None without a line here."""
    return None if line is None else line.points


def referee_choices(tournament: Tournament) -> list[tuple[int, str]]:
    """The tournament's active referees (the order publishing assigns them in)."""
    ids = referee_for_tables(tournament.pk)
    names = referee_names(ids)
    return [(i, names.get(i, str(i))) for i in ids]
