"""Tournament services against the real database: ruleset validation, status, entries, roles."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction

from core.exceptions import ApplicationError, PermissionDeniedError
from tests.factories import (
    EntryFactory,
    PlayerFactory,
    RoleFactory,
    TournamentFactory,
    UserFactory,
    director_of,
    referee_of,
    staff_with,
    tournament_creator,
)
from tournament import services
from tournament.models import ActionLog, Entry, RefereeToken, Tournament, TournamentRole

pytestmark = pytest.mark.django_db


def test_tournament_create_makes_the_creator_director_and_stores_the_effective_ruleset() -> None:
    staff = staff_with("tournament.add_tournament")
    t = services.tournament_create(
        actor=staff,
        name="WSOD 2026",
        slug="wsod-2026",
        ruleset_preset="wsod_playoff",
        ruleset_overrides={"tie_value": "flat2"},
    )
    assert t.status == Tournament.Status.DRAFT
    assert t.ruleset["all_ones"] == "playoff"
    assert t.ruleset["tie_value"] == "flat2"
    assert TournamentRole.objects.filter(tournament=t, user=staff, role="director").exists()
    assert t.created_by == staff  # its owner (docs/security.md, "Removing a director")


def test_only_staff_or_directors_create_tournaments() -> None:
    with pytest.raises(PermissionDeniedError):
        services.tournament_create(actor=UserFactory(), name="X", slug="x")
    director = director_of(TournamentFactory())
    assert services.tournament_create(actor=director, name="Y", slug="y").slug == "y"


@pytest.mark.parametrize(
    ("preset", "overrides", "field", "code"),
    [
        ("nope", {}, "ruleset_preset", "unknown_preset"),
        ("wsod", {"tie_value": "double"}, "ruleset_overrides.tie_value", "bad_value"),
        ("wsod", {"colour": "red"}, "ruleset_overrides.colour", "unknown_key"),
        ("wsod", {"target": 0}, "ruleset_overrides.target", "out_of_range"),
    ],
)
def test_an_invalid_ruleset_is_refused_naming_the_key(
    preset: str, overrides: dict[str, Any], field: str, code: str
) -> None:
    with pytest.raises(ApplicationError) as exc:
        services.tournament_create(
            actor=tournament_creator(),
            name="Bad",
            slug="bad",
            ruleset_preset=preset,
            ruleset_overrides=overrides,
        )
    assert exc.value.code == code
    assert field in exc.value.fields
    assert exc.value.rule
    assert not Tournament.objects.filter(slug="bad").exists()


def test_status_moves_forward_only_and_version_bumps() -> None:
    t = TournamentFactory(status=Tournament.Status.DRAFT)
    director = director_of(t)
    t = services.tournament_update(tournament=t, actor=director, data={"status": "registration"})
    assert t.status == "registration"
    t.refresh_from_db()
    assert t.version == 1
    with pytest.raises(ApplicationError) as exc:
        services.tournament_update(tournament=t, actor=director, data={"status": "draft"})
    assert exc.value.code == "bad_status_transition"
    t = services.tournament_update(
        tournament=t, actor=director, data={"ruleset_overrides": {"llave": "plus_one"}}
    )
    assert t.ruleset["llave"] == "plus_one"
    assert ActionLog.objects.filter(tournament=t, verb="tournament.update").count() == 2
    with pytest.raises(PermissionDeniedError):
        services.tournament_update(tournament=t, actor=UserFactory(), data={"venue": "x"})


def test_tournament_version_bump_is_atomic_and_returns_the_new_value() -> None:
    t = TournamentFactory()
    assert services.tournament_version_bump(tournament_id=t.pk) == 1
    assert services.tournament_version_bump(tournament_id=t.pk) == 2
    t.refresh_from_db()
    assert t.version == 2


def test_entries_are_unique_per_tournament_and_seed() -> None:
    t = TournamentFactory()
    director = director_of(t)
    player = PlayerFactory()
    services.entry_create(tournament=t, actor=director, player=player, seed=1)
    with pytest.raises(ApplicationError) as exc:
        services.entry_create(tournament=t, actor=director, player=player)
    assert exc.value.code == "already_entered"
    with pytest.raises(ApplicationError) as exc:
        services.entry_create(tournament=t, actor=director, player=PlayerFactory(), seed=1)
    assert exc.value.code == "seed_taken"
    # The same player may enter another tournament.
    other = TournamentFactory()
    services.entry_create(tournament=other, actor=director_of(other), player=player)


def test_raw_duplicate_entry_is_refused_by_the_database() -> None:
    entry = EntryFactory()
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cur:
        cur.execute(
            "INSERT INTO tournament_entry (tournament_id, player_id, checked_in, status, "
            "status_reason, created_at, updated_at) VALUES (%s, %s, false, 'active', '', "
            "now(), now())",
            [entry.tournament_id, entry.player_id],
        )


def test_withdraw_and_disqualify_need_a_reason_and_are_logged() -> None:
    t = TournamentFactory()
    director = director_of(t)
    entry = EntryFactory(tournament=t)
    with pytest.raises(ApplicationError):
        services.entry_withdraw(entry=entry, actor=director, reason=" ")
    services.entry_disqualify(entry=entry, actor=director, reason="conduct (T7)")
    entry.refresh_from_db()
    assert entry.status == Entry.Status.DISQUALIFIED
    log = ActionLog.objects.get(verb="entry.disqualified")
    assert log.reason == "conduct (T7)"
    assert log.actor == director
    assert log.target_type == "tournament.entry"
    assert log.target_id == str(entry.pk)
    with pytest.raises(ApplicationError) as exc:
        services.entry_withdraw(entry=entry, actor=director, reason="again")
    assert exc.value.code == "entry_not_active"


def test_check_in_sets_the_time() -> None:
    t = TournamentFactory()
    entry = EntryFactory(tournament=t)
    entry = services.entry_update(entry=entry, actor=director_of(t), data={"checked_in": True})
    assert entry.checked_in
    assert entry.checked_in_at is not None


def test_tables_are_unique_per_tournament() -> None:
    t = TournamentFactory()
    director = director_of(t)
    services.table_create(tournament=t, actor=director, number=1, label="Stage")
    with pytest.raises(ApplicationError):
        services.table_create(tournament=t, actor=director, number=1)


def test_revoking_a_referee_role_kills_their_tokens_and_the_last_director_stays() -> None:
    t = TournamentFactory()
    director = director_of(t)
    referee = referee_of(t)
    token = services.referee_token_issue(tournament=t, actor=director, user=referee)
    role = TournamentRole.objects.get(tournament=t, user=referee)
    services.role_revoke(role=role, actor=director)
    assert not RefereeToken.objects.filter(pk=token.pk).exists()
    with pytest.raises(services.RefereeTokenInvalidError):
        services.referee_token_resolve(key=token.key, client_ip="192.0.2.77")
    assert ActionLog.objects.filter(verb="role.revoke").exists()
    with pytest.raises(ApplicationError) as exc:
        services.role_revoke(
            role=TournamentRole.objects.get(tournament=t, user=director), actor=director
        )
    assert exc.value.code == "last_director"


def test_referee_create_makes_a_password_less_referee() -> None:
    t = TournamentFactory()
    role = services.referee_create(
        tournament=t, actor=director_of(t), username="ref-ana", display_name="Ana"
    )
    assert role.role == "referee"
    assert not role.user.has_usable_password()


def test_tokens_are_issued_only_to_referees_of_the_tournament() -> None:
    t = TournamentFactory()
    director = director_of(t)
    with pytest.raises(ApplicationError) as exc:
        services.referee_token_issue(tournament=t, actor=director, user=UserFactory())
    assert exc.value.code == "not_referee"
    other = TournamentFactory()
    with pytest.raises(PermissionDeniedError):
        services.referee_token_issue(tournament=t, actor=director_of(other), user=referee_of(t))
    assert RefereeToken.objects.count() == 0


def test_player_update_is_limited_to_directors_of_their_tournaments() -> None:
    t = TournamentFactory()
    entry = EntryFactory(tournament=t)
    services.player_update(player=entry.player, actor=director_of(t), data={"country": "do"})
    entry.player.refresh_from_db()
    assert entry.player.country == "DO"
    with pytest.raises(PermissionDeniedError):
        services.player_update(
            player=entry.player, actor=director_of(TournamentFactory()), data={"club": "x"}
        )


def test_player_update_bumps_the_version_of_every_tournament_they_entered() -> None:
    from tournament.services import player_update

    first, second, other = TournamentFactory(), TournamentFactory(), TournamentFactory()
    player = PlayerFactory()
    EntryFactory(tournament=first, player=player)
    EntryFactory(tournament=second, player=player)
    before = {t.pk: Tournament.objects.get(pk=t.pk).version for t in (first, second, other)}
    director = director_of(first)  # identity fields: a director of EVERY tournament entered
    RoleFactory(tournament=second, user=director, role=TournamentRole.Role.DIRECTOR)
    player_update(player=player, actor=director, data={"name": "Ana Renamed"})
    after = {t.pk: Tournament.objects.get(pk=t.pk).version for t in (first, second, other)}
    assert after[first.pk] == before[first.pk] + 1
    assert after[second.pk] == before[second.pk] + 1
    assert after[other.pk] == before[other.pk]  # live pages of other events stay cached
