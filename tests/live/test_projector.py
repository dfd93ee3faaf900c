"""Projector standings: the top rows, and the cut line when it falls below them (T6)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from brackets import services
from live.templatetags.live_tags import projector_standings
from tests.brackets.pairs_helpers import qualified_for_the_final
from tests.live.conftest import finish_round_fast, make_live_tournament


def _stage(n: int, cut: int | None) -> dict[str, Any]:
    return {
        "cut": cut,
        "rows": [{"rank": i + 1, "cut_after": cut is not None and i == cut - 1} for i in range(n)],
    }


def _ranks(slide: dict[str, Any]) -> list[int]:
    return [row["rank"] for row in slide["rows"]]


@pytest.mark.parametrize(
    ("n", "cut", "top_slides", "cut_ranks"),
    [
        (100, 64, 4, list(range(59, 71))),  # the line between 64 and 65, in the middle
        (300, 128, 4, list(range(123, 135))),
        (100, 47, 4, list(range(42, 54))),  # on the top slides' last rows: shown with context
        (100, 40, 4, None),  # well within the top 48: no extra slide
        (100, None, 4, None),  # no cut (a final, a knockout)
        (30, 16, 3, None),  # a small field fits on the top slides
        (60, 60, 4, None),  # everyone advances: no line to show
        (0, 8, 0, None),
    ],
)
def test_projector_slides(
    n: int, cut: int | None, top_slides: int, cut_ranks: list[int] | None
) -> None:
    slides = projector_standings(_stage(n, cut))
    top = [s for s in slides if not s["cut"]]
    assert len(top) == top_slides
    assert [r for s in top for r in _ranks(s)] == list(range(1, min(n, 48) + 1))
    assert all(len(s["rows"]) <= 12 for s in slides)
    cut_slides = [s for s in slides if s["cut"]]
    if cut_ranks is None:
        assert cut_slides == []
    else:
        assert [_ranks(s) for s in cut_slides] == [cut_ranks]
        assert sum(row["cut_after"] for row in cut_slides[0]["rows"]) == 1
    assert slides == [*top, *cut_slides]  # the line comes after the top


def test_projector_without_standings_has_no_standings_slides() -> None:
    assert projector_standings(None) == []


@pytest.mark.django_db
def test_projector_page_shows_the_cut_line_of_a_large_field(client: Any) -> None:
    # One round: once it is played the line is drawn even through a tie (T6); before the last
    # round a tie across it draws none (README, "Before the first result").
    lt = make_live_tournament(80, swiss_rounds=1, cut_size=64, slug="big-open")
    finish_round_fast(lt.round, seed=1)  # no cut line before a result
    html = client.get("/live/big-open/projector/").content.decode()
    sections = re.findall(r'<section class="slide".*?</section>', html, re.S)
    standings = [s for s in sections if '<table class="standings"' in s]
    assert len(standings) == 5  # 48 rows on four slides, then the cut line
    line = standings[-1]
    assert "Cut line: the top 64 advance" in line
    assert line.count("<tr class=") == 12
    assert line.count("cut-after") == 1
    es = client.get("/live/big-open/projector/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Línea de corte: pasan los 64 primeros" in es


@pytest.mark.django_db
def test_the_tables_slide_names_a_final_round_not_only_its_number(client: Any) -> None:
    """Walkthrough of a pairs event: the projector's tables slide read "Live tables · Round 1"
    for the final, as for a qualifying round 1. A round other than a qualifying one now says
    what it is, as the tables page does: the final between two partnerships (T10)."""
    t, d, _q, k = qualified_for_the_final(4, status="registration")
    services.round_publish(stage=k, actor=d)
    html = client.get(f"/live/{t.slug}/projector/").content.decode()
    heading = re.search(r'<section class="slide"[^>]*>\s*<h2>(.*?)</h2>', html, re.S)
    assert heading is not None
    text = re.sub(r"<[^>]+>", "", heading.group(1))
    assert "Round 1 · The final (two partnerships)" in text


@pytest.mark.django_db
def test_the_tables_slide_of_a_qualifying_round_says_its_number_alone(client: Any) -> None:
    make_live_tournament(8, slug="small-open")
    html = client.get("/live/small-open/projector/").content.decode()
    heading = re.search(r'<section class="slide"[^>]*>\s*<h2>(.*?)</h2>', html, re.S)
    assert heading is not None
    assert re.sub(r"<[^>]+>", "", heading.group(1)).strip() == "Live tables · Round 1"
