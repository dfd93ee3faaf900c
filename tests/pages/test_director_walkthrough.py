"""A user walkthrough of the director's pages on the embedded demo (docs/director-guide.md):

1. "Advance automatically" was ticked on a new stage, so a director following the guide's
   preview-before-publish never saw a preview (round 2 and the final table were published the
   moment the last result came in). It starts off, on the page and in the API.
2. Seeding with nobody checked in said "0 players cannot form a table" (T1).
3. Check-in was one player per press; the check-in column read "not in check in".
4. Set on a table's referee list with the SAME referee was logged as "Referee changed"; a
   dispute's note was not in the action log's "Why".
5. The dispute queue's confirmation said "the match is refolded".
"""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from brackets.models import RoundMatch, Stage, StageEntry
from brackets.presenters.director import user_label
from brackets.services import round_publish, stage_create, stage_seed
from scoring import confirmation
from scoring.models import Match, ResultDispute
from scoring.services import hand_record
from tests.brackets.conftest import make_tournament, play_round
from tests.brackets.factories_pages import director_client, tournament_with_stage
from tests.brackets.pairs_helpers import make_pairs_tournament, pairs_stages
from tests.factories import EntryFactory, TournamentFactory, director_of, match_in_progress
from tournament import services as tournament_services
from tournament.context import RefereeActor
from tournament.models import ActionLog, Entry, Tournament, TournamentRole
from tournament.partnerships import partnership_check_in

pytestmark = pytest.mark.django_db


def url(name: str, *args: Any) -> str:
    return reverse(f"brackets:{name}", args=args)


def messages_after(client: Client, response: Any) -> list[str]:
    assert response.status_code == 302, response.status_code
    page = client.get(response["Location"])
    return [str(m) for m in page.context["messages"]]


def text_of(response: Any) -> str:
    return html.unescape(response.content.decode())


# -- 1. a new stage previews every round ------------------------------------------------------


QUALIFYING_FORM = {
    "name": "Qualifying",
    "kind": "qualifying",
    "swiss_rounds": "2",
    "cut_size": "4",
    "advance_per_table": "1",
    "final_table_size": "4",
    "allow_three": "on",
    "bye_policy": "win",
    "seat_order": "balanced",
    "seeding": "rating",
}


def test_advance_automatically_starts_off_on_the_new_stage_form() -> None:
    tournament, director = make_tournament(8)
    client = director_client(director)
    page = text_of(client.get(url("stages", tournament.slug)))
    box = re.search(r"<input[^>]*id=\"id_auto_advance\"[^>]*>", page)
    assert box is not None
    assert "checked" not in box.group(0)
    # The form sent as the page shows it (box unticked): the stage waits for the director.
    response = client.post(url("stages", tournament.slug), QUALIFYING_FORM)
    assert response.status_code == 302
    stage = Stage.objects.get(tournament=tournament, number=1)
    assert stage.auto_advance is False
    assert "director advances" in text_of(client.get(url("stages", tournament.slug)))
    # Ticked in the stage's settings, it advances automatically.
    client.post(
        url("stage-edit", tournament.slug, stage.pk), {**QUALIFYING_FORM, "auto_advance": "on"}
    )
    stage.refresh_from_db()
    assert stage.auto_advance is True


def test_an_api_client_that_leaves_auto_advance_out_keeps_the_released_default() -> None:
    """The page starts a stage in manual mode; the API keeps its released default (on) for a
    script that leaves the field out (docs/api-changelog.md, 1.9.0); the model and the
    service start off (the admin's form, code that creates a stage)."""
    tournament, director = make_tournament(8)
    api = APIClient()
    api.force_authenticate(director)
    base = f"/api/tournaments/{tournament.slug}/stages/"
    r = api.post(
        base, {"name": "Q", "kind": "qualifying", "swiss_rounds": 2, "cut_size": 4}, format="json"
    )
    assert r.status_code == 201, r.content
    assert r.json()["auto_advance"] is True
    r = api.post(base, {"name": "KO", "kind": "knockout", "auto_advance": False}, format="json")
    assert r.status_code == 201, r.content
    assert r.json()["auto_advance"] is False
    assert Stage._meta.get_field("auto_advance").default is False


