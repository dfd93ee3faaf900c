"""A withdrawal's continuation match (T7, README rule decision 6) on the round page, the table
sheets and their referee links, and after time was called (T3).

Walkthrough: a player seated at a match in play withdrew, so the others played on in a
continuation at the same table; the director gave the continuation a new referee with no
credential and pressed the round page's "Issue referee links and show the sheets". The sheets
listed the FORFEITED match (the withdrawn player seated, the old referee), so the new
referee's link was never shown, and every other referee with a working link got one more
credential. A continuation created after time was called played a full match (T3).
"""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.urls import reverse

from brackets.models import Round, RoundMatch
from brackets.services import round_publish, stage_entry_withdraw, stage_seed
from scoring.models import Match
from scoring.services import match_start
from tests.brackets.factories_pages import director_client, tournament_with_stage
from tests.live.forfeit_event import forfeit_event
from tournament import services
from tournament.models import RefereeToken, Tournament

pytestmark = pytest.mark.django_db


def url(name: str, *args: Any) -> str:
    return reverse(f"brackets:{name}", args=args)


def _active(tournament: Tournament) -> dict[int, int]:
    """Each referee's active (not revoked) credentials, by user id."""
    counts: dict[int, int] = {}
    for user_id in RefereeToken.objects.filter(
        role__tournament=tournament, revoked_at=None
    ).values_list("role__user_id", flat=True):
        counts[user_id] = counts.get(user_id, 0) + 1
    return counts


@pytest.fixture
def withdrawn() -> dict[str, Any]:
    """Three tables with a referee each, every referee holding a working link; a player of
    table 1 (in play) withdraws (T7), and the continuation gets a new referee with no link,
    set on the round page."""
    tournament, director, stage = tournament_with_stage(12, referees=3)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd: Round = round_publish(stage=stage, actor=director)
    links = list(RoundMatch.objects.filter(round=rnd).order_by("table_number"))
    assert len(links) == 3
    referees = [link.match.referee for link in links]
    assert all(referees)
    assert len({r.pk for r in referees}) == 3
    for r in referees:
        services.referee_token_issue(tournament=tournament, actor=director, user=r)
    forfeited = links[0].match
    match_start(match_id=forfeited.pk, actor=director)
    seats = list(forfeited.seats.order_by("seat").select_related("entry__player"))
    leaver = seats[2].entry
    stage_entry_withdraw(stage=stage, actor=director, entry=leaver, reason="left the hall")
    continuation = Match.objects.get(continues=forfeited)
    newcomer = services.referee_create(tournament=tournament, actor=director, username="Nuevo")
    client = director_client(director)
    response = client.post(
        url("referee", tournament.slug, rnd.pk),
        {"match_id": continuation.pk, "referee": newcomer.user.pk},
    )
    assert response.status_code == 302
    continuation.refresh_from_db()
    assert continuation.referee_id == newcomer.user.pk
    return {
        "t": tournament,
        "director": director,
        "round": rnd,
        "client": client,
        "forfeited": forfeited,
        "continuation": continuation,
        "table": links[0].table_number,
        "old_referee": referees[0],
        "others": referees[1:],
        "newcomer": newcomer.user,
        "leaver": leaver,
        "players_on": [s.entry.player.name for s in seats if s.entry_id != leaver.pk],
    }


def _sheet(page: str, table: int) -> str:
    return page.split(f'<article class="sheet" data-table="{table}">', 1)[1].split("</article>", 1)[
        0
    ]


