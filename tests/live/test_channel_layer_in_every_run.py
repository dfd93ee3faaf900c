"""The live tests' channel layer works in both runs (tests/live/conftest.py).

The live tests' fixture gave the channel layer a per-run ``prefix``, which only Redis's layer
takes: on the embedded run (SQLite, ``InMemoryChannelLayer``, what ``make demo`` serves) every
broadcast of a live test raised ``TypeError: ... unexpected keyword argument 'prefix'``, which
``broadcast_on_commit`` logged and dropped, so no live test there ever sent one.
"""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer


def test_a_group_message_reaches_its_member() -> None:
    layer = get_channel_layer()
    assert layer is not None
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)("ct-layer-check", channel)
    async_to_sync(layer.group_send)("ct-layer-check", {"type": "check", "n": 1})
    assert async_to_sync(layer.receive)(channel) == {"type": "check", "n": 1}
    async_to_sync(layer.group_discard)("ct-layer-check", channel)
