"""What already stands on a match's result, asked by the app that corrects it.

Why: ``scoring`` corrects a finished match (a director's override) but must not import the apps
above it (layering, STYLE.md), and ``brackets`` may already have moved on from that result: the
next round is paired from it exactly once and is never re-paired (``Round.advanced_at``). So an
app that builds on results registers a *reader* in its ``AppConfig.ready``; the correcting
service asks every reader before it changes a result and makes the director acknowledge what
stands (README, "Errors in the automatic path": after an advance the director corrects by
override, and nothing already published is redone).

A reader takes a match id and returns a sentence for the director ("Round 3 of Swiss was
published from this round's results ..."), or ``""`` when nothing stands on the result. It is
called inside the correcting transaction, with the match row locked; it reads, never writes.
"""

from __future__ import annotations

from collections.abc import Callable

ResultReader = Callable[[int], str]

_readers: list[ResultReader] = []


def result_reader_register(reader: ResultReader) -> None:
    """Add ``reader`` (once, however often ``ready`` runs)."""
    if reader not in _readers:
        _readers.append(reader)


def results_built_on(match_id: int) -> list[str]:
    """What the registered readers say stands on the match's result (empty: nothing)."""
    return [text for reader in _readers if (text := reader(match_id))]