def test_without_auto_advance_the_last_result_leaves_the_next_round_to_the_director(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """The guide's flow (sections 3 and 7): a stage made with the defaults closes its round
    when the last result comes in, and the next one waits for the director's preview."""
    tournament, director = make_tournament(8)
    stage = stage_create(
        tournament=tournament,
        actor=director,
        name="Qualifying",
        kind="qualifying",
        swiss_rounds=2,
        cut_size=4,
    )
    stage_seed(stage=stage, actor=director, method="rating")
    first = round_publish(stage=stage, actor=director)
    with django_capture_on_commit_callbacks(execute=True):  # the round_check task, as queued
        play_round(first, director)
    assert list(stage.rounds.values_list("number", "status")) == [(1, "closed")]
    client = director_client(director)
    page = text_of(client.get(url("stages", tournament.slug)))
    # What the round page says next, after the round that closed (the planned step).
    assert "Qualifying round 1 closed. Round 2 of 2: 2 tables, 0 byes." in page


# -- 2. seeding with nobody checked in ----------------------------------------------------------


def test_seeding_with_nobody_checked_in_says_so_citing_t8() -> None:
    tournament, director = make_tournament(6, checked_in=False)
    stage = stage_create(
        tournament=tournament, actor=director, name="Q", kind="qualifying", swiss_rounds=2
    )
    client = director_client(director)
    response = client.post(url("seed", tournament.slug, stage.pk), {"method": "rating"})
    (text,) = messages_after(client, response)
    assert text == "No player is checked in yet: check players in before seeding (T8).", text
    assert "cannot form a table" not in text
    assert not StageEntry.objects.filter(stage=stage).exists()
    # Two checked in still get the table rule's message (T1).
    for entry in Entry.objects.filter(tournament=tournament)[:2]:
        tournament_services.entry_update(entry=entry, actor=director, data={"checked_in": True})
    response = client.post(url("seed", tournament.slug, stage.pk), {"method": "random"})
    (text,) = messages_after(client, response)
    assert text.startswith("2 players cannot form a table: a table seats 4 players"), text
    assert "(T1)" in text


def test_seeding_a_pairs_stage_with_no_partnership_checked_in_says_so() -> None:
    tournament, director, pairs = make_pairs_tournament(3)
    for pair in pairs:
        partnership_check_in(partnership=pair, actor=director, checked_in=False)
    q, _k = pairs_stages(tournament, director, swiss_rounds=2, cut_size=2, auto_advance=False)
    client = director_client(director)
    response = client.post(url("seed", tournament.slug, q.pk), {"method": "rating"})
    (text,) = messages_after(client, response)
    assert text.startswith("No partnership is checked in yet"), text
    partnership_check_in(partnership=pairs[0], actor=director)
    response = client.post(url("seed", tournament.slug, q.pk), {"method": "rating"})
    (text,) = messages_after(client, response)
    assert text == "1 partnership checked in: a table seats two (T9).", text


# -- 3. check-in: everyone, selected, and a readable column ----------------------------------


@pytest.fixture
def desk() -> dict[str, Any]:
    """12 registered players, none checked in, and a qualifying stage 1 not seeded."""
    tournament, director = make_tournament(12, checked_in=False)
    stage = stage_create(
        tournament=tournament, actor=director, name="Q", kind="qualifying", swiss_rounds=2
    )
    return {
        "t": tournament,
        "director": director,
        "stage": stage,
        "client": director_client(director),
        "seeding": url("seeding", tournament.slug, stage.pk),
    }


def test_check_in_everyone_is_one_press_and_one_log_entry(desk: dict[str, Any]) -> None:
    client, t = desk["client"], desk["t"]
    gone = Entry.objects.filter(tournament=t).order_by("pk").last()
    assert gone is not None
    tournament_services.entry_withdraw(entry=gone, actor=desk["director"], reason="ill")
    page = text_of(client.get(desk["seeding"]))
    assert 'id="check-in-everyone"' in page
    assert "11 active players are not checked in yet." in page
    response = client.post(url("check-in-many", t.slug), {"scope": "all", "next": desk["seeding"]})
    assert response["Location"] == desk["seeding"]
    assert messages_after(client, response) == ["11 players checked in."]
    assert Entry.objects.filter(tournament=t, checked_in=True).count() == 11
    gone.refresh_from_db()
    assert not gone.checked_in  # a withdrawn player is not "everyone"
    (log,) = ActionLog.objects.filter(tournament=t, verb="entries.check_in")
    assert log.data["count"] == 11
    assert log.actor_id == desk["director"].pk
    log_page = text_of(client.get(url("log", t.slug)))
    assert "Players checked in" in log_page
    assert "11 players" in log_page
    # Nothing left to check in: the box is gone, a second press changes and logs nothing.
    page = text_of(client.get(desk["seeding"]))
    assert 'id="check-in-everyone"' not in page
    response = client.post(url("check-in-many", t.slug), {"scope": "all"})
    assert messages_after(client, response) == [
        "Nobody to check in: they are all checked in already."
    ]
    assert ActionLog.objects.filter(tournament=t, verb="entries.check_in").count() == 1
    # Then seeding takes them all.
    response = client.post(url("seed", t.slug, desk["stage"].pk), {"method": "rating"})
    assert messages_after(client, response) == ["Seeded 11 players by rating."]


def test_check_in_selected_checks_in_the_ticked_players_only(desk: dict[str, Any]) -> None:
    client, t = desk["client"], desk["t"]
    a, b, c = Entry.objects.filter(tournament=t).order_by("pk")[:3]
    tournament_services.entry_update(entry=c, actor=desk["director"], data={"checked_in": True})
    page = text_of(client.get(desk["seeding"]))
    # A box for each player not checked in, labelled with their name; none for c.
    assert f'id="pick-{a.pk}"' in page
    assert f"Select {a.player.name} to check in" in page
    assert f'id="pick-{c.pk}"' not in page
    response = client.post(
        url("check-in-many", t.slug),
        {"scope": "selected", "entry": [a.pk, b.pk, c.pk], "next": desk["seeding"]},
    )
    assert messages_after(client, response) == ["2 players checked in."]
    checked = Entry.objects.filter(tournament=t, checked_in=True).values_list("pk", flat=True)
    assert set(checked) == {a.pk, b.pk, c.pk}
    (log,) = ActionLog.objects.filter(tournament=t, verb="entries.check_in")
    assert log.data == {"count": 2, "entry_ids": [a.pk, b.pk]}
    # Nothing ticked: said, nothing written.
    response = client.post(url("check-in-many", t.slug), {"scope": "selected"})
    assert messages_after(client, response) == ["Tick the players to check in."]
    assert ActionLog.objects.filter(tournament=t, verb="entries.check_in").count() == 1


def test_check_in_selected_refuses_other_tournaments_and_inactive_entries(
    desk: dict[str, Any],
) -> None:
    client, t = desk["client"], desk["t"]
    mine = Entry.objects.filter(tournament=t).order_by("pk").first()
    assert mine is not None
    theirs = EntryFactory(checked_in=False)
    response = client.post(
        url("check-in-many", t.slug), {"scope": "selected", "entry": [mine.pk, theirs.pk]}
    )
    (text,) = messages_after(client, response)
    assert text.startswith("Only active players of this tournament can be checked in"), text
    theirs.refresh_from_db()
    mine.refresh_from_db()
    assert not theirs.checked_in  # nothing written
    assert not mine.checked_in
    response = client.post(url("check-in-many", t.slug), {"scope": "selected", "entry": ["x"]})
    assert messages_after(client, response) == ["Tick the players to check in."]
    assert not ActionLog.objects.filter(verb="entries.check_in").exists()


def test_check_in_many_is_refused_where_one_check_in_is(desk: dict[str, Any]) -> None:
    """The lifecycle gate of a single check-in (a finished tournament is read-only until
    reopened), for both; and only a director of the tournament."""
    client, t = desk["client"], desk["t"]
    entry = Entry.objects.filter(tournament=t).first()
    assert entry is not None
    Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.FINISHED)
    one = client.post(url("check-in", t.slug, entry.pk), {"checked_in": "1"})
    (one_text,) = messages_after(client, one)
    many = client.post(url("check-in-many", t.slug), {"scope": "all"})
    (many_text,) = messages_after(client, many)
    assert "is finished" in one_text
    assert many_text == one_text
    assert not Entry.objects.filter(tournament=t, checked_in=True).exists()
    outsider = director_client(director_of(TournamentFactory()))
    assert outsider.post(url("check-in-many", t.slug), {"scope": "all"}).status_code == 403


