"""A referee on a phone (360 x 740) records a whole match through the page.

The hands come from the engine's simulator (seeded), so the test enters what a real table
could produce: forced and free poses, dominoes, blocks (the page previews the R20 result),
ties (replays), a reset. On the way the referee picks a wrong poser and sees the rule error
next to the field, and undoes a hand with a reason. At the end the page shows the result and
the database holds exactly the simulated hands, folded to the simulator's final scores.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast

import pytest
from playwright.sync_api import Page, expect

from scoring.engine import Ruleset
from scoring.engine.match import seat_name
from scoring.engine.record import EndKind, HandRecord
from scoring.engine.simulate import SimulatedMatch, simulate_match
from scoring.models import Hand, Match
from tests.browser.conftest import controlled_by_service_worker
from tests.factories import TournamentFactory, director_of, match_in_progress, referee_of
from tournament.models import Tournament
from tournament.services import referee_token_issue

# 12 hands: 3 blocks, 2 tied hands, a reset; hand 2 is a free pose by its winner (R7).
SEED = 43
UNDO_AT = 4  # undo hand 4 once, then record it again


@pytest.fixture
def referee_match(transactional_db: Any) -> dict[str, Any]:
    tournament = cast(Tournament, TournamentFactory(ruleset_preset="wsod"))  # type: ignore[no-untyped-call]
    director = director_of(tournament)
    referee = referee_of(tournament, first_name="Rosa", last_name="Méndez")
    match = match_in_progress(tournament, referee=referee)
    token = referee_token_issue(tournament=tournament, actor=director, user=referee)
    sim = simulate_match(Ruleset.from_json(match.ruleset), match.n_players, SEED)
    assert sim.final.over
    assert len(sim.records) == 12
    names = [s.entry.player.name for s in match.seats.order_by("seat")]
    return {"match": match, "token": token, "sim": sim, "names": names}


def _tap(page: Page, group: str, seat: int) -> None:
    """Tap a seat button (the visible label of a radio input), as a finger would."""
    page.locator(f"#hand-form input[name='{group}'][value='{seat}'] + span").tap()


def _fill_hand(
    page: Page, record: HandRecord, names: list[str], *, poser: int | None = None
) -> None:
    _tap(page, "poser", record.poser if poser is None else poser)
    page.select_option("#pose-tile", str(record.pose_tile))
    if record.end is EndKind.DOMINO:
        page.locator("#hand-form input[name='end'][value='domino'] + span").tap()
        assert record.winner is not None
        _tap(page, "winner", record.winner)
        expect(page.locator("#confirm-summary")).to_contain_text(names[record.winner])
    else:
        page.locator("#hand-form input[name='end'][value='block'] + span").tap()
        assert record.counts is not None
        for seat, count in enumerate(record.counts):
            page.fill(f"#count-{seat}", str(count))
        low = min(record.counts)
        lowest = [names[i] for i, c in enumerate(record.counts) if c == low]
        # The page shows the R20 result before anything is sent, once: in the summary next to
        # the record button, not again under the counts.
        preview = page.locator("#confirm-summary")
        expect(page.locator("#block-result")).to_have_text("")
        if len(lowest) == 1:
            expect(preview).to_contain_text(f"{lowest[0]} wins the block with {low}")
        else:
            expect(preview).to_contain_text("Tie")
            for name in lowest:
                expect(preview).to_contain_text(name)


def _record(page: Page, number: int) -> None:
    page.locator("#confirm-hand").tap()
    expect(page.locator("#submit-status")).to_contain_text(f"Hand {number} recorded")


def _expect_next(page: Page, sim: SimulatedMatch, index: int, names: list[str]) -> None:
    """The panel announces hand ``index + 1`` as the engine did (R5-R10, R26)."""
    nh = sim.next_hands[index]
    expect(page.locator("#match-panel")).to_have_attribute("data-number", str(index + 1))
    box = page.locator("#next-hand")
    expect(box).to_contain_text(f"Hand {index + 1}")
    if nh.is_replay:
        expect(box).to_contain_text(f"replay worth {nh.value}")
    if nh.forced:
        expect(box).to_contain_text("holder of 6-6 poses the 6-6")
    else:
        assert nh.poser is not None
        expect(box).to_contain_text(names[nh.poser])
        # The designated poser is pre-selected (R7/R8/R10).
        expect(page.locator(f"#hand-form input[name='poser'][value='{nh.poser}']")).to_be_checked()


def _scores(page: Page) -> list[int]:
    return [int(t) for t in page.locator(".scoreboard .score").all_inner_texts()]


def _check_phone_layout(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"the page scrolls sideways at 360 px ({width} px wide)"
    for selector in (
        "#hand-form .choice span",
        "#confirm-hand",
        "#reset-form",
        "#pose-tile",
    ):
        for box in [el.bounding_box() for el in page.locator(selector).all()]:
            if box is not None:
                assert box["height"] >= 48, f"{selector} is {box['height']} px tall (< 48)"


@pytest.mark.browser
def test_referee_records_a_match_on_a_phone(
    page: Page, referee_match: dict[str, Any], artifacts_dir: Path
) -> None:
    match: Match = referee_match["match"]
    sim: SimulatedMatch = referee_match["sim"]
    names: list[str] = referee_match["names"]

    # The private link signs the referee in and lands on their match.
    page.goto(f"/ref/#{referee_match['token'].key}")
    expect(page).to_have_url(re.compile(rf"/matches/{match.pk}/$"))
    expect(page.locator(".scoreboard li")).to_have_count(4)
    for i, name in enumerate(names):
        expect(page.locator(".scoreboard li").nth(i)).to_contain_text(name)
    expect(page.locator(".scoreboard .love-tag")).to_have_count(4)  # everyone on love
    expect(page.locator("#llave")).to_have_count(0)  # wsod: llave off
    _expect_next(page, sim, 0, names)
    _check_phone_layout(page)
    page.screenshot(path=artifacts_dir / "referee-01-start.png")

    index = 0
    undone = False
    wrong_poser_seen = False
    while index < len(sim.records):
        record = sim.records[index]
        number = index + 1
        _expect_next(page, sim, index, names)
        nh = sim.next_hands[index]

        if not wrong_poser_seen and not nh.forced and nh.poser is not None:
            # Wrong poser: caught as soon as it is tapped, naming the rule beside the field
            # (from the engine's next hand, R7/R10); Record waits until it is corrected.
            wrong = (nh.poser + 1) % match.n_players
            _tap(page, "poser", wrong)
            expect(page.locator("#confirm-hand")).to_be_disabled()
            field_error = page.locator(".field-error[data-error-for='poser']")
            expect(field_error).to_be_visible()
            expect(field_error).to_contain_text(nh.rule)
            # One seat naming: the letter and the name, as on the buttons (not "Seat 1 (B)").
            expect(field_error).to_contain_text(
                f"{seat_name(nh.poser)} · {names[nh.poser]} must pose this hand"
            )
            expect(field_error).not_to_contain_text("Seat ")
            _check_phone_layout(page)
            page.screenshot(path=artifacts_dir / "referee-02-wrong-poser.png")
            assert Hand.objects.filter(match=match).count() == index  # nothing stored
            wrong_poser_seen = True
            _tap(page, "poser", nh.poser)

        _fill_hand(page, record, names)
        if record.end is EndKind.BLOCK and not (artifacts_dir / "referee-03-block.png").exists():
            page.locator("#block-result").scroll_into_view_if_needed()
            page.screenshot(path=artifacts_dir / "referee-03-block.png")
        _record(page, number)
        expected_scores = list(sim.scored[index].scores_after)
        expect(page.locator(".scoreboard .score").first).to_have_text(str(expected_scores[0]))
        assert _scores(page) == expected_scores

        if number == UNDO_AT and not undone:
            # Undo the hand just recorded, with a reason; the scores go back.
            page.locator("#undo summary").tap()
            page.fill("#void-reason", "wrong winner tapped")
            page.locator("#void-form button[type='submit']").tap()
            expect(page.locator("#submit-status")).to_contain_text("Last hand undone")
            assert _scores(page) == list(sim.scored[index - 1].scores_after)
            expect(page.locator(".hands tr.void")).to_have_count(1)
            page.screenshot(path=artifacts_dir / "referee-04-undone.png")
            undone = True
            continue  # record the same hand again
        index += 1

    assert wrong_poser_seen
    assert undone
    # The match is over: the result replaces the form (R33).
    result = page.locator(".result-card")
    expect(result).to_be_visible()
    assert sim.final.winner is not None
    expect(result).to_contain_text(f"{names[sim.final.winner]} wins")
    expect(page.locator("#hand-form")).to_have_count(0)
    page.screenshot(path=artifacts_dir / "referee-05-result.png", full_page=True)

    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.scores == list(sim.final.scores)
    live = list(Hand.objects.filter(match=match, void=False).order_by("number"))
    assert [h.number for h in live] == list(range(1, len(sim.records) + 1))
    assert Hand.objects.filter(match=match, void=True).count() == 1
    assert len({h.idempotency_key for h in live}) == len(live)  # one key per submission


@pytest.mark.browser
def test_a_lost_response_is_retried_with_the_same_key_and_counts_once(
    page: Page, referee_match: dict[str, Any]
) -> None:
    """The first POST reaches the server and records the hand, but its response never reaches
    the phone. The page retries with the same Idempotency-Key and the server answers with the
    stored result: one hand, not two."""
    match: Match = referee_match["match"]
    sim: SimulatedMatch = referee_match["sim"]
    names: list[str] = referee_match["names"]
    keys: list[str] = []

    def lose_first_response(route: Any) -> None:
        keys.append(route.request.headers["idempotency-key"])
        if len(keys) == 1:
            route.fetch()  # the server records the hand ...
            route.abort("connectionreset")  # ... and the answer is lost on the way back
        else:
            route.continue_()

    page.goto(f"/ref/#{referee_match['token'].key}")
    controlled_by_service_worker(page)  # as on a phone: see the helper
    page.context.route(f"**/api/matches/{match.pk}/hands/", lose_first_response)
    _fill_hand(page, sim.records[0], names)
    _record(page, 1)

    assert len(keys) == 2
    assert keys[0] == keys[1]
    assert Hand.objects.filter(match=match).count() == 1
    assert list(Match.objects.get(pk=match.pk).scores) == list(sim.scored[0].scores_after)
    expect(page.locator("#match-panel")).to_have_attribute("data-number", "2")


@pytest.mark.browser
def test_pip_scoring_domino_takes_the_other_counts(page: Page, artifacts_dir: Path) -> None:
    """Block preset (R40): a domino carries every other count; the winner's is 0 and locked."""
    tournament = cast(Tournament, TournamentFactory(ruleset_preset="block"))  # type: ignore[no-untyped-call]
    referee = referee_of(tournament)
    match = match_in_progress(tournament, n_players=2, referee=referee, lot_winner=1)
    token = referee_token_issue(tournament=tournament, actor=director_of(tournament), user=referee)
    names = [s.entry.player.name for s in match.seats.order_by("seat")]

    page.goto(f"/ref/#{token.key}")
    expect(page.locator("#next-hand")).to_contain_text(f"{names[1]} won the draw for the lead")
    expect(page.locator("#hand-form input[name='poser'][value='1']")).to_be_checked()
    page.select_option("#pose-tile", "5-4")
    _tap(page, "winner", 0)
    expect(page.locator("#counts-group")).to_be_visible()
    expect(page.locator("#count-0")).to_be_disabled()
    expect(page.locator("#count-0")).to_have_value("0")
    page.fill("#count-1", "17")
    page.screenshot(path=artifacts_dir / "referee-06-pips.png")
    _record(page, 1)
    assert _scores(page) == [17, 0]  # the others' counts minus the winner's own (R40)
    hand = Hand.objects.get(match=match)
    assert hand.counts == [0, 17]


