#!/usr/bin/env bash
# Websocket process: spectators' live pushes (Channels, ASGI). SpectatorWorker is uvicorn with
# per-message deflate off and a small incoming frame limit (PITFALLS.md); one process held
# 2,000 sockets in bench/bench_live.py.
set -euo pipefail
exec gunicorn config.asgi:application \
  --worker-class live.workers.SpectatorWorker \
  --workers "${WS_CONCURRENCY:-1}" \
  --bind "0.0.0.0:${WS_PORT:-8001}" \
  --graceful-timeout 30 --timeout 0 \
  --forwarded-allow-ips="*" \
  --log-level "${WS_LOG_LEVEL:-warning}"  # INFO logs two lines per connection (issue 19)
