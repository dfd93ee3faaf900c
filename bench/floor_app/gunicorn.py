"""gunicorn settings of the hand bench: production's (``config/gunicorn.py``: its worker hooks,
the warm-up and the freeze of ``core/warmup.py``) without the access log, which the bench asks
for only with ``--access-log`` (thousands of lines a second would only cost time)."""

from config.gunicorn import *  # noqa: F403

accesslog = None