def test_the_check_in_column_is_a_status_and_a_button_naming_the_player(
    desk: dict[str, Any],
) -> None:
    client, t = desk["client"], desk["t"]
    a, b = Entry.objects.filter(tournament=t).order_by("pk")[:2]
    tournament_services.entry_update(entry=b, actor=desk["director"], data={"checked_in": True})
    page = text_of(client.get(desk["seeding"]))
    row_a = page.split(f'data-entry="{a.pk}"', 1)[1].split("</tr>", 1)[0]
    row_b = page.split(f'data-entry="{b.pk}"', 1)[1].split("</tr>", 1)[0]
    assert "Not checked in" in row_a
    assert f'aria-label="Check in {a.player.name}"' in row_a
    assert ">Check in</button>" in row_a
    assert "Checked in" in row_b
    assert "✓" in row_b
    assert f'aria-label="Undo check-in of {b.player.name}"' in row_b
    assert ">Undo check-in</button>" in row_b
    for old in ("not in", "✓ in", "check out", ">check in<"):
        assert old not in row_a + row_b, old
    # The buttons still do what they say, in the same words.
    response = client.post(url("check-in", t.slug, b.pk), {"checked_in": "0"})
    assert messages_after(client, response) == [f"{b.player.name} is no longer checked in."]
    b.refresh_from_db()
    assert not b.checked_in


