"""Where the director's pages offer a substitute (T11): exactly where the service takes one.

One rule decides, :func:`brackets.services.pairs.partnership_substitute_refusals`: the
Partnerships page shows the form on the rows it allows and its short reason on the others,
and the round page links the partnership with the bye and the partnership that forfeited
(T7). Walkthrough: after a pairs forfeit the Partnerships page took a substitute the round page
did not offer, and every row showed a form the service then refused. Runs on PostgreSQL and in
the embedded SQLite run."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from brackets.services.pairs import partnership_substitute_refusals
from tests.brackets.factories_pages import director_client
from tests.brackets.pairs_helpers import ForfeitRound, round_with_a_forfeit
from tests.pages.test_pairs_pages import finished_pairs_event
from tournament.models import ActionLog, Entry, Partnership, PartnershipMember, Player

pytestmark = pytest.mark.django_db


def pairs_url(t: Any) -> str:
    return reverse("brackets:pairs", args=[t.slug])


def substitute_url(t: Any, pair: Partnership) -> str:
    return reverse("brackets:pair-substitute", args=[t.slug, pair.pk])


def row_of(html: str, pair: Partnership) -> str:
    found = re.search(rf'<tr data-pair="{pair.pk}" id="pair-{pair.pk}">(.*?)</tr>', html, re.S)
    assert found is not None, pair
    return found.group(1)


def members(t: Any) -> list[tuple[int, int, Any]]:
    return list(
        PartnershipMember.objects.filter(partnership__tournament=t)
        .order_by("pk")
        .values_list("partnership_id", "entry_id", "left_at")
    )


def test_the_partnerships_page_offers_the_form_exactly_where_the_service_takes_one() -> None:
    r = round_with_a_forfeit()
    t = r.tournament
    html = director_client(r.director).get(pairs_url(t)).content.decode()
    refusals = partnership_substitute_refusals(
        tournament=t,
        entry_ids=PartnershipMember.objects.filter(
            partnership__tournament=t, left_at__isnull=True
        ).values_list("entry_id", flat=True),
    )
    assert len(refusals) == 5
    for pair in Partnership.objects.filter(tournament=t):
        row = row_of(html, pair)
        refusal = refusals[pair.pk]
        assert (f'id="substitute-form-{pair.pk}"' in row) is (refusal is None), pair
        assert (substitute_url(t, pair) in row) is (refusal is None), pair
        if refusal is not None:
            assert f'id="no-substitute-{pair.pk}">{refusal.reason}<' in row
    # T7, T11: the forfeit ended table 1 for both its partnerships; table 2 is still to play.
    offered = {p.pk for p in Partnership.objects.filter(tournament=t)} - {p.pk for p in r.playing}
    assert offered == {r.forfeiting.pk, r.winners.pk, r.bye.pk}
    assert html.count('id="substitute-form-') == 3
    assert html.count("Has a match still to play: substitute when it is over (T11).") == 2


def test_the_round_page_offers_a_substitute_to_the_partnership_that_forfeited() -> None:
    """The round page and the Partnerships page agree: after a forfeit (T7) the forfeiting
    partnership's table links its row, as the bye does; a table still to play links none."""
    r = round_with_a_forfeit()
    t = r.tournament
    page = director_client(r.director).get(reverse("brackets:round", args=[t.slug, r.round.pk]))
    html = page.content.decode()
    pairs = pairs_url(t)
    table_one = re.search(rf'<tr id="match-{r.forfeited.pk}".*?</tr>', html, re.S)
    assert table_one is not None
    link = re.search(
        rf'<a href="{pairs}#pair-{r.forfeiting.pk}" id="substitute-pair-{r.forfeiting.pk}">'
        r"Substitute in (.+?) \(T11\)</a>",
        table_one.group(0),
    )
    assert link is not None
    no_show = r.forfeited.seats.get(seat=0).entry.player.name
    assert no_show in link.group(1)  # named by who sat there
    assert f'id="substitute-pair-{r.bye.pk}"' in html
    assert html.count('id="substitute-pair-') == 2
    for pair in (r.winners, *r.playing):
        assert f'id="substitute-pair-{pair.pk}"' not in html
    assert "A no-show is a forfeit (T7)" in html  # table 2, still to play


