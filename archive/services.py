"""A whole tournament as a ZIP archive, and back (issue 16, item 5).

The archive holds one JSON file per database table of the tournament's data and a
``manifest.json``: the format version, the tournament, each file's table, row count and
SHA-256. Rows keep their primary keys and every stored value exactly (times to the
microsecond, JSON columns as stored), so an import into an empty system serves every page
byte for byte as before (tests/archive/test_archive_round_trip.py).

What is archived (``archive.contents.PARTS``): the tournament, its players and entries, a
pairs event's partnerships and their members (format version 3), tables, roles, action log,
matches, seats, hands with the players' confirmations and disputes (version 3), stages, stage
entries, rounds and their matches, the rating history of its matches and its players' current
ratings, and the site accounts those rows name (directors, referee identities, players' linked
accounts: user name and names only, never a password). What is not
(``archive.contents.NOT_ARCHIVED``, each with its reason): the referee's client address and
browser stored with each hand (audit data, personal), referee credentials (secrets; referees
get new links), webhooks (secrets), players' e-mail addresses and the e-mails sent to them
(private), circuits (they span tournaments).

No credential material either (:data:`EXCLUDED`, :func:`_action_log_values`): not the
players' confirmation PINs (``Entry.pin_hash``: a hash of 4 digits, found offline in at most
10,000 guesses), and of a webhook's URL in the action log only its scheme and host (a
receiver's path or query is often its own key). An imported entry has no PIN: if the imported
event is continued, the director issues new ones. An archive made before (versions 2 and 3
held ``pin_hash``) imports without them, and its webhook URLs are shortened the same way.

An older archive (version 1 or 2) has none of version 3's files: a pairs event exported then
lost its partnerships, so its imported copy has no partnership and shows no results; there
is nothing to restore them from.

Co-director invitations (format version 2): a director role that an invitation granted is
marked by the used invitation linked to it (``DirectorInvitation.role``), and the mark is a
limit, not a privilege: such an account directs its one tournament and creates none
(``tournament.selectors.user_directs_any(by_invitation=False)``). Restored without it, the
account would become a full director. So the archive keeps, of each USED invitation that still
marks a role, only what the mark needs (:data:`INVITATION_FIELDS`): which role, who issued it
and who used it, when, and its non-secret lookup prefix (already in the archived action log).
Never its key hash nor its label (the director's note), and never a pending or revoked
invitation (a capability, and nothing to mark): a restored system issues new links. An import
gives each restored invitation a random hash that no key has, and refuses an invitation row
that is not a used one with its role, or that carries any other column (a crafted archive
cannot plant a working link). A version 1 archive has no invitations: its co-directors are
restored unmarked, as before.

Import: into a system with no tournament and no player yet (``ArchiveError`` otherwise);
accounts are created inactive with unusable passwords (a user name already taken gets a
suffix), referee identities under the tournament's referee names (``ref:<id>:<name>``, also
from an older archive), and every reference to them follows the new ids. One transaction: a
bad archive changes nothing.
"""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import io
import json
import secrets
import uuid
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from django.contrib.auth import get_user_model
from django.core.management.color import no_style
from django.db import connection, models, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from archive.contents import PARTS
from core.exceptions import ApplicationError
from scoring.models import Hand
from tournament.models import ActionLog, DirectorInvitation, Entry, Player, Tournament
from tournament.referee_names import referee_name_of, referee_username

FORMAT = "cutthroat-tournament-archive"
#: 2: co-director invitations' marks (``tournament_directorinvitation.json``).
#: 3: a pairs event's partnerships and their members, hands' confirmations and disputes.
FORMAT_VERSION = 3
#: The versions an import reads (an older archive lacks the files added since).
READABLE_VERSIONS = frozenset({1, 2, 3})
MANIFEST = "manifest.json"
BATCH = 2000


class ArchiveError(ApplicationError):
    """The archive cannot be imported (format, integrity, or the system is not empty)."""


def _user_ids(t: Tournament) -> set[int]:
    """The accounts the archived rows name: every user column of every part, as archived (an
    invitation's revoker is not, :data:`EXCLUDED`)."""
    user_model = get_user_model()
    ids: set[int] = set()
    for part in PARTS:
        for field in _archived_fields(part.model):
            if field.is_relation and field.related_model is user_model:
                qs = part.rows(t).order_by().values_list(field.attname, flat=True).distinct()
                ids.update(i for i in qs if i is not None)
    return ids


USER_FIELDS = ["id", "username", "first_name", "last_name", "date_joined"]

#: A used invitation's columns that the archive keeps: the mark and its facts (the module).
INVITATION_FIELDS = (
    "id",
    "created_at",
    "updated_at",
    "prefix",
    "issued_by_id",
    "tournament_id",
    "expires_at",
    "used_at",
    "used_by_id",
    "role_id",
)

