#!/usr/bin/env bash
# Restore a dump from backup.sh into an EMPTY database, then check it:
#   deploy/scripts/restore.sh /backups/cutthroat-20260101T000000Z.dump postgres://.../cutthroat_restored
# Steps (docs/operations.md "Restore"): pg_restore into the target (create it first:
# `createdb cutthroat_restored`), then `manage.py migrate --check` (the dump's schema is the
# code's) and `manage.py check_consistency` (every match's stored scores equal the engine's
# fold of its stored hands). Point DATABASE_URL at the restored database only after both pass.
set -euo pipefail
dump="${1:?usage: restore.sh DUMP TARGET_DATABASE_URL}"
target="${2:?usage: restore.sh DUMP TARGET_DATABASE_URL}"
cd "$(dirname "$0")/../.."
pg_restore --no-owner --no-privileges --exit-on-error --dbname "$target" "$dump"
DATABASE_URL="$target" python manage.py migrate --check --noinput
DATABASE_URL="$target" python manage.py check_consistency
