"""A director's walkthrough on PostgreSQL (a real event through the product's own pages):

1. Withdrawing a seated player forfeited their live table in one click. Now a withdrawal that
   forfeits a match (T7) shows what will happen and asks to confirm, like the Forfeit page;
   what it forfeits is the service's own reading (``stage_entry_withdraw_forfeits``).
2. Next steps: the round page says when its referees have no link; the seeding list's "Nobody
   is seeded yet: check players in" beside "11 checked in"; no "created" message after
   creating a tournament; the Leaders page's "Nobody yet" without saying only finished
   matches count.
3. The final table's preview warned of a same-club table nothing could avoid (T8).
4. The final's "Stage finished" log entry counted the champion as out of the stage.
"""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from brackets import services
from brackets.models import RoundMatch, Stage, StageEntry
from brackets.services import (
    WithdrawalForfeit,
    round_publish,
    stage_entry_withdraw,
    stage_entry_withdraw_forfeits,
    stage_seed,
)
from brackets.views.withdraw import forfeit_line, player_lines
from scoring.models import Match, Seat
from scoring.services import hand_record, match_start
from tests.brackets.conftest import make_tournament
from tests.brackets.factories_pages import director_client, tournament_with_stage
from tests.brackets.pairs_helpers import seeded_pairs
from tests.factories import UserFactory
from tournament.models import ActionLog, Entry, Tournament
from tournament.services import referee_token_issue, referee_token_revoke

pytestmark = pytest.mark.django_db

# Seat A dominoes every hand: 6-0 (wsod, R31c).
A_SIX_LOVE: list[dict[str, Any]] = [
    {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0},
    *[{"poser": 0, "pose_tile": "5-4", "end": "domino", "winner": 0}] * 5,
]


def url(name: str, *args: Any) -> str:
    return reverse(f"brackets:{name}", args=args)


def said(response: Any) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def text(response: Any) -> str:
    return html.unescape(response.content.decode())


@pytest.fixture
def event() -> dict[str, Any]:
    """Round 1 of 8 players published (two tables of 4), table 1 in play."""
    tournament, director, stage = tournament_with_stage(8, auto_advance=False)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    links = list(RoundMatch.objects.filter(round=rnd).order_by("table_number"))
    match_start(match_id=links[0].match_id, actor=director, lot_winner=0)
    hand_record(
        match_id=links[0].match_id, actor=director, expected_number=1, payload=A_SIX_LOVE[0]
    )
    seat = Seat.objects.select_related("entry__player").get(match_id=links[0].match_id, seat=1)
    return {
        "t": tournament,
        "d": director,
        "stage": stage,
        "round": rnd,
        "links": links,
        "entry": seat.entry,
        "client": director_client(director),
    }


# -- 1. withdrawing a seated player: confirm first (T7) -------------------------------------


def test_the_service_names_the_match_it_will_forfeit_and_forfeits_that_one(
    event: dict[str, Any],
) -> None:
    """The confirmation's reading and the service are one rule: the match named is the match
    forfeited, and the others play on at a continuation match at the same table (T7)."""
    stage, entry, first = event["stage"], event["entry"], event["links"][0]
    forfeits = stage_entry_withdraw_forfeits(stage=stage, entry=entry)
    assert [(f.match_id, f.seat, f.table_number) for f in forfeits] == [
        (first.match_id, 1, first.table_number)
    ]
    (forfeit,) = forfeits
    assert forfeit.status == Match.Status.IN_PROGRESS
    assert forfeit.plays_on
    assert not forfeit.partners
    assert forfeit.player == entry.player.name
    assert len(forfeit.others) == 3
    assert entry.player.name not in forfeit.others
    stage_entry_withdraw(stage=stage, actor=event["d"], entry=entry, reason="ill")
    log = ActionLog.objects.get(verb="stage.withdraw")
    assert log.data["forfeited_matches"] == [first.match_id]
    continuation = Match.objects.get(continues_id=first.match_id)
    assert continuation.n_players == 3
    assert RoundMatch.objects.get(match=continuation).table_number == first.table_number
    assert stage_entry_withdraw_forfeits(stage=stage, entry=entry) == []


