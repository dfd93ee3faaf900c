"""Confirmation at the table (issue 15; scoring/confirmation.py): the setting, players'
confirmations and PINs, disputes frozen until a director resolves them, and the rule that a
match is not final - no placings, no ``match_finished`` - until confirmed or resolved."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from core.exceptions import ApplicationError, ConflictError, PermissionDeniedError
from scoring import confirmation
from scoring.models import Hand, HandConfirmation, Match, ResultDispute, Seat
from scoring.services import hand_record, hand_void_last
from tests.factories import TournamentFactory, director_of, match_in_progress
from tournament import services as tournament_services
from tournament.context import RefereeActor
from tournament.models import ActionLog, Entry, Tournament
from tournament.pins import PIN_MAX_FAILURES, entry_check_in

pytestmark = pytest.mark.django_db

FIRST = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0}
NEXT = {"poser": 0, "pose_tile": "5-4", "end": "domino", "winner": 0}
# R31c: seat 0 reaches 6 with everyone else on love; the sixth hand is a block A wins (R20).
LAST_BLOCK = {"poser": 0, "pose_tile": "5-4", "end": "block", "counts": [3, 10, 12, 9]}
# The player says the counts were otherwise (A still holds the lowest: the match still ends).
CLAIMED_BLOCK = {"poser": 0, "pose_tile": "5-4", "end": "block", "counts": [2, 14, 12, 9]}


def _setup(mode: str) -> tuple[Tournament, Any, Match, RefereeActor]:
    t = TournamentFactory(confirmation=mode)
    director = director_of(t)
    role = tournament_services.referee_create(tournament=t, actor=director, username=f"r-{t.pk}")
    token = tournament_services.referee_token_issue(tournament=t, actor=director, user=role.user)
    match = match_in_progress(t, referee=role.user)
    return t, director, match, RefereeActor.of(token)


def _record(match: Match, actor: Any, number: int, payload: dict[str, Any]) -> Any:
    return hand_record(match_id=match.pk, actor=actor, expected_number=number, payload=payload)


def _play_to_last(match: Match, referee: RefereeActor, *, confirm_each: bool = False) -> None:
    """Hands 1-5 (seat 0 dominoes), confirming each under ``every_hand``."""
    for number in range(1, 6):
        _record(match, referee, number, FIRST if number == 1 else NEXT)
        if confirm_each:
            for seat in range(4):
                confirmation.hand_confirm(
                    match_id=match.pk, actor=referee, number=number, seat=seat
                )


def test_the_setting_is_frozen_when_the_match_starts() -> None:
    _, _, match, _ = _setup("match_end")
    assert match.confirmation == "match_end"
    Tournament.objects.filter(pk=match.tournament_id).update(confirmation="off")
    match.refresh_from_db()
    assert match.confirmation == "match_end"  # like the ruleset (RULES.md section 1)
    _, _, off_match, _ = _setup("off")
    assert off_match.confirmation == ""


def test_match_end_holds_the_result_until_every_player_confirms(
    django_capture_on_commit_callbacks: Any, finished_events: list[int]
) -> None:
    _, _, match, referee = _setup("match_end")
    with django_capture_on_commit_callbacks(execute=True):
        _play_to_last(match, referee)
        _record(match, referee, 6, LAST_BLOCK)
    match.refresh_from_db()
    # The last hand is stored, but the match is not final: no placings, no event.
    assert match.hands_count == 6
    assert match.winner_seat == 0
    assert match.status == Match.Status.IN_PROGRESS
    assert match.confirmation_hold == "result"
    assert not Seat.objects.filter(match=match, placing__isnull=False).exists()
    assert finished_events == []
    # No further hand: the engine says the match is over (R33).
    with pytest.raises(ApplicationError) as over:
        _record(match, referee, 7, NEXT)
    assert over.value.rule == "R33"

    for seat in range(3):
        with django_capture_on_commit_callbacks(execute=True):
            result = confirmation.hand_confirm(
                match_id=match.pk, actor=referee, number=6, seat=seat
            )
        assert not result.finished
    assert finished_events == []
    # A repeated tap records once.
    again = confirmation.hand_confirm(match_id=match.pk, actor=referee, number=6, seat=0)
    assert again.replayed
    assert again.confirmed_seats == (0, 1, 2)
    with django_capture_on_commit_callbacks(execute=True):
        last = confirmation.hand_confirm(match_id=match.pk, actor=referee, number=6, seat=3)
    assert last.finished
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.end_reason == Match.EndReason.NORMAL
    assert match.confirmation_hold == ""
    placings = dict(Seat.objects.filter(match=match).values_list("seat", "placing"))
    assert placings[0] == 1
    assert all(placings[s] is not None for s in range(4))
    assert finished_events == [match.pk]
    assert HandConfirmation.objects.filter(hand__match=match).count() == 4
    # After the release a retry still answers, and nothing more happens.
    late = confirmation.hand_confirm(match_id=match.pk, actor=referee, number=6, seat=3)
    assert late.replayed
    assert finished_events == [match.pk]


def test_every_hand_blocks_the_next_hand_until_the_last_is_confirmed() -> None:
    _, _, match, referee = _setup("every_hand")
    _record(match, referee, 1, FIRST)
    match.refresh_from_db()
    assert match.confirmation_hold == "hand"
    with pytest.raises(ApplicationError) as pending:
        _record(match, referee, 2, NEXT)
    assert pending.value.code == "confirmation_pending"
    assert pending.value.status_code == 409
    assert Hand.objects.filter(match=match).count() == 1
    with pytest.raises(ConflictError):  # only the last hand is confirmed
        confirmation.hand_confirm(match_id=match.pk, actor=referee, number=2, seat=0)
    for seat in range(4):
        confirmation.hand_confirm(match_id=match.pk, actor=referee, number=1, seat=seat)
    match.refresh_from_db()
    assert match.confirmation_hold == ""
    _record(match, referee, 2, NEXT)
    # The referee may undo an unconfirmed hand: its pending confirmation goes with it.
    hand_void_last(match_id=match.pk, actor=referee, reason="wrong winner", expected_number=2)
    match.refresh_from_db()
    assert match.confirmation_hold == ""
    assert match.hands_count == 1


def test_off_is_the_referees_word() -> None:
    _, _, match, referee = _setup("off")
    _play_to_last(match, referee)
    _record(match, referee, 6, LAST_BLOCK)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    with pytest.raises(ApplicationError) as nothing:
        confirmation.hand_confirm(match_id=match.pk, actor=referee, number=6, seat=0)
    assert nothing.value.code == "nothing_to_confirm"


def test_pins_are_hashed_and_confirm_only_their_own_seat() -> None:
    _t, director, match, referee = _setup("every_hand")
    seats = {s.seat: s.entry for s in Seat.objects.filter(match=match).select_related("entry")}
    entry, pin = entry_check_in(entry=seats[1], actor=director, issue_pin=True)
    _, other_pin = entry_check_in(entry=seats[2], actor=director, issue_pin=True)
    assert pin is not None
    assert len(pin) == 4
    assert pin.isdigit()
    stored = Entry.objects.get(pk=entry.pk)
    assert stored.checked_in
    assert stored.pin_hash
    assert pin not in stored.pin_hash
    assert ActionLog.objects.filter(verb="entry.pin_issue", target_id=str(entry.pk)).exists()
    _record(match, referee, 1, FIRST)
    with pytest.raises(PermissionDeniedError) as missing:
        confirmation.hand_confirm(match_id=match.pk, actor=referee, number=1, seat=1)
    assert missing.value.code == "pin_required"
    if other_pin != pin:  # another player's PIN never confirms this seat
        with pytest.raises(PermissionDeniedError) as wrong:
            confirmation.hand_confirm(
                match_id=match.pk, actor=referee, number=1, seat=1, pin=other_pin
            )
        assert wrong.value.code == "bad_pin"
    ok = confirmation.hand_confirm(match_id=match.pk, actor=referee, number=1, seat=1, pin=pin)
    assert ok.confirmed_seats == (1,)
    assert HandConfirmation.objects.get(hand__match=match, seat=1).with_pin
    # A seat without a PIN: tapping the name is enough.
    confirmation.hand_confirm(match_id=match.pk, actor=referee, number=1, seat=0)


def test_wrong_pins_lock_the_pin() -> None:
    _, director, match, referee = _setup("every_hand")
    seat = Seat.objects.select_related("entry").get(match=match, seat=3)
    _, pin = entry_check_in(entry=seat.entry, actor=director, issue_pin=True)
    assert pin is not None
    wrong = f"{(int(pin) + 1) % 10000:04d}"
    _record(match, referee, 1, FIRST)
    for _ in range(PIN_MAX_FAILURES):
        with pytest.raises(PermissionDeniedError):
            confirmation.hand_confirm(match_id=match.pk, actor=referee, number=1, seat=3, pin=wrong)
    with pytest.raises(ApplicationError) as locked:
        confirmation.hand_confirm(match_id=match.pk, actor=referee, number=1, seat=3, pin=pin)
    assert locked.value.status_code == 429
    cache.clear()


def test_only_this_matchs_referee_or_a_director_confirms() -> None:
    t, director, match, referee = _setup("every_hand")
    role = tournament_services.referee_create(tournament=t, actor=director, username="other-r")
    token = tournament_services.referee_token_issue(tournament=t, actor=director, user=role.user)
    other = RefereeActor.of(token)
    _record(match, referee, 1, FIRST)
    for call in (
        lambda: confirmation.hand_confirm(match_id=match.pk, actor=other, number=1, seat=0),
        lambda: confirmation.hand_dispute(
            match_id=match.pk, actor=other, number=1, seat=0, claimed=FIRST
        ),
    ):
        with pytest.raises(PermissionDeniedError):
            call()
    assert not HandConfirmation.objects.exists()
    assert not ResultDispute.objects.exists()
    confirmation.hand_confirm(match_id=match.pk, actor=director, number=1, seat=0)
    # Only a director resolves.
    with pytest.raises(PermissionDeniedError):
        confirmation.dispute_resolve(
            match_id=match.pk, actor=referee, decision="uphold", reason="x"
        )


def test_a_disputed_block_count_freezes_the_match_until_the_director_corrects_it(
    django_capture_on_commit_callbacks: Any, finished_events: list[int]
) -> None:
    t, director, match, referee = _setup("match_end")
    _play_to_last(match, referee)
    _record(match, referee, 6, LAST_BLOCK)
    # An invalid version is refused naming the field; nothing is written.
    with pytest.raises(ApplicationError) as bad:
        confirmation.hand_dispute(
            match_id=match.pk,
            actor=referee,
            number=6,
            seat=2,
            claimed={**CLAIMED_BLOCK, "counts": [1, 2, 3]},  # 3 counts for 4 seats (§9)
        )
    assert any(f.startswith("claimed") for f in bad.value.fields or {})
    assert not ResultDispute.objects.exists()
    # The recorded hand itself, with no note, disputes nothing: refused before it freezes the
    # match (one tap on the prefilled form); with a note saying what differs it is a dispute.
    with pytest.raises(ApplicationError) as same:
        confirmation.hand_dispute(
            match_id=match.pk, actor=referee, number=6, seat=2, claimed=LAST_BLOCK, note="  "
        )
    assert (same.value.code, same.value.rule) == ("dispute_unchanged", "confirmation")
    assert "claimed" in (same.value.fields or {})
    assert not ResultDispute.objects.exists()
    match.refresh_from_db()
    assert match.confirmation_hold != "disputed"

    dispute = confirmation.hand_dispute(
        match_id=match.pk, actor=referee, number=6, seat=2, claimed=CLAIMED_BLOCK, note="I had 2"
    )
    again = confirmation.hand_dispute(
        match_id=match.pk, actor=referee, number=6, seat=2, claimed=CLAIMED_BLOCK
    )
    assert again.pk == dispute.pk  # a retry records once
    # The same seat's other version of the hand, or other words, is not a retry: refused
    # while the dispute is open (it was answered with the first dispute, and dropped).
    for other in (
        {"claimed": {**CLAIMED_BLOCK, "counts": [3, 14, 12, 9]}},
        {"claimed": CLAIMED_BLOCK, "note": "I had 2, and D had 9"},
    ):
        with pytest.raises(ApplicationError) as second:
            confirmation.hand_dispute(match_id=match.pk, actor=referee, number=6, seat=2, **other)
        assert (second.value.code, second.value.status_code) == ("result_disputed", 409)
    assert ResultDispute.objects.get().claimed["counts"] == CLAIMED_BLOCK["counts"]
    # The player's note is the entry's reason: the action log's "Why" (walkthrough).
    (raised,) = ActionLog.objects.filter(verb="result.dispute")
    assert (raised.actor_id, raised.reason) == (None, "I had 2")
    match.refresh_from_db()
    assert match.confirmation_hold == "disputed"
    # Frozen: no confirmation, no hand, no undo.
    for call in (
        lambda: confirmation.hand_confirm(match_id=match.pk, actor=referee, number=6, seat=0),
        lambda: _record(match, referee, 7, NEXT),
        lambda: hand_void_last(match_id=match.pk, actor=director, reason="x"),
    ):
        with pytest.raises(ApplicationError) as frozen:
            call()
        assert frozen.value.code == "result_disputed"
    # The queue shows both versions.
    (row,) = confirmation.disputes_for(tournament=t)
    assert row.recorded["counts"] == LAST_BLOCK["counts"]
    assert row.claimed["counts"] == CLAIMED_BLOCK["counts"]
    with pytest.raises(ApplicationError):
        confirmation.dispute_resolve(
            match_id=match.pk, actor=director, decision="correct", reason=""
        )
    with django_capture_on_commit_callbacks(execute=True):
        confirmation.dispute_resolve(
            match_id=match.pk, actor=director, decision="correct", reason="C counted 2, seen"
        )
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.winner_seat == 0
    live = Hand.objects.get(match=match, number=6, void=False)
    assert live.counts == CLAIMED_BLOCK["counts"]
    assert Hand.objects.get(match=match, number=6, void=True).counts == LAST_BLOCK["counts"]
    dispute.refresh_from_db()
    assert dispute.status == "corrected"
    assert dispute.reason == "C counted 2, seen"
    log = ActionLog.objects.get(verb="result.dispute.correct")
    assert log.reason == "C counted 2, seen"
    assert log.data["claimed"]["counts"] == [2, 14, 12, 9]
    assert confirmation.disputes_for(tournament=t) == []
    assert finished_events == [match.pk]


def test_upholding_a_dispute_finishes_the_match(
    django_capture_on_commit_callbacks: Any, finished_events: list[int]
) -> None:
    _, director, match, referee = _setup("match_end")
    _play_to_last(match, referee)
    _record(match, referee, 6, LAST_BLOCK)
    confirmation.hand_dispute(
        match_id=match.pk, actor=referee, number=6, seat=2, claimed=CLAIMED_BLOCK
    )
    with django_capture_on_commit_callbacks(execute=True):
        confirmation.dispute_resolve(
            match_id=match.pk, actor=director, decision="uphold", reason="the referee saw it"
        )
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.winner_seat == 0
    assert finished_events == [match.pk]
    assert ActionLog.objects.filter(verb="result.dispute.uphold").exists()


def test_api_confirm_and_dispute_with_the_referee_credential(client: Client) -> None:
    t, director, match, _referee = _setup("every_hand")
    token = tournament_services.referee_token_issue(
        tournament=t, actor=director, user=match.referee
    )
    auth = {"HTTP_AUTHORIZATION": f"Token {token.key}"}  # type: ignore[attr-defined]
    r = client.post(
        f"/api/matches/{match.pk}/hands/",
        {"number": 1, **FIRST},
        content_type="application/json",
        **auth,
    )
    assert r.status_code == 201, r.content
    r = client.post(
        f"/api/matches/{match.pk}/hands/",
        {"number": 2, **NEXT},
        content_type="application/json",
        **auth,
    )
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "confirmation_pending"
    r = client.post(
        f"/api/matches/{match.pk}/confirmations/",
        {"number": 1, "seat": 9},
        content_type="application/json",
        **auth,
    )
    assert r.status_code == 400
    assert "seat" in r.json()["error"]["fields"]
    r = client.post(
        f"/api/matches/{match.pk}/confirmations/",
        {"number": 1, "seat": 0},
        content_type="application/json",
        **auth,
    )
    assert r.status_code == 200
    assert r.json()["confirmed_seats"] == [0]
    r = client.post(
        f"/api/matches/{match.pk}/disputes/",
        {"number": 1, "seat": 1, "claimed": {**FIRST, "winner": 1, "poser": 1}},
        content_type="application/json",
        **auth,
    )
    assert r.status_code == 201, r.content
    assert r.json()["hold"] == "disputed"
    # The director's queue lists it; a referee credential may not read it.
    assert client.get(f"/api/tournaments/{t.slug}/disputes/", **auth).status_code == 403
    client.force_login(director)
    listed = client.get(f"/api/tournaments/{t.slug}/disputes/").json()["results"]
    assert [d["match_id"] for d in listed] == [match.pk]
    dashboard = client.get(f"/director/tournaments/{t.slug}/").content.decode()
    assert "Disputed: in the dispute queue" in dashboard
    page = client.get(f"/director/tournaments/{t.slug}/disputes/")
    assert page.status_code == 200
    html = page.content.decode()
    assert f'id="dispute-{listed[0]["id"]}"' in html
    # Seats read as on the referee's phone, "B · name" (RULES.md section 10), never "seat 1".
    names = [s.entry.player.name for s in Seat.objects.filter(match=match).order_by("seat")]
    assert f"Disputed by B · {names[1]}" in html
    assert f"<td>B · {names[1]}</td>" in html  # the claimed winner and poser
    assert "Disputed by seat" not in html
    r = client.post(
        f"/director/tournaments/{t.slug}/disputes/",
        {"match_id": match.pk, "decision": "uphold", "reason": ""},
    )
    assert r.status_code == 400  # a reason is required
    r = client.post(
        f"/director/tournaments/{t.slug}/disputes/",
        {"match_id": match.pk, "decision": "uphold", "reason": "B did not domino"},
    )
    assert r.status_code == 302
    match.refresh_from_db()
    assert match.confirmation_hold == ""


def test_check_in_api_issues_a_pin_once(client: Client) -> None:
    t = TournamentFactory()
    director = director_of(t)
    match = match_in_progress(t)
    entry = Seat.objects.filter(match=match).first().entry  # type: ignore[union-attr]
    client.force_login(director)
    url = f"/api/tournaments/{t.slug}/entries/{entry.pk}/check-in/"
    r = client.post(url, {"pin": "yes"}, content_type="application/json")
    assert r.status_code == 400
    assert "pin" in r.json()["error"]["fields"]
    r = client.post(url, {"pin": True}, content_type="application/json")
    body = r.json()
    assert r.status_code == 200
    assert body["checked_in"]
    assert body["has_pin"]
    assert len(body["pin"]) == 4
    assert body["pin"] not in Entry.objects.get(pk=entry.pk).pin_hash
    r = client.post(url, {}, content_type="application/json")
    assert r.json()["pin"] is None
    assert r.json()["has_pin"]


def test_the_director_sets_confirmation_on_the_edit_page(client: Client) -> None:
    t = TournamentFactory()
    client.force_login(director_of(t))
    page = client.get(f"/director/tournaments/{t.slug}/settings/")
    assert page.status_code == 200
    assert 'name="confirmation"' in page.content.decode()


def test_a_match_decided_by_the_director_meanwhile_waits_for_nobody() -> None:
    """An override while the result is disputed: the decision stands; the dispute can only be
    closed (upheld), and the override's placings are not recomputed."""
    from scoring.services import match_result_override

    t, director, match, referee = _setup("match_end")
    _play_to_last(match, referee)
    _record(match, referee, 6, LAST_BLOCK)
    confirmation.hand_dispute(
        match_id=match.pk, actor=referee, number=6, seat=2, claimed=CLAIMED_BLOCK
    )
    match_result_override(
        match_id=match.pk, actor=director, scores=[6, 0, 1, 0], reason="director saw it"
    )
    placings = dict(Seat.objects.filter(match=match).values_list("seat", "placing"))
    with pytest.raises(ApplicationError) as decided:
        confirmation.dispute_resolve(
            match_id=match.pk, actor=director, decision="correct", reason="late"
        )
    assert decided.value.code == "match_decided"
    confirmation.dispute_resolve(match_id=match.pk, actor=director, decision="uphold", reason="ok")
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.end_reason == Match.EndReason.OVERRIDE
    assert match.confirmation_hold == ""
    assert dict(Seat.objects.filter(match=match).values_list("seat", "placing")) == placings
    assert confirmation.disputes_for(tournament=t) == []
    with pytest.raises(ApplicationError) as nothing:
        confirmation.hand_confirm(match_id=match.pk, actor=referee, number=6, seat=0)
    assert nothing.value.code == "nothing_to_confirm"


