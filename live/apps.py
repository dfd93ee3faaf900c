from django.apps import AppConfig


class LiveConfig(AppConfig):
    """Public live pages, read-only JSON API and websocket consumers for spectators."""

    name = "live"
    verbose_name = "Live standings"

    def ready(self) -> None:
        from core.events import round_published
        from live import receivers

        round_published.connect(receivers.on_round_published, dispatch_uid="live.round_warm")