def _open_new_match(page: Page) -> tuple[Match, list[str]]:
    """A wsod match in progress with no hand yet, opened through its referee's link; the match
    and its players' names in seat order."""
    tournament = cast(Tournament, TournamentFactory(ruleset_preset="wsod"))  # type: ignore[no-untyped-call]
    referee = referee_of(tournament)
    match = match_in_progress(tournament, referee=referee)
    token = referee_token_issue(tournament=tournament, actor=director_of(tournament), user=referee)
    page.goto(f"/ref/#{token.key}")
    return match, [s.entry.player.name for s in match.seats.order_by("seat")]


@pytest.mark.browser
def test_counts_typed_before_the_poser_show_the_result_once(page: Page) -> None:
    """The block's result is on the screen once: under the counts while the summary still
    asks for the poser, then in the summary by the record button once the poser is tapped."""
    _match, names = _open_new_match(page)
    page.locator("#hand-form input[name='end'][value='block'] + span").tap()
    under, summary = page.locator("#block-result"), page.locator("#confirm-summary")
    for seat, count in enumerate((12, 7, 20, 15)):
        page.fill(f"#count-{seat}", str(count))
    expect(under).to_contain_text(f"{names[1]} wins the block with 7")
    expect(summary).not_to_contain_text("wins the block")
    _tap(page, "poser", 0)
    page.select_option("#pose-tile", "6-6")
    expect(summary).to_contain_text(f"{names[1]} wins the block with 7")
    expect(under).to_have_text("")


