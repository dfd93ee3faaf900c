#!/usr/bin/env bash
# HTTP process: pages and the JSON API on WSGI threads. Django under ASGI measured 5-7x slower
# for plain HTTP on this size of machine (bench/bench_live.py), so websockets get their own
# process (start-ws.sh) and nginx routes /ws/ there. Migrations run in the release step.
# Binds BIND_HOST:PORT (0.0.0.0:8000 inside the container, on the compose network only: no
# port is published on the host, nginx is the only client). Access log: config/gunicorn.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PROMETHEUS_MULTIPROC_DIR="${PROMETHEUS_MULTIPROC_DIR:-/tmp/cutthroat-metrics-web-${PORT:-8000}}"
rm -rf "$PROMETHEUS_MULTIPROC_DIR" && mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
exec gunicorn config.wsgi:application \
  --config python:config.gunicorn \
  --worker-class gthread \
  --workers "${WEB_CONCURRENCY:-3}" \
  --threads "${WEB_THREADS:-4}" \
  --bind "${BIND_HOST:-0.0.0.0}:${PORT:-8000}" \
  --timeout 60