def test_a_substitute_posted_where_the_page_offers_none_is_refused_and_nothing_is_written() -> None:
    """The chain: no form on the row of a partnership at a table still to play; a stale tab
    posts one anyway: 409 with the service's reason on that row (T11), and no player, entry,
    membership or log line is written. The forfeiting partnership's own form is taken."""
    r = round_with_a_forfeit()
    t, c = r.tournament, director_client(r.director)
    pair = r.playing[0]
    assert f'id="substitute-form-{pair.pk}"' not in row_of(
        c.get(pairs_url(t)).content.decode(), pair
    )
    leaving = PartnershipMember.objects.filter(partnership=pair).first()
    assert leaving is not None
    before = (members(t), Entry.objects.filter(tournament=t).count(), ActionLog.objects.count())
    body = {"leaving": leaving.entry_id, "player": "Nadie Nuevo", "club": "", "reason": "ill"}
    refused = c.post(substitute_url(t, pair), body)
    assert refused.status_code == 409
    row = row_of(refused.content.decode(), pair)
    assert f'id="substitute-error-{pair.pk}">A player of this partnership is seated' in row
    assert "(T11)" in row
    after = (members(t), Entry.objects.filter(tournament=t).count(), ActionLog.objects.count())
    assert after == before
    assert not Player.objects.filter(name="Nadie Nuevo").exists()
    no_show = r.forfeited.seats.get(seat=0).entry_id
    taken = c.post(substitute_url(t, r.forfeiting), {**body, "leaving": no_show})
    assert taken.status_code == 302
    assert PartnershipMember.objects.filter(
        partnership=r.forfeiting, left_at__isnull=True, entry__player__name="Nadie Nuevo"
    ).exists()
    assert ActionLog.objects.filter(tournament=t, verb="partnership.substitute").count() == 1


def test_a_bad_substitute_form_names_its_field_and_rule_and_writes_nothing() -> None:
    r: ForfeitRound = round_with_a_forfeit()
    t, c = r.tournament, director_client(r.director)
    no_show = r.forfeited.seats.get(seat=0).entry_id
    before = members(t)
    bad = c.post(substitute_url(t, r.forfeiting), {"leaving": no_show, "player": "Otro"})
    assert bad.status_code == 400
    row = row_of(bad.content.decode(), r.forfeiting)
    assert "Reason (T11): This field is required." in row
    assert 'value="Otro"' in row  # what was typed stays in the form
    assert members(t) == before
    assert not Player.objects.filter(name="Otro").exists()


def test_after_the_event_the_partnerships_page_offers_no_substitute() -> None:
    t, d = finished_pairs_event()
    c = director_client(d)
    html = c.get(pairs_url(t)).content.decode()
    assert 'id="substitute-form-' not in html
    assert html.count(">The tournament is finished.<") == 4
    pair = Partnership.objects.filter(tournament=t).first()
    assert pair is not None
    leaving = PartnershipMember.objects.filter(partnership=pair).first()
    assert leaving is not None
    before = members(t)
    body = {"leaving": leaving.entry_id, "player": "Tarde", "reason": "late"}
    refused = c.post(substitute_url(t, pair), body)
    assert refused.status_code == 409
    assert "is finished" in row_of(refused.content.decode(), pair)
    assert members(t) == before
    assert not Player.objects.filter(name="Tarde").exists()


def test_the_partnerships_page_marks_the_withdrawn_player_and_offers_them_as_leaving() -> None:
    """Walkthrough: after a player withdrew (T7) their partnership's row read as before and
    the substitute form proposed the partner still playing as the one leaving. The row marks
    the player who went out and the form proposes them (T11)."""
    from brackets.services import stage_entry_withdraw

    r = round_with_a_forfeit()
    t = r.tournament
    first, second = (
        PartnershipMember.objects.filter(partnership=r.bye, left_at__isnull=True)
        .order_by("pk")
        .values_list("entry_id", flat=True)
    )
    out = Entry.objects.get(pk=second)
    stage_entry_withdraw(stage=r.stage, actor=r.director, entry=out, reason="ill")
    row = row_of(director_client(r.director).get(pairs_url(t)).content.decode(), r.bye)
    assert row.count("withdrawn (T7)") == 2  # beside the name, and in the form's choice
    selected = re.search(r'<option value="(\d+)" selected>', row)
    assert selected is not None
    assert int(selected.group(1)) == out.pk != first
    untouched = row_of(director_client(r.director).get(pairs_url(t)).content.decode(), r.winners)
    assert "withdrawn (T7)" not in untouched
    assert " selected>" not in untouched
