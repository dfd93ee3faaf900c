#!/usr/bin/env bash
# Release step: run once before starting new web processes (compose: the `release` service).
# Migrations must be backward compatible with the code still running (docs/operations.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
python manage.py migrate --noinput
python manage.py check --deploy --fail-level WARNING