def test_withdrawing_a_seated_player_asks_to_confirm_and_changes_nothing_before(
    event: dict[str, Any],
) -> None:
    t, stage, entry, client = event["t"], event["stage"], event["entry"], event["client"]
    first = event["links"][0]
    target = url("withdraw", t.slug, stage.pk, entry.pk)
    response = client.post(target, {"reason": "flight home"})
    assert response.status_code == 200
    page = text(response)
    assert "Please confirm" in page
    assert f"Table {first.table_number} (in play): the match is forfeited (T7)." in page
    assert "play on at this table in a continuation match, from love" in page
    assert (
        f"{entry.player.name}'s line for that match: a 0\u20136 loss, placed last with 0 points "
        "and a six-love received, no match win (T7)." in page
    )
    assert "Reason: flight home" in page
    assert f'name="forfeited" value="{first.match_id}"' in page
    # Nothing happened yet.
    assert StageEntry.objects.get(stage=stage, entry=entry).status == "active"
    assert Match.objects.get(pk=first.match_id).status == Match.Status.IN_PROGRESS
    assert not ActionLog.objects.filter(verb="stage.withdraw").exists()

    response = client.post(
        target,
        {"reason": "flight home", "confirmed": "yes", "forfeited": str(first.match_id)},
    )
    assert response.status_code == 302
    (message,) = said(response)
    assert message.startswith(f"{entry.player.name} withdrawn (T7). Table {first.table_number}")
    assert StageEntry.objects.get(stage=stage, entry=entry).status == "withdrawn"
    assert Match.objects.get(pk=first.match_id).end_reason == Match.EndReason.FORFEIT


def test_a_confirmation_drawn_before_the_matches_changed_is_shown_again(
    event: dict[str, Any],
) -> None:
    """A confirmation naming other matches than the player's open ones now (a stale tab) is
    not acted on: the step comes back as things are now."""
    t, stage, entry, client = event["t"], event["stage"], event["entry"], event["client"]
    response = client.post(
        url("withdraw", t.slug, stage.pk, entry.pk),
        {"reason": "ill", "confirmed": "yes", "forfeited": ""},
    )
    assert response.status_code == 200
    assert "matches changed since the confirmation was drawn" in text(response)
    assert StageEntry.objects.get(stage=stage, entry=entry).status == "active"


def test_disqualifying_says_so_on_the_confirmation(event: dict[str, Any]) -> None:
    t, stage, entry, client = event["t"], event["stage"], event["entry"], event["client"]
    response = client.post(
        url("withdraw", t.slug, stage.pk, entry.pk), {"reason": "conduct", "disqualify": "on"}
    )
    page = text(response)
    assert f"Confirm: Disqualify {entry.player.name}" in page
    assert 'name="disqualify" value="on"' in page


def test_a_withdrawal_with_no_open_match_is_one_step_and_says_what_happened(
    event: dict[str, Any],
) -> None:
    """Table 2 is not started: its players are seated at a scheduled match, which is open
    (a confirmation). Once a player's match is over, nothing is forfeited: one step."""
    t, stage, d, client = event["t"], event["stage"], event["d"], event["client"]
    first = event["links"][0]
    for number, payload in enumerate(A_SIX_LOVE[1:], start=2):
        hand_record(match_id=first.match_id, actor=d, expected_number=number, payload=payload)
    done = Seat.objects.select_related("entry__player").get(match_id=first.match_id, seat=2)
    response = client.post(url("withdraw", t.slug, stage.pk, done.entry_id), {"reason": "ill"})
    assert response.status_code == 302
    assert said(response) == [
        f"{done.entry.player.name} withdrawn (T7). No match of theirs is open: nothing is "
        "forfeited; they play no further rounds and are placed after everyone still in the "
        "stage."
    ]
    scheduled = Seat.objects.select_related("entry__player").get(
        match_id=event["links"][1].match_id, seat=0
    )
    response = client.post(url("withdraw", t.slug, stage.pk, scheduled.entry_id), {"reason": "ill"})
    assert response.status_code == 200
    assert f"Table {event['links'][1].table_number} (not started yet)" in text(response)


