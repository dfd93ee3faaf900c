"""The round preview's second-bye warning (T1) names who has the bye: in a pairs event the
partnership (T9: an odd partnership out gets the bye; in a knockout round the top seed),
once, as the pairs pages name it; in an individual event the player, as before. Walkthrough:
a pairs knockout preview warned twice, once per partner, naming the players."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from brackets import services
from brackets.models import Stage
from brackets.presenters.director import build_preview, seating_warnings
from brackets.selectors import stage_data_for
from tests.brackets.factories_pages import director_client
from tests.brackets.pairs_helpers import decide_round, make_pairs_tournament
from tests.factories import EntryFactory, TournamentFactory, director_of
from tournament.models import Entry, Partnership, PartnershipMember

pytestmark = [pytest.mark.django_db, pytest.mark.embedded]


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def knockout_round_2() -> tuple[Any, Any, Stage, Partnership]:
    """Five partnerships in a knockout (T10): round 1 seats two tables and the top seed takes
    the bye (T9); AC wins both tables, so round 2 (three partnerships) gives the top seed the
    bye again. Returns the tournament, its director, the stage and the top seed, named."""
    t, d, pairs = make_pairs_tournament(5)
    k = services.stage_create(
        tournament=t, actor=d, name="Knockout", kind="knockout", rng_seed=11, auto_advance=False
    )
    services.stage_seed(stage=k, actor=d, method="rating")
    r1 = services.round_publish(stage=k, actor=d)
    top = PartnershipMember.objects.get(entry_id=r1.byes[0]).partnership
    assert top.pk == pairs[0].pk  # by rating, partnership 1 is the top seed
    Partnership.objects.filter(pk=top.pk).update(name="Los Primos")
    decide_round(r1, d)
    services.round_close(round=r1, actor=d)
    return t, d, k, top


def test_a_pairs_knockout_preview_names_the_partnership_with_a_second_bye_t1_t9() -> None:
    t, d, k, _top = knockout_round_2()
    step = services.round_preview(stage=k, actor=d)
    assert len(step.seating.byes) == 2  # both partners of the top seed
    preview = build_preview(k, step.seating)
    byes = [w.text for w in preview.warnings if w.kind == "bye"]
    assert byes == ["Los Primos (Q0000 & Q0001) had a bye already (round 1)."]
    assert [p.label for p in preview.bye_pairs] == ["Los Primos (Q0000 & Q0001)"]
    # The director's preview page reads the same.
    page = director_client(d).get(reverse("brackets:preview", args=[t.slug, k.pk]))
    html = page.content.decode()
    assert "Los Primos (Q0000 &amp; Q0001) had a bye already (round 1)." in html
    assert "Q0000 had a bye already" not in html
    assert "Q0001 had a bye already" not in html


def test_the_partnership_keeps_its_byes_after_a_substitute_t11() -> None:
    """T11: the partnership keeps its record, byes included: the warning names its current
    players, the substitute with the partner who stayed."""
    from brackets.services.pairs import partnership_substitute
    from tests.factories import PlayerFactory

    _t, d, k, top = knockout_round_2()
    leaving = PartnershipMember.objects.get(partnership=top, slot=1).entry
    partnership_substitute(
        partnership=top, actor=d, leaving=leaving, player=PlayerFactory(name="Sub"), reason="ill"
    )
    step = services.round_preview(stage=k, actor=d)
    preview = build_preview(k, step.seating)
    byes = [w.text for w in preview.warnings if w.kind == "bye"]
    assert byes == ["Los Primos (Q0000 & Sub) had a bye already (round 1)."]


def test_an_individual_stage_still_names_each_player_with_a_second_bye_t1() -> None:
    """Individual events unchanged: six players at one table of 4 leave two byes in round 1;
    a seating giving both the bye again warns once per player, by name."""
    t = TournamentFactory(ruleset_preset="wsod")
    d = director_of(t)
    for i in range(6):
        EntryFactory(tournament=t, checked_in=True, player__name=f"P{i}", player__rating=3000 - i)
    q = services.stage_create(
        tournament=t,
        actor=d,
        name="Swiss",
        kind="qualifying",
        swiss_rounds=2,
        rng_seed=3,
        allow_three=False,
    )
    services.stage_seed(stage=q, actor=d, method="rating")
    r1 = services.round_publish(stage=q, actor=d)
    assert len(r1.byes) == 2
    names = dict(Entry.objects.filter(tournament=t).values_list("pk", "player__name"))
    warnings = seating_warnings(stage_data_for(q), [], list(r1.byes))
    assert [w.text for w in warnings] == [
        f"{names[e]} had a bye already (round 1)." for e in r1.byes
    ]
