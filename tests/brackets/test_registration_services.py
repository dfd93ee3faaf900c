"""Players typed in by a director (brackets.services.registration): the same-name question
asked before a second person is created, the pairs register's partners (T9) and a substitute
typed by name (T11)."""

from __future__ import annotations

import doctest
from typing import Any

import pytest

import brackets.selectors.players
from brackets.csv_import import PlayerRow
from brackets.selectors.players import players_same_name
from brackets.services.pairs import partnership_substitute
from brackets.services.registration import (
    SameNameUnconfirmedError,
    TypedPlayer,
    partnership_register_typed,
    player_add,
)
from core.exceptions import ApplicationError
from tests.brackets.pairs_helpers import make_pairs_tournament, round_with_a_forfeit
from tests.factories import EntryFactory, PlayerFactory, TournamentFactory, director_of
from tournament.models import ActionLog, Entry, Partnership, PartnershipMember, Player

pytestmark = pytest.mark.django_db


def typed(name: str, club: str = "", rating: int | None = None, **answer: Any) -> TypedPlayer:
    return TypedPlayer(PlayerRow(0, name, club=club, rating=rating), **answer)


def test_the_selectors_examples_hold() -> None:
    assert doctest.testmod(brackets.selectors.players).failed == 0


def test_same_name_ignores_accents_case_and_spacing_and_names_the_events() -> None:
    here = TournamentFactory(name="Island Open")
    known = PlayerFactory(name="José  Pérez", club="Bayamón", country="PR")
    EntryFactory(player=known, tournament=TournamentFactory(name="Winter Cup"))
    PlayerFactory(name="José Pérez Ruiz", club="")  # a longer name is someone else
    found = players_same_name(
        name="jose perez", club="", tournament_id=here.pk, user=director_of(here)
    )
    assert [(p.id, p.name, p.club, p.country, p.events, p.entered_here) for p in found] == [
        (known.pk, "José  Pérez", "Bayamón", "PR", ("Winter Cup",), False)
    ]


@pytest.mark.parametrize(
    ("typed_club", "known_club", "asked"),
    [
        ("", "Bayamón", True),  # no club typed: nothing tells them apart
        ("Bayamón", "", True),  # the known player has none
        ("club bayamon", "Club Bayamón", True),  # the same club, spelled otherwise
        ("Ponce", "Bayamón", False),  # two clubs: two people
    ],
)
def test_only_two_different_clubs_tell_a_name_apart(
    typed_club: str, known_club: str, asked: bool
) -> None:
    PlayerFactory(name="Ana Rivera", club=known_club)
    here = TournamentFactory()
    found = players_same_name(
        name="Ana Rivera", club=typed_club, tournament_id=here.pk, user=director_of(here)
    )
    assert bool(found) is asked


def test_player_add_asks_before_creating_a_namesake_and_writes_nothing() -> None:
    t = TournamentFactory()
    d = director_of(t)
    known = PlayerFactory(name="José Pérez", club="Bayamón")
    with pytest.raises(SameNameUnconfirmedError) as caught:
        player_add(tournament=t, actor=d, typed=typed("Jose Perez"), check_in=True)
    assert [c.id for c in caught.value.candidates["name"]] == [known.pk]
    assert caught.value.fields == {"name": [caught.value.message]}
    assert Player.objects.count() == 1
    assert not Entry.objects.filter(tournament=t).exists()
    assert not ActionLog.objects.filter(verb="players.add").exists()


def test_player_add_a_different_person_once_confirmed() -> None:
    t = TournamentFactory()
    d = director_of(t)
    known = PlayerFactory(name="José Pérez", club="Bayamón")
    result = player_add(
        tournament=t,
        actor=d,
        typed=typed("Jose Perez", rating=1650, different_from=frozenset({known.pk})),
    )
    assert (result.created, result.reused) == (1, 0)
    new = Entry.objects.get(tournament=t).player
    assert (new.pk != known.pk, new.name, new.rating) == (True, "Jose Perez", 1650)


def test_a_confirmation_answers_only_for_the_players_shown() -> None:
    t = TournamentFactory()
    d = director_of(t)
    shown = PlayerFactory(name="Ana Rivera", club="")
    PlayerFactory(name="Ána Rivera", club="Ponce")  # not shown when the director confirmed
    with pytest.raises(SameNameUnconfirmedError):
        player_add(
            tournament=t,
            actor=d,
            typed=typed("Ana Rivera", "Ponce", different_from=frozenset({shown.pk})),
        )
    assert not Entry.objects.filter(tournament=t).exists()


