"""Send live events to Channels groups after the surrounding transaction commits.

Only services call this (STYLE.md, Zulip's rule): views, serializers and consumers never
broadcast domain events. When there is no transaction the event is sent at once. A failing
channel layer never breaks the write that caused the event: the channel layer is at-most-once
anyway and clients re-fetch on a version gap (PITFALLS.md).
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)


def group_send_now(group: str, event: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, event)
    except Exception:  # the write already committed; the client catches up by version
        logger.exception("broadcast to %s failed", group)


def broadcast_on_commit(groups: list[str], event: dict[str, Any]) -> None:
    """Queue ``event`` for every group in ``groups``, sent once the transaction commits."""

    def send() -> None:
        for group in groups:
            group_send_now(group, event)

    transaction.on_commit(send)
