"""The archive round trip of a finished pairs event (T9-T11).

Bug: the archive had no partnerships (nor their members, hand confirmations or disputes): an
imported pairs event had entry format ``pairs`` and no partnership, so its standings were
empty tables, "No match of this stage is finished yet", and its bracket and home page showed
nothing. Now those tables are archived (format 3) and every public page and document of the
imported copy is byte for byte the original's.
"""

from __future__ import annotations

import io
import json
import zipfile
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from archive.services import FORMAT_VERSION, archive_import
from scoring.models import Hand, HandConfirmation, ResultDispute
from tests.archive.helpers import exported_then_emptied, rewrite_archive
from tests.archive.test_archive_round_trip import _render, _urls
from tests.brackets.pairs_helpers import finished_pairs_event
from tests.factories import UserFactory
from tournament.models import Partnership, PartnershipMember, Tournament


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    # Spectator broadcasts are not under test here; Redis round trips per hand are slow.
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def _records(t: Tournament) -> tuple[Any, ...]:
    return (
        sorted(Partnership.objects.filter(tournament=t).values_list("id", "number", "name")),
        sorted(
            PartnershipMember.objects.filter(partnership__tournament=t).values_list(
                "id", "partnership_id", "entry_id", "slot", "left_at"
            )
        ),
        sorted(
            HandConfirmation.objects.filter(hand__match__tournament=t).values_list(
                "id", "hand_id", "seat", "with_pin", "recorded_by__last_name"
            )
        ),
        sorted(
            ResultDispute.objects.filter(match__tournament=t).values_list(
                "id", "hand_id", "seat", "status", "reason", "recorded_by__last_name"
            )
        ),
    )


@pytest.mark.django_db(transaction=True)
def test_a_finished_pairs_event_comes_back_with_its_partnerships_and_every_page(
    tmp_path: Any,
) -> None:
    t, director = finished_pairs_event(8, name_first="Los Primos")
    # A player's confirmation and a settled dispute, tapped on the phone of an account that
    # nothing else of the event names (the archive brings that account too).
    hand = Hand.objects.filter(match__tournament=t, void=False).order_by("id").first()
    assert hand is not None
    tapper = UserFactory(last_name="Tapper")
    HandConfirmation.objects.create(hand=hand, seat=1, recorded_by=tapper, with_pin=True)
    ResultDispute.objects.create(
        match=hand.match,
        hand=hand,
        seat=1,
        claimed={"end": "block"},
        status=ResultDispute.Status.UPHELD,
        recorded_by=tapper,
        resolved_by=director,
        resolved_at=timezone.now(),
        reason="the referee's sheet",
    )
    urls = _urls(t)
    before = _render(urls)
    records = _records(t)
    assert len(records[0]) == 8  # partnerships
    assert len(records[1]) == 16  # their members

    path = tmp_path / "pairs.zip"
    call_command("tournament_archive", "export", t.slug, str(path), stdout=StringIO())
    with zipfile.ZipFile(path) as zf:
        manifest = json.loads(zf.read("manifest.json"))
    assert manifest["format_version"] == FORMAT_VERSION == 3
    rows = {f["table"]: f["rows"] for f in manifest["files"]}
    assert rows["tournament_partnership"] == 8
    assert rows["tournament_partnershipmember"] == 16
    assert rows["scoring_handconfirmation"] == 1
    assert rows["scoring_resultdispute"] == 1

    call_command("flush", interactive=False, verbosity=0)
    call_command("tournament_archive", "import", str(path), stdout=StringIO())
    restored = Tournament.objects.get()
    assert restored.entry_format == "pairs"
    assert _records(restored) == records
    after = _render(urls)
    differing = [u for u in urls if before[u] != after[u]]
    assert not differing, differing[:5]
    # The standings and bracket are the played ones, not empty tables.
    standings = json.loads(after[f"/api/live/{t.slug}/standings/"])
    assert all(stage["rows"] for stage in standings["stages"])
    bracket = json.loads(after[f"/api/live/{t.slug}/bracket/"])
    assert bracket["champion_pair"] is not None
    assert len(bracket["pair_placings"]) == 8
    assert b"Los Primos" in after[f"/live/{t.slug}/standings/"]
    # The account only the confirmation named is restored, inactive like every other.
    tapper_copy = get_user_model().objects.get(last_name="Tapper")
    assert not tapper_copy.is_active


@pytest.mark.django_db
def test_a_version_2_archive_still_imports_without_the_version_3_files() -> None:
    """An archive made before format 3 has no partnership, confirmation or dispute file: it
    is read as before (nothing of them to restore)."""
    from tests.factories import EntryFactory, TournamentFactory

    t = TournamentFactory()
    EntryFactory(tournament=t)
    data = exported_then_emptied(t)
    src = zipfile.ZipFile(io.BytesIO(data))
    manifest = json.loads(src.read("manifest.json"))
    new = {
        "tournament_partnership",
        "tournament_partnershipmember",
        "scoring_handconfirmation",
        "scoring_resultdispute",
    }
    manifest["format_version"] = 2
    manifest["files"] = [f for f in manifest["files"] if f["table"] not in new]
    old = io.BytesIO()
    with zipfile.ZipFile(old, "w") as zf:
        for name in src.namelist():
            if name.removesuffix(".json") not in new:
                zf.writestr(name, src.read(name))
    old_data = rewrite_archive(old.getvalue(), {"manifest.json": json.dumps(manifest).encode()})
    restored = archive_import(old_data)
    assert restored.pk == t.pk
    assert not Partnership.objects.exists()
