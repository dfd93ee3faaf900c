"""A tester's new 8-player event through the director pages: one Swiss round, a cut of 3, a
final table of 3 (T6), with a play-off for the last spot that time leaves level (T3) and a
further play-off table. What the pages said, and what they say now:

1. a "Final table only" stage after the cut of 3 was refused with the default of 4 seats and
   sent the director to a knockout: the seats now follow the cut, and the refusal names the
   seats first;
2. after the last play-off the round page said "Qualifying is complete ... End the stage" and
   the stages page "Play-off table (T6) 3 closed: preview what follows." with no End button:
   both pages now say the planned step and offer its action; a play-off table is no round of
   the stage's plan ("Publish round 2" in a stage of "1 round");
3. the director's match page after the last hand led only to "My matches": it leads back to
   the round page;
4. wording: a final table alone, one table's size, the seed of the seat draws, and who a
   "Player added" entry added.
"""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from brackets import services
from brackets.csv_import import PlayerRow
from brackets.models import Round, Stage
from brackets.services.registration import TypedPlayer, player_add
from scoring.services import match_result_override
from tests.brackets.conftest import make_tournament, open_matches
from tests.brackets.factories_pages import director_client
from tests.brackets.test_brackets_services import finish_round, qualifying
from tournament.services import referee_token_issue

pytestmark = pytest.mark.django_db

FINAL_FORM = {
    "name": "Final",
    "kind": "final",
    "advance_per_table": "1",
    "allow_three": "on",
    "bye_policy": "win",
    "seat_order": "balanced",
}


def url(name: str, *args: Any) -> str:
    return reverse(f"brackets:{name}", args=args)


def words(response: Any) -> str:
    """The page's text as a director reads it: no tags, no scripts, spaces collapsed."""
    text = re.sub(r"<script.*?</script>", " ", response.content.decode(), flags=re.S)
    text = re.sub(r"<[^>]+>", " ", text)
    return re.sub(r"\s+", " ", html.unescape(text)).strip()


def section(page: Any, stage: Stage) -> str:
    """The stages page's card of ``stage`` (its settings, next step and buttons)."""
    raw: str = page.content.decode()
    start = raw.index(f'id="stage-{stage.pk}"')
    return raw[start : raw.index("</section>", start)]


def next_on_round_page(client: Client, rnd: Round) -> str:
    """The round page's "Next: ..." sentence, button words included."""
    text = words(client.get(url("round", rnd.stage.tournament.slug, rnd.pk)))
    return text[text.index("Next:") :]


def event(*, referees: int = 0) -> tuple[Any, Any, Stage, Stage]:
    """8 players, 1 Swiss round, a cut of 3, then the final table of 3 alone (T6)."""
    t, d = make_tournament(8, referees=referees)
    q = qualifying(t, d, swiss_rounds=1, cut_size=3, auto_advance=False)
    final = services.stage_create(
        tournament=t, actor=d, name="Final", kind="knockout", final_table_size=3
    )
    services.stage_seed(stage=q, actor=d)
    return t, d, q, final


def to_the_first_playoff(t: Any, d: Any, q: Stage) -> Round:
    """Round 1 played (two table winners through) and closed; the play-off for the third
    spot (the two second places, level on every T5 key) published from the preview page."""
    r1 = services.round_publish(stage=q, actor=d)
    finish_round(r1, d)
    services.round_close(round=r1, actor=d)
    client = director_client(d)
    response = client.post(url("publish", t.slug, q.pk), {"expected_number": 2})
    assert response.status_code == 302
    return Round.objects.get(stage=q, number=2, kind=Round.Kind.PLAYOFF)


def qualifying_played(t: Any, d: Any, q: Stage) -> None:
    """Round 1 and its play-off played; qualifying ends and sends its 3 players on (T6)."""
    first = to_the_first_playoff(t, d, q)
    (match,) = open_matches(first)
    match_result_override(match_id=match.pk, actor=d, scores=[6, 0], placings=[1, 2], reason="x")
    assert services.round_advance(round_id=first.pk, actor=d).outcome == "stage_finished"


# -- 1. a final table alone after a cut of 3 -------------------------------------------------------


