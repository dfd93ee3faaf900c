#!/usr/bin/env bash
# ASGI web process: HTTP and websockets. Migrations run once, in the release step.
set -euo pipefail
exec gunicorn config.asgi:application \
  --worker-class uvicorn.workers.UvicornWorker \
  --workers "${WEB_CONCURRENCY:-3}" \
  --bind "0.0.0.0:${PORT:-8000}" \
  --graceful-timeout 30 --timeout 60 \
  --access-logfile - --forwarded-allow-ips="*"
