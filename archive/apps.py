from django.apps import AppConfig


class ArchiveConfig(AppConfig):
    """A whole tournament as a ZIP archive, and its import into an empty system (issue 16)."""

    name = "archive"
    verbose_name = "Archive"