def test_player_add_the_same_person_enters_the_known_player() -> None:
    t = TournamentFactory()
    d = director_of(t)
    known = PlayerFactory(name="José Pérez", club="Bayamón", rating=1720)
    result = player_add(
        tournament=t, actor=d, typed=typed("jose perez", rating=1000, same_as=known.pk)
    )
    assert (result.created, result.reused) == (0, 1)
    assert Entry.objects.get(tournament=t).player_id == known.pk
    kept = Player.objects.get()
    assert (kept.pk, kept.name, kept.rating) == (known.pk, "José Pérez", 1720)


def test_same_as_must_be_a_player_of_that_name_not_entered_here() -> None:
    t = TournamentFactory()
    d = director_of(t)
    stranger = PlayerFactory(name="Luis Mar")
    with pytest.raises(ApplicationError) as caught:
        player_add(tournament=t, actor=d, typed=typed("Ana Rivera", same_as=stranger.pk))
    assert caught.value.code == "not_same_name"
    assert list(caught.value.fields) == ["name"]
    entered = EntryFactory(tournament=t, player=PlayerFactory(name="Ana Rivera", club="X")).player
    with pytest.raises(ApplicationError) as caught:
        player_add(tournament=t, actor=d, typed=typed("Ana Rivera", same_as=entered.pk))
    assert caught.value.code == "already_entered"
    assert Entry.objects.filter(tournament=t).count() == 1


def test_no_question_when_the_known_player_has_the_same_name_and_club() -> None:
    """The CSV rule (same name and club: entered again) stands; nothing to ask."""
    t = TournamentFactory()
    d = director_of(t)
    known = PlayerFactory(name="Ana Rivera", club="")
    result = player_add(tournament=t, actor=d, typed=typed("ana rivera"))
    assert (result.reused, Entry.objects.get(tournament=t).player_id) == (1, known.pk)


def test_pairs_register_asks_for_both_partners_at_once_and_writes_nothing() -> None:
    t, d, _ = make_pairs_tournament(0, status="registration")
    ana = PlayerFactory(name="Ana Ruiz", club="Ponce")
    beto = PlayerFactory(name="Beto Cruz", club="")
    with pytest.raises(SameNameUnconfirmedError) as caught:
        partnership_register_typed(
            tournament=t,
            actor=d,
            players=[typed("Ana Ruiz", rating=1800), typed("Beto Cruz", "Ponce")],
        )
    candidates = caught.value.candidates
    assert {k: [c.id for c in v] for k, v in candidates.items()} == {
        "player_a": [ana.pk],
        "player_b": [beto.pk],
    }
    assert Player.objects.count() == 2
    assert not Partnership.objects.filter(tournament=t).exists()
    assert not Entry.objects.filter(tournament=t).exists()


def test_pairs_register_answers_stores_new_partners_ratings() -> None:
    t, d, _ = make_pairs_tournament(0, status="registration")
    ana = PlayerFactory(name="Ana Ruiz", club="Ponce", rating=1900)
    beto = PlayerFactory(name="Beto Cruz", club="")
    p = partnership_register_typed(
        tournament=t,
        actor=d,
        players=[
            typed("Ana Ruiz", rating=1200, same_as=ana.pk),
            typed("Beto Cruz", "Ponce", rating=1650, different_from=frozenset({beto.pk})),
        ],
    )
    members = PartnershipMember.objects.filter(partnership=p).order_by("slot")
    players = [m.entry.player for m in members]
    assert players[0].pk == ana.pk
    assert players[0].rating == 1900
    assert players[1].pk != beto.pk
    assert (players[1].name, players[1].club, players[1].rating) == ("Beto Cruz", "Ponce", 1650)


def test_pairs_register_pairs_a_player_entered_here_without_asking() -> None:
    t, d, _ = make_pairs_tournament(0, status="registration")
    entered = EntryFactory(tournament=t, player=PlayerFactory(name="Ana Ruiz", club="")).player
    PlayerFactory(name="Ána Ruiz", club="")  # a namesake elsewhere is not asked about
    p = partnership_register_typed(
        tournament=t, actor=d, players=[typed("Ana Ruiz"), typed("Cid Paz", rating=1500)]
    )
    first = PartnershipMember.objects.get(partnership=p, slot=0).entry.player_id
    assert first == entered.pk


