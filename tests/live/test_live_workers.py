"""The spectators' gunicorn worker turns per-message deflate off (PITFALLS.md)."""

from __future__ import annotations

from uvicorn.config import Config

from live.workers import SpectatorWorker


def test_spectator_worker_config_has_no_per_message_deflate() -> None:
    config = Config(app="config.asgi:application", **SpectatorWorker.CONFIG_KWARGS)
    assert config.ws_per_message_deflate is False
    assert config.ws == "websockets-sansio"
    assert config.ws_max_size == 64 * 1024