def test_the_round_page_guidance_issues_a_link_only_to_the_referee_without_one(
    withdrawn: dict[str, Any],
) -> None:
    t, rnd, client = withdrawn["t"], withdrawn["round"], withdrawn["client"]
    page = html.unescape(client.get(url("round", t.slug, rnd.pk)).content.decode())
    assert "1 referee of this round's tables has no referee link yet" in page
    form = page.split('id="referee-links"', 1)[1].split("</form>", 1)[0]
    assert 'name="only_missing" value="1"' in form
    before = _active(t)
    response = client.post(url("sheet-links", t.slug, rnd.pk), {"only_missing": "1"})
    assert response.status_code == 302
    after = _active(t)
    newcomer = withdrawn["newcomer"]
    # One new credential, the newcomer's; nobody else's count moved.
    assert after.pop(newcomer.pk) == 1
    assert newcomer.pk not in before
    assert after == before
    sheets = client.get(response["Location"]).content.decode()
    issued = sheets.split('id="issued-links"', 1)[1].split("</section>", 1)[0]
    token = RefereeToken.objects.get(role__user=newcomer, revoked_at=None)
    assert f"{token.prefix}." in issued  # the newcomer's key (its non-secret prefix)
    assert issued.count('class="referee-link"') == 1
    assert f"{withdrawn['table']} · Nuevo" in issued
    # Shown once: a reload shows the sheets without it.
    again = client.get(response["Location"]).content.decode()
    assert f"{token.prefix}." not in again
    # Everyone has a working link: the guidance is gone; pressed again (a stale page), it
    # issues nothing.
    page = html.unescape(client.get(url("round", t.slug, rnd.pk)).content.decode())
    assert 'id="referee-links"' not in page
    client.post(url("sheet-links", t.slug, rnd.pk), {"only_missing": "1"})
    assert _active(t) == {**before, newcomer.pk: 1}


def test_the_guidance_stays_while_a_referee_still_has_no_working_link(
    withdrawn: dict[str, Any],
) -> None:
    """Revoking another referee's only link brings that referee into the count; the button
    issues to both, and only then the guidance disappears."""
    t, rnd, client, director = (
        withdrawn["t"],
        withdrawn["round"],
        withdrawn["client"],
        withdrawn["director"],
    )
    other = withdrawn["others"][0]
    services.referee_token_revoke(token=RefereeToken.objects.get(role__user=other), actor=director)
    page = html.unescape(client.get(url("round", t.slug, rnd.pk)).content.decode())
    assert "2 referees of this round's tables have no referee link yet" in page
    before = _active(t)
    client.post(url("sheet-links", t.slug, rnd.pk), {"only_missing": "1"})
    after = _active(t)
    assert after[other.pk] == 1
    assert after[withdrawn["newcomer"].pk] == 1
    # The two others who kept a working link got none.
    assert {k: v for k, v in after.items() if k in before} == before
    page = html.unescape(client.get(url("round", t.slug, rnd.pk)).content.decode())
    assert 'id="referee-links"' not in page


def test_the_sheet_is_the_continuation_with_its_seating_and_referee(
    withdrawn: dict[str, Any],
) -> None:
    t, rnd, client = withdrawn["t"], withdrawn["round"], withdrawn["client"]
    page = client.get(url("sheets", t.slug, rnd.pk)).content.decode()
    assert page.count('<article class="sheet"') == 3  # one per table, not per match
    sheet = _sheet(page, withdrawn["table"])
    assert "continuation (T7)" in sheet
    assert withdrawn["leaver"].player.name not in sheet
    for name in withdrawn["players_on"]:
        assert name in sheet
    assert "Nuevo" in sheet
    assert "A → B → C<" not in sheet
    assert "A → B → C → D" not in sheet
    assert "A → B → C." in sheet


def test_the_sheets_own_button_issues_to_the_referees_of_the_current_matches(
    withdrawn: dict[str, Any],
) -> None:
    """The sheets' "Issue referee links" still issues to every referee (its behaviour): the
    continuation's referee, not the forfeited match's (who referees no table now)."""
    t, rnd, client = withdrawn["t"], withdrawn["round"], withdrawn["client"]
    before = _active(t)
    response = client.post(url("sheet-links", t.slug, rnd.pk))
    after = _active(t)
    old = withdrawn["old_referee"]
    assert after.get(old.pk) == before.get(old.pk)
    for r in withdrawn["others"]:
        assert after[r.pk] == before[r.pk] + 1
    assert after[withdrawn["newcomer"].pk] == 1
    sheets = client.get(response["Location"]).content.decode()
    issued = sheets.split('id="issued-links"', 1)[1].split("</section>", 1)[0]
    assert issued.count('class="referee-link"') == 3
    newest = RefereeToken.objects.get(role__user=withdrawn["newcomer"])
    assert f"{newest.prefix}." in issued
    assert 'id="issue-links"' not in sheets  # every referee's link is on these sheets


# -- T3: a continuation created after time was called ----------------------------------------


