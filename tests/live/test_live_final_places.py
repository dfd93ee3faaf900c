"""The tournament's final placings after a final table with players level at it (a tester's
demo event: a six-love final, 0-0-6-0, three players sharing 2nd at the table, placed 2, 3, 4
in their qualifying seed order).

Players level at the final table are placed by the knockout stage's standings (T5 over its
record; play-off tables do not count, T6) and share a place only when still level there; a
shared first place stays shared and names no champion (T3). Seed order never decides a place
(T3, README "Rule decisions"). Built through the services: the final and every round before it
are the director's results, the knockout lines' statistics set as the tables played them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest

from brackets.models import Round, Stage, StageEntry
from brackets.selectors import tournament_placings
from brackets.services import round_advance, round_publish
from live import selectors
from scoring.models import Match, Seat
from scoring.services import match_forfeit, match_result_override
from tests.brackets.conftest import open_matches
from tests.live.conftest import LiveTournament, add_knockout, make_live_tournament

pytestmark = pytest.mark.django_db


@dataclass
class KnockoutToTheFinal:
    """8 players through a knockout round of two tables (k = 1) to a final table of 4.

    Knockout round 1, by the knockout stage's seeds: at table A its worst seed ``wa`` wins
    with 6 hands and three six-loves given; at table B its worst seed ``wb`` wins with 4
    hands and its second-worst ``filler`` has 5 hands (the best non-advancing, it fills a
    spot); the best seed of each table has 2 hands (``pa``, ``pb``), level on every T5 key
    for the last spot: a play-off table (T6), which ``pb`` wins with 6 hands (not counted in
    the standings, README "Stages" 4). The final table is ``wa``, ``wb``, ``filler``, ``pb``.
    """

    lt: LiveTournament
    knockout: Stage
    final: Round
    seed: dict[int, int]
    wa: int
    wb: int
    filler: int
    pa: int
    pb: int


def _result(match: Match, actor: Any, first: list[int], scores: dict[int, int]) -> None:
    """The director's result for ``match``: ``scores`` by entry (others 0); ``first`` are the
    entries placed 1st (shared when more than one); the others by score, level ones sharing."""
    seats = dict(match.seats.values_list("entry_id", "seat"))
    by_seat = [0] * len(seats)
    for entry, seat in seats.items():
        by_seat[seat] = scores.get(entry, 0)
    rest = sorted((e for e in seats if e not in first), key=lambda e: -scores.get(e, 0))
    placing = dict.fromkeys(first, 1)
    for i, e in enumerate(rest):
        level = i and scores.get(e, 0) == scores.get(rest[i - 1], 0)
        placing[e] = placing[rest[i - 1]] if level else len(first) + i + 1
    placings = [0] * len(seats)
    for entry, seat in seats.items():
        placings[seat] = placing[entry]
    match_result_override(
        match_id=match.pk, actor=actor, scores=by_seat, placings=placings, reason="score sheet"
    )


def _lines(match: Match, **stats: dict[int, int]) -> None:
    """Give the match's seats the R35 statistics their table played (hands, six-loves)."""
    for field, by_entry in stats.items():
        for entry, value in by_entry.items():
            Seat.objects.filter(match=match, entry_id=entry).update(**{field: value})


