"""Links a higher app adds to the pages of a lower one (layering, STYLE.md).

Why: a tournament's public pages (``live``) and a player's profile (``ratings``) sit below
``circuits`` and must not import it, yet a spectator should find the circuit a tournament is
part of and the circuits a player has points in. So an app registers a *linker* in its
``AppConfig.ready`` (as :mod:`core.result_readers`); the page asks every linker for its links.

A linker takes an id (a tournament's, a player's) and returns ``(text, url)`` pairs; it reads,
never writes. A player linker's text is in the active language; a tournament linker's text must
not depend on the language (the live pages cache it per tournament version, in every language:
``live.presenters.documents.part_of_links``), and a change to what it says must bump the
tournament's ``version``.
"""

from __future__ import annotations

from collections.abc import Callable

PageLink = tuple[str, str]
Linker = Callable[[int], list[PageLink]]

_tournament_linkers: list[Linker] = []
_player_linkers: list[Linker] = []


def tournament_linker_register(linker: Linker) -> None:
    """Add ``linker`` to a public tournament's pages (once, however often ``ready`` runs)."""
    if linker not in _tournament_linkers:
        _tournament_linkers.append(linker)


def player_linker_register(linker: Linker) -> None:
    """Add ``linker`` to a player's public profile (once, however often ``ready`` runs)."""
    if linker not in _player_linkers:
        _player_linkers.append(linker)


def tournament_links(tournament_id: int) -> list[PageLink]:
    return [link for linker in _tournament_linkers for link in linker(tournament_id)]


def player_links(player_id: int) -> list[PageLink]:
    return [link for linker in _player_linkers for link in linker(player_id)]