def test_a_refused_partnership_leaves_no_new_player_behind() -> None:
    """T9: not a pairs event; the partners created for it are rolled back with it."""
    t = TournamentFactory()
    d = director_of(t)
    with pytest.raises(ApplicationError) as caught:
        partnership_register_typed(
            tournament=t, actor=d, players=[typed("Ana Ruiz"), typed("Beto Cruz")]
        )
    assert caught.value.code == "not_pairs_event"
    assert not Player.objects.exists()


# -- the substitute (T11): the same question, once the substitution itself is allowed ------------


def _substitute(pair: Partnership, d: Any, player: Any, **kwargs: Any) -> Partnership:
    leaving = PartnershipMember.objects.get(partnership=pair, slot=0).entry
    return partnership_substitute(
        partnership=pair, actor=d, leaving=leaving, player=player, reason="ill", **kwargs
    )


def _joined(pair: Partnership) -> Player:
    return PartnershipMember.objects.get(
        partnership=pair, slot=0, left_at__isnull=True
    ).entry.player


def test_a_typed_substitute_is_asked_about_and_nothing_is_written() -> None:
    _, d, (pair, _) = make_pairs_tournament(2)
    known = PlayerFactory(name="José Pérez", club="Bayamón")
    before = (Player.objects.count(), Entry.objects.count(), ActionLog.objects.count())
    with pytest.raises(SameNameUnconfirmedError) as caught:
        _substitute(pair, d, typed("Jose Perez"), player_field="player_name")
    assert [c.id for c in caught.value.candidates["player_name"]] == [known.pk]
    assert caught.value.status_code == 409
    body = caught.value.as_body()["error"]
    assert body["fields"] == {"player_name": [caught.value.message]}
    assert [(c["id"], c["club"]) for c in body["candidates"]["player_name"]] == [
        (known.pk, "Bayamón")
    ]
    assert (Player.objects.count(), Entry.objects.count(), ActionLog.objects.count()) == before
    assert _joined(pair).name == "Q0000"  # nobody replaced


def test_a_typed_substitute_the_same_person_or_a_different_one() -> None:
    t, d, (first, second) = make_pairs_tournament(2)
    known = PlayerFactory(name="José Pérez", club="Bayamón", rating=1720)
    _substitute(first, d, typed("jose perez", same_as=known.pk))
    assert _joined(first).pk == known.pk
    assert Player.objects.get(pk=known.pk).rating == 1720  # a known player keeps theirs
    namesake = PlayerFactory(name="Ana Rivera", club="")
    _substitute(second, d, typed("Ána Rivera", "Ponce", different_from=frozenset({namesake.pk})))
    new = _joined(second)
    assert (new.pk != namesake.pk, new.name, new.club) == (True, "Ána Rivera", "Ponce")
    log = ActionLog.objects.filter(tournament=t, verb="partnership.substitute")
    assert log.count() == 2


def test_a_typed_substitute_keeps_the_no_question_cases() -> None:
    """Same name and club as one known player: that player, without asking (the CSV rule);
    a name nobody has: a new player."""
    _, d, (first, second) = make_pairs_tournament(2)
    known = PlayerFactory(name="Ana Rivera", club="Ponce")
    _substitute(first, d, typed("ana rivera", "Ponce"))
    assert _joined(first).pk == known.pk
    _substitute(second, d, typed("Nadie Nuevo"))
    assert Player.objects.filter(name="Nadie Nuevo").count() == 1


def test_a_partnership_still_playing_is_refused_before_any_question() -> None:
    """T11 first: no question whose answer would be refused anyway."""
    r = round_with_a_forfeit()
    known = PlayerFactory(name="José Pérez", club="")
    with pytest.raises(ApplicationError) as caught:
        _substitute(r.playing[0], r.director, typed("Jose Perez"))
    assert (caught.value.code, caught.value.rule) == ("round_in_play", "T11")
    assert Player.objects.filter(name__in=["José Pérez", "Jose Perez"]).get().pk == known.pk
