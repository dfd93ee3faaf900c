"""Bench-only Django wiring for ``make bench-hands``: production settings plus a floor view.

Never installed in the real project: only ``bench/bench_hands.py`` starts a server with
``DJANGO_SETTINGS_MODULE=bench.floor_app.settings``.
"""