#: Columns left out: personal data kept for audit only (the referee's phone address and
#: browser), never shown on a page, a player's confirmation PIN hash (credential material:
#: 10,000 guesses find the PIN), and an invitation's secret-derived hash, label and
#: revocation (module docstring). Imported rows get the field's empty value (an entry no PIN,
#: an invitation a random hash: :func:`_invitation_restored`).
EXCLUDED: dict[type[models.Model], set[str]] = {
    Hand: {"client_ip", "user_agent"},
    Entry: {"pin_hash"},
    DirectorInvitation: {f.attname for f in DirectorInvitation._meta.concrete_fields}
    - set(INVITATION_FIELDS),
}

#: Columns an older archive holds that an import leaves out, rather than refusing the archive
#: (versions 2 and 3 wrote ``Entry.pin_hash``): the restored entry has no PIN.
DROPPED_ON_IMPORT: dict[type[models.Model], set[str]] = {
    Entry: {"pin_hash"},
}


def webhook_url_shortened(url: str) -> str:
    """A webhook receiver's URL as an archive keeps it: scheme and host only, the rest
    ``…`` (``https://hooks.example.org/…``): a receiver's path or query is often the key
    that lets anyone post to it."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "…"
    host = parts.netloc.rpartition("@")[2]  # never a user name or password (refused anyway)
    if not parts.scheme or not host:
        return "…"
    rest = parts.path.strip("/") or parts.query or parts.fragment
    return f"{parts.scheme}://{host}/" + ("…" if rest else "")


def _action_log_values(values: dict[str, Any]) -> dict[str, Any]:
    """An action log row as archived and as imported: a webhook's URL shortened
    (:func:`webhook_url_shortened`); webhooks themselves are left out (``NOT_ARCHIVED``)."""
    data = values.get("data")
    if (
        str(values.get("verb", "")).startswith("webhook.")
        and isinstance(data, dict)
        and isinstance(data.get("url"), str)
    ):
        return {**values, "data": {**data, "url": webhook_url_shortened(data["url"])}}
    return values


#: Rows rewritten on export, and on import (an older archive holds them as they were stored).
REWRITTEN: dict[type[models.Model], Callable[[dict[str, Any]], dict[str, Any]]] = {
    ActionLog: _action_log_values,
}


def _fields(model: type[models.Model]) -> list[models.Field[Any, Any]]:
    return list(model._meta.concrete_fields)


def _archived_fields(model: type[models.Model]) -> list[models.Field[Any, Any]]:
    skip = EXCLUDED.get(model, set())
    return [f for f in _fields(model) if f.attname not in skip]


def _user_fk_attnames(model: type[models.Model]) -> list[str]:
    user_model = get_user_model()
    return [f.attname for f in _fields(model) if f.is_relation and f.related_model is user_model]


def _encode(value: Any) -> Any:
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()  # to the microsecond (DjangoJSONEncoder drops them)
    if isinstance(value, uuid.UUID | decimal.Decimal):
        return str(value)
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    return value


def _dump(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=_encode).encode()


def _table_json(model: type[models.Model], qs: models.QuerySet[Any]) -> tuple[bytes, int]:
    names = [f.attname for f in _archived_fields(model)]
    rewrite = REWRITTEN.get(model)
    rows = [
        [_encode(v) for v in (row if rewrite is None else _rewritten(rewrite, names, row))]
        for row in qs.order_by("pk").values_list(*names).iterator(2000)
    ]
    return _dump(
        {"table": model._meta.db_table, "model": model._meta.label, "fields": names, "rows": rows}
    ), len(rows)


def _rewritten(
    rewrite: Callable[[dict[str, Any]], dict[str, Any]], names: list[str], row: tuple[Any, ...]
) -> list[Any]:
    values = rewrite(dict(zip(names, row, strict=True)))
    return [values[name] for name in names]


def archive_export(tournament: Tournament) -> bytes:
    """The tournament's ZIP archive (deterministic apart from the manifest's ``exported_at``)."""
    buffer = io.BytesIO()
    files: list[dict[str, Any]] = []
    outermost = not connection.in_atomic_block
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf, transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            # One snapshot of every table: a running tournament is archived as of one moment
            # (a hand recorded meanwhile is in all of its tables or in none).
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        user_ids = _user_ids(tournament)
        user_model = get_user_model()
        users = user_model.objects.filter(pk__in=user_ids).order_by("pk")
        user_rows = [[_encode(v) for v in row] for row in users.values_list(*USER_FIELDS)]
        parts = [
            (
                "auth_user",
                _dump(
                    {
                        "table": "auth_user",
                        "model": "auth.User",
                        "fields": USER_FIELDS,
                        "rows": user_rows,
                    }
                ),
                len(user_rows),
            )
        ]
        for part in PARTS:
            body, count = _table_json(part.model, part.rows(tournament))
            parts.append((part.name, body, count))
        for name, body, count in parts:
            info = zipfile.ZipInfo(f"{name}.json", date_time=(2000, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, body)
            files.append(
                {
                    "file": f"{name}.json",
                    "table": name,
                    "rows": count,
                    "sha256": hashlib.sha256(body).hexdigest(),
                }
            )
        manifest = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "exported_at": timezone.now().isoformat(),
            "tournament": {
                "id": tournament.pk,
                "slug": tournament.slug,
                "name": tournament.name,
                "status": tournament.status,
            },
            "files": files,
        }
        info = zipfile.ZipInfo(MANIFEST, date_time=(2000, 1, 1, 0, 0, 0))
        zf.writestr(info, json.dumps(manifest, indent=2, ensure_ascii=False))
    return buffer.getvalue()


# -- import ---------------------------------------------------------------------------------


@contextmanager
def _keep_auto_times(model_list: list[type[models.Model]]) -> Iterator[None]:
    """Store ``created_at``/``updated_at`` as archived, not as now (auto_now fields)."""
    saved = []
    for model in model_list:
        for f in _fields(model):
            if isinstance(f, models.DateField) and (f.auto_now or f.auto_now_add):
                saved.append((f, f.auto_now, f.auto_now_add))
                f.auto_now = f.auto_now_add = False
    try:
        yield
    finally:
        for f, now, now_add in saved:
            f.auto_now, f.auto_now_add = now, now_add


def _read(zf: zipfile.ZipFile, manifest: dict[str, Any], name: str) -> dict[str, Any]:
    entry = next((f for f in manifest["files"] if f["table"] == name), None)
    if entry is None:
        raise ArchiveError(
            _("The archive has no %(file)s.") % {"file": f"{name}.json"}, code="archive_incomplete"
        )
    try:
        body = zf.read(entry["file"])
    except KeyError as exc:
        raise ArchiveError(
            _("The archive has no %(file)s.") % {"file": entry["file"]}, code="archive_incomplete"
        ) from exc
    if hashlib.sha256(body).hexdigest() != entry["sha256"]:
        raise ArchiveError(
            _("%(file)s does not match its checksum in the manifest.") % {"file": entry["file"]},
            code="archive_corrupt",
        )
    data: dict[str, Any] = json.loads(body)
    if len(data["rows"]) != entry["rows"]:
        raise ArchiveError(
            _("%(file)s has a different row count than the manifest says.")
            % {"file": entry["file"]},
            code="archive_corrupt",
        )
    return data


def _manifest(zf: zipfile.ZipFile) -> dict[str, Any]:
    try:
        manifest: dict[str, Any] = json.loads(zf.read(MANIFEST))
    except KeyError as exc:
        raise ArchiveError(
            _("Not a tournament archive: no manifest.json."), code="archive_format"
        ) from exc
    if manifest.get("format") != FORMAT:
        raise ArchiveError(_("Not a tournament archive (unknown format)."), code="archive_format")
    if manifest.get("format_version") not in READABLE_VERSIONS:
        raise ArchiveError(
            _(
                "Archive format version %(version)s is not supported "
                "(this system reads version %(supported)s)."
            )
            % {"version": manifest.get("format_version"), "supported": FORMAT_VERSION},
            code="archive_version",
        )
    return manifest


def _invitation_restored(values: dict[str, Any]) -> dict[str, Any]:
    """A restored invitation row: a used one with its role (the mark), with a random hash that
    no key has; anything else is refused (module docstring)."""
    if values.get("used_at") is None or values.get("role_id") is None:
        raise ArchiveError(
            _("%(file)s: an invitation that was not used to make a director.")
            % {"file": "tournament_directorinvitation.json"},
            code="archive_format",
        )
    return {**values, "key_hash": secrets.token_hex(32)}


def _row_objects(
    model: type[models.Model], data: dict[str, Any], users: dict[int, int]
) -> list[models.Model]:
    by_name = {f.attname: f for f in _fields(model)}
    if model is DirectorInvitation:
        # Only the columns an export writes: never a key hash, a label or a revocation.
        by_name = {n: f for n, f in by_name.items() if n in INVITATION_FIELDS}
    dropped = DROPPED_ON_IMPORT.get(model, set())
    unknown = [n for n in data["fields"] if n not in by_name and n not in dropped]
    if unknown:
        raise ArchiveError(
            _("%(table)s: unknown columns %(columns)s.")
            % {"table": data["table"], "columns": unknown},
            code="archive_format",
        )
    user_fks = set(_user_fk_attnames(model))
    rewrite = REWRITTEN.get(model)
    out = []
    for row in data["rows"]:
        values: dict[str, Any] = {}
        for name, value in zip(data["fields"], row, strict=True):
            if name in dropped:
                continue  # an older archive's credential material: never restored
            field = by_name[name]
            if name in user_fks and value is not None:
                value = users[value]
            elif value is not None and isinstance(
                field,
                models.DateTimeField | models.DateField | models.UUIDField | models.DecimalField,
            ):
                value = field.to_python(value)
            values[name] = value
        if model is DirectorInvitation:
            values = _invitation_restored(values)
        if rewrite is not None:
            values = rewrite(values)
        out.append(model(**values))
    return out


def archive_import(source: bytes | io.BufferedIOBase) -> Tournament:
    """Import an archive into an empty system; returns the tournament."""
    raw = source if isinstance(source, bytes) else source.read()
    try:
        zf = zipfile.ZipFile(io.BytesIO(raw))
    except zipfile.BadZipFile as exc:
        raise ArchiveError(_("Not a ZIP file."), code="archive_format") from exc
    with zf:
        manifest = _manifest(zf)
        if Tournament.objects.exists() or Player.objects.exists():
            raise ArchiveError(
                _(
                    "The archive imports into an empty system only: this one already has "
                    "tournaments or players."
                ),
                code="system_not_empty",
                status=409,
            )
        models_in_order = [p.model for p in PARTS]
        version = manifest["format_version"]
        with transaction.atomic(), _keep_auto_times(models_in_order):
            users = _import_users(
                _read(zf, manifest, "auth_user"),
                tournament_id=manifest["tournament"]["id"],
                referee_ids=_referee_ids(_read(zf, manifest, "tournament_tournamentrole")),
            )
            for part in PARTS:
                if part.since > version:
                    continue  # an older archive: nothing of this table to restore
                objs = _row_objects(part.model, _read(zf, manifest, part.name), users)
                part.model._default_manager.bulk_create(objs, batch_size=BATCH)
            _reset_sequences(models_in_order)
        tournament_id = manifest["tournament"]["id"]
    return Tournament.objects.get(pk=tournament_id)


def _referee_ids(roles: dict[str, Any]) -> set[int]:
    """The archived users whose every role in the archive is the referee role: the
    tournament's referee identities (a director who also refereed stays an account)."""
    fields = roles["fields"]
    kinds: dict[int, set[str]] = {}
    for row in roles["rows"]:
        values = dict(zip(fields, row, strict=True))
        kinds.setdefault(values["user_id"], set()).add(values["role"])
    return {user_id for user_id, roles_of in kinds.items() if roles_of == {"referee"}}


