#!/usr/bin/env bash
# Celery beat: exactly one per deployment (periodic reconciliation of finished rounds).
set -euo pipefail
exec celery -A config.celery_app beat --loglevel "${CELERY_LOG_LEVEL:-INFO}" \
  --schedule /tmp/celerybeat-schedule
