#!/usr/bin/env bash
# Celery worker. Tasks are idempotent (acks late + reject on worker lost may run them twice).
set -euo pipefail
exec celery -A config.celery_app worker \
  --loglevel "${CELERY_LOG_LEVEL:-INFO}" \
  --concurrency "${CELERY_CONCURRENCY:-2}" \
  --prefetch-multiplier 1 --without-gossip