def _to_the_final(slug: str) -> KnockoutToTheFinal:
    lt = make_live_tournament(8, swiss_rounds=1, cut_size=8, slug=slug)
    knockout = add_knockout(lt, auto_advance=False)
    Stage.objects.filter(pk=lt.stage.pk).update(auto_advance=False)
    for m in open_matches(lt.round):
        _result(m, lt.director, [m.seats.get(seat=0).entry_id], {m.seats.get(seat=0).entry_id: 6})
    assert round_advance(round_id=lt.round.pk, actor=lt.director).outcome == "stage_finished"
    knockout.refresh_from_db()
    round_1 = round_publish(stage=knockout, actor=lt.director)
    assert round_1.kind == Round.Kind.KNOCKOUT
    seed = dict(StageEntry.objects.filter(stage=knockout).values_list("entry_id", "seed"))
    table_a, table_b = open_matches(round_1)
    at_a = sorted(table_a.seats.values_list("entry_id", flat=True), key=seed.__getitem__)
    at_b = sorted(table_b.seats.values_list("entry_id", flat=True), key=seed.__getitem__)
    wa, pa = at_a[-1], at_a[0]
    wb, filler, pb = at_b[-1], at_b[-2], at_b[0]
    _result(table_a, lt.director, [wa], {wa: 6, pa: 2})
    _lines(table_a, hands_won={wa: 6, pa: 2}, six_love_given={wa: 3})
    _result(table_b, lt.director, [wb], {wb: 6, filler: 3, pb: 2})
    _lines(table_b, hands_won={wb: 4, filler: 5, pb: 2})
    assert round_advance(round_id=round_1.pk, actor=lt.director).outcome == "published"
    playoff = Round.objects.get(stage=knockout, number=2)
    assert playoff.kind == Round.Kind.PLAYOFF
    assert sorted(playoff.playoff_players) == sorted([pa, pb])
    (table,) = open_matches(playoff)
    _result(table, lt.director, [pb], {pb: 6})
    _lines(table, hands_won={pb: 6})
    assert round_advance(round_id=playoff.pk, actor=lt.director).outcome == "published"
    final = Round.objects.get(stage=knockout, number=3)
    assert final.kind == Round.Kind.FINAL
    (match,) = open_matches(final)
    assert set(match.seats.values_list("entry_id", flat=True)) == {wa, wb, filler, pb}
    # The bug's precondition: the play-off winner is the best seed at the final, so seed order
    # would put them first of any level group.
    assert seed[pb] < min(seed[wa], seed[wb], seed[filler])
    return KnockoutToTheFinal(lt, knockout, final, seed, wa, wb, filler, pa, pb)


def _end(ev: KnockoutToTheFinal) -> None:
    assert round_advance(round_id=ev.final.pk, actor=ev.lt.director).outcome == "stage_finished"
    ev.lt.refresh()


def _top(ev: KnockoutToTheFinal, n: int = 4) -> list[tuple[int, int]]:
    return [(p.place, p.entry_id) for p in tournament_placings(tournament_id=ev.lt.tournament.pk)][
        :n
    ]


def _bracket_placings(html: str) -> list[tuple[int, str]]:
    section = html.split('id="h-placings"', 1)[1].split("</section>", 1)[0]
    return [
        (int(value), name)
        for value, name in re.findall(r'<li value="(\d+)"><a href="[^"]+">([^<]+)</a>', section)
    ]


def _names(ev: KnockoutToTheFinal) -> dict[int, str]:
    return {e.entry_id: e.name for e in selectors.stage_data_for(ev.knockout).entrants}


