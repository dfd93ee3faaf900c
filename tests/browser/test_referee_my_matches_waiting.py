""" "My matches" names the hands still waiting on the phone, and opens without network.

Found by a referee walkthrough on a phone: offline, the referee recorded a hand (queued on the
phone, issue 15) and tapped "My matches" in the header. The page was not kept by the service
worker, so the phone showed the browser's offline error; with the connection back, "My matches"
showed the match as before with no word of the queued hand, and nothing sent it (the queue is
drained only by the match's own page): the hand stayed on the phone until the referee happened
to open that match again, perhaps never. Now the referee page has the worker keep "My
matches" too, and that page says under each match how many hands wait on this phone.
"""

from __future__ import annotations

from typing import Any, cast

import pytest
from playwright.sync_api import BrowserContext, expect

from scoring.engine import Ruleset
from scoring.engine.simulate import simulate_match
from scoring.models import Hand, Match
from scoring.services import hand_record
from tests.browser.conftest import set_offline, tap_domino_hand
from tests.browser.referee_form import fill_hand_form
from tests.factories import TournamentFactory, director_of, match_in_progress, referee_of
from tournament.models import Tournament
from tournament.services import referee_token_issue

SEED = 43


@pytest.fixture
def queued_match(transactional_db: Any) -> dict[str, Any]:
    tournament = cast(Tournament, TournamentFactory(ruleset_preset="wsod"))  # type: ignore[no-untyped-call]
    director = director_of(tournament)
    referee = referee_of(tournament)
    match = match_in_progress(tournament, referee=referee)
    token = referee_token_issue(tournament=tournament, actor=director, user=referee)
    sim = simulate_match(Ruleset.from_json(match.ruleset), match.n_players, SEED)
    return {"match": match, "token": token, "sim": sim, "director": director}


def _stored(match: Match) -> int:
    return Hand.objects.filter(match=match, voided_at__isnull=True).count()


@pytest.mark.browser
@pytest.mark.embedded  # the demo's phones run on the embedded default too
def test_my_matches_opens_offline_and_names_the_hands_waiting_on_the_phone(
    browser_context: Any, queued_match: dict[str, Any]
) -> None:
    match: Match = queued_match["match"]
    context: BrowserContext = browser_context()
    page = context.new_page()
    page.goto(f"/ref/#{queued_match['token'].key}")
    page.wait_for_url(f"**/matches/{match.pk}/")
    # The worker holds the page's copies (as test_referee_offline.py waits for them).
    expect(page.locator("#referee-app[data-offline-ready='1']")).to_have_count(1)
    page.reload()
    expect(page.locator("#referee-app[data-offline-ready='1']")).to_have_count(1)

    set_offline(context, True)
    fill_hand_form(page, queued_match["sim"].records[0])
    page.locator("#confirm-hand").tap()
    expect(page.locator("#submit-status")).to_contain_text("Hand 1 is saved on this phone")

    # The header's "My matches" opens without network, and says the hand is still here.
    page.locator("header a", has_text="My matches").tap()
    page.wait_for_url("**/referee/")
    row = page.locator(f"#match-list li[data-match-id='{match.pk}']")
    note = row.locator(".waiting-on-phone")
    expect(note).to_be_visible()
    expect(note).to_have_text("1 hand is waiting on this phone: open this match to send it.")
    assert _stored(match) == 0

    # The connection is back but this page sends nothing: it keeps saying where the hand is.
    set_offline(context, False)
    page.reload()
    expect(note).to_have_text("1 hand is waiting on this phone: open this match to send it.")
    assert _stored(match) == 0

    # Opening the match sends it; then "My matches" has nothing waiting.
    row.locator("a").tap()
    page.wait_for_url(f"**/matches/{match.pk}/")
    expect(page.locator("#submit-status")).to_contain_text("Hand 1 recorded", timeout=20_000)
    assert _stored(match) == 1
    page.locator("header a", has_text="My matches").tap()
    page.wait_for_url("**/referee/")
    expect(page.locator(f"#match-list li[data-match-id='{match.pk}']")).to_have_count(1)
    expect(note).to_be_hidden()