def test_before_the_stage_starts_a_withdrawal_forfeits_nothing() -> None:
    tournament, director, stage = tournament_with_stage(8)
    stage_seed(stage=stage, actor=director, method="rating")
    entry_id = StageEntry.objects.filter(stage=stage).order_by("seed").first().entry_id  # type: ignore[union-attr]
    client = director_client(director)
    response = client.post(url("withdraw", tournament.slug, stage.pk, entry_id), {"reason": "x"})
    assert said(response)[0].endswith(
        "withdrawn (T7). The stage has not started: nothing is forfeited and they play no "
        "round of it."
    )


def test_withdraw_from_the_seeding_list_says_what_follows_before_the_reason(
    event: dict[str, Any],
) -> None:
    """The list's "Withdraw…" is a link (no form a row); its page says what withdrawing now
    forfeits (T7) above the reason, and one press with the reason withdraws."""
    t, stage, entry, client = event["t"], event["stage"], event["entry"], event["client"]
    withdraw = url("withdraw", t.slug, stage.pk, entry.pk)
    page = text(client.get(url("seeding", t.slug, stage.pk)))
    assert f'<a href="{withdraw}" class="withdraw-link" id="wd-{entry.pk}"' in page
    assert f'aria-label="Withdraw {entry.player.name}"' in page
    asked = client.get(withdraw)
    assert asked.status_code == 200
    form = text(asked)
    table = event["links"][0].table_number
    assert f"Table {table} (in play): the match is forfeited (T7)." in form
    assert f"{entry.player.name}'s line for that match: a 0–6 loss" in form
    assert 'name="reason" required maxlength="500"' in form
    assert 'name="disqualify"' in form
    assert f'name="forfeited" value="{event["links"][0].match_id}"' in form
    assert StageEntry.objects.get(stage=stage, entry=entry).status == "active"
    done = client.post(
        withdraw,
        {"reason": "ill", "confirmed": "yes", "forfeited": str(event["links"][0].match_id)},
    )
    assert done.status_code == 302
    assert said(done)[0].startswith(f"{entry.player.name} withdrawn (T7). Table {table}")
    assert StageEntry.objects.get(stage=stage, entry=entry).status == "withdrawn"


def test_withdraw_page_of_a_player_with_no_open_match_says_nothing_is_forfeited() -> None:
    tournament, director, stage = tournament_with_stage(8)
    stage_seed(stage=stage, actor=director, method="rating")
    entry = Entry.objects.filter(tournament=tournament).first()
    assert entry is not None
    client = director_client(director)
    form = text(client.get(url("withdraw", tournament.slug, stage.pk, entry.pk)))
    assert "The stage has not started: nothing is forfeited and they play no round of it." in form
    assert 'name="forfeited" value=""' in form
    assert 'id="confirm-box"' not in form
    outsider = director_client(UserFactory())
    assert outsider.get(url("withdraw", tournament.slug, stage.pk, entry.pk)).status_code == 403


def test_in_a_pairs_event_the_confirmation_names_both_partnerships() -> None:
    """R42: the withdrawn player's partnership loses 0-6 and the other wins (T7, T10);
    nobody plays on one short, and a substitute keeps the partnership in (T11)."""
    t, d, q = seeded_pairs(4)
    rnd = round_publish(stage=q, actor=d)
    link = RoundMatch.objects.filter(round=rnd).order_by("table_number").first()
    assert link is not None
    names = dict(
        Seat.objects.filter(match_id=link.match_id).values_list("seat", "entry__player__name")
    )
    entry = Seat.objects.get(match_id=link.match_id, seat=0).entry
    (forfeit,) = stage_entry_withdraw_forfeits(stage=q, entry=entry)
    assert forfeit.partners
    assert not forfeit.plays_on
    assert forfeit.partner == names[2]
    assert forfeit.others == (names[1], names[3])
    response = director_client(d).post(url("withdraw", t.slug, q.pk, entry.pk), {"reason": "x"})
    page = text(response)
    assert (
        f"the match is forfeited: {names[0]} and {names[2]} lose it 0\u20136 and {names[1]} and "
        f"{names[3]} win it (T7, T10)." in page
    )
    assert "keeps the partnership in the stage (T11)" in page


def _forfeit(**kwargs: Any) -> WithdrawalForfeit:
    words: dict[str, Any] = {
        "match_id": 1,
        "seat": 0,
        "table_number": 7,
        "status": Match.Status.IN_PROGRESS,
        "player": "Ana",
        "others": ("Luis", "Eva", "Sol"),
        "plays_on": True,
        "partners": False,
    }
    return WithdrawalForfeit(**{**words, **kwargs})


