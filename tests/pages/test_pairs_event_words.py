"""A pairs event's pages speak of partnerships where the event is played by partnerships
(T9, T10, R42): the live home names the knockout and its final, the stage summaries and the
placings name each partnership once with both partners, the Players page says players are
then paired, a forfeit names the partnership that forfeits and the one that wins (T7), and the
referee's list shows AC against BD. Individual events keep their wording (checked beside)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from brackets import services
from brackets.models import RoundMatch, Stage
from brackets.selectors.pairs import pairs_placings
from scoring.models import Match, Seat
from scoring.services import hand_record, match_forfeit
from tests.brackets.pairs_helpers import make_pairs_tournament, pairs_stages
from tests.factories import PlayerFactory, TournamentFactory, director_of
from tests.pages.test_pairs_pages import finished_pairs_event
from tournament.models import Entry, Partnership, PartnershipMember, TournamentRole
from tournament.services import referee_create, referee_token_issue

pytestmark = pytest.mark.django_db


def partners(t: Any) -> dict[int, tuple[str, str]]:
    """Partnership id -> its two players' names, in slot order."""
    out: dict[int, list[str]] = {}
    for pid, name in (
        PartnershipMember.objects.filter(partnership__tournament=t, left_at__isnull=True)
        .order_by("partnership__number", "slot")
        .values_list("partnership_id", "entry__player__name")
    ):
        out.setdefault(pid, []).append(name)
    return {pid: (a, b) for pid, (a, b) in out.items()}


def text_of(html: str) -> str:
    """The page's text: tags dropped, entities of '&' read, spaces collapsed."""
    text = " ".join(re.sub(r"<[^>]+>", " ", html).replace("&amp;", "&").split())
    return text.replace("( ", "(").replace(" )", ")")


def individual_event_with_stages(cut: int) -> Any:
    """An individual event with a qualifying stage cut to ``cut`` and a knockout to a final
    table of 4 (T6): no rounds played."""
    t = TournamentFactory(status="running")
    d = director_of(t)
    services.stage_create(
        tournament=t,
        actor=d,
        name="Qualifying",
        kind="qualifying",
        swiss_rounds=2,
        cut_size=cut,
        auto_advance=True,
    )
    services.stage_create(tournament=t, actor=d, name="Final", kind="knockout", auto_advance=True)
    return t


# -- 1. the live home page: the knockout and its final --------------------------------------------


def test_live_home_names_a_pairs_knockout_not_a_final_table_t10(client: Client) -> None:
    t, d, _ = make_pairs_tournament(8)
    pairs_stages(t, d, swiss_rounds=3, cut_size=4)
    assert list(Stage.objects.filter(tournament=t).values_list("pairs", flat=True)) == [True] * 2
    html = text_of(client.get(f"/live/{t.slug}/").content.decode())
    # Four partnerships go on: two tables, then the final between two partnerships (T10).
    assert "Knockout · Partnership knockout to the final · Not started" in html
    assert "top 4 partnerships advance" in html
    assert "Final table only" not in html


def test_live_home_of_a_finished_pairs_event_its_final_and_champion_t10(client: Client) -> None:
    t, _ = finished_pairs_event()  # cut to two partnerships: the knockout is the final alone
    html = text_of(client.get(f"/live/{t.slug}/").content.decode())
    assert "The final only (top two partnerships)" in html
    assert "Final table only" not in html
    assert "The final (two partnerships) · Complete" in html
    assert "Final table ·" not in html
    assert "top 2 partnerships advance" in html
    (first,) = [p for p in pairs_placings(tournament_id=t.pk) if p.place == 1]
    a, b = partners(t)[first.partnership_id]
    assert f"Champion partnership {a} & {b} Final placings" in html


def test_live_home_of_an_individual_event_keeps_final_table_only_t6(client: Client) -> None:
    t = individual_event_with_stages(cut=4)  # the cut is the final table of 4
    html = text_of(client.get(f"/live/{t.slug}/").content.decode())
    assert "Final · Final table only · Not started" in html
    assert "top 4 advance" in html
    assert "partnership" not in html.lower()
    t2 = individual_event_with_stages(cut=8)
    html2 = text_of(client.get(f"/live/{t2.slug}/").content.decode())
    assert "Final · Knockout · Not started" in html2


# -- 2. stage summaries and placings: each partnership once ---------------------------------------