def test_a_count_no_hand_can_have_shows_no_result_and_clears_once_corrected(
    page: Page,
) -> None:
    """A typing slip in a block's counts (99 where R20's heaviest hand is far lighter): the
    summary by the record button says what is wrong as it is typed instead of naming a winner
    (walkthrough: it stayed blank until the tap), the tap is refused next to the field, and
    correcting the count clears that error and shows the R20 result."""
    match, names = _open_new_match(page)
    _tap(page, "poser", 0)
    page.select_option("#pose-tile", "6-6")
    page.locator("#hand-form input[name='end'][value='block'] + span").tap()
    preview = page.locator("#block-result")
    summary = page.locator("#confirm-summary")
    # What is missing is said once, under the counts; the summary does not repeat it.
    expect(preview).to_have_text("Enter every count to see the result (R20).")
    expect(summary).to_have_text("")
    # The slip is said as soon as it is typed, before the other counts are in (walkthrough:
    # only the outline showed until the tap), once: in the summary, as a block's result is.
    page.fill("#count-0", "99")
    expect(summary).to_contain_text(f"A · {names[0]}: enter a count from 0 to")
    expect(summary).to_have_class(re.compile(r"\berror\b"))
    expect(preview).to_have_text("")
    for seat, count in enumerate((99, 8, 20, 30)):
        page.fill(f"#count-{seat}", str(count))
    expect(summary).to_contain_text(f"A · {names[0]}: enter a count from 0 to")
    expect(summary).to_contain_text("(R20: the pips left in a hand)")
    expect(summary).not_to_contain_text("wins the block")
    expect(preview).to_have_text("")
    # A mistake reads as one (the error colour, not the grey of a hint) and the field at
    # fault is the one outlined, as it is typed, before any tap.
    expect(summary).to_have_class(re.compile(r"\berror\b"))
    expect(page.locator("#count-0")).to_have_attribute("aria-invalid", "true")
    for seat in (1, 2, 3):
        expect(page.locator(f"#count-{seat}")).not_to_have_attribute("aria-invalid", "true")
    page.locator("#confirm-hand").tap()
    error = page.locator('.field-error[data-error-for="counts[0]"]')
    expect(error).to_be_visible()
    assert not Hand.objects.filter(match=match).exists()
    page.fill("#count-0", "12")
    expect(error).to_be_hidden()
    expect(page.locator("#count-0")).not_to_have_attribute("aria-invalid", "true")
    expect(summary).to_contain_text(f"{names[1]} wins the block with 8")
    expect(summary).not_to_have_class(re.compile(r"\berror\b"))
    expect(preview).to_have_text("")