@pytest.mark.parametrize(
    ("kwargs", "line"),
    [
        (
            {},
            "Table 7 (in play): the match is forfeited (T7). Luis, Eva and Sol play on at "
            "this table in a continuation match, from love: the hands played so far are not "
            "carried over.",
        ),
        (
            {"plays_on": False, "status": Match.Status.SCHEDULED},
            "Table 7 (not started yet): the match is forfeited (T7). Luis, Eva and Sol cannot "
            "play on one player short: reseat them.",
        ),
        (
            {"others": ("Luis",), "plays_on": False},
            "Table 7 (in play): the match is forfeited: Luis wins it 6\u20130 (T7).",
        ),
        (
            {"others": ("Luis", "Sol"), "plays_on": False, "partners": True, "partner": "Eva"},
            "Table 7 (in play): the match is forfeited: Ana and Eva lose it 0\u20136 and Luis and "
            "Sol win it (T7, T10).",
        ),
    ],
)
def test_each_kind_of_table_says_what_its_forfeit_does(kwargs: dict[str, Any], line: str) -> None:
    assert forfeit_line(_forfeit(**kwargs)) == line


# -- 2. next steps ---------------------------------------------------------------------------


def test_the_round_page_says_when_referees_have_no_link_and_how_to_issue_them() -> None:
    tournament, director, stage = tournament_with_stage(8, referees=2)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    client = director_client(director)
    page = text(client.get(url("round", tournament.slug, rnd.pk)))
    assert "2 referees of this round's tables have no referee link yet" in page
    assert f'action="{url("sheet-links", tournament.slug, rnd.pk)}"' in page
    assert 'id="round-issue-links"' in page
    assert reverse("tournament:referees", args=[tournament.slug]) in page

    referee_ids = set(
        Match.objects.filter(round_link__round=rnd).values_list("referee_id", flat=True)
    )
    users = {u.pk: u for u in UserFactory._meta.model.objects.filter(pk__in=referee_ids)}
    first, second = sorted(users)
    token = referee_token_issue(tournament=tournament, actor=director, user=users[first])
    page = text(client.get(url("round", tournament.slug, rnd.pk)))
    assert "1 referee of this round's tables has no referee link yet" in page
    referee_token_issue(tournament=tournament, actor=director, user=users[second])
    page = text(client.get(url("round", tournament.slug, rnd.pk)))
    assert 'id="referee-links"' not in page
    referee_token_revoke(token=token, actor=director)  # a revoked link is no link
    page = text(client.get(url("round", tournament.slug, rnd.pk)))
    assert "1 referee of this round's tables has no referee link yet" in page


def test_the_seeding_list_counts_checked_in_players_before_seeding() -> None:
    tournament, director, stage = tournament_with_stage(11)
    client = director_client(director)
    page = text(client.get(url("seeding", tournament.slug, stage.pk)))
    assert "11 players are checked in: seed the stage." in page
    assert "Nobody is seeded yet" not in page
    Entry.objects.filter(tournament=tournament).update(checked_in=False)
    page = text(client.get(url("seeding", tournament.slug, stage.pk)))
    assert "Nobody is seeded yet: check players in, then seed the stage." in page


def test_creating_a_tournament_says_so_and_names_the_next_step() -> None:
    director = UserFactory(is_superuser=True, is_staff=True)
    client = director_client(director)
    response = client.post(
        reverse("brackets:tournament-create"),
        {"name": "Harbour Open", "slug": "", "ruleset_preset": "wsod"},
    )
    assert response.status_code == 302, text(response)
    tournament = Tournament.objects.get(name="Harbour Open")
    assert response["Location"] == url("stages", tournament.slug)
    page = text(client.get(response["Location"]))
    assert "Harbour Open created, in draft" in page
    assert "Next: create its first stage below, then add the players" in page


def test_the_leaders_page_says_only_finished_matches_count(event: dict[str, Any]) -> None:
    t, first, d = event["t"], event["links"][0], event["d"]
    page = text(Client().get(f"/stats/{t.slug}/"))
    assert "Nobody is on a board yet: only finished matches count" in page
    for number, payload in enumerate(A_SIX_LOVE[1:], start=2):
        hand_record(match_id=first.match_id, actor=d, expected_number=number, payload=payload)
    page = text(Client().get(f"/stats/{t.slug}/"))
    assert "Only finished matches count: a match in play counts once it ends." in page


