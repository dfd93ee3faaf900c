"""Where the director's pages offer a substitute (T11), from the service's own rule.

:func:`brackets.services.pairs.partnership_substitute_refusals` decides, for the service and
for the pages alike: the partnerships page shows the form only on the rows it allows and its
short reason on the others; the round page links the partnership with the bye (T1) and the
partnership that forfeited (T7) where it allows them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from brackets.presenters.director import MatchLine
from brackets.selectors.pair_roster import NamedPair
from brackets.selectors.pairs import pairs_named, players_disqualified, players_gone
from brackets.services.pairs import partnership_substitute_refusals
from scoring.models import Match
from tournament.models import Tournament
from tournament.partnerships import PartnershipView, partnership_list


@dataclass(frozen=True, slots=True)
class PartnershipRow:
    """A row of the partnerships page: the partnership and whether it may take a substitute
    now (T11)."""

    pair: PartnershipView
    offer_substitute: bool
    """The service would take a substitute: the page shows the form."""
    no_substitute: str
    """Otherwise the service's short reason ("" for a partnership without current players)."""
    gone: frozenset[int] = frozenset()
    """Its players withdrawn or disqualified, from the event or from a stage (T7): marked on
    the row and the player the substitute form offers as leaving (T11)."""
    disqualified: frozenset[int] = frozenset()
    """Those of ``gone`` disqualified (T7): marked "disqualified", not "withdrawn"."""


def partnership_rows(*, tournament: Tournament) -> list[PartnershipRow]:
    """Every partnership of the tournament with the service's answer to "may it take a
    substitute now?" (T11) and its players who went out (T7). Nine queries, and a running pairs
    knockout stage's data (T10: who lost a table there)."""
    pairs = partnership_list(tournament_id=tournament.pk)
    refusals = partnership_substitute_refusals(
        tournament=tournament, entry_ids=[e for p in pairs for e, _name, _club in p.players]
    )
    ids = [e for p in pairs for e, _name, _club in p.players]
    gone = players_gone(entry_ids=ids)
    disqualified = players_disqualified(entry_ids=ids)
    rows = []
    for p in pairs:
        refusal = refusals.get(p.id)
        rows.append(
            PartnershipRow(
                pair=p,
                offer_substitute=p.id in refusals and refusal is None,
                no_substitute=refusal.reason if refusal is not None else "",
                gone=frozenset(e for e, _name, _club in p.players if e in gone),
                disqualified=frozenset(e for e, _name, _club in p.players if e in disqualified),
            )
        )
    return rows


@dataclass(frozen=True, slots=True)
class RoundSubstitutes:
    """The round page's links to a substitution (T11), each where the service takes one."""

    byes: list[NamedPair]
    """The partnerships with the bye (T1)."""
    forfeits: dict[int, NamedPair]
    """Match id -> the partnership that forfeited it (T7), named by who sat there."""


def round_substitutes(
    *, tournament: Tournament, bye_pairs: Sequence[NamedPair], matches: Sequence[MatchLine]
) -> RoundSubstitutes:
    """Which partnerships of a pairs round the page offers a substitute for (T11): the bye's
    and, at a table ended by forfeit (T7), the forfeiting partnership, where
    :func:`partnership_substitute_refusals` allows it. A table still to play is never
    offered one (its partnerships have a match to play: a no-show there is a forfeit).
    Five queries and a running pairs knockout stage's data (none without a bye or a
    forfeit)."""
    forfeiting = {
        m.match_id: [s.entry_id for s in side.seats]
        for m in matches
        if m.end_reason == Match.EndReason.FORFEIT
        for side in m.sides
        if any(s.forfeited for s in side.seats)
    }
    at_tables = [e for seats in forfeiting.values() for e in seats]
    entry_ids = [e for p in bye_pairs for e in p.entry_ids] + at_tables
    if not entry_ids:
        return RoundSubstitutes(byes=[], forfeits={})
    refusals = partnership_substitute_refusals(tournament=tournament, entry_ids=entry_ids)

    def allowed(pair_id: int) -> bool:
        return pair_id in refusals and refusals[pair_id] is None

    # Named by the players who sat there (T11: a played table keeps its players).
    seated = pairs_named(at_tables) if at_tables else []
    named = {e: pair for pair in seated for e in pair.entry_ids}
    forfeits = {
        match_id: named[seats[0]]
        for match_id, seats in forfeiting.items()
        if seats[0] in named and allowed(named[seats[0]].pair_id)
    }
    return RoundSubstitutes(byes=[p for p in bye_pairs if allowed(p.pair_id)], forfeits=forfeits)
