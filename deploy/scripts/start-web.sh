#!/usr/bin/env bash
# HTTP process: pages and the JSON API on WSGI threads. Django under ASGI measured 5-7x slower
# for plain HTTP on this size of machine (bench/bench_live.py), so websockets get their own
# process (start-ws.sh) and nginx routes /ws/ there. Migrations run in the release step.
set -euo pipefail
exec gunicorn config.wsgi:application \
  --worker-class gthread \
  --workers "${WEB_CONCURRENCY:-3}" \
  --threads "${WEB_THREADS:-4}" \
  --bind "0.0.0.0:${PORT:-8000}" \
  --graceful-timeout 30 --timeout 60 \
  --access-logfile - --forwarded-allow-ips="*"
