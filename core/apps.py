from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        # drf-spectacular extensions register when their module is imported.
        from core.api import fields  # noqa: F401
