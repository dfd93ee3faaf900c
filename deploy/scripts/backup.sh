#!/usr/bin/env bash
# One PostgreSQL backup: pg_dump's custom format (compressed, restorable table by table) into
# BACKUP_DIR as cutthroat-<UTC time>.dump, written under a temporary name and renamed when
# complete, then dumps older than BACKUP_RETENTION_DAYS (default 14) are deleted, keeping at
# least the newest BACKUP_KEEP_MIN (default 3) whatever their age.
# The dump is one consistent snapshot (a single repeatable-read transaction): it can be taken
# while hands are being recorded. Needs DATABASE_URL (or PG* variables) and pg_dump.
# compose runs it every BACKUP_INTERVAL_SECONDS in the `backup` service; restore: restore.sh.
set -euo pipefail
dir="${BACKUP_DIR:-/backups}"
mkdir -p "$dir"
name="cutthroat-$(date -u +%Y%m%dT%H%M%SZ).dump"
pg_dump --format=custom --no-owner --no-privileges --file "$dir/.$name.partial" "${DATABASE_URL:-}"
mv "$dir/.$name.partial" "$dir/$name"
echo "backup written: $dir/$name ($(stat -c %s "$dir/$name") bytes)"
keep="${BACKUP_KEEP_MIN:-3}"
ls -1t "$dir"/cutthroat-*.dump | tail -n +"$((keep + 1))" | while read -r old; do
  if [ -n "$(find "$old" -mtime +"${BACKUP_RETENTION_DAYS:-14}")" ]; then
    rm -f -- "$old" && echo "backup expired: $old"
  fi
done
