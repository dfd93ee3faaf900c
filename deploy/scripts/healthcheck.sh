#!/usr/bin/env bash
# Container healthchecks, one per process kind: healthcheck.sh web|ws|worker|beat
#   web, ws  GET /healthz on the process's own port with an allowed Host (the first entry of
#            DJANGO_ALLOWED_HOSTS, or HEALTHCHECK_HOST): any other Host answers 400.
#   worker   `celery inspect ping` to this worker only.
#   beat     the heartbeat file was touched within BEAT_HEARTBEAT_MAX_AGE seconds (60).
set -euo pipefail
cd "$(dirname "$0")/../.."
kind="${1:?usage: healthcheck.sh web|ws|worker|beat}"
host="${HEALTHCHECK_HOST:-${DJANGO_ALLOWED_HOSTS%%,*}}"
http_ok() {
  python - "$1" "$host" <<'PY'
import sys, urllib.request
port, host = sys.argv[1], sys.argv[2]
request = urllib.request.Request(f"http://127.0.0.1:{port}/healthz", headers={"Host": host})
sys.exit(0 if urllib.request.urlopen(request, timeout=3).status == 200 else 1)
PY
}
case "$kind" in
  web) http_ok "${PORT:-8000}" ;;
  ws) http_ok "${WS_PORT:-8001}" ;;
  worker)
    exec celery -A config.celery_app inspect ping --timeout 5 \
      --destination "${CELERY_HOSTNAME:-celery@$(hostname)}" >/dev/null ;;
  beat)
    file="${BEAT_HEARTBEAT_FILE:-/tmp/cutthroat-beat-heartbeat}"
    age=$(( $(date +%s) - $(stat -c %Y "$file") ))
    [ "$age" -le "${BEAT_HEARTBEAT_MAX_AGE:-60}" ] ;;
  *) echo "unknown process kind: $kind" >&2; exit 2 ;;
esac