def test_spectators_see_no_winner_until_the_result_is_confirmed(
    client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    """The last hand is stored and the engine knows the winner, but the match waits for the
    players (or a dispute): the public match names no winner until it is final."""
    t, _, match, referee = _setup("match_end")
    with django_capture_on_commit_callbacks(execute=True):
        _play_to_last(match, referee)
        _record(match, referee, 6, LAST_BLOCK)
    url = f"/api/live/{t.slug}/matches/{match.pk}/"
    body = client.get(url).json()
    assert body["match"]["status"] == "in_progress"
    assert body["match"]["winner_seat"] is None
    for seat in range(4):
        with django_capture_on_commit_callbacks(execute=True):
            confirmation.hand_confirm(match_id=match.pk, actor=referee, number=6, seat=seat)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    version = Tournament.objects.get(pk=t.pk).version
    body = client.get(url, HTTP_X_LIVE_VERSION=str(version)).json()  # as live.js asks
    assert body["match"]["status"] == "finished"
    assert body["match"]["winner_seat"] == 0


def test_a_tap_for_a_hand_undone_and_recorded_again_is_refused() -> None:
    """A phone queued taps for hand 2 offline (or showed it before a director undid it); the
    director undid it and recorded another hand 2. The taps name the hand they saw - its id
    from the page or the key the phone recorded it with - and are refused (409
    ``hand_changed``) instead of confirming a hand nobody saw; without that name, as before."""
    _, director, match, referee = _setup("every_hand")
    _record(match, referee, 1, FIRST)
    for seat in range(4):
        confirmation.hand_confirm(match_id=match.pk, actor=referee, number=1, seat=seat)
    first = hand_record(
        match_id=match.pk,
        actor=referee,
        expected_number=2,
        payload=NEXT,
        idempotency_key="phone-hand-2",
    ).hand
    hand_void_last(match_id=match.pk, actor=director, reason="wrong winner", expected_number=2)
    again = _record(match, director, 2, {**NEXT, "winner": 1}).hand
    assert again.pk != first.pk
    for name in ({"hand_id": first.pk}, {"hand_key": "phone-hand-2"}):
        with pytest.raises(ConflictError) as changed:
            confirmation.hand_confirm(match_id=match.pk, actor=referee, number=2, seat=0, **name)
        assert changed.value.code == "hand_changed"
        with pytest.raises(ConflictError) as disputed:
            confirmation.hand_dispute(
                match_id=match.pk,
                actor=referee,
                number=2,
                seat=1,
                claimed={**NEXT, "winner": 0},
                **name,
            )
        assert disputed.value.code == "hand_changed"
    assert not HandConfirmation.objects.filter(hand=again).exists()
    assert not ResultDispute.objects.filter(match=match).exists()
    # Naming the hand recorded now confirms it.
    ok = confirmation.hand_confirm(
        match_id=match.pk, actor=referee, number=2, seat=0, hand_id=again.pk
    )
    assert ok.confirmed_seats == (0,)


def test_api_refuses_a_tap_for_a_changed_hand(client: Client) -> None:
    _, director, match, referee = _setup("every_hand")
    _record(match, referee, 1, FIRST)
    hand = Hand.objects.get(match=match, number=1)
    client.force_login(director)
    url = f"/api/matches/{match.pk}/confirmations/"
    stale = client.post(
        url, {"number": 1, "seat": 0, "hand_id": hand.pk + 1000}, content_type="application/json"
    )
    assert stale.status_code == 409
    assert stale.json()["error"]["code"] == "hand_changed"
    too_long = client.post(
        url, {"number": 1, "seat": 0, "hand_key": "k" * 129}, content_type="application/json"
    )
    assert too_long.status_code == 400
    assert "hand_key" in too_long.json()["error"]["fields"]
    fine = client.post(
        url, {"number": 1, "seat": 0, "hand_id": hand.pk}, content_type="application/json"
    )
    assert fine.status_code == 200
    assert fine.json()["confirmed_seats"] == [0]


@pytest.mark.parametrize(
    ("decision", "says"),
    [
        ("uphold", "the recorded hand stands (C · "),
        ("correct", "s version replaces the recorded one."),
    ],
)
def test_the_phone_says_what_the_director_decided(client: Client, decision: str, says: str) -> None:
    """The players disputed a hand on the referee's phone; once the director decides, the
    phone's panel says what became of it and why (not only the hand history)."""
    _, director, match, referee = _setup("match_end")
    _play_to_last(match, referee)
    _record(match, referee, 6, LAST_BLOCK)
    confirmation.hand_dispute(
        match_id=match.pk, actor=referee, number=6, seat=2, claimed=CLAIMED_BLOCK
    )
    client.force_login(director)
    url = f"/matches/{match.pk}/panel/"
    assert 'id="dispute-decision"' not in client.get(url).content.decode()  # still open
    confirmation.dispute_resolve(
        match_id=match.pk, actor=director, decision=decision, reason="seen by the floor judge"
    )
    html = client.get(url).content.decode()
    decided = html.split('id="dispute-decision"', 1)[1].split("</p>", 1)[0]
    assert "dispute of hand 6" in decided
    assert says in decided.replace("&#x27;", "'")
    assert "Reason: seen by the floor judge" in decided


def test_the_held_result_shows_what_the_match_finishes_with() -> None:
    """What the players confirm at the end (the referee page's confirmation block) is what the
    match then stores: every score, the placings (T3/T4) and the six-loves (R31c)."""
    from scoring.presenters.confirmation import held_result

    _, _, match, referee = _setup("match_end")
    _play_to_last(match, referee)
    _record(match, referee, 6, LAST_BLOCK)
    match.refresh_from_db()
    live = list(Hand.objects.filter(match=match, void=False).order_by("number"))
    held = held_result(match, live)
    assert held == {
        "number": 6,
        "scores": [6, 0, 0, 0],
        "winner": 0,
        "placings": [1, 2, 2, 2],
        "six_love": [1, 2, 3],
    }
    for seat in range(4):
        confirmation.hand_confirm(match_id=match.pk, actor=referee, number=6, seat=seat)
    rows = Seat.objects.filter(match=match).order_by("seat")
    assert [s.placing for s in rows] == held["placings"]
    assert [s.seat for s in rows if s.six_love_received] == held["six_love"]
    match.refresh_from_db()
    assert held_result(match, live) is None  # finished: nothing is held any more


def test_a_held_result_without_a_current_snapshot_leaves_out_what_it_cannot_know() -> None:
    from scoring.presenters.confirmation import held_result

    _, _, match, referee = _setup("match_end")
    _play_to_last(match, referee)
    _record(match, referee, 6, LAST_BLOCK)
    Match.objects.filter(pk=match.pk).update(engine_state=None)
    match.refresh_from_db()
    live = list(Hand.objects.filter(match=match, void=False).order_by("number"))
    held = held_result(match, live)
    assert held is not None
    assert held["scores"] == [6, 0, 0, 0]
    assert held["winner"] == 0
    assert held["placings"] is None  # never guessed
    assert held["six_love"] == []


# A player's version of hand 3: B, not A, dominoed.
CLAIMED_B = {"poser": 0, "pose_tile": "5-4", "end": "domino", "winner": 1}


def _referee_page(match: Match, t: Tournament, director: Any) -> str:
    """The referee's panel, through the referee's link as their phone opens it."""
    client = Client()
    token = tournament_services.referee_token_issue(
        tournament=t, actor=director, user=match.referee
    )
    client.get("/ref/")
    client.post("/ref/", {"key": token.key}, HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)
    return client.get(f"/matches/{match.pk}/panel/").content.decode()


@pytest.mark.parametrize("decision", ["uphold", "correct"])
def test_a_hand_decided_on_a_dispute_is_the_directors_to_undo(decision: str) -> None:
    """Under every_hand a dispute on hand 3 is settled by the director and the match goes on:
    the referee cannot undo the hand that stands by that decision (it would overturn the
    ruling; their undo is for their own slips), nor is it offered on their phone; the
    director can. A hand the referee records afterwards is theirs to undo again."""
    t, director, match, referee = _setup("every_hand")
    for number in (1, 2):
        _record(match, referee, number, FIRST if number == 1 else NEXT)
        for seat in range(4):
            confirmation.hand_confirm(match_id=match.pk, actor=referee, number=number, seat=seat)
    _record(match, referee, 3, NEXT)
    confirmation.hand_dispute(match_id=match.pk, actor=referee, number=3, seat=1, claimed=CLAIMED_B)
    confirmation.dispute_resolve(
        match_id=match.pk, actor=director, decision=decision, reason="seen by the floor judge"
    )
    with pytest.raises(PermissionDeniedError) as refused:
        hand_void_last(match_id=match.pk, actor=referee, reason="oops")
    assert (refused.value.code, refused.value.rule) == ("decided_on_dispute", "confirmation")
    assert "only a director may undo it" in refused.value.message
    assert Hand.objects.filter(match=match, number=3, void=False).count() == 1
    assert 'id="undo"' not in _referee_page(match, t, director)

    # The next hand is the referee's own again: theirs to undo (the decision confirmed 3).
    _record(match, referee, 4, NEXT if decision == "uphold" else {**NEXT, "poser": 1})
    assert 'id="undo"' in _referee_page(match, t, director)
    hand_void_last(match_id=match.pk, actor=referee, reason="slip")
    # The decided hand 3 is last again: the director undoes it.
    with pytest.raises(PermissionDeniedError):
        hand_void_last(match_id=match.pk, actor=referee, reason="oops")
    hand_void_last(match_id=match.pk, actor=director, reason="the judge reversed it")
    assert not Hand.objects.filter(match=match, number=3, void=False).exists()