@pytest.mark.browser
def test_an_out_of_range_count_is_named_in_the_summary_as_typed(page: Page) -> None:
    """Walkthrough: a count of 70 (above the ruleset's heaviest hand, the bound the server's
    validation uses, R20) left the summary line blank until Record was tapped. It is named as
    typed, with every seat whose count is impossible, by the record button once the poser is
    in, and under the counts while the summary still asks for the poser."""
    _match, names = _open_new_match(page)
    page.locator("#hand-form input[name='end'][value='block'] + span").tap()
    under, summary = page.locator("#block-result"), page.locator("#confirm-summary")
    page.fill("#count-2", "70")
    expect(under).to_contain_text(f"C · {names[2]}: enter a count from 0 to")
    expect(summary).not_to_contain_text("enter a count")
    _tap(page, "poser", 0)
    page.select_option("#pose-tile", "6-6")
    expect(summary).to_contain_text(f"C · {names[2]}: enter a count from 0 to")
    expect(under).to_have_text("")
    page.fill("#count-1", "-3")
    expect(summary).to_contain_text(f"B · {names[1]} and C · {names[2]}: enter a count")
    page.fill("#count-1", "5")
    page.fill("#count-2", "7")
    expect(summary).not_to_contain_text("enter a count")


@pytest.mark.browser
def test_counts_no_real_block_gives_ask_to_be_checked_and_are_never_refused(
    page: Page,
) -> None:
    """Bad-input walkthrough: a block of 0, 0, 5, 5 (only 0-0 is worth 0, R1: two players
    cannot both hold 0) or counts adding up to more pips than are off the board went in with
    no word. Each count is possible alone (R20's bound), so the summary asks the referee to
    check them, in the warning colour, with the R20 result still said; the hand is recorded
    if tapped twice (the rules accept every count from 0 to the heaviest hand, RULES.md
    section 9): the first tap asks whether the counts are right."""
    match, names = _open_new_match(page)
    _tap(page, "poser", 0)
    page.select_option("#pose-tile", "6-6")
    page.locator("#hand-form input[name='end'][value='block'] + span").tap()
    summary = page.locator("#confirm-summary")
    for seat, count in enumerate((60, 60, 30, 9)):
        page.fill(f"#count-{seat}", str(count))
    expect(summary).to_contain_text("Check the counts: 159 is more than the 156 pips off the")
    expect(summary).to_contain_text(f"{names[3]} wins the block with 9")
    expect(summary).to_have_class(re.compile(r"\bwarn\b"))
    page.fill("#count-1", "50")  # 149: a block some deal gives
    expect(summary).not_to_contain_text("Check the counts")
    expect(summary).not_to_have_class(re.compile(r"\bwarn\b"))
    for seat, count in enumerate((0, 0, 5, 5)):
        page.fill(f"#count-{seat}", str(count))
    expect(summary).to_contain_text("Check the counts: two zeros cannot be (only 0-0 is worth")
    expect(summary).to_contain_text("Tie")
    # The first tap asks (tests/browser/test_referee_counts_question.py), the second records.
    page.locator("#confirm-hand").tap()
    expect(summary).to_contain_text("2 counts are 0 at a block, but only 0-0 is worth 0")
    expect(page.locator("#confirm-hand")).to_have_text("Yes, record hand 1")
    page.locator("#confirm-hand").tap()
    expect(page.locator("#submit-status")).to_contain_text("Hand 1 recorded.")
    assert list(Hand.objects.filter(match=match).values_list("counts", flat=True)) == [[0, 0, 5, 5]]


