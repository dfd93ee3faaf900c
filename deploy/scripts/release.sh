#!/usr/bin/env bash
# Release step: run before starting new web processes.
set -euo pipefail
python manage.py migrate --noinput
python manage.py check --deploy --fail-level WARNING
