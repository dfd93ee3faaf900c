"""What a tournament archive holds: one file per table (:data:`PARTS`), and the tournament's
tables it leaves out on purpose, each with its reason (:data:`NOT_ARCHIVED`).

Every concrete model with a foreign-key path to a tournament or to a player is in exactly one
of the two (tests/archive/test_archive_contents.py): a model added later fails that test until
it is archived or its exclusion is argued here, so no table of an event is forgotten silently
(a pairs event's partnerships once were, and its imported copy showed no results).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import models

from brackets.models import Round, RoundMatch, Stage, StageEntry
from circuits.models import CircuitTournament
from notify.models import EntryContact, MailSettings, RoundEmail, WebhookDelivery, WebhookEndpoint
from ratings.models import PlayerRating, RatingChange
from scoring.models import Hand, HandConfirmation, Match, ResultDispute, Seat
from tournament.models import (
    ActionLog,
    DirectorInvitation,
    Entry,
    Partnership,
    PartnershipMember,
    Player,
    RefereeToken,
    Table,
    Tournament,
    TournamentRole,
)


@dataclass(frozen=True)
class Part:
    name: str  # file name without .json
    model: type[models.Model]
    rows: Callable[[Tournament], models.QuerySet[Any]]
    since: int = 1  # the format version that added this file: older archives have none


def invitations_marking(t: Tournament) -> models.QuerySet[DirectorInvitation]:
    """The used invitations that still mark a director role of ``t`` (archive.services)."""
    return DirectorInvitation.objects.filter(
        tournament=t, used_at__isnull=False, role__isnull=False
    )


#: In import order (a row's references come before it).
PARTS: list[Part] = [
    Part("tournament_tournament", Tournament, lambda t: Tournament.objects.filter(pk=t.pk)),
    Part(
        "tournament_player",
        Player,
        lambda t: Player.objects.filter(entries__tournament=t).distinct(),
    ),
    Part("tournament_entry", Entry, lambda t: Entry.objects.filter(tournament=t)),
    # A pairs event's entries (T9) and their history of members (T11 substitutes), format 3.
    Part(
        "tournament_partnership",
        Partnership,
        lambda t: Partnership.objects.filter(tournament=t),
        since=3,
    ),
    Part(
        "tournament_partnershipmember",
        PartnershipMember,
        lambda t: PartnershipMember.objects.filter(partnership__tournament=t),
        since=3,
    ),
    Part("tournament_table", Table, lambda t: Table.objects.filter(tournament=t)),
    Part(
        "tournament_tournamentrole",
        TournamentRole,
        lambda t: TournamentRole.objects.filter(tournament=t),
    ),
    Part("tournament_directorinvitation", DirectorInvitation, invitations_marking, since=2),
    Part("tournament_actionlog", ActionLog, lambda t: ActionLog.objects.filter(tournament=t)),
    Part("scoring_match", Match, lambda t: Match.objects.filter(tournament=t)),
    Part("scoring_seat", Seat, lambda t: Seat.objects.filter(match__tournament=t)),
    Part("scoring_hand", Hand, lambda t: Hand.objects.filter(match__tournament=t)),
    # The players' confirmations of hands and their disputes (section 9), format 3: part of
    # how each result was reached, as the action log is.
    Part(
        "scoring_handconfirmation",
        HandConfirmation,
        lambda t: HandConfirmation.objects.filter(hand__match__tournament=t),
        since=3,
    ),
    Part(
        "scoring_resultdispute",
        ResultDispute,
        lambda t: ResultDispute.objects.filter(match__tournament=t),
        since=3,
    ),
    Part("brackets_stage", Stage, lambda t: Stage.objects.filter(tournament=t)),
    Part(
        "brackets_stageentry", StageEntry, lambda t: StageEntry.objects.filter(stage__tournament=t)
    ),
    Part("brackets_round", Round, lambda t: Round.objects.filter(stage__tournament=t)),
    Part(
        "brackets_roundmatch",
        RoundMatch,
        lambda t: RoundMatch.objects.filter(round__stage__tournament=t),
    ),
    Part("ratings_ratingchange", RatingChange, lambda t: RatingChange.objects.filter(tournament=t)),
    Part(
        "ratings_playerrating",
        PlayerRating,
        lambda t: PlayerRating.objects.filter(player__entries__tournament=t).distinct(),
    ),
]

#: The tournament's (or its players') tables an archive leaves out, and why. None of them is
#: shown on a public page, in an export or in a result, so the imported copy serves the same
#: pages without them.
NOT_ARCHIVED: dict[type[models.Model], str] = {
    RefereeToken: "referee credentials are secrets: a restored event issues new links",
    WebhookEndpoint: "a receiver URL and its signing secret: configuration, not a record",
    WebhookDelivery: "the outbox of the webhooks left out: delivery state, not a record",
    EntryContact: "players' e-mail addresses are private (docs/security.md)",
    RoundEmail: "the log of e-mails sent to players' private addresses",
    MailSettings: "the language of e-mails to the addresses left out: nothing to send them to",
    CircuitTournament: "circuits span tournaments: a circuit is not one event's record",
}
