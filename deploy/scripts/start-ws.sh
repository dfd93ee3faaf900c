#!/usr/bin/env bash
# Websocket process: spectators' live pushes (Channels, ASGI). SpectatorWorker is uvicorn (the
# uvicorn-worker package) with per-message deflate off and a small incoming frame limit
# (PITFALLS.md); one process held 2,000 sockets in bench/bench_live.py. Same binding rule as
# start-web.sh (internal network only).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PROMETHEUS_MULTIPROC_DIR="${PROMETHEUS_MULTIPROC_DIR:-/tmp/cutthroat-metrics-ws-${WS_PORT:-8001}}"
rm -rf "$PROMETHEUS_MULTIPROC_DIR" && mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
exec gunicorn config.asgi:application \
  --config python:config.gunicorn \
  --worker-class live.workers.SpectatorWorker \
  --workers "${WS_CONCURRENCY:-1}" \
  --bind "${BIND_HOST:-0.0.0.0}:${WS_PORT:-8001}" \
  --timeout 0 \
  --log-level "${WS_LOG_LEVEL:-warning}"  # INFO logs two lines per connection (issue 19)
