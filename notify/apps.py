from django.apps import AppConfig


class NotifyConfig(AppConfig):
    """Webhooks and e-mail: the project's outbound notifications (issue 16, item 6)."""

    name = "notify"
    verbose_name = "Notifications"

    def ready(self) -> None:
        # notify handles the domain events of the layers below it; none of them imports notify.
        # notify.tasks: registers the Celery tasks in every process, the web's too (Celery's
        # autodiscovery runs in workers only): notify.services.enqueue looks its task up by name.
        from core.events import hand_recorded, match_finished, round_published
        from notify import receivers, tasks  # noqa: F401

        round_published.connect(receivers.on_round_published, dispatch_uid="notify.round")
        match_finished.connect(receivers.on_match_finished, dispatch_uid="notify.match")
        hand_recorded.connect(receivers.on_hand_recorded, dispatch_uid="notify.hand")
