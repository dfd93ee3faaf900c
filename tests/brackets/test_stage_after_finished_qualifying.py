"""A stage added after a qualifying stage that already ended (T6: the last stage is a final
table, so a qualifying stage is never the last one): it is seeded at once from the finished
stage's advancement, and the event plays on to its champion. After the final, nothing follows."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from brackets import services
from brackets.models import Round, RoundMatch, Stage, StageEntry
from brackets.selectors import tournament_placings
from core.exceptions import ApplicationError, PermissionDeniedError
from tests.brackets.conftest import make_tournament
from tests.brackets.factories_pages import director_client, other_director
from tests.brackets.pairs_helpers import decide_round, make_pairs_tournament
from tests.brackets.test_brackets_services import finish_round
from tests.factories import UserFactory
from tournament.models import ActionLog, Tournament
from tournament.services import tournament_reopen

pytestmark = pytest.mark.django_db


def finished_qualifying(n: int = 8) -> tuple[Tournament, Any, Stage]:
    """``n`` players, one qualifying round without a cut and no stage after it: it ends."""
    t, d = make_tournament(n)
    q = services.stage_create(
        tournament=t,
        actor=d,
        name="Qualifying",
        kind="qualifying",
        swiss_rounds=1,
        rng_seed=7,
        auto_advance=True,
    )
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    finish_round(r1, d)
    services.round_advance(round_id=r1.pk)
    q.refresh_from_db()
    assert q.status == Stage.Status.FINISHED
    return t, d, q


def final_played() -> tuple[Tournament, Any]:
    """Four players and a single knockout stage, its final table played and advanced."""
    t, d = make_tournament(4)
    final = services.stage_create(
        tournament=t, actor=d, name="Final", kind="knockout", auto_advance=True
    )
    services.stage_seed(stage=final, actor=d)
    rnd = services.round_publish(stage=final, actor=d)
    finish_round(rnd, d)
    services.round_advance(round_id=rnd.pk)
    return t, d


def advancement_order(stage: Stage) -> list[int]:
    return list(
        StageEntry.objects.filter(stage=stage, status=StageEntry.Status.ADVANCED)
        .order_by("placing")
        .values_list("entry_id", flat=True)
    )


def test_a_stage_added_after_a_finished_qualifying_stage_is_seeded_and_plays_to_a_champion() -> (
    None
):
    t, d, q = finished_qualifying(8)
    order = advancement_order(q)
    assert len(order) == 8  # no cut: everyone went on (T6)
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING  # no champion yet: a final must follow (T6)

    k = services.stage_create(
        tournament=t,
        actor=d,
        name="Knockout",
        kind="knockout",
        advance_per_table=2,
        rng_seed=3,
        auto_advance=True,
    )
    assert (k.number, k.status, k.seeding) == (2, Stage.Status.SEEDED, Stage.Seeding.STANDINGS)
    seeded = list(k.entrants.order_by("seed").values_list("entry_id", "seed"))
    assert seeded == [(p, i + 1) for i, p in enumerate(order)]  # advancement order (T6)
    # The finished stage reads as if the knockout had existed when it ended: advanced, no place.
    assert set(
        StageEntry.objects.filter(stage=q).values_list("status", "placing", "out_round")
    ) == {(StageEntry.Status.ADVANCED, None, None)}
    assert tournament_placings(tournament_id=t.pk) == []
    log = ActionLog.objects.get(tournament=t, verb="stage.create", data__number=2)
    assert log.data["seeded_from"] == {"stage": 1, "order": order}

    r1 = services.round_publish(stage=k, actor=d, expected_number=1)
    assert RoundMatch.objects.filter(round=r1).count() == 2  # 8 -> two tables, top 2 go on
    finish_round(r1, d)
    services.round_advance(round_id=r1.pk)
    final = Round.objects.get(stage=k, number=2)
    assert final.kind == Round.Kind.FINAL
    finish_round(final, d)
    services.round_advance(round_id=final.pk)
    k.refresh_from_db()
    t.refresh_from_db()
    assert k.status == Stage.Status.FINISHED
    assert t.status == Tournament.Status.FINISHED  # the final table played (T6)
    places = tournament_placings(tournament_id=t.pk)
    assert len(places) == 8
    assert [p.place for p in places][:1] == [1]
    assert sum(1 for p in places if p.place == 1) == 1  # one champion


def test_the_added_stage_must_seat_the_field_the_finished_stage_sent_on() -> None:
    t, d, q = finished_qualifying(5)  # 5 went on: no knockout reaches a final of 4 (T1, T6)
    with pytest.raises(ApplicationError) as exc:
        services.stage_create(tournament=t, actor=d, name="KO", kind="knockout", auto_advance=True)
    assert exc.value.code == "no_knockout_plan"
    assert Stage.objects.filter(tournament=t).count() == 1
    assert sorted(
        p or 0 for p in StageEntry.objects.filter(stage=q).values_list("placing", flat=True)
    ) == [
        1,
        2,
        3,
        4,
        5,
    ]  # the refusal changed nothing
    # A qualifying stage cut to a table is fine; it is seeded at once too.
    q2 = services.stage_create(
        tournament=t,
        actor=d,
        name="Semi",
        kind="qualifying",
        swiss_rounds=1,
        cut_size=4,
        auto_advance=True,
    )
    assert q2.entrants.count() == 5


def test_nothing_follows_a_finished_knockout_the_tournament_is_over() -> None:
    t, d = final_played()
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    with pytest.raises(ApplicationError) as exc:  # a finished tournament is read-only
        services.stage_create(
            tournament=t, actor=d, name="More", kind="knockout", auto_advance=True
        )
    assert exc.value.code == "tournament_finished"
    # Reopened to correct a result, it still has played its final: no stage follows (T6).
    tournament_reopen(tournament=t, actor=d, reason="typo on a score sheet")
    for kind in ("knockout", "qualifying"):
        with pytest.raises(ApplicationError) as exc:
            services.stage_create(
                tournament=t, actor=d, name="More", kind=kind, swiss_rounds=1, auto_advance=True
            )
        assert exc.value.code == "previous_stage_finished"
        assert exc.value.rule == "T6"
    assert Stage.objects.filter(tournament=t).count() == 1


def test_only_the_tournaments_directors_add_the_stage() -> None:
    t, _d, q = finished_qualifying(8)
    _other, other_director = make_tournament(0)
    for actor in (UserFactory(), other_director):
        with pytest.raises(PermissionDeniedError):
            services.stage_create(
                tournament=t, actor=actor, name="KO", kind="knockout", auto_advance=True
            )
    assert Stage.objects.filter(tournament=t).count() == 1
    assert len(advancement_order(q)) == 8


def test_pairs_a_knockout_after_a_finished_qualifying_stage_seeds_partners_together() -> None:
    """T10: partnerships advance; partners keep consecutive seeds, and the final is played."""
    t, d, _pairs = make_pairs_tournament(4)
    q = services.stage_create(
        tournament=t,
        actor=d,
        name="Qualifying",
        kind="qualifying",
        swiss_rounds=1,
        rng_seed=7,
        auto_advance=True,
    )
    services.stage_seed(stage=q, actor=d, method="rating")
    r1 = services.round_publish(stage=q, actor=d)
    decide_round(r1, d)
    services.round_advance(round_id=r1.pk)
    q.refresh_from_db()
    assert q.status == Stage.Status.FINISHED
    order = advancement_order(q)
    assert len(order) == 8  # four partnerships, both partners each

    k = services.stage_create(
        tournament=t, actor=d, name="Knockout", kind="knockout", rng_seed=3, auto_advance=True
    )
    assert k.pairs
    assert k.status == Stage.Status.SEEDED
    assert list(k.entrants.order_by("seed").values_list("entry_id", flat=True)) == order
    rnd = services.round_publish(stage=k, actor=d)
    while rnd is not None:
        decide_round(rnd, d)
        services.round_advance(round_id=rnd.pk)
        rnd = Round.objects.filter(stage=k, number=rnd.number + 1).first()
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED


def test_pairs_the_final_of_the_two_partnerships_a_finished_cut_sent_on() -> None:
    t, d, _pairs = make_pairs_tournament(2)
    q = services.stage_create(
        tournament=t,
        actor=d,
        name="Qualifying",
        kind="qualifying",
        swiss_rounds=1,
        cut_size=2,
        rng_seed=7,
        auto_advance=True,
    )
    services.stage_seed(stage=q, actor=d, method="rating")
    r1 = services.round_publish(stage=q, actor=d)
    decide_round(r1, d)
    services.round_advance(round_id=r1.pk)
    # Two partnerships went on: the final between them can be added (T10).
    k = services.stage_create(
        tournament=t, actor=d, name="Final", kind="knockout", auto_advance=True
    )
    assert k.entrants.count() == 4


# -- the stages page ---------------------------------------------------------------------------


def stages_page(client: Client, t: Tournament) -> str:
    response = client.get(reverse("brackets:stages", args=[t.slug]))
    assert response.status_code == 200
    return str(response.content.decode())


KNOCKOUT_FORM = {
    "name": "Knockout",
    "kind": "knockout",
    "advance_per_table": "2",
    "final_table_size": "4",
    "allow_three": "on",
    "bye_policy": "win",
    "seat_order": "balanced",
    "auto_advance": "on",
}


def test_the_page_offers_the_next_stage_after_a_finished_qualifying_stage() -> None:
    t, d, _q = finished_qualifying(8)
    client = director_client(d)
    page = stages_page(client, t)
    assert 'id="new-stage"' in page
    assert "Add stage 2" in page
    assert 'id="seeded-from-finished"' in page
    assert "Qualifying has finished: the 8 players it sent on seed this stage at once" in page
    assert "no stage can follow it" not in page  # it is not a knockout
    response = client.post(reverse("brackets:stages", args=[t.slug]), KNOCKOUT_FORM)
    assert response.status_code == 302
    k = Stage.objects.get(tournament=t, number=2)
    assert k.status == Stage.Status.SEEDED
    assert k.entrants.count() == 8
    page = stages_page(client, t)
    assert "8 → 4 (final table)" in page  # the knockout plan from the field it was seeded with
    assert 'id="new-stage"' not in page
    assert "The last stage is a knockout to the final table: no stage can follow it (T6)." in page


def test_a_final_table_only_must_match_the_field_the_finished_stage_sent_on() -> None:
    t, d, _q = finished_qualifying(8)
    response = director_client(d).post(
        reverse("brackets:stages", args=[t.slug]), {**KNOCKOUT_FORM, "kind": "final"}
    )
    assert response.status_code == 400
    assert "Qualifying sent 8 players on, the final seats 4 (T6)" in response.content.decode()
    assert Stage.objects.filter(tournament=t).count() == 1


def test_the_page_says_a_final_stage_must_follow_a_qualifying_stage() -> None:
    t, d = make_tournament(8)
    services.stage_create(
        tournament=t,
        actor=d,
        name="Heats",
        kind="qualifying",
        swiss_rounds=1,
        rng_seed=7,
        auto_advance=True,
    )
    page = stages_page(director_client(d), t)
    assert 'id="final-needed"' in page
    assert "Heats is a qualifying stage: a final stage must follow it (T6" in page
    assert 'id="seeded-from-finished"' not in page


def test_after_the_final_the_page_says_the_tournament_is_over() -> None:
    t, d = final_played()
    page = stages_page(director_client(d), t)
    assert 'id="new-stage"' not in page
    assert "the tournament is over, no stage can follow it (T6)" in page


def test_only_a_director_of_the_tournament_adds_the_stage_on_the_page() -> None:
    t, _d, _q = finished_qualifying(8)
    url = reverse("brackets:stages", args=[t.slug])
    for client in (director_client(other_director()), director_client(UserFactory())):
        assert client.get(url).status_code in (403, 404)
        assert client.post(url, KNOCKOUT_FORM).status_code in (403, 404)
    assert Client().post(url, KNOCKOUT_FORM).status_code in (302, 403)  # anonymous: sign in
    assert Stage.objects.filter(tournament=t).count() == 1
