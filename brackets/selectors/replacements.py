"""Who may take a no-show's seat (T7), with what a director weighs: their seed in the stage,
or their place in the stage before (the first player who missed the cut comes first)."""

from __future__ import annotations

from dataclasses import dataclass

from brackets.models import Round, Stage, StageEntry
from scoring.models import Seat
from tournament.models import Entry


@dataclass(frozen=True, slots=True)
class ReplacementCandidate:
    entry_id: int
    name: str
    checked_in: bool
    #: Seed in the round's stage (a player with a bye this round, or one who joined late).
    seed: int | None
    #: Place in the stage before this one, and that stage's name (who missed the cut).
    earlier_place: int | None
    earlier_stage: str


def replacement_candidates(*, round: Round) -> list[ReplacementCandidate]:
    """Active entries of the round's tournament not seated in the round (T7), in the order a
    director would pick them: seeded in this stage by seed, then by place in the stage
    before, then the rest by name. Four queries."""
    stage = round.stage
    seated = Seat.objects.filter(match__round_link__round=round).values_list("entry_id")
    entries = list(
        Entry.objects.filter(tournament_id=stage.tournament_id, status=Entry.Status.ACTIVE)
        .exclude(pk__in=seated)
        .select_related("player")
        .order_by("player__name", "pk")
    )
    ids = [e.pk for e in entries]
    seeds = dict(
        StageEntry.objects.filter(stage=stage, entry_id__in=ids)
        .exclude(status=StageEntry.Status.WITHDRAWN)
        .values_list("entry_id", "seed")
    )
    earlier = (
        Stage.objects.filter(tournament_id=stage.tournament_id, number__lt=stage.number)
        .order_by("-number")
        .first()
    )
    places: dict[int, int] = {}
    if earlier is not None:
        rows = StageEntry.objects.filter(stage=earlier, entry_id__in=ids, placing__isnull=False)
        for entry_id, placing in rows.values_list("entry_id", "placing"):
            if placing is not None:
                places[entry_id] = placing
    candidates = [
        ReplacementCandidate(
            entry_id=e.pk,
            name=e.player.name,
            checked_in=e.checked_in,
            seed=seeds.get(e.pk),
            earlier_place=places.get(e.pk),
            earlier_stage=earlier.name if earlier is not None else "",
        )
        for e in entries
    ]

    def order(c: ReplacementCandidate) -> tuple[int, int]:
        if c.seed is not None:
            return (0, c.seed)
        if c.earlier_place is not None:
            return (1, c.earlier_place)
        return (2, 0)  # then by name: the list is sorted by name already (stable sort)

    return sorted(candidates, key=order)
