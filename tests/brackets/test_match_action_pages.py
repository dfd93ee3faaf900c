"""Forfeit, override and replace pages (T7, T4): a reason, a confirmation step, then the
service; refusals name their rule. And the call-time form's sudden-death checkboxes (T3)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from brackets.models import Round, RoundMatch, Stage, StageEntry
from brackets.services import round_publish, stage_seed
from core.exceptions import ApplicationError
from scoring.models import Match, Seat
from tests.brackets.conftest import make_tournament
from tests.brackets.factories_pages import director_client, tournament_with_stage
from tournament.models import ActionLog, Entry, Player

pytestmark = pytest.mark.django_db


@pytest.fixture
def world() -> dict[str, Any]:
    tournament, director, stage = tournament_with_stage(8)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    match = Match.objects.get(
        pk=RoundMatch.objects.filter(round=rnd).order_by("table_number")[0].match_id
    )
    return {
        "t": tournament,
        "d": director,
        "round": rnd,
        "match": match,
        "c": director_client(director),
    }


def action_url(w: dict[str, Any], action: str, match: Match | None = None) -> str:
    m = match or w["match"]
    return reverse("brackets:match-action", args=[w["t"].slug, w["round"].pk, m.pk, action])


def test_forfeit_asks_for_confirmation_then_records_it(world: dict[str, Any]) -> None:
    c, url = world["c"], action_url(world, "forfeit")
    page = c.get(url)
    assert page.status_code == 200
    assert "T7" in page.content.decode()
    # Without a reason: refused on the field.
    r = c.post(url, {"seat": "1"})
    assert r.status_code == 400
    assert "reason" in r.context["form"].errors
    # Continue: a confirmation, nothing written yet.
    r = c.post(url, {"seat": "1", "reason": "no-show"})
    assert r.status_code == 200
    html = r.content.decode()
    assert 'id="confirm-box"' in html
    assert "0\u20136 loss (T7)" in html
    # T7 "plays on" is a new match from love: the director reads that before confirming.
    assert "the hands played so far are not carried over" in html
    world["match"].refresh_from_db()
    assert world["match"].status == Match.Status.SCHEDULED
    # Confirm: the service runs, the continuation is created (T7), logged with the reason.
    r = c.post(url, {"seat": "1", "reason": "no-show", "confirmed": "yes"})
    assert r.status_code == 302
    # The message says what happened, not the "where the ruleset allows" of the question.
    (done,) = [str(m) for m in r.wsgi_request._messages]
    assert "forfeits: a 0\u20136 loss (T7)" in done
    assert "The others play on at this table in a new match, from love (T7)." in done
    assert "Where the ruleset allows" not in done
    world["match"].refresh_from_db()
    assert world["match"].status == Match.Status.FINISHED
    assert world["match"].end_reason == Match.EndReason.FORFEIT
    assert ActionLog.objects.get(verb="match.forfeit").reason == "no-show"
    # Again: the match is over; the refusal names the rule.
    r = c.post(url, {"seat": "1", "reason": "again", "confirmed": "yes"})
    assert r.status_code == 400
    assert "T7" in r.context["problem"]


def test_override_with_tied_top_scores_needs_placings(world: dict[str, Any]) -> None:
    c, url = world["c"], action_url(world, "override")
    n = world["match"].n_players
    # Under all_scored someone is always on love (R34): 3-3-0-0 is a tie a match can stop at.
    scores = {f"score_{i}": "3" if i < 2 else "0" for i in range(n)}
    # Refused at the first step, before any confirmation is asked (it was asked, then
    # refused): the form names what is missing (T3/T4).
    r = c.post(url, {**scores, "reason": "sheet"})
    assert r.status_code == 400
    assert 'id="confirm-box"' not in r.content.decode()
    assert r.context["form"].non_field_errors() == ["The top scores tie: give placings."]
    # With the places, the confirmation repeats them.
    places = {f"placing_{i}": str(i + 1) for i in range(n)}
    r = c.post(url, {**scores, **places, "reason": "sheet"})
    assert "and the places A 1, B 2" in r.content.decode()
    scores["score_0"] = "6"
    r = c.post(url, {**scores, "reason": "sheet"})
    assert 'id="confirm-box"' in r.content.decode()
    r = c.post(url, {**scores, "reason": "sheet", "confirmed": "yes"})
    assert r.status_code == 302
    world["match"].refresh_from_db()
    assert world["match"].end_reason == Match.EndReason.OVERRIDE
    assert world["match"].winner_seat == 0


def test_override_refuses_two_players_at_the_target(world: dict[str, Any]) -> None:
    """Walkthrough: 6-6-6-6 with places reached the confirmation step. The match ends as
    soon as one player reaches the target (R33), so two there is no result; the page says so
    once, before asking to confirm, and the service refuses it too (an API client)."""
    from scoring.services import match_result_override

    c, url = world["c"], action_url(world, "override")
    n = world["match"].n_players
    scores = {f"score_{i}": "6" for i in range(n)}
    places = {f"placing_{i}": str(i + 1) for i in range(n)}
    r = c.post(url, {**scores, **places, "reason": "sheet"})
    assert r.status_code == 400
    assert 'id="confirm-box"' not in r.content.decode()
    assert r.context["form"].non_field_errors() == [
        "Only one player can reach 6: the match ends as soon as the first does (R33)."
    ]
    with pytest.raises(ApplicationError) as exc:
        match_result_override(
            match_id=world["match"].pk,
            actor=world["d"],
            scores=[6, 7, 0, 0][:n],
            placings=list(range(1, n + 1)),
            reason="sheet",
        )
    assert (exc.value.code, exc.value.rule) == ("bad_scores", "R33")
    world["match"].refresh_from_db()
    assert world["match"].status == Match.Status.SCHEDULED
    # One player past the target is a result (R33: final scores may exceed it).
    r = c.post(url, {**scores, "score_1": "2", "score_2": "0", "score_3": "0", "reason": "x"})
    assert 'id="confirm-box"' in r.content.decode()


def test_override_refuses_a_score_no_match_can_end_with(world: dict[str, Any]) -> None:
    """6-1-1-1 under the default ruleset (six_love, all_scored) reached the confirmation step:
    the last player to score would have reset the scores (R31d), and a six-love match ends
    only with someone on 0 (R31c, R34). The page says so before asking to confirm."""
    c, url = world["c"], action_url(world, "override")
    n = world["match"].n_players
    assert n == 4
    scores = {"score_0": "6", "score_1": "1", "score_2": "1", "score_3": "1"}
    r = c.post(url, {**scores, "reason": "sheet"})
    assert r.status_code == 400
    assert 'id="confirm-box"' not in r.content.decode()
    assert r.context["form"].non_field_errors() == [
        "Under this ruleset at least one player is always on 0 (R31c, R34): a match cannot "
        "end 6-1-1-1."
    ]
    # Time called at 3-1-1-1 is no score either: between hands someone is on love (R34).
    r = c.post(url, {**scores, "score_0": "3", "reason": "sheet"})
    assert r.status_code == 400
    assert "a match cannot end 3-1-1-1" in r.context["form"].non_field_errors()[0]
    # Confirmed anyway (a stale tab): refused by the same check, nothing written.
    r = c.post(url, {**scores, "reason": "sheet", "confirmed": "yes"})
    assert r.status_code == 400
    world["match"].refresh_from_db()
    assert world["match"].status == Match.Status.SCHEDULED
    # With one player on love it is a six-love result.
    r = c.post(url, {**scores, "score_3": "0", "reason": "sheet"})
    assert 'id="confirm-box"' in r.content.decode()


def test_replace_a_no_show_with_an_unseated_player(world: dict[str, Any]) -> None:
    t = world["t"]
    late = Entry.objects.create(tournament=t, player=Player.objects.create(name="Late Comer"))
    c, url = world["c"], action_url(world, "replace")
    page = c.get(url).content.decode()
    assert "Late Comer (not checked in)" in page  # offered, and the director sees it
    out = Seat.objects.get(match=world["match"], seat=2)
    data = {"out_seat": "2", "in_entry": str(late.pk), "reason": "did not come"}
    r = c.post(url, data)
    confirm = r.content.decode()
    assert "Late Comer takes seat C" in confirm
    # What happens to the no-show is said before the director confirms (T7).
    assert f"{out.entry.player.name} is withdrawn from this stage" in confirm
    assert "no 0\u20136 loss" in confirm
    r = c.post(url, {**data, "confirmed": "yes"})
    assert r.status_code == 302
    seat = Seat.objects.get(match=world["match"], seat=2)
    assert seat.entry_id == late.pk
    assert seat.entry_id != out.entry_id


def test_match_of_another_round_or_tournament_is_404(world: dict[str, Any]) -> None:
    other_t, _ = make_tournament(4)
    m = Match.objects.create(tournament=other_t, n_players=4, scores=[0, 0, 0, 0])
    assert world["c"].get(action_url(world, "forfeit", m)).status_code == 404
    assert world["c"].get(action_url(world, "explode")).status_code == 404


def test_call_time_offers_sudden_death_checkboxes(world: dict[str, Any]) -> None:
    rnd: Round = world["round"]
    page = world["c"].get(reverse("brackets:round", args=[world["t"].slug, rnd.pk]))
    html = page.content.decode()
    assert html.count('type="checkbox" name="sudden_death"') == rnd.round_matches.count()
    r = world["c"].post(
        reverse("brackets:call-time", args=[world["t"].slug, rnd.pk]),
        {"confirm": "on", "reason": "late", "sudden_death": [str(world["match"].pk)]},
    )
    assert r.status_code == 302
    log = ActionLog.objects.get(verb="round.call_time")
    assert world["match"].pk in log.data["sudden_death"], log.data


def test_last_round_of_a_finished_tournament_says_so_without_a_lifecycle_warning(
    world: dict[str, Any],
) -> None:
    """Found by the user test: after the final, the round page warned "manage is only possible
    while it is draft, registration, running [rule lifecycle]"."""
    rnd: Round = world["round"]
    Round.objects.filter(pk=rnd.pk).update(status=Round.Status.CLOSED)
    type(world["t"]).objects.filter(pk=world["t"].pk).update(status="finished")
    page = world["c"].get(reverse("brackets:round", args=[world["t"].slug, rnd.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="tournament-finished"' in html
    assert "rule lifecycle" not in html
    assert [str(m) for m in page.context["messages"]] == []


def test_replace_says_when_nobody_is_free_to_take_the_seat(world: dict[str, Any]) -> None:
    """Every active player is seated (8 players, two tables): the page says so and where to
    add one, rather than offering an empty list that only answers "required"."""
    page = world["c"].get(action_url(world, "replace")).content.decode()
    assert "No player is free to take the seat" in page
    assert 'id="action-problem"' in page
    # No form to fill in for nothing; the link names the tab it opens ("Players").
    assert 'id="action-form"' not in page
    link = reverse("brackets:import", args=[world["t"].slug])
    assert f'<a href="{link}" id="action-problem-link">Players</a>' in page
    assert "Import players page" not in page


def test_replace_in_a_pairs_round_sends_to_the_partnerships_page() -> None:
    """Walkthrough: in a pairs event the Replace page offered an empty individual form and
    pointed to a page by a name no tab has; a partnership's player is substituted (T11)."""
    from brackets import services
    from tests.brackets.pairs_helpers import make_pairs_tournament, pairs_stages

    t, d, _pairs = make_pairs_tournament(4)
    q, _k = pairs_stages(t, d, swiss_rounds=1, cut_size=2)
    services.stage_seed(stage=q, actor=d)
    rnd = services.round_publish(stage=q, actor=d)
    link = RoundMatch.objects.filter(round=rnd).order_by("table_number").first()
    assert link is not None
    c = director_client(d)
    pairs_page = reverse("brackets:pairs", args=[t.slug])
    round_page = c.get(reverse("brackets:round", args=[t.slug, rnd.pk])).content.decode()
    # Walkthrough: every table offered "Substitute (T11)", which the service then refused
    # (the partnership is seated in a round in play); a no-show there is a forfeit (T7).
    assert f'id="replace-{link.match_id}"' not in round_page
    assert "Substitute (T11)" not in round_page
    assert f'id="no-show-{link.match_id}">A no-show is a forfeit (T7)<' in round_page
    url = reverse("brackets:match-action", args=[t.slug, rnd.pk, link.match_id, "replace"])
    page = c.get(url).content.decode()
    assert "replaced by a substitute" in page
    assert 'id="action-form"' not in page
    assert f'<a href="{pairs_page}" id="action-problem-link">Partnerships</a>' in page
    assert c.post(url, {"out_seat": "0", "reason": "x"}).status_code == 400  # a stale tab


def test_a_pairs_round_offers_a_substitute_only_to_the_partnership_with_the_bye() -> None:
    """T11: a substitute can be named for a partnership none of whose players is seated at a
    table not done; in round 1 of three partnerships that is the one with the bye (T1), and
    the link leads to its row of the partnerships page, where the substitution succeeds."""
    from brackets import services
    from brackets.services.pairs import partnership_substitute
    from tests.brackets.pairs_helpers import make_pairs_tournament, pairs_stages
    from tournament.models import PartnershipMember

    t, d, _pairs = make_pairs_tournament(3)
    q, _k = pairs_stages(t, d, swiss_rounds=2, cut_size=2)
    services.stage_seed(stage=q, actor=d)
    rnd = services.round_publish(stage=q, actor=d)
    bye = PartnershipMember.objects.get(entry_id=rnd.byes[0]).partnership
    link = RoundMatch.objects.get(round=rnd)
    c = director_client(d)
    round_page = c.get(reverse("brackets:round", args=[t.slug, rnd.pk])).content.decode()
    pairs_page = reverse("brackets:pairs", args=[t.slug])
    assert f'<a href="{pairs_page}#pair-{bye.pk}" id="substitute-pair-{bye.pk}">' in round_page
    assert round_page.count('id="substitute-pair-') == 1
    assert f'id="replace-{link.match_id}"' not in round_page
    assert f'id="pair-{bye.pk}"' in c.get(pairs_page).content.decode()
    leaving = PartnershipMember.objects.filter(partnership=bye).first()
    assert leaving is not None
    partnership_substitute(
        partnership=bye,
        actor=d,
        leaving=leaving.entry,
        player=Player.objects.create(name="S"),
        reason="no-show",
    )


def test_a_shared_first_place_on_time_is_not_shown_as_a_win(world: dict[str, Any]) -> None:
    """T3: call time on a table where nobody has scored: all four share first place, which is
    no match win, so no seat is marked as the winner on the round page."""
    from brackets.services import round_call_time

    round_call_time(round=world["round"], actor=world["d"], reason="time")
    page = (
        world["c"]
        .get(reverse("brackets:round", args=[world["t"].slug, world["round"].pk]))
        .content.decode()
    )
    row = page.split(f'id="match-{world["match"].pk}"')[1].split("</tr>")[0]
    assert 'class="winner"' not in row
    assert row.count("(1)") == 4  # the shared placing is still shown


def test_referee_list_tells_the_forfeited_table_from_its_continuation(
    world: dict[str, Any],
) -> None:
    """T7: after a forfeit the referee's list holds two matches at one table; the ended one
    says it was forfeited and the one still to play says it is the continuation."""
    from django.test import Client

    from scoring.services import match_forfeit
    from tournament.models import TournamentRole
    from tournament.services import referee_token_issue

    match = world["match"]
    result = match_forfeit(match_id=match.pk, actor=world["d"], seat=1, reason="no-show")
    continuation = result.continuation
    assert continuation is not None
    assert continuation.referee_id == match.referee_id
    referee = TournamentRole.objects.get(
        tournament=world["t"], user_id=match.referee_id, role=TournamentRole.Role.REFEREE
    ).user
    token = referee_token_issue(tournament=world["t"], actor=world["d"], user=referee)
    phone = Client()
    assert phone.get("/ref/").status_code == 200
    assert phone.post("/ref/", {"key": token.key}).status_code == 200
    html = phone.get("/referee/").content.decode()
    rows = {
        int(m.group(1)): m.group(2)
        for m in re.finditer(
            r'<li data-match-id="\d+"><a href="/matches/(\d+)/">(.*?)</a>', html, re.S
        )
    }
    assert "continuation (T7)" in rows[continuation.pk]
    assert "Forfeit (T7)" not in rows[continuation.pk]
    assert "Forfeit (T7)" in rows[match.pk]
    assert "continuation (T7)" not in rows[match.pk]
    # The continuation (still to play) comes first, and in Spanish it reads in Spanish.
    assert list(rows).index(continuation.pk) < list(rows).index(match.pk)
    es = phone.get("/referee/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "continuación (T7)" in es
    assert "Partida perdida (T7)" in es


def test_replace_lists_who_missed_the_cut_first_with_seed_or_place(
    world: dict[str, Any],
) -> None:
    """The seat goes to a player of this stage (by seed), else to the best placed of the stage
    before (who just missed the cut), else to anyone by name; the list says which (T7)."""
    t, stage = world["t"], world["round"].stage
    # The stage plays after a qualifying stage: renumber it and put one before it.
    Stage.objects.filter(pk=stage.pk).update(number=2)
    earlier = Stage.objects.create(
        tournament=t, number=1, name="Heats", kind=Stage.Kind.QUALIFYING, swiss_rounds=1
    )

    def entry(name: str, checked_in: bool = True) -> Entry:
        return Entry.objects.create(
            tournament=t, player=Player.objects.create(name=name), checked_in=checked_in
        )

    by_name = entry("Aaron Anyone")
    tenth, ninth = entry("Zoe Tenth"), entry("Yuri Ninth", checked_in=False)
    StageEntry.objects.create(stage=earlier, entry=tenth, seed=10, placing=10)
    StageEntry.objects.create(stage=earlier, entry=ninth, seed=9, placing=9)
    seeded = entry("Xavier Seeded")
    StageEntry.objects.create(stage=stage, entry=seeded, seed=9)
    gone = entry("Will Withdrawn")
    StageEntry.objects.create(stage=stage, entry=gone, seed=10, status=StageEntry.Status.WITHDRAWN)
    StageEntry.objects.create(stage=earlier, entry=gone, seed=11, placing=11)

    page = world["c"].get(action_url(world, "replace")).content.decode()
    options = re.findall(r'<option value="(\d+)"[^>]*>([^<]*)</option>', page)
    offered = [
        (int(pk), label)
        for pk, label in options
        if int(pk) in {by_name.pk, tenth.pk, ninth.pk, seeded.pk, gone.pk}
    ]
    assert offered == [
        (seeded.pk, "Xavier Seeded · seed 9 in this stage"),
        (ninth.pk, "Yuri Ninth · place 9 in Heats (not checked in)"),
        (tenth.pk, "Zoe Tenth · place 10 in Heats"),
        (gone.pk, "Will Withdrawn · place 11 in Heats"),
        (by_name.pk, "Aaron Anyone"),
    ]
    assert "then by place in the stage before" in page


def test_after_a_forfeit_every_page_counts_the_same_tables(
    world: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    """Walkthrough: after a forfeit (T7) the round page said 2 tables while the results sheet,
    the bracket and the live home said 3 (the forfeited match and its continuation were two
    tables), and the dashboard listed "Table 1" twice with nothing telling them apart."""
    from live.selectors import tournament_summary
    from scoring.services import match_forfeit

    t, rnd, c = world["t"], world["round"], world["c"]
    tables = RoundMatch.objects.filter(round=rnd).count()
    with django_capture_on_commit_callbacks(execute=True):  # the round takes the continuation
        result = match_forfeit(match_id=world["match"].pk, actor=world["d"], seat=1, reason="x")
    assert result.continuation is not None
    assert RoundMatch.objects.filter(round=rnd).count() == tables + 1  # one more match ...
    want = f"0 of {tables} tables finished"  # ... at the same table
    round_page = c.get(reverse("brackets:round", args=[t.slug, rnd.pk])).content.decode()
    assert want in round_page
    sheet = c.get(reverse("archive:round-results", args=[t.slug, rnd.pk])).content.decode()
    assert want in sheet
    bracket = c.get(reverse("brackets:bracket", args=[t.slug])).content.decode()
    assert f"{tables} tables</summary>" in bracket
    assert tournament_summary(tournament=t)["tables"]["total"] == tables
    dashboard = c.get(reverse("scoring:director-dashboard", args=[t.slug])).content.decode()
    row = dashboard.split(f'data-match="{result.continuation.pk}"')[1].split("</tr>")[0]
    assert "continuation (T7)" in row
    ended = dashboard.split(f'data-match="{world["match"].pk}"')[1].split("</tr>")[0]
    assert "continuation (T7)" not in ended


def test_the_dashboard_counts_only_started_tables_as_playing(world: dict[str, Any]) -> None:
    """Walkthrough: right after publishing, the dashboard said "2 tables playing" though no
    table had recorded a hand; a published table waits until its first hand."""
    from scoring.services import match_start

    t, c = world["t"], world["c"]
    url = reverse("scoring:director-dashboard", args=[t.slug])

    def counts() -> str:
        html = c.get(url).content.decode()
        return re.sub(r"\s+", " ", html.split('class="muted group-counts">')[1].split("<")[0])

    assert counts() == "0 tables playing · 2 not started"
    match_start(match_id=world["match"].pk, actor=world["d"])
    assert counts() == "1 table playing · 1 not started"
