"""The spectator documents (JSON bodies and HTML regions), built once per tournament version.

A JSON document is the selector's dict serialised once; an HTML region is rendered from the
cached JSON document in one language. So per version and page, the queries run once, the JSON
is serialised once, and each language renders once, whatever the number of spectators.

Each build reads one consistent snapshot (``REPEATABLE READ``, read-only): a hand committed
half-way through cannot give a page that is half before and half after it.
"""

from __future__ import annotations

import contextlib
import gc
import gzip
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import orjson
from django.conf import settings
from django.db import connection, transaction
from django.template.loader import render_to_string
from django.utils import translation

from core.page_links import PageLink, tournament_links
from live import selectors
from live.cache import cache_key, cached_bytes
from live.scope import PublicTournament
from live.selectors.matches import MatchJSON
from tournament.models import Tournament

JSON = dict[str, Any]

_BUILDERS: dict[str, Callable[[Tournament, tuple[int, ...]], JSON | None]] = {
    "summary": lambda t, _: selectors.tournament_summary(tournament=t),
    "tables": lambda t, _: selectors.live_tables(tournament=t),
    "standings": lambda t, _: selectors.standings(tournament=t),
    "bracket": lambda t, _: selectors.bracket(tournament=t),
    "player": lambda t, extra: selectors.player_results(tournament=t, entry_id=extra[0]),
    "match": lambda t, extra: selectors.match_detail(tournament=t, match_id=extra[0]),
}

# Page -> (the JSON documents its region shows, the region template).
PAGES: dict[str, tuple[tuple[str, ...], str]] = {
    # The bracket document names the champion and the final placings once it is finished.
    "home": (("summary", "bracket"), "live/regions/home.html"),
    "tables": (("summary", "tables"), "live/regions/tables.html"),
    "standings": (("summary", "standings"), "live/regions/standings.html"),
    "bracket": (("bracket",), "live/regions/bracket.html"),
    "player": (("player", "standings"), "live/regions/player.html"),
    "match": (("match",), "live/regions/match.html"),
    "projector": (("summary", "tables", "standings"), "live/regions/projector.html"),
}
TOURNAMENT_WIDE = ("summary", "tables", "standings", "bracket")
WARM_PAGES = ("home", "tables", "standings", "bracket", "projector")

NOT_FOUND = b"null"


def _dumps(data: JSON | None) -> bytes:
    """A document's JSON: compact UTF-8, by orjson. The bytes are those of
    ``json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()`` for what the
    documents hold (text, integers, ordinary floats; asserted in tests/live); a float below
    1e-4 or above 1e16 prints in another exponent form, the same number. A 5,000-player
    standings body (2.2 MB) took 31-49 ms with the standard library and 4-5 ms with orjson, a
    tenth of an uncached build (issue 19). Non-string keys become strings, as json's do."""
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)


_gc_lock = threading.Lock()
_gc_pauses = [0]
_gc_enabled_before = [True]


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a document is built: a 5,000-player standings
    build allocates a few hundred thousand short-lived objects (rows, records, dicts), and the
    full collections they trigger walked the whole heap, 20-30 % of the build (issue 19).
    Nested and concurrent builds (threads) count; the collector runs again after the last."""
    with _gc_lock:
        _gc_pauses[0] += 1
        if _gc_pauses[0] == 1:
            was_enabled = gc.isenabled()
            _gc_enabled_before[0] = was_enabled
            gc.disable()
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses[0] -= 1
            if _gc_pauses[0] == 0 and _gc_enabled_before[0]:
                gc.enable()


def _snapshot_build(t: PublicTournament, kind: str, extra: tuple[int, ...]) -> bytes:
    outermost = not connection.in_atomic_block
    with _gc_paused(), transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        tournament = Tournament.objects.filter(pk=t.id).first()
        if tournament is None:
            return NOT_FOUND
        return _dumps(_BUILDERS[kind](tournament, extra))


def json_document(kind: str, t: PublicTournament, *extra: int) -> bytes:
    """The JSON body of ``kind`` at the tournament's version; ``b"null"`` if nothing is there."""
    key = cache_key(kind, t.id, t.version, *extra)
    return cached_bytes(key, lambda: _snapshot_build(t, kind, extra))


def json_document_gzip(kind: str, t: PublicTournament, *extra: int) -> bytes:
    """:func:`json_document` gzipped, also once per version (a 1,000-player standings body is
    about 420 KB of JSON and 22 KB gzipped: compressing it per request would cost more than
    everything else the request does). Deterministic (no timestamp in the header).
    ``b"null"`` (not gzipped) if nothing is there."""
    key = cache_key(f"{kind}-gz", t.id, t.version, *extra)

    def build() -> bytes:
        body = json_document(kind, t, *extra)
        return body if body == NOT_FOUND else gzip.compress(body, compresslevel=6, mtime=0)

    return cached_bytes(key, build)


def html_region(page: str, t: PublicTournament, *extra: int) -> str | None:
    """The page's live region in the active language, or ``None`` (player/match not found)."""
    kinds, template = PAGES[page]
    language = translation.get_language() or settings.LANGUAGE_CODE

    def build() -> bytes:
        context: dict[str, Any] = {"slug": t.slug, "version": t.version}
        for kind in kinds:
            # Tournament-wide documents are one per version, whatever the page's extra ids.
            ids = () if kind in TOURNAMENT_WIDE else extra
            context[kind] = orjson.loads(json_document(kind, t, *ids))
            if context[kind] is None:
                return NOT_FOUND
        return render_to_string(template, context).encode()

    body = cached_bytes(cache_key(f"html-{page}", t.id, t.version, language, *extra), build)
    if body == NOT_FOUND:
        return None
    return body.decode()


def part_of_links(t: PublicTournament) -> list[PageLink]:
    """The circuits the tournament is part of, as ``(title, url)`` (the circuits app's links,
    :mod:`core.page_links`), built once per tournament version: a change of membership or of
    a circuit bumps the versions of its tournaments (``circuits.receivers``)."""
    body = cached_bytes(
        f"live:part-of:{t.id}:{t.version}",
        lambda: json.dumps(tournament_links(t.id), ensure_ascii=False).encode(),
    )
    return [(text, url) for text, url in json.loads(body)]


def warm_steps() -> list[tuple[str, str]]:
    """What a warm builds, in steps of a fraction of a second each at 1,000 players: the
    JSON documents first (every region reads them), then each page's region per language."""
    return [("", ""), *((code, page) for code, _name in settings.LANGUAGES for page in WARM_PAGES)]


def live_cache_warm_step(t: PublicTournament, step: tuple[str, str]) -> None:
    """Build one step of :func:`warm_steps` for ``t``'s version (a built one reads its cache)."""
    language, page = step
    if not page:
        part_of_links(t)
        for kind in TOURNAMENT_WIDE:
            json_document_gzip(kind, t)
        return
    with translation.override(language):
        html_region(page, t)


def live_cache_warm(t: PublicTournament) -> None:
    """Build every tournament-wide document and page region, in every language."""
    for step in warm_steps():
        live_cache_warm_step(t, step)


def table_card_html(match: MatchJSON, *, slug: str, language: str) -> str:
    """The table card of the live pages for ``match``, rendered in ``language``."""
    with translation.override(language):
        return render_to_string("live/_table_card.html", {"m": match, "slug": slug})
