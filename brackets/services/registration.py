"""Players a director types in by hand: the Players page's *Add a player*, the Partnerships
page's *Register* (T9) and its substitute (T11, page and API). Who a typed player is, and the
same-name question.

A typed player (a row checked by :func:`brackets.csv_import.check_player`) is, in order:

1. the known player the director named (``same_as``: "this is the same person");
2. in a partnership only, the player already entered here with that name and club;
3. the one known player not entered here with that name and club (ignoring case): entered
   again rather than created twice (the CSV import's rule);

Known players are those the director may see (``tournament.selectors.player_visible``): a
player entered only in another director's draft is none of 1-3 and is never listed.
4. a new player, created with the row (its rating is the entered rating, as the CSV's).

Before 4, known players of the same name (accents and case aside) whom no club tells apart
(:func:`brackets.selectors.players.players_same_name`) would silently get a namesake: the
service raises :class:`SameNameUnconfirmedError` listing them, and nothing is written, until the
director says it is one of them (``same_as``) or a different person (``different_from``,
the players they were shown). The CSV imports do not ask (no preview step to ask in).

The substitute (:func:`brackets.services.pairs.partnership_substitute`) asks the same question
through :func:`typed_player_match` once the substitution itself is allowed (T11).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from brackets.csv_import import PlayerRow, player_key
from brackets.selectors.players import SameNamePlayer, players_same_name
from brackets.services._common import Actor
from brackets.services.imports import ImportResult, player_from_row, players_import_csv
from core.exceptions import ApplicationError
from tournament.models import Partnership, Player, Tournament
from tournament.partnerships import partnership_register
from tournament.selectors import player_visible
from tournament.services import require_director

PAIR_FIELDS = ("player_a", "player_b")


@dataclass(frozen=True, slots=True)
class TypedPlayer:
    """A player typed into a form, and the director's answer to a same-name warning:
    ``same_as`` the known player it is, or ``different_from`` the known players it is not."""

    row: PlayerRow
    same_as: int | None = None
    different_from: frozenset[int] = field(default_factory=frozenset)


class SameNameUnconfirmedError(ApplicationError):
    """Nothing was written: typed names match known players no club tells apart.

    ``candidates``: form field -> the known players of that field's name.
    """

    def __init__(self, candidates: dict[str, list[SameNamePlayer]]) -> None:
        message = _(
            "A player of this name is already known: say whether this is the same person or "
            "a different one. Nothing was saved."
        )
        super().__init__(
            message,
            code="same_name_unconfirmed",
            fields={name: [message] for name in candidates},
            status=409,
            # An API client answers with these: one of them (its id), or "a different person"
            # naming the ids it was shown (the pages draw them as brackets/_same_name.html).
            extra={
                "candidates": {
                    name: [asdict(c) | {"events": list(c.events)} for c in players]
                    for name, players in candidates.items()
                }
            },
        )
        self.candidates = candidates


def _refuse(field_name: str, message: str, code: str) -> ApplicationError:
    return ApplicationError(message, code=code, fields={field_name: [message]})


def _same_key(players: Any, row: PlayerRow) -> list[Player]:
    key = player_key(row.name, row.club)
    return [p for p in players if player_key(p.name, p.club) == key]


def typed_player_match(
    *,
    tournament: Tournament,
    actor: Actor,
    typed: TypedPlayer,
    field_name: str,
    entered_ok: bool,
) -> Player | None:
    """The existing player ``typed`` is (steps 1-3 of the module's list), or ``None`` for a
    new one (step 4). ``entered_ok``: a player already entered here may be the answer (a
    partnership pairs entered players; the Players page refuses them).

    Raises :class:`SameNameUnconfirmedError` (under ``field_name``) before a new namesake of an
    unanswered known player, and ``ApplicationError`` naming ``field_name`` for a
    ``same_as`` that is not one of the players of that name. Reads only.

    Only players ``actor`` may see count, at every step (``tournament.selectors.
    player_visible``): a player of another director's draft is neither entered, nor offered,
    nor a reason to ask; to this director their namesake is a new player (docs/security.md).
    """
    row = typed.row
    candidates = players_same_name(
        name=row.name, club=row.club, tournament_id=tournament.pk, user=actor
    )
    if typed.same_as is not None:
        chosen = next((c for c in candidates if c.id == typed.same_as), None)
        if chosen is None:
            raise _refuse(
                field_name,
                _("The player chosen is not a known player named %(name)s.") % {"name": row.name},
                "not_same_name",
            )
        if chosen.entered_here and not entered_ok:
            raise _refuse(
                field_name,
                _("%(name)s is already entered in this tournament.") % {"name": chosen.name},
                "already_entered",
            )
        return Player.objects.get(pk=chosen.id)
    if entered_ok:
        entered = _same_key(Player.objects.filter(entries__tournament=tournament), row)
        if entered:
            return entered[0]
    known = _same_key(
        Player.objects.filter(player_visible(user=actor), name__iexact=row.name).exclude(
            entries__tournament=tournament
        ),
        row,
    )
    if len(known) == 1:
        return known[0]
    if any(c.id not in typed.different_from for c in candidates):
        raise SameNameUnconfirmedError({field_name: candidates})
    return None


def typed_player_create(*, actor: Actor, typed: TypedPlayer) -> Player:
    """A new player from ``typed``'s row (step 4): its rating is the entered rating."""
    return player_from_row(actor=actor, row=typed.row)


@transaction.atomic
def player_add(
    *, tournament: Tournament, actor: Actor, typed: TypedPlayer, check_in: bool = False
) -> ImportResult:
    """Enter one player typed in on the Players page (director only), through the CSV
    import's service (same checks, same log line ``players.add``).

    Refused, with nothing written: a player of that name and club already entered
    (``already_entered``), an unanswered same-name warning (:class:`SameNameUnconfirmedError`).
    """
    require_director(actor=actor, tournament=tournament)
    known = typed_player_match(
        tournament=tournament, actor=actor, typed=typed, field_name="name", entered_ok=False
    )
    return players_import_csv(
        tournament=tournament,
        actor=actor,
        rows=[typed.row],
        check_in=check_in,
        by_hand=True,
        known={typed.row.row: known} if known is not None else None,
    )


@transaction.atomic
def partnership_register_typed(
    *,
    tournament: Tournament,
    actor: Actor,
    players: Sequence[TypedPlayer],
    name: str = "",
    check_in: bool = False,
) -> Partnership:
    """Register a partnership of two typed players (T9; director only), all or nothing.

    Each player is found or created as the module says (an entered player may be paired);
    both partners' same-name warnings are raised together (fields ``player_a``,
    ``player_b``) before anything is written. Then
    :func:`tournament.partnerships.partnership_register` applies T9.
    """
    require_director(actor=actor, tournament=tournament)
    if len(players) != len(PAIR_FIELDS):
        raise _refuse(
            "players", _("A partnership is two different players (T9)."), "bad_partnership"
        )
    found: list[Player | None] = []
    waiting: dict[str, list[SameNamePlayer]] = {}
    for field_name, typed in zip(PAIR_FIELDS, players, strict=True):
        try:
            found.append(
                typed_player_match(
                    tournament=tournament,
                    actor=actor,
                    typed=typed,
                    field_name=field_name,
                    entered_ok=True,
                )
            )
        except SameNameUnconfirmedError as exc:
            waiting.update(exc.candidates)
            found.append(None)
    if waiting:
        raise SameNameUnconfirmedError(waiting)
    partners = [
        player or typed_player_create(actor=actor, typed=typed)
        for player, typed in zip(found, players, strict=True)
    ]
    return partnership_register(
        tournament=tournament, actor=actor, players=partners, name=name, check_in=check_in
    )
