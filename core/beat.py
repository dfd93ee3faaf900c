"""The beat scheduler the deployment runs: redbeat (singleton lock in Redis) plus a heartbeat.

``celery beat -S core.beat.HeartbeatScheduler``: redbeat keeps the schedule in Redis and holds
the lock ``<prefix>::lock`` while it runs, so a second beat (a rolling restart, a scaled
deployment) waits instead of sending every periodic task twice. Each tick touches
``BEAT_HEARTBEAT_FILE`` when set: the container healthcheck (deploy/scripts/healthcheck.sh beat)
fails when the file is older than a minute, i.e. when beat stopped ticking.
"""

from __future__ import annotations

from typing import Any

from redbeat import RedBeatScheduler

from core.observability import beat_heartbeat_path


class HeartbeatScheduler(RedBeatScheduler):  # type: ignore[misc]
    def tick(self, *args: Any, **kwargs: Any) -> float:
        path = beat_heartbeat_path()
        if path is not None:
            path.touch()
        return float(super().tick(*args, **kwargs))
