from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ratings"

    def ready(self) -> None:
        # ratings handles scoring's domain events; scoring never imports ratings (layering).
        from core.events import match_finished, match_reopened, player_rating_typed
        from ratings import receivers

        match_finished.connect(receivers.on_match_changed, dispatch_uid="ratings.update")
        match_reopened.connect(receivers.on_match_changed, dispatch_uid="ratings.reopen")
        player_rating_typed.connect(
            receivers.on_player_rating_typed, dispatch_uid="ratings.player_start"
        )
