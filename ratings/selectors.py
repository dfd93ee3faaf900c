"""Reads of ratings: a player's profile across events, and the ratings used for seeding."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, replace

from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Value,
    When,
)

from ratings.model import DISPLAY_BASE, DISPLAY_SCALE, display_rating
from ratings.models import PlayerRating, RatingChange
from scoring.engine.placing import side_places
from scoring.models import Match, Seat
from tournament.models import Entry, Player, Tournament
from tournament.selectors import UserLike, player_public, player_visible

# -- what counts for ratings, and the statistics that go with them --------------------------------
#
# One definition of a rated match (:func:`rated_matches`): the ratings services rate exactly
# these matches, and every count shown next to a rating (the profile's and the directory's
# rated matches and rated match wins, the rating API) counts exactly these, never a
# stand-alone match, a forfeit or a draft's match (README, "Ratings").


def rated_matches() -> QuerySet[Match]:
    """Matches that count for ratings (README, "Ratings"): games played at an event's tables.

    A match counts when it is finished, at a table of a round of a stage (T2), with at least
    one hand completed, and its tournament is not a draft: ended normally (R33), by time (T3)
    or by the director's override of a match whose hands were played (T4: by the director's
    placings). Never a forfeit (T7: an absence, not a game), nor an override of a match in
    which no hand was completed (a decision, not a game, like a forfeit), nor a stand-alone
    match (created without a round: nothing at the event's tables stands behind it, and a
    director of one event could otherwise rewrite any player's rating, and so the seeding of
    every other event the player entered, with matches made up for the purpose)."""
    return (
        Match.objects.filter(
            status=Match.Status.FINISHED,
            finished_at__isnull=False,
            end_reason__in=[
                Match.EndReason.NORMAL,
                Match.EndReason.TIME,
                Match.EndReason.OVERRIDE,
            ],
            hands_count__gt=0,
        )
        # At a round's table: brackets' one-to-one RoundMatch.match (related name
        # "round_link"), read by relation name because ratings sits below brackets in the
        # import layers and may not import it. The link is the one record of a match's round;
        # a copy of it on Match would need a backfill and could drift from it. A forfeit's
        # continuation (T7) plays on at the same table: brackets links it to the round when
        # it next checks the round, so until then it counts through the match it continues.
        .filter(Q(round_link__isnull=False) | Q(continues__round_link__isnull=False))
        .exclude(tournament__status=Tournament.Status.DRAFT)
        .exclude(seats__placing__isnull=True)
    )


def match_win() -> Q:
    """A seat's match win (T4), for filtering :class:`scoring.models.Seat` rows: placed first,
    not forfeited (T7), and no player of another side shares the first place (T3: a shared
    first place is not a match win). At a partnership table (R42) both partners hold their
    partnership's placing (``1, 3, 1, 3``), so a partner's first place is no rival: both
    partners of the first partnership win; level partnerships (``1, 1, 1, 1``) win nothing."""
    partner = Q(match__ruleset__teams="partners") & (
        Q(seat=OuterRef("seat") + 2) | Q(seat=OuterRef("seat") - 2)
    )
    rival_first = (
        Seat.objects.filter(match_id=OuterRef("match_id"), placing=1)
        .exclude(pk=OuterRef("pk"))
        .exclude(partner)
    )
    return Q(placing=1, forfeited=False) & ~Q(Exists(rival_first))


def counted_seat() -> Q:
    """A seat that is a match of its own for a player's record (T4), for filtering
    :class:`scoring.models.Seat` rows: a placed seat. After a forfeit (T7) the players who play
    on are unplaced in the forfeited match and placed at its continuation
    (``Match.continues``), the same table's match carried on: counted once, there, as the
    standings count it (:func:`brackets.selectors.stage_data.standings_line`: an unplaced seat
    has no line) and :func:`rated_matches` rates it. The forfeiting seat is placed (last): a
    match played and lost."""
    return Q(placing__isnull=False)


@dataclass(frozen=True, slots=True)
class RatedRecord:
    """A player's matches that count for ratings (:func:`rated_matches`) and their match wins
    there (:func:`match_win`)."""

    matches: int = 0
    wins: int = 0


def rated_records(*, player_ids: Iterable[int]) -> dict[int, RatedRecord]:
    """Each player's :class:`RatedRecord` (one query); players with no rated match are left
    out. The count is the number of matches their rating is built from."""
    rows = (
        Seat.objects.filter(entry__player_id__in=list(player_ids), match__in=rated_matches())
        .values("entry__player_id")
        .annotate(n=Count("id"), won=Count("id", filter=match_win()))
        .values_list("entry__player_id", "n", "won")
    )
    return {player: RatedRecord(n, won) for player, n, won in rows}


def seeding_ratings(*, player_ids: Iterable[int], unrated: float | None = 0.0) -> dict[int, float]:
    """The rating each player is seeded by (T8): the system's rating once the player has a rated
    match, else the rating the director entered, else ``unrated`` (0; ``None`` leaves the
    player out, for a caller that treats an unknown rating otherwise).

    The system's rating is ``PlayerRating``, which the ratings services derive from the matches
    :func:`rated_matches` counts (games at a round's table) and nothing else:
    a stand-alone match or an override with no hand played never reaches a player's seeding,
    and ``ratings_reconcile`` removes what an earlier rule stored."""
    ids = list(player_ids)
    typed = dict(Player.objects.filter(pk__in=ids).values_list("pk", "rating"))
    out: dict[int, float] = {}
    for pk, r in typed.items():
        if r is not None:
            out[pk] = float(r)
        elif unrated is not None:
            out[pk] = unrated
    for rating in PlayerRating.objects.filter(player_id__in=ids, matches__gt=0):
        out[rating.player_id] = float(rating.display)
    return out


@dataclass(frozen=True, slots=True)
class TournamentLine:
    tournament_id: int
    name: str
    slug: str
    status: str
    entry_status: str
    entry_id: int = 0
    """The player's entry: the profile links their page in the tournament (``live:player``)."""


@dataclass(frozen=True, slots=True)
class HistoryLine:
    """One rated match in a player's history (plain values: a profile reads hundreds)."""

    match_id: int
    tournament_id: int
    tournament_name: str
    rated_at: dt.datetime
    placing: int
    table_size: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    side_place: int | None = None
    """At a partnership table (R42): the partnership's place, 1st or 2nd of the two (T4,
    :func:`scoring.engine.placing.side_places`); ``None`` elsewhere."""

    @property
    def shown_place(self) -> tuple[int, int]:
        """What the history table reads: the place and out of how many (a player's placing of
        the table's players; a partnership's place of the two partnerships, R42)."""
        if self.side_place is not None:
            return (self.side_place, 2)
        return (self.placing, self.table_size)

    @property
    def display_before(self) -> int:
        return display_rating(self.mu_before, self.sigma_before)

    @property
    def display_after(self) -> int:
        return display_rating(self.mu_after, self.sigma_after)

    @property
    def display_change(self) -> int:
        return self.display_after - self.display_before


@dataclass(frozen=True, slots=True)
class PlayerProfile:
    player: Player
    rating: int | None
    rated_matches: int
    """The matches the rating is built from (:func:`rated_matches`), stand-alone ones never."""
    history: list[HistoryLine]
    tournaments: list[TournamentLine]
    rated_wins: int = 0
    """Match wins among ``rated_matches`` (:func:`match_win`)."""


PROFILE_HISTORY = 500


def player_profile(*, player_id: int, user: UserLike | None = None) -> PlayerProfile | None:
    """A player's rating, rating history (latest ``PROFILE_HISTORY`` matches, oldest first) and
    the public tournaments they entered, and their rated matches and wins (:class:`RatedRecord`);
    ``None`` for a player ``user`` may not see (``tournament.selectors.player_visible``: a
    player entered only in drafts is not public). Four queries whatever the history's length
    (five with a partnership match in the history)."""
    player = (
        Player.objects.filter(player_visible(user=user), pk=player_id)
        .select_related("skill")
        .first()
    )
    if player is None:
        return None
    skill = getattr(player, "skill", None)
    history = [
        HistoryLine(*row)
        for row in RatingChange.objects.filter(player_id=player_id)
        .exclude(tournament__status="draft")
        .order_by("-rated_at", "-match_id")
        .values_list(
            "match_id",
            "tournament_id",
            "tournament__name",
            "rated_at",
            "placing",
            "table_size",
            "mu_before",
            "sigma_before",
            "mu_after",
            "sigma_after",
        )[:PROFILE_HISTORY]
    ]
    history.reverse()
    history = _with_side_places(player_id, history)
    tournaments = [
        TournamentLine(
            e.tournament_id,
            e.tournament.name,
            e.tournament.slug,
            e.tournament.status,
            e.status,
            e.pk,
        )
        for e in Entry.objects.filter(player_id=player_id)
        .exclude(tournament__status="draft")
        .select_related("tournament")
        .order_by("-tournament__starts_on", "-tournament_id")
    ]
    record = rated_records(player_ids=[player_id]).get(player_id, RatedRecord())
    return PlayerProfile(
        player=player,
        rating=skill.display if skill is not None and skill.matches else None,
        rated_matches=record.matches,
        history=history,
        tournaments=tournaments,
        rated_wins=record.wins,
    )


def _with_side_places(player_id: int, history: list[HistoryLine]) -> list[HistoryLine]:
    """``history`` with each partnership match's place (R42, T4) from its seats' placings; one
    query, only when the history holds a four-seat match."""
    four = {h.match_id for h in history if h.table_size == 4}
    if not four:
        return history
    seats: dict[int, list[tuple[int, int | None, bool, int]]] = {}
    for match_id, seat, placing, forfeited, player in (
        Seat.objects.filter(match_id__in=four, match__ruleset__teams="partners")
        .order_by("match_id", "seat")
        .values_list("match_id", "seat", "placing", "forfeited", "entry__player_id")
    ):
        seats.setdefault(match_id, []).append((seat, placing, forfeited, player))
    out = []
    for h in history:
        rows = seats.get(h.match_id)
        mine = [seat for seat, _, _, player in rows or () if player == player_id]
        if rows is None or len(rows) != 4 or not mine:
            out.append(h)
            continue
        places = side_places([r[1] for r in rows], [r[2] for r in rows])
        out.append(replace(h, side_place=places[mine[0] % 2]))
    return out


def public_tournament(*, slug: str) -> Tournament | None:
    """The tournament with ``slug`` unless it is a draft (drafts are invisible to the public)."""
    return Tournament.objects.filter(slug=slug).exclude(status="draft").first()


DIRECTORY_ORDERS = ("rating", "name")

# Letters that names carry with accents (Spanish, Portuguese, French, Catalan...): a search
# typed without them, as on most phones, finds them, and one typed with them finds the name
# written without.
_ACCENTED = {
    "a": "aáàâäãå",
    "c": "cç",
    "e": "eéèêë",
    "i": "iíìîï",
    "n": "nñ",
    "o": "oóòôöõ",
    "u": "uúùûü",
    "y": "yýÿ",
}


def accent_insensitive_pattern(words: str) -> str:
    """A case-insensitive regular expression (PostgreSQL's and Python's, which the SQLite
    default uses) matching ``words`` with or without accents: "jimenez" finds "Jiménez"."""
    out = []
    for char in words:
        base = unicodedata.normalize("NFKD", char.lower())[:1] or char
        letters = _ACCENTED.get(base)
        out.append(f"[{letters}{letters.upper()}]" if letters else re.escape(char))
    return "".join(out)


def player_directory(*, query: str = "", order: str = "rating") -> QuerySet[Player]:
    """The public players: everyone who entered a tournament that is not a draft (a draft's
    entries are the director's business), with the skill joined; :func:`directory_lines`
    gives each row its shown rating and rated matches.

    ``query`` matches the name, nickname or club (case-insensitive); ``order`` is ``rating``
    (rated players best first, the unrated after them by name) or ``name``.
    """
    players = (
        Player.objects.filter(player_public())
        .select_related("skill")
        .annotate(
            rated=Case(
                When(skill__matches__gt=0, then=Value(1)),
                default=Value(0),
                output_field=IntegerField(),
            ),
            # display_rating in SQL, to order by it (rounded in Python for display).
            conservative=DISPLAY_BASE + DISPLAY_SCALE * (F("skill__mu") - 3 * F("skill__sigma")),
        )
    )
    words = query.strip()
    if words:
        pattern = accent_insensitive_pattern(words)
        players = players.filter(
            Q(name__iregex=pattern) | Q(nickname__iregex=pattern) | Q(club__iregex=pattern)
        )
    if order == "name":
        return players.order_by("name", "id")
    return players.order_by("-rated", F("conservative").desc(nulls_last=True), "name", "id")


@dataclass(frozen=True, slots=True)
class DirectoryLine:
    """One row of the players directory: the system rating once rated, else None."""

    player: Player
    rating: int | None
    rated_matches: int


def directory_lines(players: Iterable[Player]) -> list[DirectoryLine]:
    """The rows of a page of :func:`player_directory` (the skill is joined; one query counts
    the page's rated matches, :func:`rated_records`)."""
    page = list(players)
    records = rated_records(player_ids=[p.pk for p in page])
    out = []
    for p in page:
        skill = getattr(p, "skill", None)  # a player never rated has no PlayerRating row
        matches = records.get(p.pk, RatedRecord()).matches
        if skill is None or not skill.matches:
            out.append(DirectoryLine(player=p, rating=None, rated_matches=matches))
        else:
            rating = display_rating(skill.mu, skill.sigma)
            out.append(DirectoryLine(player=p, rating=rating, rated_matches=matches))
    return out
