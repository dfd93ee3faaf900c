"""Read models of the director pages: plain frozen rows for the templates.

Presenters shape; they never write. ``director`` (seeding, rounds, seating preview, round
matches, referee choices) and ``bracket`` (the overview's stage-by-stage tree). The queries
they share are in :mod:`brackets.selectors`.
"""
