"""Table sheets at a big event: each table's QR code (a stable, non-secret address, issue 15)
is drawn once, not on every view of the sheets; a credential's code is never kept."""

from __future__ import annotations

import re
from typing import Any

import pytest
import qrcode
from django.core.cache import cache
from django.urls import reverse

from brackets.services import round_publish, stage_seed
from tests.brackets.factories_pages import director_client, tournament_with_stage
from tournament.qr import public_qr_svgs, qr_svg

pytestmark = pytest.mark.django_db


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the QR library draws, in order."""
    calls: list[str] = []
    real = qrcode.make

    def counting(data: Any = None, **kwargs: Any) -> Any:
        calls.append(str(data))
        return real(data, **kwargs)

    monkeypatch.setattr(qrcode, "make", counting)
    return calls


def _codes(html: bytes) -> list[bytes]:
    return re.findall(rb"<path [^>]*>", html)


def test_sheets_draw_each_table_code_once(drawn: list[str]) -> None:
    """75 codes took over a second on every view of a 300-player round's sheets."""
    tournament, director, stage = tournament_with_stage(16, referees=0)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    client = director_client(director)
    url = reverse("brackets:sheets", args=[tournament.slug, rnd.pk])
    cache.clear()
    first = client.get(url)
    assert first.status_code == 200
    assert len(drawn) == 4  # four tables, one code each
    assert all(f"/t/{tournament.slug}/table/" in text for text in drawn)
    again = client.get(url)
    assert again.status_code == 200
    assert len(drawn) == 4  # nothing drawn again
    assert again.content.count(b'<svg class="qr"') == 4
    assert len(_codes(first.content)) == 4
    assert _codes(again.content) == _codes(first.content)
    # The label is read out in the page's language: it is not part of what is kept.
    assert b'aria-label="QR code"' in again.content
    spanish = client.get(url, HTTP_ACCEPT_LANGUAGE="es")
    assert spanish.content.count('aria-label="Código QR"'.encode()) == 4
    assert _codes(spanish.content) == _codes(first.content)
    assert len(drawn) == 4


def test_a_secret_is_drawn_every_time_and_kept_nowhere(drawn: list[str]) -> None:
    cache.clear()
    link = "http://testserver/ref/#prefix.secret"
    assert str(qr_svg(link)) == str(qr_svg(link))
    assert drawn == [link, link]


def test_public_codes_are_read_in_one_cache_round_trip(
    drawn: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A round's sheets read every table's kept code at once (one round trip to Redis), not
    one read a table."""
    import tournament.qr as qr

    reads: list[str] = []

    class Counting:
        def get_many(self, keys: list[str]) -> Any:
            reads.append("get_many")
            return cache.get_many(keys)

        def set_many(self, data: dict[str, str], timeout: int) -> Any:
            return cache.set_many(data, timeout)

        def get(self, key: str) -> Any:  # pragma: no cover - must not be used
            reads.append("get")
            return cache.get(key)

    monkeypatch.setattr(qr, "cache", Counting())
    cache.clear()
    texts = [f"http://testserver/t/x/table/{n}/" for n in (1, 2, 3, 2)]
    first = public_qr_svgs(texts)
    assert drawn == texts[:3]  # the repeated address is drawn once
    again = public_qr_svgs(texts)
    assert drawn == texts[:3]  # nothing drawn again
    assert reads == ["get_many", "get_many"]
    assert {str(v) for v in again.values()} == {str(v) for v in first.values()}
    assert set(first) == set(texts)
