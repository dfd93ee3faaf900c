"""Pages keep their layout whatever the screen and whatever people type (QA on the demo).

* The public results sheet of a round laid out at 531 px (619 px in Spanish) on a 390 px phone,
  so the phone zoomed the whole page out. It now fits the phone in both languages (short
  columns' headings written upwards, tighter cells; anything wider scrolls inside its own
  box), while desktop and print keep the plain table.
* A referee's display name of 150 characters (the form allows it) stretched the referees
  page to 1742 px and every round page: the referee drop-down grew to the name's width and the
  seats column collapsed until names ran over the scores. Names now wrap or end in an
  ellipsis inside their cell, and the pages keep their width.

Screenshots go to test-artifacts/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import Page

from brackets.models import RoundMatch
from scoring.models import Match
from tests.browser.conftest import DESKTOP, PHONE, ContextFactory
from tests.factories import referee_of
from tests.live.conftest import make_live_tournament
from tournament.models import Player

PHONE_390 = {"width": 390, "height": 844}
LOCALES = {"en": "en-US", "es": "es-ES"}
# Names like the demo's (the width of a column is its longest word).
NAMES = [
    ("Winston Hall", ""),
    ("Emilio Santana", ""),
    ("Quentin Baptiste", ""),
    ("Samuel Adeyemi", ""),
    ("Carlos Medina", "Carlitos"),
    ("Grace Thompson", ""),
    ("Ana Rivera", "La Flaca"),
    ("Desmond Clarke", "Dez"),
]


@pytest.fixture
def event(transactional_db: Any) -> dict[str, Any]:
    """Round 1 of eight players: table 1 ended on time (T3), table 2 in play; a referee with
    a 150-character name (and username) referees table 1."""
    lt = make_live_tournament(8, cut_size=4, slug="wide-open")
    for player, (name, nickname) in zip(
        Player.objects.filter(entries__tournament=lt.tournament).order_by("pk"), NAMES, strict=True
    ):
        Player.objects.filter(pk=player.pk).update(name=name, nickname=nickname)
    first, second = (
        link.match_id for link in RoundMatch.objects.filter(round=lt.round).order_by("table_number")
    )
    now = timezone.now()
    Match.objects.filter(pk=first).update(
        status=Match.Status.FINISHED,
        end_reason=Match.EndReason.TIME,
        hands_count=6,
        started_at=now,
        finished_at=now,
    )
    Match.objects.filter(pk=second).update(
        status=Match.Status.IN_PROGRESS, hands_count=2, started_at=now
    )
    long_referee = referee_of(lt.tournament, username="u" * 150, first_name="d" * 150)
    referee_of(lt.tournament, username="ref-rosa", first_name="Rosa Méndez")
    Match.objects.filter(pk__in=[first, second]).update(referee=long_referee)
    return {"slug": lt.tournament.slug, "director": lt.director, "round": lt.round.pk}


def page_width(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth"))


def width_and_box(page: Page, selector: str) -> list[int]:
    """[the element's scroll width, its parent's client width]: it fits when the first is
    not larger (a table can scroll inside its own box while the page itself fits)."""
    return list(
        page.evaluate(
            """(sel) => { const t = document.querySelector(sel);
                          return [t.scrollWidth, t.parentElement.clientWidth]; }""",
            selector,
        )
    )


HEADER_ITEMS = """() => {
    const items = [...document.querySelectorAll(
        '.site-header nav a, .site-header .sign-out button, .site-header .lang select')]
        .filter(e => e.getClientRects().length);
    const width = document.documentElement.clientWidth;
    const box = e => e.getBoundingClientRect();
    const name = e => (e.textContent || e.id || e.tagName).trim().slice(0, 20);
    const out = [];
    for (const e of items) {
        const b = box(e);
        if (b.left < 0 || b.right > width) out.push(`${name(e)} outside the page`);
        if (e.scrollWidth > e.clientWidth + 1) out.push(`${name(e)} clipped`);
    }
    items.forEach((a, i) => items.slice(i + 1).forEach(b => {
        const p = box(a), q = box(b);
        if (p.left < q.right - 0.5 && q.left < p.right - 0.5
            && p.top < q.bottom - 0.5 && q.top < p.bottom - 0.5)
            out.push(`${name(a)} over ${name(b)}`);
    }));
    return {count: items.length, problems: out};
}"""


def header_problems(page: Page) -> list[str]:
    """The site header's items (nav links, Sign out, the language selector) that run over
    one another or out of the page, by their bounding boxes; [] when every item has its own
    place (the header may wrap to a second row)."""
    found = page.evaluate(HEADER_ITEMS)
    assert found["count"] >= 2, found
    return list(found["problems"])


@pytest.mark.parametrize("language", sorted(LOCALES))
def test_the_results_sheet_fits_a_390_px_phone_and_stays_a_plain_table_on_desktop(
    browser_context: ContextFactory, event: dict[str, Any], artifacts_dir: Path, language: str
) -> None:
    url = f"/live/{event['slug']}/rounds/{event['round']}/results/"
    phone = browser_context(viewport=PHONE_390, locale=LOCALES[language]).new_page()
    phone.goto(url)
    phone.screenshot(path=artifacts_dir / f"results-sheet-390-{language}.png", full_page=True)
    assert page_width(phone) <= 390
    fit = width_and_box(phone, "#round-results")
    assert fit[0] <= fit[1], f"the table is wider than its box: {fit}"
    status = "En juego" if language == "es" else "In progress"
    assert status in phone.locator("#round-results").inner_text()

    desk = browser_context(viewport=DESKTOP, locale=LOCALES[language]).new_page()
    desk.goto(url)
    heads = "[...document.querySelectorAll('#round-results thead th')]"
    modes = f"{heads}.map(th => getComputedStyle(th).writingMode)"
    assert set(desk.evaluate(modes)) == {"horizontal-tb"}
    assert page_width(desk) <= DESKTOP["width"]
    desk.emulate_media(media="print")
    assert set(desk.evaluate(modes)) == {"horizontal-tb"}
    overflow = "getComputedStyle(document.querySelector('#round-results').parentElement).overflowX"
    assert desk.evaluate(overflow) == "visible"  # print never clips the table


def test_a_150_character_referee_name_keeps_the_referees_and_round_pages_in_shape(
    browser_context: ContextFactory, event: dict[str, Any], artifacts_dir: Path
) -> None:
    slug = event["slug"]
    desk = browser_context(viewport=DESKTOP, user=event["director"]).new_page()

    desk.goto(f"/director/tournaments/{slug}/referees/")
    desk.screenshot(path=artifacts_dir / "referees-long-name.png", full_page=True)
    assert page_width(desk) <= DESKTOP["width"]

    desk.goto(f"/director/tournaments/{slug}/rounds/{event['round']}/")
    desk.screenshot(path=artifacts_dir / "round-long-referee.png", full_page=True)
    assert page_width(desk) <= DESKTOP["width"]
    widths = desk.evaluate(
        "[...document.querySelectorAll('.referee-form select')]"
        ".map(s => s.getBoundingClientRect().width)"
    )
    assert widths
    assert max(widths) <= 260, widths  # 15rem, not the name's width
    # Every seat's name ends before its score starts (the seats column no longer collapses).
    overlaps = desk.evaluate(
        """() => [...document.querySelectorAll('ol.seats.compact li')].filter(li => {
                 const who = li.querySelector('.seat-who').getBoundingClientRect();
                 const score = li.querySelector('.num').getBoundingClientRect();
                 return who.right > score.left + 1; }).map(li => li.textContent)"""
    )
    assert overlaps == []

    phone = browser_context(viewport=PHONE_390, user=event["director"]).new_page()
    for url in (
        f"/director/tournaments/{slug}/referees/",
        f"/director/tournaments/{slug}/rounds/{event['round']}/",
    ):
        phone.goto(url)
        assert page_width(phone) <= 390, url


def test_the_dashboard_is_a_card_per_table_on_a_390_px_phone(
    browser_context: ContextFactory, event: dict[str, Any]
) -> None:
    """The dashboard's seven columns (~700 px) scrolled sideways inside their box on a phone,
    so a table's status, referee and "Open" were out of sight; each table is now a card.
    On a desk the links cell stays a table cell (a flex cell cut the row's borders short)."""
    url = f"/director/tournaments/{event['slug']}/"
    phone = browser_context(viewport=PHONE_390, user=event["director"]).new_page()
    phone.goto(url)
    assert page_width(phone) <= 390
    fit = width_and_box(phone, "table.dashboard")
    assert fit[0] <= fit[1], f"the dashboard scrolls sideways: {fit}"
    outside = phone.evaluate(
        """() => [...document.querySelectorAll('table.dashboard td')]
                 .filter(e => { const r = e.getBoundingClientRect();
                                return r.width && (r.left < 0 || r.right > window.innerWidth); })
                 .map(e => e.textContent.trim().slice(0, 20))"""
    )
    assert outside == []
    desk = browser_context(viewport=DESKTOP, user=event["director"]).new_page()
    desk.goto(url)
    assert (
        desk.evaluate(
            "getComputedStyle(document.querySelector('table.dashboard td.actions')).display"
        )
        == "table-cell"
    )


def test_a_credential_just_issued_fits_a_390_px_phone(
    browser_context: ContextFactory, event: dict[str, Any]
) -> None:
    """The referee's link and key, shown once after issuing, are long unbroken strings: they
    widened the Referees page to ~700 px on a phone, the page a director hands links out from."""
    phone = browser_context(viewport=PHONE_390, user=event["director"]).new_page()
    phone.goto(f"/director/tournaments/{event['slug']}/referees/")
    phone.locator("tr", has_text="ref-rosa").get_by_role("button").click()
    link = phone.locator("#issued-link")
    assert "/ref/#" in (link.get_attribute("href") or "")
    assert page_width(phone) <= 390
    box = link.bounding_box()
    assert box is not None
    assert box["x"] + box["width"] <= 390


@pytest.mark.parametrize("language", sorted(LOCALES))
def test_the_round_pages_tables_and_their_actions_fit_a_390_px_phone(
    browser_context: ContextFactory, event: dict[str, Any], artifacts_dir: Path, language: str
) -> None:
    """The round page's five columns (703 px) scrolled sideways inside their box on a phone,
    so reaching a table's Forfeit, Override and referee took a sideways swipe. On a phone each
    table is now a card (number, status, hands; seats; actions and referee); desktop keeps the
    table."""
    url = f"/director/tournaments/{event['slug']}/rounds/{event['round']}/"
    phone = browser_context(
        viewport=PHONE_390, user=event["director"], locale=LOCALES[language]
    ).new_page()
    phone.goto(url)
    phone.screenshot(path=artifacts_dir / f"round-390-{language}.png", full_page=True)
    assert page_width(phone) <= 390
    fit = width_and_box(phone, "#round-tables")
    assert fit[0] <= fit[1], f"the tables scroll sideways: {fit}"
    # Every action, the referee drop-down and its button are on the screen.
    outside = phone.evaluate(
        """() => [...document.querySelectorAll('#round-tables .match-actions a, '
                   + '#round-tables .match-actions select, #round-tables .match-actions button')]
                 .filter(e => { const r = e.getBoundingClientRect();
                                return r.left < 0 || r.right > window.innerWidth; })
                 .map(e => e.id || e.textContent)"""
    )
    assert outside == []
    # A thumb reaches them: a table's number and its actions are 44 px targets on a phone.
    small = phone.evaluate(
        """() => [...document.querySelectorAll('#round-tables td:first-child > a, '
                   + '#round-tables .match-actions > a')]
                 .filter(e => { const r = e.getBoundingClientRect();
                                return r.width < 44 || r.height < 44; })
                 .map(e => e.id || e.textContent)"""
    )
    assert small == []
    assert phone.locator("#round-tables .match-actions a[id^=override-]").count() == 2
    hands = phone.locator("#round-tables td.hands-cell").first
    label = "Manos" if language == "es" else "Hands"
    assert label in hands.evaluate("e => getComputedStyle(e, '::before').content")

    desk = browser_context(
        viewport=DESKTOP, user=event["director"], locale=LOCALES[language]
    ).new_page()
    desk.goto(url)
    assert (
        desk.evaluate("getComputedStyle(document.querySelector('#round-rows tr')).display")
        == "table-row"
    )
    assert desk.locator("#round-tables thead th").first.is_visible()
    assert page_width(desk) <= DESKTOP["width"]


@pytest.mark.parametrize("language", sorted(LOCALES))
def test_the_stages_page_fits_a_390_px_phone(
    browser_context: ContextFactory, event: dict[str, Any], language: str
) -> None:
    """The rounds table of the stages page (594 px in Spanish) scrolls inside its own box."""
    phone = browser_context(
        viewport=PHONE_390, user=event["director"], locale=LOCALES[language]
    ).new_page()
    phone.goto(f"/director/tournaments/{event['slug']}/stages/")
    assert phone.locator("table.rounds").count() >= 1
    assert page_width(phone) <= 390


@pytest.mark.parametrize("language", sorted(LOCALES))
def test_the_tournament_forms_fit_a_390_px_phone(
    browser_context: ContextFactory, event: dict[str, Any], language: str
) -> None:
    """The preset drop-down names each preset ("World Series with a play-off when all have
    one (wsod_playoff)"): a fieldset is as wide as its widest content by default, so the new
    tournament and settings forms grew to 556 px (623 px in Spanish)."""
    phone = browser_context(
        viewport=PHONE_390, user=event["director"], locale=LOCALES[language]
    ).new_page()
    for url in ("/director/new/", f"/director/tournaments/{event['slug']}/settings/"):
        phone.goto(url)
        assert phone.locator("#id_ruleset_preset").count() == 1
        assert page_width(phone) <= 390, url


def test_the_dashboard_seats_do_not_run_over_each_other_on_a_390_px_phone(
    browser_context: ContextFactory, event: dict[str, Any], artifacts_dir: Path
) -> None:
    """On a phone the dashboard's two columns of seats were narrower than a long surname, so
    "Estevez" ran under the score beside it and the next seat's letter sat under that score."""
    phone = browser_context(viewport=PHONE_390, user=event["director"]).new_page()
    phone.goto(f"/director/tournaments/{event['slug']}/")
    phone.screenshot(path=artifacts_dir / "dashboard-390.png", full_page=True)
    assert phone.locator(".seat-scores li").count() == 8
    overlaps = phone.evaluate(
        """() => [...document.querySelectorAll('.seat-scores li')].filter(li => {
                 const box = li.getBoundingClientRect();
                 const who = li.querySelector('span').getBoundingClientRect();
                 const score = li.querySelector('.num').getBoundingClientRect();
                 return who.right > score.left + 1 || score.right > box.right + 1;
               }).map(li => li.textContent)"""
    )
    assert overlaps == []
    assert page_width(phone) <= 390


def test_the_partnerships_page_fits_a_390_px_phone(
    browser_context: ContextFactory, transactional_db: Any
) -> None:
    """The partnerships table with its substitute forms (614 px) scrolls inside its own box
    instead of widening the director's page on a phone (T9, T11)."""
    from tests.brackets.pairs_helpers import make_pairs_tournament

    t, director, _ = make_pairs_tournament(3)
    phone = browser_context(viewport=PHONE_390, user=director).new_page()
    phone.goto(f"/director/tournaments/{t.slug}/pairs/")
    assert phone.locator("table.pairs").count() == 1
    assert page_width(phone) <= 390


def test_the_phone_standings_legend_explains_only_the_columns_it_shows(
    browser_context: ContextFactory, event: dict[str, Any]
) -> None:
    """Walkthrough: on a phone the standings hide the H2H and P columns, yet the legend
    under the table still explained both. The legend follows the columns at each width."""
    url = f"/live/{event['slug']}/standings/"

    def explained(page: Page) -> list[str]:
        return list(
            page.evaluate(
                "[...document.querySelectorAll('.legend dt')]"
                ".filter(dt => dt.offsetParent !== null).map(dt => dt.textContent.trim())"
            )
        )

    def headed(page: Page) -> set[str]:
        return set(
            page.evaluate(
                "[...document.querySelectorAll('.standings thead th')]"
                ".filter(th => th.offsetParent !== null).map(th => th.textContent.trim())"
            )
        )

    phone = browser_context(viewport=PHONE_390).new_page()
    phone.goto(url)
    assert "H2H" not in headed(phone)
    assert explained(phone)
    assert "H2H" not in explained(phone)
    assert "P" not in explained(phone)
    assert "W" in explained(phone)
    desk = browser_context(viewport=DESKTOP).new_page()
    desk.goto(url)
    assert {"H2H", "P"} <= headed(desk)
    assert {"H2H", "P"} <= set(explained(desk))


@pytest.fixture
def forfeited(transactional_db: Any, settings: Any) -> Any:
    """A table of four forfeited mid-match (T7), its continuation played out."""
    from tests.live.forfeit_event import forfeit_event

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    return forfeit_event()


def test_a_finished_matchs_referee_page_and_its_round_fit_a_360_px_phone(
    browser_context: ContextFactory, forfeited: Any, artifacts_dir: Path
) -> None:
    """The referee match page of a finished match, signed in as a director: its "Back to the
    round: what comes next" link is drawn as a button, an inline box that broke on a 360 px
    phone into two boxes over each other ("next" on a box of its own). It is one box now,
    inside the result card and a thumb's height. The round page it leads to, with the
    forfeited match's "played on at the continuation" seats (T7), fits the phone too."""
    phone = browser_context(viewport=PHONE, user=forfeited.director).new_page()
    phone.goto(f"/matches/{forfeited.forfeited.pk}/")
    # The header of a director's referee page ("My matches", "Round", "Dashboard", Sign out,
    # the language): "Dashboard" ran under Sign out and the language selector.
    assert header_problems(phone) == []
    button = phone.locator("#result-round")
    button.scroll_into_view_if_needed()
    phone.screenshot(path=artifacts_dir / "referee-finished-360.png", full_page=True)
    assert page_width(phone) <= PHONE["width"]
    shape = button.evaluate(
        """(a) => { const card = a.closest('.result-card').getBoundingClientRect();
                    const box = a.getBoundingClientRect();
                    return { boxes: a.getClientRects().length, height: box.height,
                             inside: box.left >= card.left && box.right <= card.right,
                             fits: a.scrollWidth <= a.clientWidth }; }"""
    )
    assert shape["boxes"] == 1, shape  # one box, not a line box per wrapped line
    assert shape["inside"], shape
    assert shape["fits"], shape
    assert shape["height"] >= 48, shape
    button.click()
    phone.wait_for_url(f"**/rounds/{forfeited.round.pk}/#match-{forfeited.forfeited.pk}")
    phone.screenshot(path=artifacts_dir / "round-forfeit-360.png", full_page=True)
    assert page_width(phone) <= PHONE["width"]
    played_on = phone.locator(f"#match-{forfeited.forfeited.pk} .played-on")
    assert played_on.count() == 3
    assert header_problems(phone) == []


@pytest.mark.parametrize("width", [320, 360])
@pytest.mark.parametrize("language", sorted(LOCALES))
def test_the_site_header_has_a_place_for_every_item_on_a_narrow_phone(
    browser_context: ContextFactory, forfeited: Any, width: int, language: str
) -> None:
    """Every page of the base header, signed in as a director (the most links and Sign out):
    at 360 px and 320 px no link, button or selector runs under another or off the page (the
    header wraps to a second row)."""
    from django.urls import reverse

    slug = forfeited.tournament.slug
    urls = [
        f"/matches/{forfeited.forfeited.pk}/",  # the referee page: a director's three links
        reverse("scoring:referee-home"),
        reverse("scoring:director-dashboard", args=[slug]),
        reverse("tournament:director-home"),
        reverse("brackets:round", args=[slug, forfeited.round.pk]),
        reverse("brackets:bracket", args=[slug]),
        f"/live/{slug}/",
        f"/live/{slug}/rounds/{forfeited.round.pk}/results/",
        f"/stats/{slug}/",
        "/rules/",
    ]
    phone = browser_context(
        viewport={"width": width, "height": 740},
        user=forfeited.director,
        locale=LOCALES[language],
    ).new_page()
    for url in urls:
        phone.goto(url)
        assert header_problems(phone) == [], url


@pytest.mark.parametrize("width", [320, 360])
@pytest.mark.parametrize("language", sorted(LOCALES))
def test_the_leaders_page_fits_a_narrow_phone(
    browser_context: ContextFactory,
    forfeited: Any,
    artifacts_dir: Path,
    width: int,
    language: str,
) -> None:
    """The Leaders page (``/stats/<slug>/``) laid out at 333 px on a 320 px phone: its boards'
    grid asked for columns of at least 18rem beside the page's margins. Every board now fits the
    page's width at 320 and 360 px, in both languages (a board wider than the phone would
    scroll inside its own box); the page itself never scrolls sideways."""
    phone = browser_context(
        viewport={"width": width, "height": 740}, locale=LOCALES[language]
    ).new_page()
    phone.goto(f"/stats/{forfeited.tournament.slug}/")
    phone.screenshot(path=artifacts_dir / f"leaders-{width}-{language}.png", full_page=True)
    assert page_width(phone) <= width
    boards = phone.evaluate(
        """(width) => [...document.querySelectorAll('.leaderboards section')].map(s => {
                const b = s.getBoundingClientRect();
                return {left: b.left, right: b.right, id: s.getAttribute('aria-labelledby')};
            }).filter(b => b.left < 0 || b.right > width)""",
        width,
    )
    assert boards == []
    assert phone.locator(".leaderboard").count() >= 3
