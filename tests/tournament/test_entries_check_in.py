"""Checking many players in at once (``tournament.services.entries_check_in``): the seeding
list's "Check in everyone" and "Check in selected" in one transaction and one action-log entry,
refused as one check-in is (``entry_update``)."""

from __future__ import annotations

from typing import Any

import pytest

from core.exceptions import ApplicationError, PermissionDeniedError
from tests.factories import EntryFactory, TournamentFactory, UserFactory, director_of
from tournament import services
from tournament.models import ActionLog, Entry, Tournament

pytestmark = pytest.mark.django_db


def registered(n: int, **kwargs: Any) -> tuple[Tournament, Any, list[Entry]]:
    t = TournamentFactory(**kwargs)
    director = director_of(t)
    entries = [EntryFactory(tournament=t, checked_in=False) for _ in range(n)]
    return t, director, entries


def test_everyone_active_and_not_checked_in_is_checked_in_with_one_log_entry() -> None:
    t, director, entries = registered(5)
    here, gone = entries[0], entries[1]
    services.entry_update(entry=here, actor=director, data={"checked_in": True})
    services.entry_withdraw(entry=gone, actor=director, reason="ill")
    version = Tournament.objects.get(pk=t.pk).version
    done = services.entries_check_in(tournament=t, actor=director)
    assert done == [e.pk for e in entries[2:]]
    checked = dict(Entry.objects.filter(tournament=t).values_list("pk", "checked_in"))
    assert checked == {here.pk: True, gone.pk: False, **{e.pk: True for e in entries[2:]}}
    assert all(
        at is not None
        for at in Entry.objects.filter(pk__in=done).values_list("checked_in_at", flat=True)
    )
    (log,) = ActionLog.objects.filter(tournament=t, verb="entries.check_in")
    assert (log.actor_id, log.target_type, log.target_id) == (
        director.pk,
        "tournament.tournament",
        str(t.pk),
    )
    assert log.data == {"count": 3, "entry_ids": done}
    assert Tournament.objects.get(pk=t.pk).version > version  # the pages see the change
    # A repeat has nobody to check in: nothing written, nothing logged.
    version = Tournament.objects.get(pk=t.pk).version
    assert services.entries_check_in(tournament=t, actor=director) == []
    assert ActionLog.objects.filter(verb="entries.check_in").count() == 1
    assert Tournament.objects.get(pk=t.pk).version == version


def test_selected_players_only_and_the_ones_already_in_are_left_alone() -> None:
    t, director, entries = registered(4)
    services.entry_update(entry=entries[1], actor=director, data={"checked_in": True})
    done = services.entries_check_in(
        tournament=t, actor=director, entry_ids=[entries[0].pk, entries[1].pk]
    )
    assert done == [entries[0].pk]
    assert not Entry.objects.get(pk=entries[2].pk).checked_in
    assert ActionLog.objects.get(verb="entries.check_in").data["count"] == 1


@pytest.mark.parametrize("which", ["nothing", "other_tournament", "withdrawn", "unknown"])
def test_a_selection_that_is_not_this_tournaments_active_players_changes_nothing(
    which: str,
) -> None:
    t, director, entries = registered(3)
    ids = [entries[0].pk]
    if which == "nothing":
        ids = []
    elif which == "other_tournament":
        ids.append(EntryFactory(checked_in=False).pk)
    elif which == "withdrawn":
        services.entry_withdraw(entry=entries[1], actor=director, reason="left")
        ids.append(entries[1].pk)
    else:
        ids.append(10**9)
    with pytest.raises(ApplicationError) as refused:
        services.entries_check_in(tournament=t, actor=director, entry_ids=ids)
    assert refused.value.status_code == 400
    assert "entries" in (refused.value.fields or {})
    assert not Entry.objects.filter(checked_in=True).exists()
    assert not ActionLog.objects.filter(verb="entries.check_in").exists()


def test_refused_as_one_check_in_is() -> None:
    """Only a director of the tournament; and a finished tournament is read-only (the
    lifecycle gate, 409) for one check-in and for many alike."""
    t, director, entries = registered(2)
    for outsider in (UserFactory(), director_of(TournamentFactory())):
        with pytest.raises(PermissionDeniedError):
            services.entries_check_in(tournament=t, actor=outsider)
    Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.FINISHED)
    t.refresh_from_db()
    with pytest.raises(ApplicationError) as one:
        services.entry_update(entry=entries[0], actor=director, data={"checked_in": True})
    with pytest.raises(ApplicationError) as many:
        services.entries_check_in(tournament=t, actor=director)
    assert (many.value.code, many.value.status_code) == (one.value.code, one.value.status_code)
    assert many.value.message == one.value.message
    assert not Entry.objects.filter(checked_in=True).exists()


# -- one player at a time: logged too (walkthrough: no entry said who checked whom in) ------------


def _verbs(t: Tournament, after: int = 0) -> list[tuple[str, dict[str, Any]]]:
    return [
        (verb, data)
        for verb, data in ActionLog.objects.filter(
            tournament=t, verb__startswith="entry.", pk__gt=after
        )
        .order_by("id")
        .values_list("verb", "data")
    ]


def test_a_single_check_in_out_and_seed_change_are_logged_once_each() -> None:
    t, director, (entry, *_rest) = registered(2)
    services.entry_update(entry=entry, actor=director, data={"checked_in": True})
    services.entry_update(entry=entry, actor=director, data={"checked_in": True})  # no change
    services.entry_update(entry=entry, actor=director, data={"checked_in": False})
    services.entry_update(entry=entry, actor=director, data={"seed": 3})
    services.entry_update(entry=entry, actor=director, data={"seed": 3})  # no change
    assert _verbs(t) == [
        ("entry.check_in", {}),
        ("entry.check_out", {}),
        ("entry.seed", {"before": None, "after": 3}),
    ]
    assert set(
        ActionLog.objects.filter(tournament=t, verb__startswith="entry.").values_list(
            "target_type", "target_id"
        )
    ) == {("tournament.entry", str(entry.pk))}
    assert set(ActionLog.objects.filter(tournament=t).values_list("actor", flat=True)) == {
        director.pk
    }


def test_a_partnership_check_in_logs_each_player_and_an_import_logs_itself_once() -> None:
    from brackets.csv_import import PlayerRow
    from brackets.services.imports import players_import_csv
    from tests.brackets.pairs_helpers import make_pairs_tournament
    from tournament.partnerships import partnership_check_in

    t, director, pairs = make_pairs_tournament(2, status="registration")
    Entry.objects.filter(tournament=t).update(checked_in=False)
    mark = ActionLog.objects.order_by("-id").values_list("id", flat=True).first() or 0
    partnership_check_in(partnership=pairs[0], actor=director, checked_in=True)
    assert [verb for verb, _data in _verbs(t, mark)] == ["entry.check_in", "entry.check_in"]

    other = TournamentFactory()
    rows = [PlayerRow(2, "Uno"), PlayerRow(3, "Dos")]
    players_import_csv(tournament=other, actor=director_of(other), rows=rows, check_in=True)
    assert _verbs(other) == []
    (log,) = ActionLog.objects.filter(tournament=other, verb="players.import")
    assert log.data["checked_in"] is True
