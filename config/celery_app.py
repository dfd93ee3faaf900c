"""The Celery application. Settings come from Django settings under the ``CELERY_`` prefix."""

import os

from celery import Celery

from core.observability import connect_celery_signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("cutthroat")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Request ids travel in task headers; task outcomes and lag are counted (core/observability.py).
connect_celery_signals()
