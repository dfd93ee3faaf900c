"""Read models of the scoring app: what a page, a panel or an API body shows about a match.

Presenters shape; they never write. ``match`` (the referee and director match pages),
``partnership`` (the partnership panel, R42/R43), ``confirmation`` (the players' confirmation
block) and ``bodies`` (the JSON forms of matches and hands, stored by the recording service for
idempotent replays). The queries they share are in :mod:`scoring.selectors`.
"""