def test_a_continuation_of_a_table_kept_for_sudden_death_is_kept_too() -> None:
    """T3: the table was kept for a sudden-death hand; the continuation plays that hand, not a
    match to the target: the round page lists it, the referee page says so, and its first
    hand won ends it."""
    event = forfeit_event(finish=False, sudden_death=True)
    continuation = event.continuation
    assert continuation.sudden_death
    client = director_client(event.director)
    slug = event.tournament.slug
    page = client.get(url("round", slug, event.round.pk)).content.decode()
    note = page.split('id="sudden-death-note"')[1].split("</p>")[0]
    assert "Still playing for a sudden-death hand (T3): table 1." in note
    row = page.split(f'id="match-{continuation.pk}"')[1].split("</tr>")[0]
    assert "Sudden death (T3)" in row
    match_start(match_id=continuation.pk, actor=event.director)
    referee = client.get(reverse("scoring:match-referee", args=[continuation.pk])).content
    assert "this table plays one sudden-death hand (T3)" in referee.decode()
    from tests.live.forfeit_event import _win

    _win(continuation, event.director, 1)
    continuation.refresh_from_db()
    assert continuation.status == Match.Status.FINISHED
    assert continuation.end_reason == Match.EndReason.TIME
    assert continuation.hands_count == 1


def test_a_continuation_created_after_time_was_called_is_kept_for_sudden_death() -> None:
    """README rule decisions, T7 and T3: a table still open after time was called (not kept:
    e.g. its result awaited the players' confirmation) stops at time; its continuation plays
    only a sudden-death hand."""
    from django.utils import timezone

    from scoring.services import match_forfeit

    _tournament, director, stage = tournament_with_stage(8)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    first, second = (
        link.match for link in RoundMatch.objects.filter(round=rnd).order_by("table_number")
    )
    match_start(match_id=first.pk, actor=director)
    match_start(match_id=second.pk, actor=director)
    # Before time is called a continuation plays to the target.
    earlier = match_forfeit(match_id=second.pk, actor=director, seat=0, reason="left")
    assert earlier.continuation is not None
    assert not earlier.continuation.sudden_death
    Round.objects.filter(pk=rnd.pk).update(time_called_at=timezone.now())
    result = match_forfeit(match_id=first.pk, actor=director, seat=1, reason="left")
    assert result.continuation is not None
    assert result.continuation.sudden_death
    # A continuation from before the call (not linked to the round yet: the brackets app
    # links it lazily) forfeited after it: its own continuation is kept too.
    assert not RoundMatch.objects.filter(match=earlier.continuation).exists()
    again = match_forfeit(match_id=earlier.continuation.pk, actor=director, seat=0, reason="x")
    assert again.continuation is not None
    assert again.continuation.sudden_death


def test_a_continuation_before_time_is_called_plays_to_the_target() -> None:
    event = forfeit_event(finish=False)
    assert not event.continuation.sudden_death


def test_two_sudden_death_tables_read_tables_5_and_7() -> None:
    """The clock section names the tables as a list: "tables 1 and 2", not "table 1, 2"."""
    tournament, director, stage = tournament_with_stage(8, time_limit=30)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    client = director_client(director)
    ids = [str(m) for m in RoundMatch.objects.filter(round=rnd).values_list("match_id", flat=True)]
    client.post(
        url("call-time", tournament.slug, rnd.pk),
        {"reason": "hour up", "confirm": "on", "sudden_death": ids},
    )
    page = client.get(url("round", tournament.slug, rnd.pk)).content.decode()
    note = page.split('id="sudden-death-note"')[1].split("</p>")[0]
    assert "Still playing for a sudden-death hand (T3): tables 1 and 2." in note


def test_the_withdrawal_confirmation_writes_en_dashes() -> None:
    """Every page writes "0–6" with an en dash (T7), the withdrawal's confirmation too."""
    from brackets.views.withdraw import player_lines

    assert "a 0\u20136 loss" in player_lines("Ana", pairs=False)[0]


def test_a_partnership_forfeit_line_names_the_player_once() -> None:
    """R42, T7: the hands list's last line names the forfeiting player once, then the
    partnership that loses (as ``forfeit_words`` does)."""
    from scoring.presenters.match import forfeit_hands_line, forfeit_words

    line = forfeit_hands_line("Grace Thompson", side="Grace Thompson & Zoe Campbell")
    assert line == "Forfeit (T7) by Grace Thompson: Grace Thompson & Zoe Campbell lose 0\u20136"
    assert forfeit_words("Grace Thompson", side="Grace Thompson & Zoe Campbell") == (
        "Forfeit by Grace Thompson: Grace Thompson & Zoe Campbell lose 0\u20136 (T7)"
    )