def test_bracket_pages_list_each_partnership_once_t9_t10(client: Client) -> None:
    t, d = finished_pairs_event()
    Partnership.objects.filter(tournament=t, number=1).update(name="Los Primos")
    t.version += 1  # the live documents are cached per version
    t.save(update_fields=["version"])
    names = partners(t)
    places = pairs_placings(tournament_id=t.pk)
    assert [p.place for p in places] == [1, 2, 3, 3]
    labels = []
    for p in places:
        a, b = names[p.partnership_id]
        registered = Partnership.objects.get(pk=p.partnership_id).name
        labels.append(f"{registered} ({a} & {b})" if registered else f"{a} & {b}")
    assert any(label.startswith("Los Primos (") for label in labels)

    live = client.get(f"/live/{t.slug}/bracket/").content.decode()
    items = re.findall(r'<li value="(\d+)" data-pair="(\d+)">(.*?)</li>', live, re.S)
    assert [(int(v), text_of(x)) for v, _, x in items] == [
        (p.place, label) for p, label in zip(places, labels, strict=True)
    ]
    # Both partners link to their own pages, and no player is listed as a place of their own.
    first = places[0]
    for entry_id in first.entry_ids:
        assert f"/live/{t.slug}/players/{entry_id}/" in items[0][2]
    assert '<li value="1"><a' not in live
    page = text_of(live)
    assert f"Champion partnership: {labels[0]}" in page
    assert "4 partnerships (8 players) · top 2 partnerships advance" in page
    advanced = [text_of(x) for x in re.findall(r'<li data-pair="\d+">(.*?)</li>', live, re.S)]
    assert sorted(advanced) == sorted(labels[:2])  # the two partnerships in the final
    assert "Advanced:" not in page
    assert "The final (two partnerships)" in page

    client.force_login(d)
    director = client.get(f"/director/tournaments/{t.slug}/bracket/").content.decode()
    start = director.index('id="placings"')
    section = director[start : director.index("</section>", start)]
    assert [text_of(x) for x in re.findall(r"<li[^>]*>(.*?)</li>", section)] == labels
    summary = text_of(director)
    assert "Final places of the partnerships" in summary
    assert "Qualifying (Swiss-style) · 4 partnerships (8 players) · 2 went on" in summary
    assert "Partnerships that went on to the next stage" in summary
    went_on = director[director.index("advanced-list") :]
    went_on = went_on[: went_on.index("</details>")]
    assert sorted(text_of(x) for x in re.findall(r"<li>(.*?)</li>", went_on)) == sorted(labels[:2])

    api = client.get(f"/api/v1/live/{t.slug}/bracket/").json()
    assert api["pairs"] is True
    assert [(p["place"], p["name"]) for p in api["pair_placings"]] == [
        (p.place, label) for p, label in zip(places, labels, strict=True)
    ]
    assert api["champion_pair"]["pair_id"] == first.partnership_id
    assert len(api["placings"]) == 8  # still every player, for clients of 1.x
    assert api["stages"][0]["partnerships"] == 4
    assert len(api["stages"][0]["advanced_pairs"]) == 2


def test_bracket_pages_of_an_individual_event_list_players(client: Client) -> None:
    from tests.live.conftest import make_live_tournament

    lt = make_live_tournament(8, cut_size=4)
    t = lt.tournament
    live = client.get(f"/live/{t.slug}/bracket/").content.decode()
    assert "partnership" not in live.lower()
    api = client.get(f"/api/v1/live/{t.slug}/bracket/").json()
    assert api["pairs"] is False
    assert api["pair_placings"] == []
    assert api["champion_pair"] is None
    assert {s["partnerships"] for s in api["stages"]} == {None}
    assert {s["pairs"] for s in api["stages"]} == {False}
    client.force_login(lt.director)
    director = text_of(client.get(f"/director/tournaments/{t.slug}/bracket/").content.decode())
    assert "8 entrants" in director
    assert "partnership" not in director.lower()


# -- 3. the Players page of a pairs event ---------------------------------------------------------