def test_players_level_at_the_final_are_placed_by_the_knockout_record(client: Any) -> None:
    """The tester's final: 0-0-6-0. ``filler`` wins; ``wa``, ``wb`` and ``pb`` share 2nd at
    the table. By T5 over the knockout record: ``wa`` (a win, 6 hands, three six-loves), then
    ``wb`` (a win, 4 hands), then ``pb`` (no win, 2 hands; the play-off does not count). Seed
    order put ``pb`` 2nd."""
    ev = _to_the_final("final-level")
    (match,) = open_matches(ev.final)
    _result(match, ev.lt.director, [ev.filler], {ev.filler: 6})
    assert sorted(p or 0 for p in match.seats.values_list("placing", flat=True)) == [1, 2, 2, 2]
    _end(ev)
    expected = [(1, ev.filler), (2, ev.wa), (3, ev.wb), (4, ev.pb)]
    assert _top(ev) == expected

    # The bracket page's final placings, and the final table's card (2nd three times).
    names = _names(ev)
    html = client.get("/live/final-level/bracket/").content.decode()
    assert "Final placings" in html
    assert _bracket_placings(html)[:4] == [(place, names[e]) for place, e in expected]
    assert "Champion:" in html
    data = selectors.bracket(tournament=ev.lt.tournament)
    final_round = next(r for r in data["stages"][-1]["rounds"] if r["kind"] == "final")
    assert sorted(s["placing"] for s in final_round["tables"][0]["seats"]) == [1, 2, 2, 2]

    # The knockout stage's standings list the same places; the columns count the knockout
    # round only (the play-off winner's 6 hands there are not counted, T6), and say so.
    (knockout,) = [
        s
        for s in selectors.standings(tournament=ev.lt.tournament)["stages"]
        if s["stage"]["id"] == ev.knockout.pk
    ]
    rows = knockout["rows"]
    assert [(r["place"], r["entry_id"]) for r in rows[:4]] == expected
    by_entry = {r["entry_id"]: r for r in rows}
    assert (by_entry[ev.pb]["match_wins"], by_entry[ev.pb]["hands_won"]) == (0, 2)
    assert (by_entry[ev.wa]["match_wins"], by_entry[ev.wa]["hands_won"]) == (1, 6)
    page = client.get("/live/final-level/standings/").content.decode()
    ko_html = page.split(f'id="st-{ev.knockout.pk}"', 1)[1].split("</section>", 1)[0]
    text = re.sub(r"<[^>]+>", "", ko_html)
    assert (
        "Listed by final place: the final table&#x27;s result, players level there in the order "
        "of the columns (T5)"
    ) in text
    assert "The columns count the rounds before the final; play-off tables are not counted" in text
    order = [ko_html.index(f'data-entry="{e}"') for _, e in expected]
    assert order == sorted(order)


def test_a_shared_first_at_the_final_stays_shared_and_names_no_champion(client: Any) -> None:
    """T3: time called with ``pb`` and ``wb`` level on every key: they share first place at
    the table, and the knockout record does not split it (``wb`` has a win there): both are
    1st and the bracket names no champion until the director's play-off. Seed order made
    ``pb`` the champion."""
    ev = _to_the_final("final-shared-first")
    (match,) = open_matches(ev.final)
    _result(match, ev.lt.director, [ev.pb, ev.wb], {ev.pb: 3, ev.wb: 3, ev.filler: 1})
    _end(ev)
    assert _top(ev) == [(1, ev.pb), (1, ev.wb), (3, ev.filler), (4, ev.wa)]
    data = selectors.bracket(tournament=ev.lt.tournament)
    assert data["champion"] is None
    html = client.get("/live/final-shared-first/bracket/").content.decode()
    assert "Champion:" not in html
    names = _names(ev)
    assert _bracket_placings(html)[:2] == [(1, names[ev.pb]), (1, names[ev.wb])]


def test_a_forfeit_at_the_final_places_the_continuation_then_the_forfeit() -> None:
    """T7: ``wa`` forfeits the final; the others play on at the continuation, which
    ``filler`` wins while ``wb`` and ``pb`` share 2nd. The places are the continuation's,
    ``wb`` ahead of ``pb`` by the knockout record, and the forfeit last. Reading only the
    forfeited match placed the others by seed."""
    ev = _to_the_final("final-forfeit")
    (match,) = open_matches(ev.final)
    seat = match.seats.get(entry_id=ev.wa).seat
    result = match_forfeit(match_id=match.pk, actor=ev.lt.director, seat=seat, reason="no-show")
    assert result.continuation is not None
    _result(result.continuation, ev.lt.director, [ev.filler], {ev.filler: 6})
    _end(ev)
    assert _top(ev) == [(1, ev.filler), (2, ev.wb), (3, ev.pb), (4, ev.wa)]
    assert selectors.bracket(tournament=ev.lt.tournament)["champion"]["entry_id"] == ev.filler
    # The standings page's final table result is the continuation's, the forfeit last.
    (knockout,) = [
        s
        for s in selectors.standings(tournament=ev.lt.tournament)["stages"]
        if s["stage"]["id"] == ev.knockout.pk
    ]
    assert [(p["place"], p["entry_id"], p["forfeited"]) for p in knockout["final_table"]] == [
        (1, ev.filler, False),
        (2, ev.wb, False),
        (2, ev.pb, False),
        (4, ev.wa, True),
    ]
    assert knockout["rows"][0]["outlook"] == "champion"
