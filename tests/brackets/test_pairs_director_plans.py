"""The director's stage and seeding pages describe a pairs event in partnerships (T9, T10):
round 1 seats two partnerships a table (an odd one out has a bye), and the knockout plays down
to a final of two partnerships, never an individual "final table of 4"."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from brackets import services
from tests.brackets.pairs_helpers import make_pairs_tournament, pairs_stages, seeded_pairs
from tournament.models import Partnership

pytestmark = pytest.mark.django_db


def test_seeding_page_plans_round_1_in_partnerships_t9() -> None:
    t, d, _ = make_pairs_tournament(7)
    q, _ = pairs_stages(t, d, swiss_rounds=2, cut_size=4, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    client = Client()
    client.force_login(d)
    page = client.get(f"/director/tournaments/{t.slug}/stages/{q.pk}/seeding/").content.decode()
    assert "7 partnerships: 3 tables of two partnerships, 1 bye (T9)." in page
    assert "tables of 3" not in page


def test_stages_page_plans_the_pairs_knockout_down_to_a_final_of_two_t10() -> None:
    t, d, _ = make_pairs_tournament(7)
    pairs_stages(t, d, swiss_rounds=2, cut_size=4, auto_advance=False)
    client = Client()
    client.force_login(d)
    page = client.get(f"/director/tournaments/{t.slug}/stages/").content.decode()
    assert "4 → 2 partnerships (the final: one match between two partnerships, T10)" in page
    assert "the final table itself" not in page


def _seed_order(stage: Any) -> list[int]:
    from brackets.models import StageEntry

    return list(
        StageEntry.objects.filter(stage=stage).order_by("seed").values_list("entry_id", flat=True)
    )


def _units(t: Any) -> list[list[int]]:
    from tournament.partnerships import partnership_list

    return [[e for e, *_ in view.players] for view in partnership_list(tournament_id=t.pk)]


def test_seeding_list_moves_a_partnership_not_a_player_t9() -> None:
    """The seeding list names each partnership once and its arrow moves both partners past
    a whole partnership; the no-script POST and the service agree."""
    t, d, q = seeded_pairs(3)
    pairs = list(Partnership.objects.filter(tournament=t).order_by("number"))
    client = Client()
    client.force_login(d)
    url = f"/director/tournaments/{t.slug}/stages/{q.pk}/seeding/"
    page = client.get(url).content.decode()
    a, b, c = _units(t)
    assert _seed_order(q) == [*a, *b, *c]
    # One pair of arrows per partnership, on its first row; the second row has none.
    assert f'value="{b[0]}:up"' in page
    assert f'value="{b[1]}:up"' not in page
    assert page.count(f'data-unit="{pairs[1].pk}"') == 2
    order = [str(e) for e in _seed_order(q)]
    r = client.post(
        f"/director/tournaments/{t.slug}/stages/{q.pk}/reorder/",
        {"order": order, "move": f"{b[0]}:up"},
    )
    assert r.status_code == 302
    assert _seed_order(q) == [*b, *a, *c]


def test_a_saved_order_that_splits_partners_keeps_them_together_t9() -> None:
    """A dragged or API order that puts a player between two partners is stored with each
    partnership at its first player's place (seeds 2k+1, 2k+2 stay partners)."""
    t, d, q = seeded_pairs(3)
    a, b, c = _units(t)
    services.stage_seed_reorder(stage=q, actor=d, order=[c[1], a[0], c[0], b[0], a[1], b[1]])
    assert _seed_order(q) == [*c, *a, *b]