def test_the_final_table_seats_follow_a_cut_of_3_and_the_refusal_names_them_t6() -> None:
    t, d = make_tournament(8)
    qualifying(t, d, swiss_rounds=1, cut_size=3, auto_advance=False)
    client = director_client(d)
    page = client.get(url("stages", t.slug))
    select = re.search(r'<select name="final_table_size".*?</select>', page.content.decode(), re.S)
    assert select is not None
    assert '<option value="3" selected>' in select.group(0)

    refused = client.post(url("stages", t.slug), {**FINAL_FORM, "final_table_size": "4"})
    assert refused.status_code == 400
    assert (
        "Set Final table seats to 3, or choose a knockout stage: the cut of Qualifying lets 3 "
        "through, the final seats 4 (T6)." in words(refused)
    )
    assert "Choose a knockout stage instead" not in words(refused)
    created = client.post(url("stages", t.slug), {**FINAL_FORM, "final_table_size": "3"})
    assert created.status_code == 302
    assert Stage.objects.get(tournament=t, number=2).final_table_size == 3


def test_a_cut_of_4_keeps_4_seats_and_a_bigger_cut_still_asks_for_a_knockout_t6() -> None:
    t, d = make_tournament(8)
    q = qualifying(t, d, swiss_rounds=1, cut_size=4, auto_advance=False)
    client = director_client(d)
    select = re.search(
        r'<select name="final_table_size".*?</select>',
        client.get(url("stages", t.slug)).content.decode(),
        re.S,
    )
    assert select is not None
    assert '<option value="4" selected>' in select.group(0)
    refused = client.post(url("stages", t.slug), {**FINAL_FORM, "final_table_size": "3"})
    assert "Set Final table seats to 4, or choose a knockout stage" in words(refused)
    # No seats fit a cut of 8: the knockout stays the fix.
    q.cut_size = 8
    q.save()
    refused = client.post(url("stages", t.slug), {**FINAL_FORM, "final_table_size": "4"})
    assert "Choose a knockout stage instead." in words(refused)
    assert "Set Final table seats" not in words(refused)


def test_after_a_finished_qualifying_that_sent_3_on_the_seats_follow_it_t6() -> None:
    """The stage is added after qualifying ended (it is seeded at once, T6): its field is
    the 3 players qualifying sent on."""
    t, d = make_tournament(8)
    q = qualifying(t, d, swiss_rounds=1, cut_size=3, auto_advance=False)
    services.stage_seed(stage=q, actor=d)
    qualifying_played(t, d, q)
    client = director_client(d)
    page = client.get(url("stages", t.slug))
    assert '<option value="3" selected>' in page.content.decode()
    refused = client.post(url("stages", t.slug), {**FINAL_FORM, "final_table_size": "4"})
    assert (
        "Set Final table seats to 3, or choose a knockout stage: Qualifying sent 3 players on, "
        "the final seats 4 (T6)." in words(refused)
    )


def test_the_service_names_the_seats_for_a_knockout_after_a_cut_of_3_t6() -> None:
    """The API path (kind knockout, 4 seats after a cut of 3) names the setting that fixes it,
    on that field, rather than "3 players cannot fill a final table of 4"."""
    from core.exceptions import ApplicationError

    t, d = make_tournament(8)
    qualifying(t, d, swiss_rounds=1, cut_size=3, auto_advance=False)
    with pytest.raises(ApplicationError) as exc:
        services.stage_create(
            tournament=t, actor=d, name="Final", kind="knockout", final_table_size=4
        )
    assert exc.value.fields == {
        "final_table_size": [
            "Set the final table seats to 3: the cut of Qualifying lets 3 through, fewer than "
            "the final's 4 seats (T6)."
        ]
    }


# -- 2. the stages page and the round page agree --------------------------------------------------