# -- 4. the action log: a referee kept is no change; the dispute's note is its why -------------


def test_setting_the_same_referee_changes_and_logs_nothing() -> None:
    tournament, director, stage = tournament_with_stage(8)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    client = director_client(director)
    link = RoundMatch.objects.filter(round=rnd).select_related("match").first()
    assert link is not None
    assert link.match.referee_id is not None
    match, same = link.match, link.match.referee
    version = match.version
    post = {"match_id": match.pk, "referee": same.pk}
    for _press in range(2):  # Set pressed twice, as in the walkthrough
        response = client.post(url("referee", tournament.slug, rnd.pk), post)
        (text,) = messages_after(client, response)
        assert text == f"No change: {user_label(same)} already referees this table.", text
    match.refresh_from_db()
    assert (match.referee_id, match.version) == (same.pk, version)
    assert not ActionLog.objects.filter(verb="match.assign_referee").exists()
    # A real change is logged once; the same referee again adds nothing.
    other = (
        TournamentRole.objects.filter(tournament=tournament, role="referee")
        .exclude(user_id=same.pk)
        .first()
    )
    assert other is not None
    for _press in range(2):
        client.post(
            url("referee", tournament.slug, rnd.pk),
            {"match_id": match.pk, "referee": other.user_id},
        )
    (log,) = ActionLog.objects.filter(verb="match.assign_referee")
    assert log.data == {"before": same.pk, "after": other.user_id}
    page = text_of(client.get(url("log", tournament.slug)))
    assert page.count('data-verb="match.assign_referee"') == 1


