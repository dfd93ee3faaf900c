from django.apps import AppConfig


class LiveConfig(AppConfig):
    """Public live pages, read-only JSON API and websocket consumers for spectators."""

    name = "live"
    verbose_name = "Live standings"

    def ready(self) -> None:
        from django.db.models.signals import post_save

        from brackets.models import Round
        from live import receivers

        post_save.connect(receivers.on_round_saved, sender=Round, dispatch_uid="live.round_warm")