def test_after_the_last_playoff_both_pages_say_the_stage_is_complete_and_end_it_t6() -> None:
    t, d, q, final = event()
    client = director_client(d)
    first = to_the_first_playoff(t, d, q)
    # Time before the play-off's first hand: both share first (T3), a further table follows.
    services.round_clock_start(round=first, actor=d, minutes=30)
    services.round_call_time(round=first, actor=d, reason="clock ran out")
    services.round_close(round=first, actor=d)
    on_round = next_on_round_page(client, first)
    assert on_round.startswith("Next: Further play-off (T3, T6): the play-off left 2 players")
    card = words_of(section(client.get(url("stages", t.slug)), q))
    assert (
        "Next: Play-off table (T6) closed. Further play-off (T3, T6): the play-off left 2 "
        "players level on the advancement line; they play again for 1 place." in card
    )
    assert "Play-off table (T6) 2" not in card

    response = client.post(url("publish", t.slug, q.pk), {"expected_number": 3})
    assert response.status_code == 302
    again = Round.objects.get(stage=q, number=3)
    (match,) = open_matches(again)
    match_result_override(match_id=match.pk, actor=d, scores=[6, 0], placings=[1, 2], reason="x")
    services.round_close(round=again, actor=d)

    complete = "Qualifying is complete: 3 players go on, 5 are out (T6)."
    assert next_on_round_page(client, again).startswith(f"Next: {complete} End the stage (T6)")
    page = client.get(url("stages", t.slug))
    raw = section(page, q)
    assert f"Next: Play-off table (T6) closed. {complete}" in words_of(raw)
    # The same action as the round page: the stage ends here, no "preview what follows".
    button = f'action="{url("stage-advance", t.slug, q.pk)}"'
    assert button in raw
    assert "End the stage (T6)" in raw
    assert "Preview next round" not in raw
    assert "preview what follows" not in words(page)
    ended = client.post(url("stage-advance", t.slug, q.pk))
    assert ended.status_code == 302
    assert Stage.objects.get(pk=q.pk).status == Stage.Status.FINISHED
    assert Stage.objects.get(pk=final.pk).entrants.count() == 3


def words_of(fragment: str) -> str:
    text = re.sub(r"<[^>]+>", " ", fragment)
    return re.sub(r"\s+", " ", html.unescape(text)).strip()


def test_a_playoff_table_is_published_and_named_as_a_table_not_a_round_t6() -> None:
    """A stage of "1 round" offered "Publish round 2" for its play-off table."""
    t, d, q, _final = event()
    client = director_client(d)
    r1 = services.round_publish(stage=q, actor=d)
    finish_round(r1, d)
    services.round_close(round=r1, actor=d)
    preview = words(client.get(url("preview", t.slug, q.pk)))
    assert "Publish the play-off table" in preview
    assert "Publish round 2" not in preview
    # One table: its size, not "1 of them has 2 players" (item 4b).
    assert "2 players at 1 table of 2." in preview
    response = client.post(url("publish", t.slug, q.pk), {"expected_number": 2})
    shown = [str(m) for m in client.get(response["Location"]).context["messages"]]
    assert shown == ["The play-off table of Qualifying is published."]
    waiting = words(client.get(url("preview", t.slug, q.pk)))
    assert "The play-off table is in play: it closes when its last match ends." in waiting
    assert "Play-off table progress" in waiting
    assert "Round 2" not in waiting
    card = words_of(section(client.get(url("stages", t.slug)), q))
    assert "Next: Play-off table (T6) in play: 0 of 1 done." in card


def test_the_final_table_alone_is_published_as_the_final_table_t6() -> None:
    t, d, q, final = event()
    qualifying_played(t, d, q)
    client = director_client(d)
    card = words_of(section(client.get(url("stages", t.slug)), final))
    assert "Next: Seeded: preview and publish the final table." in card
    preview = words(client.get(url("preview", t.slug, final.pk)))
    assert "Publish the final table" in preview
    assert "3 players at 1 table of 3." in preview
    assert "of them has 3 players" not in preview


# -- 3. the director's match page leads back to its round ------------------------------------------


def _open_link(client: Client, key: str) -> None:
    assert client.get("/ref/").status_code == 200
    assert client.post("/ref/", {"key": key}, REMOTE_ADDR="10.9.8.7").status_code == 200


def test_after_the_last_hand_the_director_goes_back_to_the_round_referees_to_my_matches() -> None:
    t, d, q, _final = event(referees=1)
    first = to_the_first_playoff(t, d, q)
    (match,) = open_matches(first)
    match_result_override(match_id=match.pk, actor=d, scores=[6, 0], placings=[1, 2], reason="x")
    back = f"{url('round', t.slug, first.pk)}#match-{match.pk}"
    page = director_client(d).get(f"/matches/{match.pk}/").content.decode()
    card = page.split('class="result-card"', 1)[1].split("</section>", 1)[0]
    assert f'href="{back}" id="result-round"' in card
    assert "Back to the round: what comes next" in card
    assert 'id="result-my-matches"' not in card
    assert f'<a href="{back}" id="nav-round">Round</a>' in page
    # The live panel (swapped in after each hand) carries the same link.
    panel = director_client(d).get(f"/matches/{match.pk}/panel/").content.decode()
    assert f'href="{back}" id="result-round"' in panel

    referee = match.referee
    assert referee is not None
    phone = Client()
    _open_link(phone, referee_token_issue(tournament=t, actor=d, user=referee).key)
    page = phone.get(f"/matches/{match.pk}/").content.decode()
    card = page.split('class="result-card"', 1)[1].split("</section>", 1)[0]
    assert 'href="/referee/" id="result-my-matches"' in card
    assert "result-round" not in page
    assert "nav-round" not in page


