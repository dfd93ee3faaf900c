#!/usr/bin/env bash
# Celery worker. Tasks are idempotent (acks late + reject on worker lost may run them twice).
# Its metrics (task outcomes, lag) are served on CELERY_METRICS_PORT, internal network only.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PROMETHEUS_MULTIPROC_DIR="${PROMETHEUS_MULTIPROC_DIR:-/tmp/cutthroat-metrics-worker}"
rm -rf "$PROMETHEUS_MULTIPROC_DIR" && mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
exec celery -A config.celery_app worker \
  --loglevel "${CELERY_LOG_LEVEL:-INFO}" \
  --concurrency "${CELERY_CONCURRENCY:-2}" \
  --hostname "${CELERY_HOSTNAME:-celery@%h}" \
  --prefetch-multiplier 1 --without-gossip