@pytest.mark.browser
def test_a_link_pasted_into_the_open_link_tab_signs_in(page: Page) -> None:
    """Walkthrough: the referee opened /ref/ without its key (a bookmark), then pasted the link
    the director sent into the same tab. Only the fragment changes, so the browser does not
    reload: the page must sign in on the new fragment rather than keep saying it needs one."""
    tournament = cast(Tournament, TournamentFactory(ruleset_preset="wsod"))  # type: ignore[no-untyped-call]
    referee = referee_of(tournament)
    match = match_in_progress(tournament, referee=referee)
    token = referee_token_issue(tournament=tournament, actor=director_of(tournament), user=referee)
    page.goto("/ref/")
    expect(page.locator("#ref-status")).to_contain_text("needs the link or QR code")
    page.evaluate("key => { window.location.hash = key; }", token.key)
    page.wait_for_url(f"**/matches/{match.pk}/")
    expect(page.locator("#match-panel")).to_be_visible()
    assert token.key not in page.url


@pytest.mark.browser
def test_a_link_answered_by_an_error_page_says_so_in_the_pages_words(
    browser_context: Any,
) -> None:
    """A proxy's error page (502, HTML) in answer to the link's sign-in is no word about the
    link: the page says the server could not open it, in the page's language, and never
    "no connection" (there was one) nor an English fallback."""
    tournament = cast(Tournament, TournamentFactory(ruleset_preset="wsod"))  # type: ignore[no-untyped-call]
    referee = referee_of(tournament)
    match_in_progress(tournament, referee=referee)
    token = referee_token_issue(tournament=tournament, actor=director_of(tournament), user=referee)
    context = browser_context(service_workers="block", locale="es-ES")
    page = context.new_page()
    page.route(
        "**/ref/",
        lambda route: (
            route.fulfill(status=502, content_type="text/html", body="<h1>502</h1>")
            if route.request.method == "POST"
            else route.continue_()
        ),
    )
    page.goto(f"/ref/#{token.key}")
    status = page.locator("#ref-status")
    expect(status).to_contain_text("no pudo abrir este enlace")
    expect(status).not_to_contain_text("conexión")