# -- 4. wording ------------------------------------------------------------------------------------


def test_a_final_table_alone_is_named_as_one_on_the_stages_and_settings_pages_t6() -> None:
    t, d, _q, final = event()
    client = director_client(d)
    page = words(client.get(url("stages", t.slug)))
    assert "The last stage is the final table: no stage can follow it (T6)." in page
    assert "a knockout to the final table" not in page
    settings = words(client.get(url("stage-edit", t.slug, final.pk)))
    assert "Final table only ·" in settings
    assert "Table knockout to a final table" not in settings
    bracket = words(client.get(url("bracket", t.slug)))
    assert "Final table only" in bracket
    assert "Table knockout to a final table" not in bracket


def test_the_seed_is_named_for_the_draws_it_makes_t8() -> None:
    """Seeded by rating, the stage's seed only draws the seats (T8): "random seed 7" read as
    a random seeding. Seeded at random, it does both, and says so."""
    t, d, q, final = event()
    client = director_client(d)
    card = words_of(section(client.get(url("stages", t.slug)), q))
    assert "seat-draw seed 7 (T8)" in card
    assert "random seed" not in card
    settings = words(client.get(url("stage-edit", t.slug, final.pk)))
    assert f"seat-draw seed {final.rng_seed} (T8)" in settings
    log = client.get(url("log", t.slug)).context["rows"]
    seeded = next(r for r in log if r.log.verb == "stage.seed")
    assert "Seat-draw seed: 7" in seeded.details
    assert not any(line.startswith("Random seed") for line in seeded.details)

    services.stage_seed(stage=q, actor=d, method="random")
    card = words_of(section(client.get(url("stages", t.slug)), q))
    assert "random seed 7 (seeding and seat draws, T8)" in card
    log = client.get(url("log", t.slug)).context["rows"]
    seeded = next(r for r in log if r.log.verb == "stage.seed")
    assert "Random seed: 7" in seeded.details


def test_the_creation_message_names_the_seat_draw_seed_t8() -> None:
    t, d = make_tournament(8)
    client = director_client(d)
    response = client.post(
        url("stages", t.slug),
        {
            "name": "Qualifying",
            "kind": "qualifying",
            "swiss_rounds": "1",
            "cut_size": "3",
            "advance_per_table": "1",
            "final_table_size": "4",
            "allow_three": "on",
            "bye_policy": "win",
            "seat_order": "balanced",
            "seeding": "rating",
            "rng_seed": "42",
        },
    )
    shown = [str(m) for m in client.get(response["Location"]).context["messages"]]
    assert shown == ["Qualifying created as stage 1 (seat-draw seed 42)."]


def test_a_player_added_by_hand_is_named_in_the_action_log() -> None:
    t, d = make_tournament(4)
    player_add(tournament=t, actor=d, typed=TypedPlayer(row=PlayerRow(2, "Zoe Nieves")))
    rows = director_client(d).get(url("log", t.slug)).context["rows"]
    (added,) = (r for r in rows if r.log.verb == "players.add")
    assert added.what == "Player added"
    assert added.target == "Zoe Nieves"


@pytest.mark.parametrize(
    ("players", "summary"),
    [
        (8, "8 players at 2 tables of 4."),
        (7, "7 players at 2 tables. 1 of them has 3 players."),
        (6, "6 players at 2 tables of 3."),
    ],
)
def test_the_preview_counts_the_tables_by_their_size_t1(players: int, summary: str) -> None:
    """ "3 players at 1 table. 1 of them has 3 players." read oddly: tables of one size are
    counted with it; mixed sizes still count the tables of 3 (T1)."""
    t, d = make_tournament(players)
    q = qualifying(t, d, swiss_rounds=1, cut_size=3, auto_advance=False)
    services.stage_seed(stage=q, actor=d)
    assert summary in words(director_client(d).get(url("preview", t.slug, q.pk)))
