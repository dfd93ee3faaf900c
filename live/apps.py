from django.apps import AppConfig


class LiveConfig(AppConfig):
    """Public live pages, read-only JSON API and websocket consumers for spectators."""

    name = "live"
    verbose_name = "Live standings"
