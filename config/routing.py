"""Websocket routes. Apps append their consumers' routes here."""

from typing import Any

from live.routing import websocket_urlpatterns as live_websocket_urlpatterns

websocket_urlpatterns: list[Any] = []
websocket_urlpatterns += live_websocket_urlpatterns
