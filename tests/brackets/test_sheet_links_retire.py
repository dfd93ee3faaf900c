"""The table sheets' "Issue referee links" can retire the referees' earlier links
(docs/security.md, "Known trade-offs"; brackets.views.rounds.RoundSheetLinksView).

A tester found that issuing links from the sheets added a key without retiring the earlier
ones, so a lost phone's link stayed valid until the tournament finished or someone revoked it
on the Referees page. The form now offers "Retire the referees' earlier links" (off by
default): each referee's earlier credentials are revoked through the same revoke as the
Referees page's, logged with the new prefix, and a phone using an earlier link is refused from
its next request while the new link works.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from brackets.models import Round
from brackets.services import round_publish, stage_seed
from tests.brackets.factories_pages import director_client, tournament_with_stage
from tests.security.conftest import fresh_ip, open_link
from tournament import services
from tournament.models import ActionLog, RefereeToken, Tournament

pytestmark = pytest.mark.django_db


def url(name: str, *args: Any) -> str:
    return reverse(f"brackets:{name}", args=args)


@pytest.fixture
def setup() -> dict[str, Any]:
    tournament, director, stage = tournament_with_stage(10)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd: Round = round_publish(stage=stage, actor=director)
    referees = sorted(
        {m.referee for m in (link.match for link in rnd.round_matches.all()) if m.referee},
        key=lambda u: u.pk,
    )
    assert len(referees) == 2
    # An earlier link of each round referee (the Referees page), and a referee not in the round.
    earlier = {
        r.pk: services.referee_token_issue(tournament=tournament, actor=director, user=r)
        for r in referees
    }
    outside = services.referee_create(tournament=tournament, actor=director, username="Fuera")
    outside_token = services.referee_token_issue(
        tournament=tournament, actor=director, user=outside.user
    )
    return {
        "t": tournament,
        "director": director,
        "round": rnd,
        "referees": referees,
        "earlier": earlier,
        "outside_token": outside_token,
        "client": director_client(director),
    }


def _active(tournament: Tournament) -> set[int]:
    return set(
        RefereeToken.objects.filter(role__tournament=tournament, revoked_at=None).values_list(
            "pk", flat=True
        )
    )


def test_the_option_is_offered_and_off_by_default(setup: dict[str, Any]) -> None:
    client, slug, rnd = setup["client"], setup["t"].slug, setup["round"]
    text = client.get(url("sheets", slug, rnd.pk)).content.decode()
    box = text.split('id="retire-earlier"')[0].rsplit("<input", 1)[1]
    assert 'name="retire_earlier"' in box
    assert "checked" not in box
    assert "Retire the referees' earlier links" in text
    assert "a phone still using one must open its referee" in text
    # Issued without it: every earlier link keeps working (as before).
    before = _active(setup["t"])
    client.post(url("sheet-links", slug, rnd.pk))
    assert before < _active(setup["t"])
    assert not ActionLog.objects.filter(verb="referee_token.revoke").exists()


def test_chain_a_lost_phone_s_link_dies_when_the_director_reissues_with_the_option(
    setup: dict[str, Any],
) -> None:
    t, slug, rnd = setup["t"], setup["t"].slug, setup["round"]
    first = setup["referees"][0]
    lost_phone = Client(REMOTE_ADDR=fresh_ip())
    old_key = setup["earlier"][first.pk].key  # type: ignore[attr-defined]
    assert open_link(lost_phone, old_key).status_code == 200
    assert lost_phone.get("/referee/").status_code == 200

    response = setup["client"].post(
        url("sheet-links", slug, rnd.pk), {"retire_earlier": "1"}, follow=True
    )
    # POST-redirect-GET: the links are shown by the sheets' GET (a reload resubmits nothing).
    assert response.redirect_chain == [(url("sheets", slug, rnd.pk), 302)]
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    messages = [str(m) for m in response.context["messages"]]
    assert "Issued 2 referee links: hand each to its referee now" in messages[0]
    assert messages[1] == (
        "Their earlier links no longer work: a phone still using one must open its "
        "referee's new link."
    )

    # Each round referee has exactly its new credential; the referee outside the round keeps
    # its own.
    for referee in setup["referees"]:
        active = RefereeToken.objects.filter(role__user=referee, revoked_at=None)
        assert active.count() == 1
        assert active.get().pk != setup["earlier"][referee.pk].pk
        old = RefereeToken.objects.get(pk=setup["earlier"][referee.pk].pk)
        assert old.revoked_at is not None
        assert old.revoked_by == setup["director"]
        log = ActionLog.objects.get(verb="referee_token.revoke", target_id=str(old.pk))
        assert log.actor == setup["director"]
        assert log.data == {"user_id": referee.pk, "replaced_by": active.get().prefix}
    assert setup["outside_token"].pk in _active(t)

    # The lost phone is refused from its next request, and its link opens nothing any more.
    assert lost_phone.get("/referee/").status_code in (302, 401, 403)
    assert open_link(Client(REMOTE_ADDR=fresh_ip()), old_key).status_code == 404
    # The new link shown once on the page works.
    text = response.content.decode()
    new_key = text.split('class="referee-link">')[1].split("#", 1)[1].split("<", 1)[0]
    assert open_link(Client(REMOTE_ADDR=fresh_ip()), new_key).status_code == 200

    # Bug: the links were the POST's answer, so a reload re-posted it: new links for every
    # referee, retiring the ones just handed out. A reload is now a GET of the sheets: no
    # link on it, nothing issued, nothing retired, and the link handed out keeps working.
    still_active = _active(t)
    revokes = ActionLog.objects.filter(verb="referee_token.revoke").count()
    reload = setup["client"].get(url("sheets", slug, rnd.pk))
    assert reload.status_code == 200
    assert "/ref/#" not in reload.content.decode()
    assert 'id="issued-links"' not in reload.content.decode()
    assert _active(t) == still_active
    assert ActionLog.objects.filter(verb="referee_token.revoke").count() == revokes
    assert open_link(Client(REMOTE_ADDR=fresh_ip()), new_key).status_code == 200

    # The action log page says what replaced each revoked link.
    log_page = setup["client"].get(url("log", slug)).content.decode()
    assert "Replaced by" in log_page


def test_a_finished_tournament_retires_nothing(setup: dict[str, Any]) -> None:
    t, slug, rnd = setup["t"], setup["t"].slug, setup["round"]
    before = _active(t)
    Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.FINISHED)
    response = setup["client"].post(url("sheet-links", slug, rnd.pk), {"retire_earlier": "1"})
    assert response.status_code == 302
    assert _active(t) == before
    assert not ActionLog.objects.filter(verb="referee_token.revoke").exists()


def test_another_director_cannot_retire_links(setup: dict[str, Any]) -> None:
    _other, other_director, _stage = tournament_with_stage(0, referees=0)
    response = director_client(other_director).post(
        url("sheet-links", setup["t"].slug, setup["round"].pk), {"retire_earlier": "1"}
    )
    assert response.status_code in (403, 404)
    assert _active(setup["t"]) == {
        *(token.pk for token in setup["earlier"].values()),
        setup["outside_token"].pk,
    }
