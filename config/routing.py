"""Websocket routes. Apps append their consumers' routes here."""

from typing import Any

websocket_urlpatterns: list[Any] = []