def test_the_api_assigns_the_same_referee_without_a_write() -> None:
    _tournament, director, stage = tournament_with_stage(8)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    match = RoundMatch.objects.filter(round=rnd).select_related("match").first()
    assert match is not None
    api = APIClient()
    api.force_authenticate(director)
    r = api.post(
        f"/api/matches/{match.match_id}/referee/",
        {"referee": match.match.referee_id},
        format="json",
    )
    assert r.status_code == 200, r.content
    assert r.json()["referee"] == match.match.referee_id
    assert Match.objects.get(pk=match.match_id).version == match.match.version
    assert not ActionLog.objects.filter(verb="match.assign_referee").exists()


FIRST = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0}
NEXT = {"poser": 0, "pose_tile": "5-4", "end": "domino", "winner": 0}
LAST_BLOCK = {"poser": 0, "pose_tile": "5-4", "end": "block", "counts": [3, 10, 12, 9]}
CLAIMED_BLOCK = {"poser": 0, "pose_tile": "5-4", "end": "block", "counts": [2, 14, 12, 9]}


def disputed_match(note: str) -> tuple[Tournament, Any, Match]:
    """A match whose last hand a player (seat C) disputes with ``note`` (issue 15)."""
    t = TournamentFactory(confirmation="match_end")
    director = director_of(t)
    role = tournament_services.referee_create(tournament=t, actor=director, username=f"r-{t.pk}")
    token = tournament_services.referee_token_issue(tournament=t, actor=director, user=role.user)
    referee = RefereeActor.of(token)
    match = match_in_progress(t, referee=role.user)
    for number in range(1, 6):
        hand_record(
            match_id=match.pk,
            actor=referee,
            expected_number=number,
            payload=FIRST if number == 1 else NEXT,
        )
    hand_record(match_id=match.pk, actor=referee, expected_number=6, payload=LAST_BLOCK)
    confirmation.hand_dispute(
        match_id=match.pk, actor=referee, number=6, seat=2, claimed=CLAIMED_BLOCK, note=note
    )
    return t, director, match


def _dispute_row(page: str) -> str:
    return page.split('data-verb="result.dispute"', 1)[1].split("</tr>", 1)[0]


def test_the_players_dispute_note_is_the_logs_why() -> None:
    t, director, _match = disputed_match("I had 2, not 3")
    log = ActionLog.objects.get(verb="result.dispute")
    assert log.reason == "I had 2, not 3"
    page = text_of(director_client(director).get(url("log", t.slug)))
    assert "<td>I had 2, not 3</td>" in _dispute_row(page)


def test_a_dispute_logged_without_its_note_shows_the_note_from_the_dispute() -> None:
    """Entries written before the log kept the note (reason empty) read it from the dispute."""
    t, director, _match = disputed_match("C's counts were misread")
    ActionLog.objects.filter(verb="result.dispute").update(reason="")
    page = text_of(director_client(director).get(url("log", t.slug)))
    assert "<td>C's counts were misread</td>" in _dispute_row(page)
    # No note at all: the column says so with its dash, as for any entry without a why.
    ResultDispute.objects.update(note="")
    page = text_of(director_client(director).get(url("log", t.slug)))
    assert "<td>—</td>" in _dispute_row(page)


# -- 5. the dispute queue says what a correction does, in a director's words ------------------


def test_the_correct_confirmation_says_the_scores_are_recomputed() -> None:
    t, director, _match = disputed_match("I had 2")
    page = text_of(director_client(director).get(reverse("scoring:dispute-queue", args=[t.slug])))
    confirm = re.search(r'value="correct" data-confirm="([^"]*)"', page)
    assert confirm is not None
    assert "refold" not in confirm.group(1)
    assert "the scores are recomputed from the corrected hands" in confirm.group(1)
