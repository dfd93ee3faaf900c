"""Helpers for pairs-event tests (T9-T11): a pairs tournament with N registered, checked-in
partnerships through the real services, and its stages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from brackets import services
from brackets.models import Round, RoundMatch, Stage
from scoring.models import Match, Seat
from scoring.services import hand_record, match_forfeit, match_result_override, match_start
from tests.factories import TournamentFactory, director_of
from tournament.models import Partnership, PartnershipMember, Player, Tournament
from tournament.partnerships import partnership_register, tournament_entry_format_set


def make_pairs_tournament(
    n: int, *, clubs: int = 5, preset: str = "wsod_partners", **kwargs: Any
) -> tuple[Tournament, Any, list[Partnership]]:
    """A running pairs tournament (``preset``) with ``n`` checked-in partnerships."""
    tournament = TournamentFactory(ruleset_preset=preset, **kwargs)
    director = director_of(tournament)
    tournament_entry_format_set(tournament=tournament, actor=director, entry_format="pairs")
    tournament.refresh_from_db()
    players = Player.objects.bulk_create(
        [
            Player(
                name=f"Q{i:04d}",
                club=f"Club {(i // 2) % clubs}" if clubs else "",
                rating=3000 - i,
            )
            for i in range(2 * n)
        ]
    )
    pairs = [
        partnership_register(
            tournament=tournament,
            actor=director,
            players=[players[2 * k], players[2 * k + 1]],
            check_in=True,
        )
        for k in range(n)
    ]
    return tournament, director, pairs


def pairs_stages(
    tournament: Tournament,
    director: Any,
    *,
    swiss_rounds: int = 3,
    cut_size: int = 4,
    auto_advance: bool = True,
    bye_policy: str = "win",
) -> tuple[Stage, Stage]:
    """A Swiss qualifying stage cut to ``cut_size`` partnerships, then the knockout to the
    final between two partnerships (T10)."""
    q = services.stage_create(
        tournament=tournament,
        actor=director,
        name="Qualifying",
        kind="qualifying",
        swiss_rounds=swiss_rounds,
        cut_size=cut_size,
        rng_seed=7,
        auto_advance=auto_advance,
        bye_policy=bye_policy,
    )
    k = services.stage_create(
        tournament=tournament,
        actor=director,
        name="Knockout",
        kind="knockout",
        rng_seed=11,
        auto_advance=auto_advance,
    )
    return q, k


# AC wins 6-0 (wsod_partners): a block whose lowest count A and C share (R43: both partners
# are credited with it, the partnership once, R46), then C dominoes once and A four times.
# Seat hands_won: A 5, C 2; the partnership won 6 hands (T10), neither 5 (the better partner)
# nor 7 (the sum).
AC_SIX_LOVE: list[dict[str, Any]] = [
    {"poser": 1, "pose_tile": "6-6", "end": "block", "counts": [5, 10, 5, 12]},
    # R44: of A and C, the first from the seat after the poser (B) is C.
    {"poser": 2, "pose_tile": "3-4", "end": "domino", "winner": 2},
    {"poser": 2, "pose_tile": "2-5", "end": "domino", "winner": 0},
    {"poser": 0, "pose_tile": "1-1", "end": "domino", "winner": 0},
    {"poser": 0, "pose_tile": "0-4", "end": "domino", "winner": 0},
    {"poser": 0, "pose_tile": "5-5", "end": "domino", "winner": 0},
]


def play_pairs_match(
    records: list[dict[str, Any]], **tournament: Any
) -> tuple[Tournament, Any, Stage, Match]:
    """A two-partnership pairs event (``tournament``: its factory fields); its one round-1
    table plays ``records``, and the match finishes, or waits for the players under
    ``confirmation``. Returns the tournament, its director, its qualifying stage and the
    match."""
    t, d, _ = make_pairs_tournament(2, **tournament)
    q, _ = pairs_stages(t, d, swiss_rounds=1, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    rnd = services.round_publish(stage=q, actor=d)
    link = RoundMatch.objects.get(round=rnd)
    match_start(match_id=link.match_id, actor=d, lot_winner=0)
    for number, payload in enumerate(records, start=1):
        hand_record(match_id=link.match_id, actor=d, expected_number=number, payload=payload)
    match = Match.objects.get(pk=link.match_id)
    held = tournament.get("confirmation", "off") != "off"  # issue 15: held for the players
    assert match.status == (Match.Status.IN_PROGRESS if held else Match.Status.FINISHED)
    return t, d, q, match


# BD's opening tie (R43: A and B, opponents, share the lowest count), then AC wins 6-0 with
# a replay worth 2 won on a block A and C share, and C dominoing the last four hands.
AC_AFTER_A_TIE: list[dict[str, Any]] = [
    {"poser": 1, "pose_tile": "6-6", "end": "block", "counts": [5, 5, 10, 12]},
    {"poser": 3, "pose_tile": "6-6", "end": "block", "counts": [5, 10, 5, 12]},
    # R44: of A and C, the first from the seat after the poser (D) is A.
    {"poser": 0, "pose_tile": "3-4", "end": "domino", "winner": 2},
    {"poser": 2, "pose_tile": "2-5", "end": "domino", "winner": 2},
    {"poser": 2, "pose_tile": "1-1", "end": "domino", "winner": 2},
    {"poser": 2, "pose_tile": "0-4", "end": "domino", "winner": 2},
]


def decide_round(rnd: Any, director: Any, winners: dict[int, int] | None = None) -> None:
    """Director results for every table: seats 0/2 (AC) win unless ``winners`` names the
    table number -> 1 (BD)."""
    for link in RoundMatch.objects.filter(round=rnd).order_by("table_number"):
        side = (winners or {}).get(link.table_number, 0)
        scores = [6, 0, 6, 0] if side == 0 else [0, 6, 0, 6]
        placings = [1, 3, 2, 3] if side == 0 else [3, 1, 3, 2]
        match_result_override(
            match_id=link.match_id, actor=director, scores=scores, placings=placings, reason="sheet"
        )


def qualified_for_the_final(n: int = 4, **kwargs: Any) -> tuple[Tournament, Any, Stage, Stage]:
    """``n`` partnerships play one Swiss round (director results), cut to two: the stage is
    advanced and the knockout stage's next round is the final (T10), not yet published."""
    t, d, _ = make_pairs_tournament(n, **kwargs)
    q, k = pairs_stages(t, d, swiss_rounds=1, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    r1 = services.round_publish(stage=q, actor=d)
    decide_round(r1, d)
    services.round_close(round=r1, actor=d)
    services.stage_advance(stage=q, actor=d)
    return t, d, q, k


def seeded_pairs(
    n: int = 3, *, method: str | None = None, **stage_kwargs: Any
) -> tuple[Tournament, Any, Stage]:
    """``n`` partnerships, a two-round Swiss stage cut to two (director-run: no auto advance),
    seeded by ``method`` (default: the stage's own, by rating); ``stage_kwargs`` change the
    stage (e.g. ``bye_policy``)."""
    t, d, _ = make_pairs_tournament(n)
    options: dict[str, Any] = {"swiss_rounds": 2, "cut_size": 2, "auto_advance": False}
    q, _k = pairs_stages(t, d, **{**options, **stage_kwargs})
    services.stage_seed(stage=q, actor=d, method=method)
    return t, d, q


@dataclass(frozen=True)
class ForfeitRound:
    """Round 1 of five partnerships (two tables and a bye, T1) after a forfeit at table 1."""

    tournament: Tournament
    director: Any
    stage: Stage
    round: Round
    forfeited: Match
    """Table 1, ended by seat A's forfeit (T7): AC loses it 0-6 (R42)."""
    forfeiting: Partnership
    """AC at table 1, the partnership that forfeited."""
    winners: Partnership
    """BD at table 1, which won by the forfeit."""
    playing: tuple[Partnership, Partnership]
    """The two partnerships of table 2, still to play (scheduled)."""
    bye: Partnership


def round_with_a_forfeit() -> ForfeitRound:
    """Five seeded partnerships, round 1 published (no auto advance); at table 1 the player in
    seat A is a no-show, recorded as a forfeit (T7) while table 2 has not started."""
    t, d, q = seeded_pairs(5)
    rnd = services.round_publish(stage=q, actor=d)
    links = list(RoundMatch.objects.filter(round=rnd).order_by("table_number"))
    match_forfeit(match_id=links[0].match_id, actor=d, seat=0, reason="no-show")

    def pair_at(match_id: int, seat: int) -> Partnership:
        entry_id = Seat.objects.get(match_id=match_id, seat=seat).entry_id
        return PartnershipMember.objects.get(entry_id=entry_id).partnership

    return ForfeitRound(
        tournament=t,
        director=d,
        stage=q,
        round=rnd,
        forfeited=Match.objects.get(pk=links[0].match_id),
        forfeiting=pair_at(links[0].match_id, 0),
        winners=pair_at(links[0].match_id, 1),
        playing=(pair_at(links[1].match_id, 0), pair_at(links[1].match_id, 1)),
        bye=PartnershipMember.objects.get(entry_id=rnd.byes[0]).partnership,
    )


def finished_pairs_event(
    n: int = 8, *, swiss_rounds: int = 3, cut: int = 4, name_first: str = ""
) -> tuple[Tournament, Any]:
    """A pairs event of ``n`` partnerships played by the rules engine's simulator through the
    real services from registration to its champion (T9-T10): ``swiss_rounds`` Swiss rounds
    cut to ``cut`` partnerships, then the knockout to the final. ``name_first`` names the
    first partnership (T9: a registered name)."""
    from tests.brackets.test_brackets_e2e import run_tournament  # a test module: import late

    tournament, director, pairs = make_pairs_tournament(n, ruleset_overrides={"target": 3})
    if name_first:
        Partnership.objects.filter(pk=pairs[0].pk).update(name=name_first)
    q, _k = pairs_stages(tournament, director, swiss_rounds=swiss_rounds, cut_size=cut)
    services.stage_seed(stage=q, actor=director, method="rating")
    services.round_publish(stage=q, actor=director)
    run_tournament(tournament, director, max_rounds=swiss_rounds + 8)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    return tournament, director
