from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ratings"

    def ready(self) -> None:
        # ratings subscribes to scoring; scoring never imports ratings (layering).
        from ratings import receivers
        from scoring.signals import match_finished, match_reopened

        match_finished.connect(receivers.on_match_changed, dispatch_uid="ratings.update")
        match_reopened.connect(receivers.on_match_changed, dispatch_uid="ratings.reopen")