def _import_users(
    data: dict[str, Any], *, tournament_id: int, referee_ids: set[int]
) -> dict[int, int]:
    """Create the archived accounts, inactive and password-less. A referee identity is named
    in the tournament's namespace (``tournament.referee_names``: the tournament keeps its
    id), also from an archive made before names were per tournament, so a referee never
    takes a name a site account could have; a name taken already gets a suffix."""
    user_model = get_user_model()
    taken = set(user_model.objects.values_list("username", flat=True))
    taken_folded = {name.casefold() for name in taken}
    mapping: dict[int, int] = {}
    fields = data["fields"]
    for row in data["rows"]:
        values = dict(zip(fields, row, strict=True))
        base = values["username"]
        referee = values["id"] in referee_ids
        if referee:  # one referee name per tournament whatever its case, as referee_create
            base = referee_username(tournament_id=tournament_id, name=referee_name_of(base))
        username, n = base[:150], 1
        while username in taken or (referee and username.casefold() in taken_folded):
            n += 1
            suffix = f"-{n}"
            username = base[: 150 - len(suffix)] + suffix  # a 150-character name too
        taken.add(username)
        taken_folded.add(username.casefold())
        user = user_model(
            username=username,
            first_name=values.get("first_name") or "",
            last_name=values.get("last_name") or "",
            is_active=False,
            is_staff=False,
            is_superuser=False,
        )
        if values.get("date_joined"):
            user.date_joined = dt.datetime.fromisoformat(values["date_joined"])
        user.set_unusable_password()
        user.save()
        mapping[values["id"]] = user.pk
    return mapping


def _reset_sequences(model_list: list[type[models.Model]]) -> None:
    """Point each table's id sequence past the imported ids (PostgreSQL; SQLite follows the
    largest id by itself)."""
    statements = connection.ops.sequence_reset_sql(no_style(), model_list)
    if statements:
        with connection.cursor() as cursor:
            for sql in statements:
                cursor.execute(sql)


def tournament_for_archive(slug: str) -> Tournament:
    t = Tournament.objects.filter(Q(slug=slug)).first()
    if t is None:
        raise ArchiveError(f"No tournament {slug!r}.", code="not_found", status=404)
    return t
