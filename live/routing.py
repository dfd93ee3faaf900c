"""Spectator websocket routes (appended to ``config.routing.websocket_urlpatterns``).

Under ``/ws/`` so the reverse proxy upgrades them (deploy/nginx).
"""

from typing import Any

from django.urls import path

from live.consumers import MatchConsumer, TournamentConsumer

websocket_urlpatterns: list[Any] = [
    path("ws/live/<slug:slug>/", TournamentConsumer.as_asgi(), name="live-ws-tournament"),
    path(
        "ws/live/<slug:slug>/matches/<int:match_id>/",
        MatchConsumer.as_asgi(),
        name="live-ws-match",
    ),
]