FIRST = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0}  # forced pose (R5)
D_WINS = {"poser": 0, "pose_tile": "6-5", "end": "domino", "winner": 3}  # A won hand 1 (R7)
PHONE = [  # hands 3, 4, 5 on the phone: D poses and wins each (R7)
    {"poser": 3, "pose_tile": "5-5", "end": "domino", "winner": 3},
    {"poser": 3, "pose_tile": "4-4", "end": "domino", "winner": 3},
    {"poser": 3, "pose_tile": "3-3", "end": "domino", "winner": 3},
]
DIRECTOR_3 = {"poser": 3, "pose_tile": "5-4", "end": "domino", "winner": 2}  # C wins hand 3

# Adds entries to the phone's queue with IndexedDB itself (not referee-queue.js), at whatever
# version the pages made it, in the shapes referee.js writes.
_ADD_ENTRIES = """entries => new Promise((resolve, reject) => {
  const req = indexedDB.open("ct-referee");
  req.onerror = () => reject(req.error);
  req.onsuccess = () => {
    const db = req.result;
    const t = db.transaction("hands", "readwrite");
    entries.forEach(e => t.objectStore("hands").add(e));
    t.oncomplete = () => { db.close(); resolve(); };
    t.onerror = () => reject(t.error);
  };
})"""


def _entry(match: Match, key: str, number: int, status: str, **more: Any) -> dict[str, Any]:
    """A queue entry as referee.js stores it (the match id as the page reads it: a string)."""
    return {
        "match": str(match.pk),
        "key": key,
        "number": number,
        "status": status,
        "error": None,
        **more,
    }


@pytest.mark.browser
@pytest.mark.embedded
def test_my_matches_counts_the_hands_the_match_page_keeps_refused_ones_too_never_taps(
    browser_context: Any, queued_match: dict[str, Any]
) -> None:
    match: Match = queued_match["match"]
    director = queued_match["director"]
    hand_record(match_id=match.pk, actor=director, expected_number=1, payload=FIRST)
    hand_record(match_id=match.pk, actor=director, expected_number=2, payload=D_WINS)
    context: BrowserContext = browser_context()
    page = context.new_page()
    page.goto(f"/ref/#{queued_match['token'].key}")
    page.wait_for_url(f"**/matches/{match.pk}/")
    expect(page.locator(".scoreboard li")).to_have_count(4)

    # Offline the phone keeps hands 3-5; another device records hand 3: back online the
    # phone's hand 3 is refused and its hands 4 and 5 stay queued behind it (referee.js).
    set_offline(context, True)
    for i, payload in enumerate(PHONE):
        tap_domino_hand(page, payload, 3 + i, queued=True)
    hand_record(match_id=match.pk, actor=director, expected_number=3, payload=DIRECTOR_3)
    set_offline(context, False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    hands = page.locator("#queue-list li[data-kind='hand']")
    expect(hands.nth(0)).to_have_attribute("data-status", "refused", timeout=20_000)
    expect(hands).to_have_count(3)
    expect(page.locator("#queue-list li[data-kind='hand'][data-status='queued']")).to_have_count(2)

    page.locator("header a", has_text="My matches").tap()
    page.wait_for_url("**/referee/")
    note = page.locator(f"#match-list li[data-match-id='{match.pk}'] .waiting-on-phone")
    expect(note).to_have_text("3 hands are waiting on this phone: open this match to send them.")

    # The other shapes referee.js writes: a hand the server confirmed (kept until the panel
    # shows it), a player's tap and a dispute (not hands), and a hand sent with no answer yet.
    tap = {"seat": 1, "hand_key": "k-3"}
    confirmed = _entry(match, "k-2", 2, "confirmed", payload=D_WINS, version=1)
    taps = [_entry(match, "k-t", 3, "queued", kind="confirm", payload=tap)]
    taps.append(_entry(match, "k-d", 3, "sent", kind="dispute", payload=tap))
    page.evaluate(_ADD_ENTRIES, [confirmed, *taps])
    page.reload()
    expect(note).to_have_text("3 hands are waiting on this phone: open this match to send them.")
    page.evaluate(_ADD_ENTRIES, [_entry(match, "k-6", 6, "sent", kind="hand", payload=PHONE[2])])
    page.reload()
    expect(note).to_have_text("4 hands are waiting on this phone: open this match to send them.")
    assert Hand.objects.filter(match=match, voided_at__isnull=True).count() == 3