# -- 3. the final table's preview -----------------------------------------------------------


def test_a_final_table_of_one_club_has_no_warning_nothing_could_avoid() -> None:
    """T8 avoids same-club tables "where possible": at the one final table it is not."""
    t, d = make_tournament(4, clubs=1)
    k = services.stage_create(
        tournament=t, actor=d, name="Final", kind="knockout", rng_seed=3, auto_advance=False
    )
    services.stage_seed(stage=k, actor=d, method="rating")
    page = text(director_client(d).get(url("preview", t.slug, k.pk)))
    assert "Publish the final table" in page
    assert "same club" not in page
    assert "avoided from round 2 on" not in page
    assert 'id="warnings"' not in page


# -- 4. the end of the final in the action log ----------------------------------------------


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def test_the_end_of_the_final_logs_the_final_placings(
    django_capture_on_commit_callbacks: Any,
) -> None:
    t, d = make_tournament(4)
    k = services.stage_create(
        tournament=t, actor=d, name="Final", kind="knockout", rng_seed=3, auto_advance=False
    )
    services.stage_seed(stage=k, actor=d, method="rating")
    rnd = services.round_publish(stage=k, actor=d)
    match_id = RoundMatch.objects.get(round=rnd).match_id
    match_start(match_id=match_id, actor=d, lot_winner=0)
    for number, payload in enumerate(A_SIX_LOVE, start=1):
        with django_capture_on_commit_callbacks(execute=True):
            hand_record(match_id=match_id, actor=d, expected_number=number, payload=payload)
    k.refresh_from_db()
    assert k.status == Stage.Status.FINISHED
    log = ActionLog.objects.get(verb="stage.finish")
    seats = {
        s.entry_id: (s.placing, s.entry.player.name)
        for s in Seat.objects.filter(match_id=match_id).select_related("entry__player")
    }
    places = log.data["final_places"]
    assert [place for place, _entry in places] == sorted(p or 0 for p, _name in seats.values())
    assert places[0] == [1, Seat.objects.get(match_id=match_id, seat=0).entry_id]
    page = text(director_client(d).get(url("log", t.slug)))
    expected = "; ".join(f"{place}. {seats[entry][1]}" for place, entry in places)
    assert f"Final placings: {expected}" in page
    finish = page.split('data-verb="stage.finish"', 1)[1].split("</tr>", 1)[0]
    assert "Out of the stage" not in finish
    assert "Going on" not in finish


def test_in_a_pairs_event_a_withdrawal_with_no_open_match_says_the_partnership_goes_too() -> None:
    """T11: a partnership player withdrawn between matches (here: the bye's) takes the
    partnership out of the stage unless a substitute is named before the next round; the
    message says so, not only what happens to the player."""
    t, d, q = seeded_pairs(3)
    rnd = round_publish(stage=q, actor=d)
    seated = set(
        Seat.objects.filter(match__round_link__round=rnd).values_list("entry_id", flat=True)
    )
    bye = StageEntry.objects.filter(stage=q).exclude(entry_id__in=seated).first()
    assert bye is not None  # three partnerships: one table and a bye (T1)
    assert stage_entry_withdraw_forfeits(stage=q, entry=bye.entry) == []
    response = director_client(d).post(url("withdraw", t.slug, q.pk, bye.entry_id), {"reason": "x"})
    assert response.status_code == 302
    (message,) = said(response)
    assert "No match of theirs is open" in message
    assert (
        "Their partnership leaves the stage with them unless you name a substitute for them on "
        "Partnerships before the next round is published (T11)." in message
    )


def test_a_forfeit_in_a_partnership_final_promises_no_substitute() -> None:
    """A withdrawal during a partnership final forfeits it (T7, T10): there is no next round,
    so the confirmation does not offer a substitute 'before the next round' (T11)."""
    final = player_lines("Ana", pairs=True, in_final=True)
    assert any("decides the final" in line for line in final)
    assert not any("before the next round" in line for line in final)
    assert any("before the next round" in line for line in player_lines("Ana", pairs=True))
    assert not any("substitute" in line for line in player_lines("Ana", pairs=False))