def test_an_unrated_partner_does_not_halve_the_partnership_rating_t8() -> None:
    """By rating, a partnership ranks by its partners' known ratings: 1545 with an unrated
    partner is ahead of 1300 and 1350 (with 0 for the unknown it would be 772.5, last)."""
    from tournament.models import Player

    t, d, _ = make_pairs_tournament(3)
    a, b, c = _units(t)
    ratings = {a[0]: 1300, a[1]: 1350, b[0]: 1545, b[1]: None, c[0]: None, c[1]: None}
    for entry_id, rating in ratings.items():
        Player.objects.filter(entries__pk=entry_id).update(rating=rating)
    q, _ = pairs_stages(t, d, swiss_rounds=2, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    assert _seed_order(q) == [*b, *a, *c]


def test_the_seeding_list_shows_the_rating_seeding_uses_t8() -> None:
    """A player with rated matches is seeded by the system rating (T8): the list shows that
    figure, with the rating entered at registration beside it, so the order reads right."""
    from ratings.models import PlayerRating
    from tournament.models import Player

    t, d, _ = make_pairs_tournament(2)
    a, _b = _units(t)
    rated = Player.objects.get(entries__pk=a[0])
    Player.objects.filter(pk=rated.pk).update(rating=1800)
    PlayerRating.objects.create(player=rated, mu=25.0, sigma=1.0, matches=4)  # 1880
    q, _ = pairs_stages(t, d, swiss_rounds=1, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    client = Client()
    client.force_login(d)
    page = client.get(f"/director/tournaments/{t.slug}/stages/{q.pk}/seeding/").content.decode()
    assert "Rating (T8)" in page
    assert "2 partnerships in the seeding (4 players)" in page
    assert "Move partnerships with the arrows" in page
    assert '<td class="num">1880 <small class="muted"' in page
    assert "(entered 1800)" in page


def test_seeding_a_pairs_stage_counts_partnerships_t9() -> None:
    t, d, _ = make_pairs_tournament(3)
    q, _ = pairs_stages(t, d, swiss_rounds=1, cut_size=2, auto_advance=False)
    client = Client()
    client.force_login(d)
    r = client.post(
        f"/director/tournaments/{t.slug}/stages/{q.pk}/seed/", {"method": "rating"}, follow=True
    )
    shown = [str(m) for m in r.context["messages"]]
    assert shown == ["Seeded 3 partnerships by rating."]


def test_the_preview_of_a_final_names_it_without_a_round_number_t10() -> None:
    """A final is one table: its preview reads "Preview: The final (two partnerships)", not
    "Preview: Final table 2" (the 2 was the round number)."""
    from tests.brackets.pairs_helpers import qualified_for_the_final

    t, d, _q, k = qualified_for_the_final(4, status="registration")
    client = Client()
    client.force_login(d)
    page = client.get(f"/director/tournaments/{t.slug}/stages/{k.pk}/preview/").content.decode()
    heading = page.split("<h1>", 1)[1].split("</h1>", 1)[0]
    assert heading == "Preview: The final (two partnerships)"


def test_the_partnerships_page_checks_both_partners_in_at_once_t9() -> None:
    """A partnership plays when both its players are checked in: the Partnerships page does
    it in one step (and back), through the entries' own check-in; directors only."""
    from tests.factories import TournamentFactory
    from tests.factories import director_of as another_director
    from tournament.models import Entry, Partnership

    t, d, pairs = make_pairs_tournament(2)
    p = pairs[0]
    Entry.objects.filter(partnership_member__partnership=p).update(checked_in=False)
    client = Client()
    client.force_login(d)
    url = f"/director/tournaments/{t.slug}/pairs/"
    page = client.get(url).content.decode()
    assert f"/pairs/{p.pk}/check-in/" in page
    assert "check both in" in page
    r = client.post(f"{url}{p.pk}/check-in/", {"checked_in": "1"}, follow=True)
    assert [str(m) for m in r.context["messages"]] == [f"Partnership {p.number} checked in."]
    members = Entry.objects.filter(partnership_member__partnership=p)
    assert all(e.checked_in for e in members)
    client.post(f"{url}{p.pk}/check-in/", {"checked_in": "0"})
    assert not any(e.checked_in for e in members.all())
    # Another tournament's director cannot, and nothing changes.
    client.force_login(another_director(TournamentFactory()))
    assert client.post(f"{url}{p.pk}/check-in/", {"checked_in": "1"}).status_code == 403
    assert not any(e.checked_in for e in members.all())
    assert Partnership.objects.filter(pk=p.pk).exists()
