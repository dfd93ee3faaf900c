#!/usr/bin/env bash
# Celery beat (periodic reconciliation of finished rounds). A singleton by construction: the
# redbeat scheduler holds a lock in Redis, so a second beat started by mistake (or during a
# rolling restart) waits instead of sending every periodic task twice (core/beat.py). Each tick
# touches BEAT_HEARTBEAT_FILE, which the healthcheck reads.
set -euo pipefail
cd "$(dirname "$0")/../.."
export BEAT_HEARTBEAT_FILE="${BEAT_HEARTBEAT_FILE:-/tmp/cutthroat-beat-heartbeat}"
exec celery -A config.celery_app beat \
  --scheduler core.beat.HeartbeatScheduler \
  --loglevel "${CELERY_LOG_LEVEL:-INFO}"
