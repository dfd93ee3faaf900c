"""The live home of a finished tournament names the champion, links the final placings and
says "Finished" instead of "Live", under the heading "Results"; a final-table-only stage (T6)
is named as such."""

from __future__ import annotations

from typing import Any

import pytest

from tests.live.conftest import add_knockout, make_live_tournament
from tests.live.test_live_selectors import _advance_until_done, final_placings
from tournament.models import Player, Tournament

pytestmark = pytest.mark.django_db


def test_finished_home_names_the_champion_and_says_finished(client: Any, settings: Any) -> None:
    settings.LIVE_VERSION_MAX_AGE = 0  # read the tournament afresh on every request
    lt = make_live_tournament(8, swiss_rounds=1, cut_size=4, slug="done-home")
    add_knockout(lt, name="Final")
    # While in play: the green "Live" status, no champion yet.
    html = client.get("/live/done-home/").content.decode()
    assert 'id="champion"' not in html
    assert "data-finished" not in html
    assert "live-status-connecting" in html
    assert "<h1>Live <span" in html

    _advance_until_done(lt)
    Tournament.objects.filter(pk=lt.tournament.pk).update(
        status=Tournament.Status.FINISHED, version=lt.tournament.version + 100
    )
    champion = next(p for p in final_placings(lt) if p.place == 1)
    name = Player.objects.get(entries__pk=champion.entry_id).name

    html = client.get("/live/done-home/").content.decode()
    section = html.split('id="champion"', 1)[1].split("</section>", 1)[0]
    assert name in section
    assert f"/live/done-home/players/{champion.entry_id}/" in section
    assert "/live/done-home/bracket/#h-placings" in section
    assert 'data-finished="1"' in html
    assert 'class="live-status live-status-finished"' in html
    assert "live-status-connecting" not in html
    assert "<h1>Results <span" in html
    assert "<h1>Live" not in html
    spanish = client.get("/live/done-home/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "<h1>Resultados <span" in spanish
    # The second stage was set up as the final table only (cut 4 = final table of 4).
    assert "Final table only" in html.split('id="h-stages"', 1)[1]