def test_players_page_of_a_pairs_event_says_players_are_then_paired_t9(client: Client) -> None:
    t, d, _ = make_pairs_tournament(2, status="registration")
    loner = PlayerFactory(name="Solo Sam")
    Entry.objects.create(tournament=t, player=loner)
    client.force_login(d)
    html = client.get(f"/director/tournaments/{t.slug}/players/import/").content.decode()
    assert 'id="pairs-steps"' in html
    assert f'href="/director/tournaments/{t.slug}/pairs/" id="pairs-link"' in html
    page = text_of(html)
    assert "A pairs event: players, then partnerships (T9)" in page
    assert "2 partnerships registered." in page
    assert "1 player is in no partnership yet: only partnerships are seeded (T9)." in page
    assert "Players (to pair)" in page  # the menu entry
    # Everyone paired: no warning.
    PartnershipMember.objects.create(
        partnership=Partnership.objects.create(tournament=t, number=3, name=""),
        entry=Entry.objects.get(tournament=t, player=loner),
        slot=0,
    )
    again = client.get(f"/director/tournaments/{t.slug}/players/import/").content.decode()
    assert 'id="unpaired"' not in again


def test_players_page_of_an_individual_event_is_unchanged(client: Client) -> None:
    t = TournamentFactory(status="registration")
    client.force_login(director_of(t))
    html = client.get(f"/director/tournaments/{t.slug}/players/import/").content.decode()
    assert 'id="pairs-steps"' not in html
    assert "partnership" not in text_of(html).lower()


# -- 4. a forfeit at a partnership table ----------------------------------------------------------


