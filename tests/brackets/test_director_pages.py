"""Director pages of the brackets app, through the Django test client and the services."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from brackets.models import Round, RoundMatch, Stage, StageEntry
from brackets.presenters.director import user_label
from brackets.services import round_advance, round_call_time, round_publish, stage_seed
from scoring.models import Match
from tests.brackets.conftest import play_match, play_round
from tests.brackets.factories_pages import (
    director_client,
    other_director,
    superuser,
    tournament_with_stage,
)
from tests.factories import referee_of
from tournament.models import ActionLog, Entry, RefereeToken, Tournament

pytestmark = pytest.mark.django_db


def url(name: str, *args: Any) -> str:
    return reverse(f"brackets:{name}", args=args)


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def follow_messages(client: Client, response: Any) -> list[str]:
    assert response.status_code == 302, response.status_code
    page = client.get(response["Location"])
    return messages_of(page)


@pytest.fixture
def setup() -> dict[str, Any]:
    tournament, director, stage = tournament_with_stage(10)
    return {
        "t": tournament,
        "director": director,
        "stage": stage,
        "client": director_client(director),
    }


def seeded(setup: dict[str, Any]) -> Stage:
    return stage_seed(stage=setup["stage"], actor=setup["director"], method="rating")


def published(setup: dict[str, Any]) -> Round:
    seeded(setup)
    return round_publish(stage=setup["stage"], actor=setup["director"])


# -- permissions ------------------------------------------------------------------------------


def page_urls(setup: dict[str, Any], rnd: Round) -> list[str]:
    slug, stage = setup["t"].slug, setup["stage"].pk
    return [
        url("stages", slug),
        url("stage-edit", slug, stage),
        url("seeding", slug, stage),
        url("preview", slug, stage),
        url("import", slug),
        url("round", slug, rnd.pk),
        url("sheets", slug, rnd.pk),
        url("bracket", slug),
        url("log", slug),
    ]


def post_urls(setup: dict[str, Any], rnd: Round) -> list[str]:
    slug, stage = setup["t"].slug, setup["stage"].pk
    entry = Entry.objects.filter(tournament=setup["t"]).first()
    assert entry is not None
    return [
        url("stages", slug),
        url("seed", slug, stage),
        url("reorder", slug, stage),
        url("withdraw", slug, stage, entry.pk),
        url("late-entry", slug, stage, entry.pk),
        url("publish", slug, stage),
        url("stage-advance", slug, stage),
        url("check-in", slug, entry.pk),
        url("import", slug),
        url("clock", slug, rnd.pk),
        url("call-time", slug, rnd.pk),
        url("close", slug, rnd.pk),
        url("advance", slug, rnd.pk),
        url("referee", slug, rnd.pk),
        url("sheet-links", slug, rnd.pk),
    ]


def test_anonymous_is_sent_to_login(setup: dict[str, Any]) -> None:
    rnd = published(setup)
    client = Client()
    for target in page_urls(setup, rnd) + post_urls(setup, rnd):
        method = client.post if target in post_urls(setup, rnd) else client.get
        response = method(target)
        assert response.status_code == 302, target
        assert "/login/" in response["Location"], target


def test_director_of_another_tournament_gets_403(setup: dict[str, Any]) -> None:
    rnd = published(setup)
    client = director_client(other_director())
    for target in page_urls(setup, rnd):
        assert client.get(target).status_code == 403, target
    for target in post_urls(setup, rnd):
        assert client.post(target).status_code == 403, target
    # Nothing changed behind the 403s.
    assert Round.objects.filter(stage=setup["stage"]).count() == 1


def test_referee_of_the_tournament_gets_403(setup: dict[str, Any]) -> None:
    from tournament.models import TournamentRole

    rnd = published(setup)
    role = TournamentRole.objects.filter(tournament=setup["t"], role="referee").first()
    assert role is not None
    client = director_client(role.user)
    for target in page_urls(setup, rnd):
        assert client.get(target).status_code == 403, target


def test_director_and_superuser_see_every_page(setup: dict[str, Any]) -> None:
    rnd = published(setup)
    for client in (setup["client"], director_client(superuser())):
        for target in page_urls(setup, rnd):
            response = client.get(target)
            assert response.status_code == 200, target
            assert b"director-nav" in response.content


def test_ids_of_another_tournament_answer_404(setup: dict[str, Any]) -> None:
    other_t, other_dir, other_stage = tournament_with_stage(8)
    stage_seed(stage=other_stage, actor=other_dir, method="rating")
    other_round = round_publish(stage=other_stage, actor=other_dir)
    slug = setup["t"].slug
    client = setup["client"]
    assert client.get(url("seeding", slug, other_stage.pk)).status_code == 404
    assert client.get(url("round", slug, other_round.pk)).status_code == 404
    assert client.get(url("sheets", slug, other_round.pk)).status_code == 404
    assert client.post(url("publish", slug, other_stage.pk)).status_code == 404
    other_entry = Entry.objects.filter(tournament=other_t).first()
    assert other_entry is not None
    response = client.post(url("check-in", slug, other_entry.pk), {"checked_in": "0"})
    assert response.status_code == 404
    assert client.get(url("stages", "no-such-tournament")).status_code == 404


# -- stage setup ------------------------------------------------------------------------------


def test_stage_list_shows_settings_and_next_step(setup: dict[str, Any]) -> None:
    response = setup["client"].get(url("stages", setup["t"].slug))
    text = response.content.decode()
    assert "Stage 1: Qualifying" in text
    assert "2 rounds" in text
    assert "cut to the top 4" in text
    assert "seed it first" in text  # the next step, from the service
    assert 'id="new-stage"' in text


def test_create_knockout_stage_with_plan(setup: dict[str, Any]) -> None:
    client = setup["client"]
    response = client.post(
        url("stages", setup["t"].slug),
        {
            "name": "Final",
            "kind": "final",
            "advance_per_table": "1",
            "final_table_size": "4",
            "allow_three": "on",
            "bye_policy": "win",
            "seat_order": "balanced",
            "auto_advance": "on",
        },
    )
    assert "created" in follow_messages(client, response)[0]
    stage = Stage.objects.get(tournament=setup["t"], number=2)
    assert stage.kind == Stage.Kind.KNOCKOUT
    assert stage.final_table_size == 4
    assert ActionLog.objects.filter(tournament=setup["t"], verb="stage.create").count() == 2
    page = client.get(url("stages", setup["t"].slug)).content.decode()
    assert "Final table" in page
    assert 'id="new-stage"' not in page  # a knockout is the last stage


def test_create_stage_form_validation(setup: dict[str, Any]) -> None:
    setup["stage"].delete()
    client = setup["client"]
    base = {
        "name": "Q",
        "kind": "qualifying",
        "advance_per_table": "1",
        "final_table_size": "4",
        "bye_policy": "win",
        "seat_order": "balanced",
        "seeding": "rating",
    }
    response = client.post(url("stages", setup["t"].slug), base)
    assert response.status_code == 400
    assert "at least one round (T2)" in response.content.decode()
    response = client.post(
        url("stages", setup["t"].slug), {**base, "swiss_rounds": "3", "final_table_size": "3"}
    )
    assert response.status_code == 400
    assert "A final of 3 needs 3-player tables allowed (T1)" in response.content.decode()
    response = client.post(
        url("stages", setup["t"].slug), {**base, "swiss_rounds": "3", "cut_size": "2"}
    )
    assert response.status_code == 400
    assert Stage.objects.filter(tournament=setup["t"]).count() == 0


def test_final_stage_needs_the_cut_to_be_the_final_table(setup: dict[str, Any]) -> None:
    setup["stage"].cut_size = 16
    setup["stage"].save()
    response = setup["client"].post(
        url("stages", setup["t"].slug),
        {
            "kind": "final",
            "advance_per_table": "1",
            "final_table_size": "4",
            "allow_three": "on",
            "bye_policy": "win",
            "seat_order": "balanced",
        },
    )
    assert response.status_code == 400
    assert "Choose a knockout stage instead" in response.content.decode()


def test_service_rule_error_is_shown_on_the_form(setup: dict[str, Any]) -> None:
    """A knockout after a cut of 5 to a final of 4 cannot be seated without byes (T6)."""
    setup["stage"].cut_size = 5
    setup["stage"].save()
    response = setup["client"].post(
        url("stages", setup["t"].slug),
        {
            "kind": "knockout",
            "advance_per_table": "1",
            "final_table_size": "4",
            "allow_three": "on",
            "bye_policy": "win",
            "seat_order": "balanced",
        },
    )
    assert response.status_code == 400
    assert "T6" in response.content.decode()
    assert not Stage.objects.filter(tournament=setup["t"], number=2).exists()


def test_edit_stage_settings(setup: dict[str, Any]) -> None:
    client = setup["client"]
    stage = setup["stage"]
    form = client.get(url("stage-edit", setup["t"].slug, stage.pk)).context["form"]
    data = {k: v for k, v in form.initial.items() if v is not None}
    data.update(round_time_limit="25", allow_three="on", auto_advance="on")
    response = client.post(url("stage-edit", setup["t"].slug, stage.pk), data)
    assert "round_time_limit changed" in follow_messages(client, response)[0]
    stage.refresh_from_db()
    assert stage.round_time_limit == 25
    log = ActionLog.objects.get(verb="stage.update")
    assert log.data == {"round_time_limit": 25}


def test_format_is_fixed_once_the_stage_started(setup: dict[str, Any]) -> None:
    published(setup)
    stage = setup["stage"]
    form = setup["client"].get(url("stage-edit", setup["t"].slug, stage.pk)).context["form"]
    assert form.fields["swiss_rounds"].disabled
    assert form.fields["cut_size"].disabled
    assert not form.fields["round_time_limit"].disabled


def test_a_qualifying_stages_settings_do_not_show_the_knockout_fields(
    setup: dict[str, Any],
) -> None:
    """A director's walkthrough on ``make demo``: a qualifying stage's Settings page showed
    "Per table: top k go on" and "Final table seats", the knockout's settings (T6), which a
    qualifying stage never uses (a knockout stage's page already left out Rounds and Cut).
    They are sent as they are (hidden), so saving the page still works."""
    client, slug, stage = setup["client"], setup["t"].slug, setup["stage"]
    assert stage.kind == Stage.Kind.QUALIFYING
    html = client.get(url("stage-edit", slug, stage.pk)).content.decode()
    form = html.split('class="stage-form', 1)[1].split("</form>", 1)[0]
    fields = re.findall(r'(<div hidden>)?<div class="field[^"]*" data-field="(\w+)"', form)
    hidden = {name for wrapper, name in fields if wrapper}
    shown = {name for wrapper, name in fields if not wrapper}
    assert hidden == {"advance_per_table", "final_table_size"}
    assert {"swiss_rounds", "cut_size", "round_time_limit"} <= shown
    # What the browser sends (the hidden fields with their values) saves.
    response = client.post(
        url("stage-edit", slug, stage.pk),
        {
            "name": stage.name,
            "swiss_rounds": "3",
            "cut_size": str(stage.cut_size or ""),
            "advance_per_table": "1",
            "final_table_size": "4",
            "allow_three": "on",
            "bye_policy": stage.bye_policy,
            "seat_order": stage.seat_order,
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    stage.refresh_from_db()
    assert stage.swiss_rounds == 3


def test_a_drafts_bracket_page_has_no_dead_public_link(setup: dict[str, Any]) -> None:
    """A director's walkthrough on ``make demo``: a draft tournament's Bracket page linked
    "Public bracket page", which answers 404 while the tournament is a draft (the public pages
    open with registration). The page says so instead; the link is back once it is public."""
    client, tournament = setup["client"], setup["t"]
    public = f"/live/{tournament.slug}/bracket/"
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.DRAFT)
    html = client.get(url("bracket", tournament.slug)).content.decode()
    assert f'href="{public}"' not in html
    assert "The public bracket page opens with registration (Lifecycle page)" in html
    assert client.get(public).status_code == 404
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.REGISTRATION)
    html = client.get(url("bracket", tournament.slug)).content.decode()
    assert f'href="{public}"' in html
    assert client.get(public).status_code == 200


# -- seeding ----------------------------------------------------------------------------------


def seed_order(stage: Stage) -> list[int]:
    return list(
        StageEntry.objects.filter(stage=stage).order_by("seed").values_list("entry_id", flat=True)
    )


def test_seed_by_rating_and_list(setup: dict[str, Any]) -> None:
    client, slug, stage = setup["client"], setup["t"].slug, setup["stage"]
    response = client.post(url("seed", slug, stage.pk), {"method": "rating"})
    assert follow_messages(client, response) == ["Seeded 10 players by rating."]
    ratings = [
        r or 0.0
        for r in StageEntry.objects.filter(stage=stage)
        .order_by("seed")
        .values_list("entry__player__rating", flat=True)
    ]
    assert ratings == sorted(ratings, reverse=True)
    page = client.get(url("seeding", slug, stage.pk)).content.decode()
    names = re.findall(r'class="player-name">([^<]+)<', page)
    assert names[:3] == ["P0000", "P0001", "P0002"]
    assert "10 players: 1 table of 4, 2 tables of 3 (T1)." in page


def test_seed_randomly_records_the_seed(setup: dict[str, Any]) -> None:
    client, slug, stage = setup["client"], setup["t"].slug, setup["stage"]
    response = client.post(url("seed", slug, stage.pk), {"method": "random", "rng_seed": "4242"})
    assert "(seed 4242)" in follow_messages(client, response)[0]
    first = seed_order(stage)
    client.post(url("seed", slug, stage.pk), {"method": "random", "rng_seed": "4242"})
    assert seed_order(stage) == first  # replayable from the recorded seed
    log = ActionLog.objects.filter(verb="stage.seed").latest("id")
    assert log.data["rng_seed"] == 4242
    assert log.data["order"] == first


def test_reorder_full_order_and_single_move(setup: dict[str, Any]) -> None:
    seeded(setup)
    client, slug, stage = setup["client"], setup["t"].slug, setup["stage"]
    order = seed_order(stage)
    new = [order[2], order[0], order[1], *order[3:]]
    response = client.post(
        url("reorder", slug, stage.pk), {"order": new, "reason": "late rating update"}
    )
    assert follow_messages(client, response) == ["Seed order saved."]
    assert seed_order(stage) == new
    log = ActionLog.objects.filter(verb="stage.reorder").latest("id")
    assert log.reason == "late rating update"
    assert log.data["after"] == new
    # The no-script arrow: the posted order plus one move.
    client.post(url("reorder", slug, stage.pk), {"order": new, "move": f"{new[3]}:up"})
    assert seed_order(stage)[2] == new[3]
    client.post(
        url("reorder", slug, stage.pk), {"order": seed_order(stage), "move": f"{new[0]}:bottom"}
    )
    assert seed_order(stage)[-1] == new[0]


def test_saving_the_seed_order_untouched_changes_and_logs_nothing(setup: dict[str, Any]) -> None:
    """A director's walkthrough on ``make demo``: "Save seed order" pressed again with nothing
    moved said "Seed order saved." and logged "Seed order changed" with the same before and
    after (as a referee set to the one a table has logs nothing). It now says nothing
    changed, and the log has no such entry (T8)."""
    seeded(setup)
    client, slug, stage = setup["client"], setup["t"].slug, setup["stage"]
    order = seed_order(stage)
    response = client.post(url("reorder", slug, stage.pk), {"order": order, "reason": "again"})
    assert follow_messages(client, response) == ["The seed order is unchanged: nothing was saved."]
    assert seed_order(stage) == order
    assert not ActionLog.objects.filter(verb="stage.reorder").exists()


def test_reorder_rejects_an_order_of_other_players(setup: dict[str, Any]) -> None:
    seeded(setup)
    client, slug, stage = setup["client"], setup["t"].slug, setup["stage"]
    before = seed_order(stage)
    response = client.post(url("reorder", slug, stage.pk), {"order": before[:-1]})
    text = follow_messages(client, response)[0]
    assert "T8" in text
    assert seed_order(stage) == before


def test_check_in_toggle_and_reseed_warning(setup: dict[str, Any]) -> None:
    seeded(setup)
    client, slug, stage = setup["client"], setup["t"].slug, setup["stage"]
    from tests.factories import EntryFactory

    late = EntryFactory(tournament=setup["t"], checked_in=False)
    page = client.get(url("seeding", slug, stage.pk)).content.decode()
    assert late.player.name in page
    assert "not in the seeding yet" not in page
    response = client.post(
        url("check-in", slug, late.pk),
        {"checked_in": "1", "next": url("seeding", slug, stage.pk)},
    )
    assert response["Location"] == url("seeding", slug, stage.pk)
    late.refresh_from_db()
    assert late.checked_in
    page = client.get(url("seeding", slug, stage.pk)).content.decode()
    assert "1 checked-in player is not in the seeding yet" in page
    client.post(
        url("check-in", slug, late.pk), {"checked_in": "0", "next": "https://evil.example/"}
    )
    late.refresh_from_db()
    assert not late.checked_in


def test_withdraw_needs_a_reason_and_is_logged(setup: dict[str, Any]) -> None:
    seeded(setup)
    client, slug, stage = setup["client"], setup["t"].slug, setup["stage"]
    entry_id = seed_order(stage)[0]
    response = client.post(url("withdraw", slug, stage.pk, entry_id), {"reason": ""})
    assert "Give a reason" in follow_messages(client, response)[0]
    response = client.post(
        url("withdraw", slug, stage.pk, entry_id), {"reason": "flight home", "disqualify": ""}
    )
    assert "withdrawn (T7)" in follow_messages(client, response)[0]
    assert StageEntry.objects.get(stage=stage, entry_id=entry_id).status == "withdrawn"
    log = ActionLog.objects.get(verb="stage.withdraw")
    assert log.reason == "flight home"
    assert log.actor == setup["director"]


def test_late_entry_joins_the_next_round(setup: dict[str, Any]) -> None:
    published(setup)
    from tests.factories import EntryFactory

    late = EntryFactory(tournament=setup["t"], checked_in=True)
    client, slug, stage = setup["client"], setup["t"].slug, setup["stage"]
    page = client.get(url("seeding", slug, stage.pk)).content.decode()
    assert "Add as late entry" in page
    response = client.post(url("late-entry", slug, stage.pk, late.pk), {"reason": "traffic"})
    assert "from round 2" in follow_messages(client, response)[0]


def test_page_query_counts_do_not_grow_with_players() -> None:
    """Seeding list, preview, round progress and sheets: a fixed number of queries."""
    counts: dict[str, list[int]] = {}
    for n in (8, 40):
        tournament, director, stage = tournament_with_stage(n)
        stage_seed(stage=stage, actor=director, method="rating")
        client = director_client(director)
        pages = {"seeding": url("seeding", tournament.slug, stage.pk)}
        pages["preview"] = url("preview", tournament.slug, stage.pk)
        for name, target in pages.items():
            counts.setdefault(name, []).append(_queries(client, target))
        rnd = round_publish(stage=stage, actor=director)
        client.post(url("sheet-links", tournament.slug, rnd.pk))
        for name in ("round", "sheets", "stages", "bracket"):
            target = (
                url(name, tournament.slug)
                if name in ("stages", "bracket")
                else url(name, tournament.slug, rnd.pk)
            )
            counts.setdefault(name, []).append(_queries(client, target))
    for name, (small, large) in counts.items():
        assert small == large, (name, small, large)


def _queries(client: Client, target: str) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        assert client.get(target).status_code == 200
    return len(ctx.captured_queries)


# -- preview and publish ----------------------------------------------------------------------


def test_preview_stores_nothing_and_shows_tables_referees_warnings(
    setup: dict[str, Any],
) -> None:
    tournament, director, stage = tournament_with_stage(8, clubs=1, referees=2)
    stage_seed(stage=stage, actor=director, method="rating")
    client = director_client(director)
    response = client.get(url("preview", tournament.slug, stage.pk))
    text = response.content.decode()
    assert response.status_code == 200
    assert Round.objects.filter(stage=stage).count() == 0
    assert Match.objects.filter(tournament=tournament).count() == 0
    preview = response.context["preview"]
    assert len(preview.tables) == 2
    assert [s.letter for s in preview.tables[0].seats] == ["A", "B", "C", "D"]
    # Snake order (T8): seeds 1 and 4 share table 1, seeds 2 and 3 table 2.
    assert {s.seed for s in preview.tables[0].seats} == {1, 4, 5, 8}
    assert all(t.referee for t in preview.tables)
    assert "are from the same club, Club 0." in text  # one club: same-club warning (T8)
    assert "Publish round 1" in text
    assert 'id="preview-shared-referees"' not in text  # 2 tables, 2 referees


def test_the_preview_says_when_referees_will_get_two_tables(setup: dict[str, Any]) -> None:
    """10 players make 3 tables for the setup's 2 referees: said before publishing."""
    seeded(setup)
    client, slug, stage = setup["client"], setup["t"].slug, setup["stage"]
    text = client.get(url("preview", slug, stage.pk)).content.decode()
    note = text.split('id="preview-shared-referees">')[1].split("</span>")[0]
    assert "3 tables and 2 referees: some referees get two tables" in note


def test_publish_then_progress_and_dashboard(setup: dict[str, Any]) -> None:
    seeded(setup)
    client, slug, stage = setup["client"], setup["t"].slug, setup["stage"]
    preview = client.get(url("preview", slug, stage.pk)).context["preview"]
    response = client.post(url("publish", slug, stage.pk), {"expected_number": "1"})
    rnd = Round.objects.get(stage=stage, number=1)
    assert response["Location"] == url("round", slug, rnd.pk)
    page = client.get(response["Location"])
    assert "Round 1 of Qualifying is published." in messages_of(page)
    text = page.content.decode()
    assert "0 of 3 tables finished" in text
    # What was previewed is what was stored.
    stored = {
        link.table_number: [s.entry_id for s in link.match.seats.order_by("seat")]
        for link in RoundMatch.objects.filter(round=rnd).select_related("match")
    }
    assert stored == {t.number: [s.entry_id for s in t.seats] for t in preview.tables}
    dashboard = client.get(reverse("scoring:director-dashboard", args=[slug])).content.decode()
    assert "Table 1" in dashboard
    assert "Qualifying · Round 1" in dashboard  # grouped by round (the label's words)
    log = ActionLog.objects.get(verb="round.publish")
    assert log.actor == setup["director"]


def test_publish_of_a_stale_preview_is_refused(setup: dict[str, Any]) -> None:
    published(setup)
    client, slug, stage = setup["client"], setup["t"].slug, setup["stage"]
    response = client.post(url("publish", slug, stage.pk), {"expected_number": "1"})
    assert response["Location"] == url("preview", slug, stage.pk)
    text = follow_messages(client, response)[0]
    assert "in play" in text
    assert Round.objects.filter(stage=stage).count() == 1


def test_preview_of_an_unseeded_stage_says_what_to_do(setup: dict[str, Any]) -> None:
    text = setup["client"].get(url("preview", setup["t"].slug, setup["stage"].pk)).content
    assert b"seed it first (T8)" in text
    assert b"Go to the seeding list" in text


def test_round_one_preview_does_not_claim_to_avoid_same_club_tables_t8() -> None:
    """T8: round 1 is the seeds in snake order; same-club tables are avoided from round 2 on.
    The round 1 preview warned of same-club tables and said "the seating avoids these where
    it can", which it does not do there."""
    tournament, director, stage = tournament_with_stage(8, clubs=1, swiss_rounds=2)
    stage_seed(stage=stage, actor=director, method="rating")
    html = director_client(director).get(url("preview", tournament.slug, stage.pk))
    text = html.content.decode()
    assert 'id="warnings"' in text  # everyone is from one club
    assert "snake order (T8)" in text
    assert "avoids these where it can" not in text


def test_preview_of_a_later_stage_says_it_is_seeded_by_the_stage_before(
    setup: dict[str, Any],
) -> None:
    """A later stage is seeded by the advancement of the one before it (T6): its preview said
    "seed it first (T8)" and linked the seeding list, which says the opposite."""
    from brackets.services import stage_create

    later = stage_create(
        tournament=setup["t"],
        actor=setup["director"],
        name="Knockout",
        kind="knockout",
        auto_advance=True,
    )
    text = setup["client"].get(url("preview", setup["t"].slug, later.pk)).content.decode()
    assert "Knockout has no entrants yet: it is seeded when the stage before it ends (T6)." in text
    assert "seed it first" not in text
    assert "Go to the seeding list" not in text


def test_seeding_error_names_the_rule_when_the_field_is_too_small() -> None:
    tournament, director, stage = tournament_with_stage(2)
    client = director_client(director)
    response = client.post(url("seed", tournament.slug, stage.pk), {"method": "rating"})
    (text,) = follow_messages(client, response)
    assert "T1" in text, text
    assert not StageEntry.objects.filter(stage=stage).exists()


# -- round progress ---------------------------------------------------------------------------


def test_call_time_needs_confirmation_then_ends_matches() -> None:
    tournament, director, stage = tournament_with_stage(8, time_limit=30)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    client = director_client(director)
    slug = tournament.slug
    page = client.get(url("round", slug, rnd.pk)).content.decode()
    assert "Call time" in page
    # One confirmation: the tick the server requires, no confirm() dialog on top of it
    # (tests/browser/test_call_time_once.py).
    form = page.split('id="call-time"', 1)[1].split("</form>", 1)[0]
    assert 'id="call-confirm"' in form
    assert "data-confirm" not in form
    response = client.post(url("clock", slug, rnd.pk), {"minutes": "30"})
    assert "Clock started: 30 minutes." in follow_messages(client, response)
    response = client.post(url("call-time", slug, rnd.pk), {"reason": "late"})
    assert "Tick the confirmation" in follow_messages(client, response)[0]
    assert not Match.objects.filter(end_reason="time").exists()
    response = client.post(url("call-time", slug, rnd.pk), {"reason": "late", "confirm": "on"})
    assert "2 matches ended" in follow_messages(client, response)[0]
    assert Match.objects.filter(tournament=tournament, end_reason="time").count() == 2
    log = ActionLog.objects.get(verb="round.call_time")
    assert log.reason == "late"
    assert log.actor == director


def test_a_table_kept_for_sudden_death_is_marked_on_the_round_page() -> None:
    """T3: after time is called, the table kept for a sudden-death hand says so, and the
    clock card tells the director how its match ends."""
    tournament, director, stage = tournament_with_stage(8, time_limit=30)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    client = director_client(director)
    slug = tournament.slug
    first, second = RoundMatch.objects.filter(round=rnd).order_by("table_number")
    response = client.post(
        url("call-time", slug, rnd.pk),
        {"reason": "hour up", "confirm": "on", "sudden_death": [str(second.match_id)]},
    )
    assert "1 match ended" in follow_messages(client, response)[0]
    page = client.get(url("round", slug, rnd.pk)).content.decode()
    row = page.split(f'id="match-{second.match_id}"')[1].split("</tr>")[0]
    assert "Sudden death (T3)" in row
    ended = page.split(f'id="match-{first.match_id}"')[1].split("</tr>")[0]
    assert "Sudden death (T3)" not in ended
    note = page.split('id="sudden-death-note"')[1].split("</p>")[0]
    assert f"table {second.table_number}." in note
    # The table ends itself when a hand is won there (T3), its winner first.
    assert "Each ends by itself when a hand is won there" in note
    assert "that hand's winner is placed first" in note


def test_seeding_page_of_a_started_stage_does_not_plan_round_1() -> None:
    """Before round 1 the page says how round 1 would seat the field; once the stage has
    started that line ("Round 1 would seat ...") described a round long played."""
    tournament, director, stage = tournament_with_stage(8)
    stage_seed(stage=stage, actor=director, method="rating")
    client = director_client(director)
    page = client.get(url("seeding", tournament.slug, stage.pk)).content.decode()
    assert 'id="table-plan"' in page
    round_publish(stage=stage, actor=director)
    page = client.get(url("seeding", tournament.slug, stage.pk)).content.decode()
    assert 'id="table-plan"' not in page
    assert "The stage has started" in page
    # Each player's state reads as a label, "Active" like "Withdrawn", not a lowercase word.
    states = re.findall(r"<td>(?:<span class=\"tag\">)?([A-Za-z][^<]*)", page)
    assert "Active" in states
    assert "active" not in states


def test_the_referee_page_of_a_sudden_death_table_says_so() -> None:
    """T3: the referee of a table kept for a sudden-death hand is told so on the match page
    (it used to look like any match in play); an ended table's page does not say it."""
    tournament, director, stage = tournament_with_stage(8, time_limit=30)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    client = director_client(director)
    ended, kept = RoundMatch.objects.filter(round=rnd).order_by("table_number")
    match_page = "/matches/{}/"
    assert 'id="sudden-death"' not in client.get(match_page.format(kept.match_id)).content.decode()
    round_call_time(round=rnd, actor=director, sudden_death=[kept.match_id])
    page = client.get(match_page.format(kept.match_id)).content.decode()
    assert 'id="sudden-death"' in page
    assert "this table plays one sudden-death hand (T3)" in page
    assert "the first hand won ends the match" in page
    assert 'id="sudden-death"' not in client.get(match_page.format(ended.match_id)).content.decode()
    # The director's dashboard and the spectators' table cards say it too.
    from django.test import Client as Anonymous

    from live.scope import RECENT

    dashboard = client.get(reverse("scoring:director-dashboard", args=[tournament.slug]))
    rows = dashboard.content.decode()

    def row(html: str, match_id: int) -> str:
        return html.split(f'data-match="{match_id}"')[1].split("</tr>")[0]

    assert "Sudden death (T3)" in row(rows, kept.match_id)
    assert "Sudden death (T3)" not in row(rows, ended.match_id)
    RECENT.clear()
    tables = Anonymous().get(f"/live/{tournament.slug}/tables/").content.decode()
    card = tables.split(f'data-match="{kept.match_id}"')[1].split("</article>")[0]
    assert "data-sudden-death" in card
    assert "the first hand won ends the match" in card
    other = tables.split(f'data-match="{ended.match_id}"')[1].split("</article>")[0]
    assert "data-sudden-death" not in other
    round_call_time(round=rnd, actor=director)
    assert 'id="sudden-death"' not in client.get(match_page.format(kept.match_id)).content.decode()


def test_close_and_advance_buttons_follow_the_service() -> None:
    tournament, director, stage = tournament_with_stage(8, auto_advance=False)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    play_round(rnd, director, seed=1)
    rnd.refresh_from_db()
    client = director_client(director)
    slug = tournament.slug
    page = client.get(url("round", slug, rnd.pk)).content.decode()
    assert "2 of 2 tables finished" in page
    if rnd.status == Round.Status.PUBLISHED:
        assert 'id="close-round"' in page
        response = client.post(url("close", slug, rnd.pk))
        assert "Round 1 closed." in follow_messages(client, response)
    page = client.get(url("round", slug, rnd.pk)).content.decode()
    # Manual mode (auto-advance off): no direct "advance" into round 2, only its preview.
    assert 'id="advance-round"' not in page
    assert url("preview", slug, stage.pk) in page
    response = client.post(url("advance", slug, rnd.pk))
    assert response["Location"] == url("preview", slug, stage.pk)
    assert not Round.objects.filter(stage=stage, number=2).exists()
    preview = client.get(url("preview", slug, stage.pk)).content.decode()
    assert 'id="preview-tables"' in preview
    assert 'id="publish"' in preview
    response = client.post(url("publish", slug, stage.pk), {"expected_number": 2})
    nxt = Round.objects.get(stage=stage, number=2)
    assert response["Location"] == url("round", slug, nxt.pk)


def test_advance_with_auto_advance_on_publishes_directly() -> None:
    tournament, director, stage = tournament_with_stage(8, auto_advance=True)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    play_round(rnd, director, seed=1)
    client = director_client(director)
    nxt = Round.objects.filter(stage=stage, number=2).first()
    if nxt is None:  # the task has not run (not eager): the director's advance publishes
        response = client.post(url("advance", tournament.slug, rnd.pk))
        nxt = Round.objects.get(stage=stage, number=2)
        assert response["Location"] == url("round", tournament.slug, nxt.pk)
    assert nxt.status == Round.Status.PUBLISHED


def test_change_referee_of_a_table(setup: dict[str, Any]) -> None:
    rnd = published(setup)
    client, slug = setup["client"], setup["t"].slug
    link = RoundMatch.objects.filter(round=rnd).select_related("match").first()
    assert link is not None
    from tournament.models import TournamentRole

    others = TournamentRole.objects.filter(tournament=setup["t"], role="referee").exclude(
        user_id=link.match.referee_id
    )
    new = others.first()
    assert new is not None
    response = client.post(
        url("referee", slug, rnd.pk), {"match_id": link.match_id, "referee": new.user_id}
    )
    assert "Referee changed." in follow_messages(client, response)
    link.match.refresh_from_db()
    assert link.match.referee_id == new.user_id
    assert ActionLog.objects.filter(verb="match.assign_referee").exists()


def test_a_referee_of_two_tables_still_to_play_is_flagged_until_one_is_reassigned(
    setup: dict[str, Any],
) -> None:
    """Walkthrough: a late entry made 9 tables for 8 referees and one referee was dealt
    tables 1 and 9 with no word anywhere. Here: 3 tables, 2 referees (tables 1 and 3 share)."""
    rnd = published(setup)
    client, slug = setup["client"], setup["t"].slug
    links = {
        rm.table_number: rm.match
        for rm in RoundMatch.objects.filter(round=rnd).select_related("match__referee")
    }
    assert len(links) == 3
    assert links[1].referee_id == links[3].referee_id != links[2].referee_id
    page = client.get(url("round", slug, rnd.pk)).content.decode()
    warning = page.split('id="shared-referees"')[1].split("</section>")[0]
    name = user_label(links[1].referee)
    assert f"{name} referees tables 1 and 3." in warning
    assert user_label(links[2].referee) not in warning
    assert f'href="/director/tournaments/{slug}/referees/"' in warning

    # A third referee takes table 3: nobody has two tables any more.
    third = referee_of(setup["t"], username="third-ref")
    response = client.post(
        url("referee", slug, rnd.pk), {"match_id": links[3].pk, "referee": third.pk}
    )
    assert "Referee changed." in follow_messages(client, response)
    assert 'id="shared-referees"' not in client.get(url("round", slug, rnd.pk)).content.decode()

    # Only tables still to play count: with table 3 back on the first referee and table 1
    # finished, that referee has one table to record.
    Match.objects.filter(pk=links[3].pk).update(referee=links[1].referee)
    assert 'id="shared-referees"' in client.get(url("round", slug, rnd.pk)).content.decode()
    play_match(links[1], setup["director"], seed=3)
    assert 'id="shared-referees"' not in client.get(url("round", slug, rnd.pk)).content.decode()


def test_a_referee_id_of_no_account_changes_nothing(setup: dict[str, Any]) -> None:
    """An id that matches no account is a bad input, not "remove the referee"."""
    rnd = published(setup)
    client, slug = setup["client"], setup["t"].slug
    link = RoundMatch.objects.filter(round=rnd).select_related("match").first()
    assert link is not None
    before = link.match.referee_id
    assert before is not None
    response = client.post(
        url("referee", slug, rnd.pk), {"match_id": link.match_id, "referee": 987654321}
    )
    assert "No referee of this tournament has that id." in follow_messages(client, response)
    link.match.refresh_from_db()
    assert link.match.referee_id == before
    assert not ActionLog.objects.filter(verb="match.assign_referee").exists()


# -- table sheets -----------------------------------------------------------------------------


def test_sheets_carry_table_qr_codes_and_issued_links_only_on_screen(
    setup: dict[str, Any],
) -> None:
    """Issue 15: every printed sheet carries its TABLE's QR (a stable, non-secret address),
    never a credential; links issued from the page are listed once, outside the sheets."""
    rnd = published(setup)
    client, slug = setup["client"], setup["t"].slug
    page = client.get(url("sheets", slug, rnd.pk))
    assert "no-store" in page["Cache-Control"] or "max-age=0" in page["Cache-Control"]
    text = page.content.decode()
    assert "2 referees of this round have no link on these sheets" in text
    assert text.count('class="sheet"') == 3
    assert text.count('<svg class="qr"') == 3  # one table QR per sheet, before any link
    for n in (1, 2, 3):
        sheet = text.split(f'data-table="{n}"')[1].split("</article>")[0]
        assert f"/t/{slug}/table/{n}/" in sheet
    assert "/ref/#" not in text
    response = client.post(url("sheet-links", slug, rnd.pk), follow=True)
    assert response.redirect_chain == [(url("sheets", slug, rnd.pk), 302)]
    assert "no-store" in response["Cache-Control"]
    text = response.content.decode()
    assert "Issued 2 referee links: hand each to its referee now" in text
    assert "print now" not in text  # the links are handed over, never printed
    assert RefereeToken.objects.filter(role__tournament=setup["t"]).count() == 2
    assert text.count('<svg class="qr"') == 3  # still the tables' codes only
    sheets = "".join(
        part.split("</article>")[0] for part in text.split('<article class="sheet"')[1:]
    )
    on_screen = text.split('id="issued-links"')[1].split("</section>")[0]
    for token in RefereeToken.objects.filter(role__tournament=setup["t"]):
        assert f"/ref/#{token.prefix}." in on_screen
        assert token.prefix not in sheets  # never on a printed sheet
    assert "have no link on these sheets" not in text
    # Printing again issues fresh links (the earlier ones keep working until revoked).
    client.post(url("sheet-links", slug, rnd.pk))
    assert RefereeToken.objects.filter(role__tournament=setup["t"], revoked_at=None).count() == 4
    # Seats in play order with the seat letters.
    first = RoundMatch.objects.filter(round=rnd, table_number=1).select_related("match").get()
    names = [s.entry.player.name for s in first.match.seats.order_by("seat")]
    sheet = text.split('data-table="1"')[1].split("</article>")[0]
    assert re.findall(r'class="seat-name">([^<]+)<', sheet) == names


@pytest.mark.parametrize(
    ("stage_name", "heading", "title"),
    [
        # The demo's stage: its name starts the round's title, said once (walkthrough:
        # "Table sheets: Qualifying, Qualifying round 1").
        ("Qualifying", "Table sheets: Qualifying round 1", "Qualifying round 1"),
        ("qualifying", "Table sheets: Qualifying round 1", "Qualifying round 1"),
        ("Day 1", "Table sheets: Day 1, Qualifying round 1", "Day 1, Qualifying round 1"),
    ],
)
def test_sheets_and_round_page_name_the_stage_once(
    setup: dict[str, Any], stage_name: str, heading: str, title: str
) -> None:
    Stage.objects.filter(pk=setup["stage"].pk).update(name=stage_name)
    setup["stage"].refresh_from_db()
    rnd = published(setup)
    client, slug = setup["client"], setup["t"].slug
    sheets = client.get(url("sheets", slug, rnd.pk)).content.decode()
    assert re.search(r"<h1>\s*" + re.escape(heading) + r"\s*</h1>", sheets), sheets[:3000]
    page = client.get(url("round", slug, rnd.pk)).content.decode()
    assert f"<title>{title} · {setup['t'].name}</title>" in page, page[:600]


def test_sheets_of_a_finished_tournament_offer_no_links_and_refuse_once_in_words(
    setup: dict[str, Any],
) -> None:
    """Walkthrough: after the event the sheets still offered "Issue referee links"; pressing it
    showed the raw gate message ("manage_referees is only possible while it is draft,
    registration, running [rule lifecycle]") once per referee."""
    rnd = published(setup)
    client, slug = setup["client"], setup["t"].slug
    type(setup["t"]).objects.filter(pk=setup["t"].pk).update(status="finished")
    text = client.get(url("sheets", slug, rnd.pk)).content.decode()
    assert text.count('<svg class="qr"') == 3  # the sheets themselves still print
    assert 'id="issue-links"' not in text
    assert "have no link on these sheets" not in text
    response = client.post(url("sheet-links", slug, rnd.pk), follow=True)  # a stale tab
    assert response.redirect_chain == [(url("sheets", slug, rnd.pk), 302)]
    assert messages_of(response) == [
        f"{setup['t'].name} is finished: managing referees and issuing their links is no "
        "longer possible. To correct it, reopen the tournament first (Lifecycle page; the "
        "reason is logged)."
    ]
    assert RefereeToken.objects.filter(role__tournament=setup["t"]).count() == 0


# -- bracket and action log -------------------------------------------------------------------


def play_to_the_end(tournament: Any, director: Any, *, rounds: int = 6) -> None:
    """Play every published round in order and advance it, until none is left."""
    for _ in range(rounds):
        rnd = (
            Round.objects.filter(stage__tournament=tournament, status="published")
            .order_by("stage__number", "number")
            .first()
        )
        if rnd is None:
            return
        play_round(rnd, director, seed=rnd.pk)
        # The task that advances after the last match runs on commit; this test's
        # transaction never commits, so advance as the director would.
        round_advance(round_id=rnd.pk, actor=director)


def test_bracket_to_the_final_table_and_placings() -> None:
    tournament, director, stage = tournament_with_stage(8, swiss_rounds=1, cut_size=4)
    from brackets.services import stage_create

    stage_create(
        tournament=tournament,
        actor=director,
        name="Final",
        kind="knockout",
        final_table_size=4,
        auto_advance=True,
    )
    stage_seed(stage=stage, actor=director, method="rating")
    round_publish(stage=stage, actor=director)
    play_to_the_end(tournament, director)
    client = director_client(director)
    response = client.get(url("bracket", tournament.slug))
    bracket = response.context["bracket"]
    assert [s.name for s in bracket.stages] == ["Qualifying", "Final"]
    assert len(bracket.stages[0].advanced) == 4
    assert bracket.final is not None
    assert len(bracket.final.tables[0].seats) == 4
    places = [p for p, _ in bracket.placings]
    assert len(places) == 8
    assert places == sorted(places)
    # Competition ranks (T3, T6): players still level after T5 share a place and skip the
    # places it covers (1, 2, 2, 2, 5, ...); the results come from seeded simulations.
    assert all(p == 1 + sum(1 for q in places if q < p) for p in places)
    assert places[0] == 1
    text = response.content.decode()
    assert 'id="final-table"' in text
    assert 'id="placings"' in text


def test_the_bracket_marks_a_winner_only_for_a_first_place_alone_t3() -> None:
    """Time called before any hand: every player of a table shares first place, which is no
    match win (T3). The director's bracket drew all four as winners; it marks none, and a
    table won outright marks its winner only."""
    tournament, director, stage = tournament_with_stage(8, swiss_rounds=2, cut_size=4)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    won, level = RoundMatch.objects.filter(round=rnd).order_by("table_number")
    play_match(Match.objects.get(pk=won.match_id), director, seed=3)
    round_call_time(round=rnd, actor=director, reason="clock")
    client = director_client(director)
    bracket = client.get(url("bracket", tournament.slug)).context["bracket"]
    tables = {t.match_id: t for t in bracket.stages[0].rounds[0].tables}
    assert [s.placing for s in tables[level.match_id].seats] == [1, 1, 1, 1]
    assert not any(s.won for s in tables[level.match_id].seats)
    assert sum(s.won for s in tables[won.match_id].seats) == 1
    text = client.get(url("bracket", tournament.slug)).content.decode()
    assert text.count('class=" winner"') + text.count('class="goes-on winner"') == 1


def test_action_log_page_lists_who_when_what_why(setup: dict[str, Any]) -> None:
    seeded(setup)
    client, slug, stage = setup["client"], setup["t"].slug, setup["stage"]
    order = seed_order(stage)
    client.post(url("reorder", slug, stage.pk), {"order": order[::-1], "reason": "director call"})
    response = client.get(url("log", slug))
    text = response.content.decode()
    assert "Seed order changed" in text
    assert "director call" in text
    assert setup["director"].username in text
    assert "stage 1, Qualifying" in text  # the target by name, not by id
    filtered = client.get(url("log", slug), {"verb": "stage.reorder"})
    assert [r.log.verb for r in filtered.context["rows"]] == ["stage.reorder"]


def test_a_stage_filled_by_advancement_never_asks_to_seed_again(setup: dict[str, Any]) -> None:
    """QA: stage 2 (seeded from the standings of stage 1, T6) said "10 checked-in players are
    not in the seeding yet: seed again to include them", an action its page does not offer
    and the service refuses. The hint is for a stage seeded from the entries only."""
    from brackets.services import stage_create

    seeded(setup)
    client, slug = setup["client"], setup["t"].slug
    knockout = stage_create(
        tournament=setup["t"],
        actor=setup["director"],
        name="Knockout",
        kind="knockout",
        final_table_size=4,
        auto_advance=True,
    )
    assert knockout.number == 2
    assert knockout.seeding == Stage.Seeding.STANDINGS
    page = client.get(url("seeding", slug, knockout.pk)).content.decode()
    assert "not in the seeding yet" not in page
    assert 'id="seed-again"' not in page
    assert "advancement when that stage ends (T6)." in page  # what the page says instead
    # Stage 1 still says it when a checked-in player is missing from its seeding.
    from tests.factories import EntryFactory

    EntryFactory(tournament=setup["t"], checked_in=True)
    page = client.get(url("seeding", slug, setup["stage"].pk)).content.decode()
    assert "1 checked-in player is not in the seeding yet: seed again to include them." in page


def test_a_no_show_replaced_at_their_first_table_is_not_ranked_placed_or_counted() -> None:
    """Walkthrough: the no-show replaced before round 1 (T7, T1) stayed in the standings with
    no match, was placed last (9th of 8 who played) and counted as a ninth entrant. A player
    who never took part has no row, no place and is not an entrant; the replacement has all
    three."""
    from brackets.presenters.bracket import build_bracket
    from brackets.selectors import tournament_placings
    from brackets.services import round_seat_replace, stage_create
    from live.selectors import bracket as live_bracket
    from live.selectors import standings as live_standings

    tournament, director, stage = tournament_with_stage(9, swiss_rounds=1, cut_size=4)
    spare = Entry.objects.filter(tournament=tournament).order_by("-id").first()
    assert spare is not None
    Entry.objects.filter(pk=spare.pk).update(checked_in=False)
    stage_create(
        tournament=tournament,
        actor=director,
        name="Final",
        kind="knockout",
        final_table_size=4,
        auto_advance=True,
    )
    stage_seed(stage=stage, actor=director, method="rating")
    first = round_publish(stage=stage, actor=director)
    no_show = first_seat(first).entry_id
    round_seat_replace(
        round=first, actor=director, out_entry_id=no_show, in_entry_id=spare.pk, reason="absent"
    )
    play_to_the_end(tournament, director)

    placed = {p.entry_id: p.place for p in tournament_placings(tournament_id=tournament.pk)}
    assert len(placed) == 8
    assert no_show not in placed
    assert spare.pk in placed
    assert sorted(placed.values())[-1] <= 8
    bracket = build_bracket(tournament)
    assert bracket.stages[0].entrants == 8
    assert live_bracket(tournament=tournament)["stages"][0]["entrants"] == 8
    standings = live_standings(tournament=tournament)
    qualifying = standings["stages"][-1]  # latest stage first
    assert no_show not in {row["entry_id"] for row in qualifying["rows"]}
    assert len(qualifying["rows"]) == 8
    page = director_client(director).get(url("bracket", tournament.slug)).content.decode()
    name = Entry.objects.get(pk=no_show).player.name
    assert name not in page.split('id="placings"')[1]


def first_seat(rnd: Round) -> Any:
    """The first seat of the round's first table."""
    from scoring.models import Seat

    return (
        Seat.objects.filter(match__round_link__round=rnd)
        .order_by("match__round_link__table_number", "seat")
        .first()
    )


def test_the_stages_page_lists_only_the_settings_that_act_on_each_stage() -> None:
    """Walkthrough: a final table alone (the cut of 4 to a final of 4) was summarised with
    "top 1 per table", "tables of 4 only" and a bye policy: none acts on one table of four.
    A knockout never uses byes (T1); a qualifying stage keeps every setting."""
    from brackets.services import stage_create

    tournament, director, stage = tournament_with_stage(8, swiss_rounds=1, cut_size=4)
    final = stage_create(
        tournament=tournament,
        actor=director,
        name="Final",
        kind="knockout",
        final_table_size=4,
        auto_advance=True,
    )
    page = director_client(director).get(url("stages", tournament.slug)).content.decode()

    def settings_of(stage_id: int) -> str:
        block = page.split(f'id="stage-{stage_id}"')[1]
        return re.sub(r"\s+", " ", block.split('class="settings">')[1].split("</p>")[0])

    bye = str(Stage.ByePolicy(stage.bye_policy).label)
    bye = bye[:1].lower() + bye[1:]  # mid-sentence in the summary line (choice_phrase)
    qualifying, last = settings_of(stage.pk), settings_of(final.pk)
    assert bye in qualifying
    assert "tables of 4 only" in qualifying or "3-player tables allowed" in qualifying
    assert "final table of 4" in last
    for irrelevant in (bye, "per table", "tables of 4 only", "3-player tables allowed"):
        assert irrelevant not in last, irrelevant
