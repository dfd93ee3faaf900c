"""Bulk import of players into a tournament from a checked CSV (:mod:`brackets.csv_import`).

The rows are created through the tournament services (``player_create``, ``entry_create``,
``entry_update`` for check-in) so their permission checks and invariants hold; this service
only adds the all-or-nothing transaction, the reuse of known players and the log line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.db import transaction
from django.db.models.functions import Lower
from django.utils.translation import gettext as _

from brackets.csv_import import PlayerRow, player_key
from brackets.services._common import Actor
from core.exceptions import ApplicationError
from tournament.models import Entry, Player, Tournament
from tournament.selectors import player_visible
from tournament.services import (
    action_log_record,
    entry_create,
    entry_update,
    player_create,
    require_director,
)


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What an import did: new players, known players entered again, entries created."""

    created: int
    reused: int
    entry_ids: tuple[int, ...]
    checked_in: bool
    namesakes: tuple[str, ...] = ()
    """New players whose name a known player already had (another club, or several known
    players of that name and club): created as new people, which the director should check
    (a staff member merges duplicates on the players' Duplicates page)."""


def player_from_row(*, actor: Actor, row: PlayerRow) -> Player:
    """A new player from a checked row (typed on a form or read from a CSV file): its rating
    is the entered rating (where the player's ratings start, T8)."""
    return player_create(
        actor=actor,
        name=row.name,
        nickname=row.nickname,
        country=row.country,
        club=row.club,
        rating=row.rating,
    )


def _known_players(
    rows: Sequence[PlayerRow], *, actor: Actor
) -> dict[tuple[str, str], list[Player]]:
    """Existing players by :func:`player_key` (players are shared between events), those
    ``actor`` may see only (``tournament.selectors.player_visible``): a player of another
    director's draft is neither entered again nor named as a namesake (docs/security.md)."""
    names = {r.name.lower() for r in rows}
    found: dict[tuple[str, str], list[Player]] = {}
    known = Player.objects.filter(player_visible(user=actor)).annotate(lname=Lower("name"))
    for player in known.filter(lname__in=names):
        found.setdefault(player_key(player.name, player.club), []).append(player)
    return found


@transaction.atomic
def players_import_csv(
    *,
    tournament: Tournament,
    actor: Actor,
    rows: Sequence[PlayerRow],
    check_in: bool = False,
    skipped_rows: Sequence[int] = (),
    source: str = "",
    by_hand: bool = False,
    known: Mapping[int, Player] | None = None,
) -> ImportResult:
    """Enter every row's player in ``tournament``, all or nothing (director only).

    A row matching exactly one known player the actor may see (same name and club, ignoring
    case) enters that player; otherwise a new player is created. ``check_in`` checks the new
    entries in.
    ``skipped_rows`` (bad rows the director chose to leave out) and ``source`` (the file name)
    go to the action log (``by_hand``: one player typed in on the page, logged as such).
    ``known``: row number -> the known player the director said that row is (the same-name
    question of :mod:`brackets.services.registration`); entered as is.
    Raises ``already_entered`` (naming the player) if a row's player
    was entered meanwhile; nothing is imported then.
    """
    require_director(actor=actor, tournament=tournament)
    if not rows:
        raise ApplicationError(_("No valid rows to import."), code="nothing_to_import")
    found = _known_players(rows, actor=actor)
    entered: set[int] = set()
    entered_keys: set[tuple[str, str]] = set()
    for player_id, name, club in Entry.objects.filter(tournament=tournament).values_list(
        "player_id", "player__name", "player__club"
    ):
        entered.add(player_id)
        entered_keys.add(player_key(name, club))
    created = reused = 0
    entry_ids: list[int] = []
    known_names = {name for name, _club in found}
    namesakes: dict[str, None] = {}
    for row in rows:
        if player_key(row.name, row.club) in entered_keys:
            # Checked again here: the report may be older than another director's import.
            raise ApplicationError(
                _(
                    "Row %(row)s (%(name)s): already entered in this tournament. "
                    "Nothing was imported."
                )
                % {"row": row.row, "name": row.name},
                code="already_entered",
                fields={"file": [_("Row %(row)s: already entered.") % {"row": row.row}]},
            )
        entered_keys.add(player_key(row.name, row.club))
        matches = [p for p in found.get(player_key(row.name, row.club), []) if p.pk not in entered]
        if known and row.row in known:
            player = known[row.row]
            reused += 1
        elif len(matches) == 1:
            player = matches[0]
            reused += 1
        else:
            player = player_from_row(actor=actor, row=row)
            created += 1
            if player_key(row.name, "")[0] in known_names:
                namesakes[row.name] = None
        try:
            entry = entry_create(tournament=tournament, actor=actor, player=player)
        except ApplicationError as exc:
            raise ApplicationError(
                _("Row %(row)s (%(name)s): %(problem)s Nothing was imported.")
                % {"row": row.row, "name": row.name, "problem": exc.message},
                code=exc.code,
                fields={
                    "file": [
                        _("Row %(row)s: %(problem)s") % {"row": row.row, "problem": exc.message}
                    ]
                },
            ) from exc
        entered.add(player.pk)
        if check_in:
            # The import's own log line says it checked its players in.
            entry_update(entry=entry, actor=actor, data={"checked_in": True}, log=False)
        entry_ids.append(entry.pk)
    action_log_record(
        tournament=tournament,
        actor=actor,
        verb="players.add" if by_hand else "players.import",
        # One player typed in: the entry, so the log names who was added (user test: "Player
        # added" named only the tournament); an import's many players, the tournament.
        target=entry if by_hand and len(entry_ids) == 1 else tournament,
        reason="Added by hand" if by_hand else f"CSV import {source}".strip(),
        data={
            "created_players": created,
            "reused_players": reused,
            "entries": len(entry_ids),
            "checked_in": check_in,
            "skipped_rows": list(skipped_rows),
            "namesakes": list(namesakes),
        },
    )
    return ImportResult(
        created=created,
        reused=reused,
        entry_ids=tuple(entry_ids),
        checked_in=check_in,
        namesakes=tuple(namesakes),
    )