def pairs_round_one(n: int = 2) -> tuple[Any, Any, Any, Match]:
    t, d, _ = make_pairs_tournament(n)
    q, _k = pairs_stages(t, d, swiss_rounds=1, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    rnd = services.round_publish(stage=q, actor=d)
    link = RoundMatch.objects.filter(round=rnd).order_by("table_number").first()
    assert link is not None
    return t, d, rnd, Match.objects.get(pk=link.match_id)


def test_a_forfeit_at_a_pairs_table_names_the_partnerships_t7_t10(client: Client) -> None:
    t, d, rnd, match = pairs_round_one()
    Partnership.objects.filter(tournament=t, number=1).update(name="Los Primos")
    seats = dict(Seat.objects.filter(match=match).values_list("seat", "entry__player__name"))
    ac = f"{seats[0]} & {seats[2]}"
    bd = f"{seats[1]} & {seats[3]}"
    # Seed 1 (Los Primos) sits at AC of table 1 (T8 snake).
    seat_a = Seat.objects.get(match=match, seat=0).entry_id
    assert PartnershipMember.objects.get(entry_id=seat_a).partnership.name == "Los Primos"
    client.force_login(d)
    url = f"/director/tournaments/{t.slug}/rounds/{rnd.pk}/matches/{match.pk}/forfeit/"
    form = text_of(client.get(url).content.decode())
    assert f"AC · Los Primos ({ac})" in form
    assert f"B · {seats[1]}, of BD · {bd}" in form
    assert "the other partnership wins it (T7, T10)" in form
    confirm = client.post(url, {"seat": "1", "reason": "no-show"})
    assert confirm.status_code == 200
    said = text_of(confirm.content.decode())
    expected = (
        f"{seats[1]} (seat B) forfeits for BD · {bd}: the partnership loses the match "
        f"0\u20136 (T7) and AC · Los Primos ({ac}) win it (T10)."
    )
    assert expected in said
    assert "reseat" not in said  # nobody is reseated: the other partnership has won
    done = client.post(url, {"seat": "1", "reason": "no-show", "confirmed": "yes"})
    assert done.status_code == 302
    (message,) = [str(m) for m in done.wsgi_request._messages]
    assert message == expected
    # The live card: the other partnership won; both partners of the forfeiting one named.
    t.refresh_from_db()
    tables = client.get(f"/api/v1/live/{t.slug}/tables/").json()["tables"]
    card = next(x for x in tables if x["id"] == match.pk)
    assert card["winner_seats"] == [0, 2]
    assert card["winner_seat"] == 0  # the winning partnership's first seat (A)
    page = text_of(client.get(f"/live/{t.slug}/tables/").content.decode())
    # The winning partnership named as the card's partnerships list names it (R42, T9).
    assert (
        f"AC · Los Primos ({ac}) win the match (R42) · Forfeit by {seats[1]}: {bd} "
        "lose 0\u20136 (T7)" in page
    )


def test_an_individual_forfeit_keeps_naming_the_player(client: Client) -> None:
    from tests.live.conftest import make_live_tournament

    lt = make_live_tournament(8, cut_size=4)
    t = lt.tournament
    rnd = lt.round
    link = RoundMatch.objects.filter(round=rnd).order_by("table_number").first()
    assert link is not None
    seats = dict(
        Seat.objects.filter(match_id=link.match_id).values_list("seat", "entry__player__name")
    )
    client.force_login(lt.director)
    url = f"/director/tournaments/{t.slug}/rounds/{rnd.pk}/matches/{link.match_id}/forfeit/"
    form = text_of(client.get(url).content.decode())
    assert f"B · {seats[1]}" in form
    assert ", of " not in form
    said = text_of(client.post(url, {"seat": "1", "reason": "no-show"}).content.decode())
    assert f"{seats[1]} (seat B) forfeits: a 0\u20136 loss (T7)." in said
    assert "partnership" not in said.lower()


# -- 5. the referee's list of matches -------------------------------------------------------------


def referee_phone(t: Any, d: Any, match: Match, username: str) -> Client:
    role = referee_create(tournament=t, actor=d, username=username)
    Match.objects.filter(pk=match.pk).update(referee=role.user)
    token = referee_token_issue(tournament=t, actor=d, user=role.user)
    phone = Client()
    assert phone.post("/ref/", {"key": token.key}).status_code == 200
    return phone


def test_referee_list_shows_partnerships_ac_against_bd_r42(client: Client) -> None:
    t, d, _rnd, match = pairs_round_one()
    Partnership.objects.filter(tournament=t, number=1).update(name="Los Primos")
    seats = dict(Seat.objects.filter(match=match).values_list("seat", "entry__player__name"))
    phone = referee_phone(t, d, match, "pairs-ref")
    page = text_of(phone.get("/referee/").content.decode())
    assert f"AC · Los Primos ({seats[0]} & {seats[2]}) against BD · {seats[1]} & {seats[3]}" in page
    assert f"A · {seats[0]}" not in page  # no seat-by-seat list
    services_forfeit(d, match)
    after = text_of(phone.get("/referee/").content.decode())
    assert "AC 6 \u2013 BD 0" in after  # the partnerships, each with its score: 0-6 (T7)


def services_forfeit(d: Any, match: Match) -> None:
    from scoring.services import match_forfeit

    match_forfeit(match_id=match.pk, actor=d, seat=1, reason="no-show")


def test_referee_list_of_an_individual_match_names_the_seats(client: Client) -> None:
    from tests.live.conftest import make_live_tournament

    lt = make_live_tournament(8, cut_size=4)
    link = RoundMatch.objects.filter(round=lt.round).order_by("table_number").first()
    assert link is not None
    match = Match.objects.get(pk=link.match_id)
    seats = dict(Seat.objects.filter(match=match).values_list("seat", "entry__player__name"))
    phone = referee_phone(lt.tournament, lt.director, match, "solo-ref")
    page = text_of(phone.get("/referee/").content.decode())
    assert f"A · {seats[0]}, B · {seats[1]}, C · {seats[2]}, D · {seats[3]}" in page
    assert "AC ·" not in page
    assert TournamentRole.objects.filter(tournament=lt.tournament, role="referee").exists()


def test_a_forfeiting_partnership_counts_0_in_the_live_bracket_t7(client: Client) -> None:
    """The live bracket's partnerships at a forfeited table show what the standings count:
    the forfeiting partnership 0 whatever it had scored (T7), the other the target, as their
    seats' ``counted_points`` (one figure on every page)."""
    t, d, _rnd, match = pairs_round_one()
    for number, payload in enumerate(
        [
            {"poser": 1, "pose_tile": "6-6", "end": "domino", "winner": 1},
            {"poser": 1, "pose_tile": "5-4", "end": "domino", "winner": 1},
        ],
        start=1,
    ):
        hand_record(match_id=match.pk, actor=d, expected_number=number, payload=payload)
    assert Seat.objects.get(match=match, seat=1).points > 0
    match_forfeit(match_id=match.pk, actor=d, seat=1, reason="no-show")
    doc = client.get(f"/api/v1/live/{t.slug}/bracket/").json()
    table = next(
        x for r in doc["stages"][0]["rounds"] for x in r["tables"] if x["match_id"] == match.pk
    )
    sides = {s["letters"]: s for s in table["sides"]}
    seats = {s["seat"]: s["counted_points"] for s in table["seats"]}
    assert sides["BD"]["forfeited"] is True
    assert (sides["BD"]["placing"], sides["AC"]["placing"]) == (2, 1)
    assert sides["BD"]["points"] == seats[1] == seats[3] == 0  # the 0-6 loss (T7)
    target = Match.objects.get(pk=match.pk).scores[0]
    assert target > 0
    assert sides["AC"]["points"] == seats[0] == seats[2] == target
