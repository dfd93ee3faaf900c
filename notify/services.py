"""Webhook services: endpoints (create, disable), the outbox (write a delivery row per
endpoint after an event commits), sending one delivery, and the sweep that makes every row
reach its receiver eventually (docs/webhooks.md).

At-least-once: a row is sent until the receiver answers 2xx or the retries are spent. A worker
killed after the receiver got the body but before the row was marked delivered sends it again
with the same ``X-Cutthroat-Delivery`` id, which is why receivers dedupe on it. Concurrent
senders of one row are kept apart by a lease (``locked_until``), not by a transaction held
open across the HTTP call.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from brackets.models import Round
from core.exceptions import ApplicationError, NotFoundError
from notify import payloads, signing, transport
from notify.models import WebhookDelivery, WebhookEndpoint, WebhookEvent
from scoring.models import Hand, Match
from tournament.context import Action, require_actor
from tournament.models import Tournament
from tournament.services import action_log_record

logger = logging.getLogger(__name__)

# The events an endpoint subscribes to (``ping`` is sent on demand only, to one endpoint).
EVENTS = [e.value for e in WebhookEvent if e != WebhookEvent.PING]
MAX_ENDPOINTS = 10


WEBHOOK_DELIVER_TASK = "notify.webhook_deliver"  # notify.tasks.webhook_deliver


def _setting(name: str, default: Any) -> Any:
    return getattr(settings, name, default)


# -- endpoints ------------------------------------------------------------------------------


def endpoint_create(
    *,
    tournament: Tournament,
    actor: Any,
    url: str,
    events: Iterable[str],
    description: str = "",
) -> tuple[WebhookEndpoint, str]:
    """A new endpoint and its secret (returned here once; the page shows it once)."""
    require_actor(actor, tournament, Action.MANAGE)
    url = (url or "").strip()
    chosen = sorted(set(events))
    errors: dict[str, list[str]] = {}
    if not url:
        errors["url"] = [_("Enter the receiver's URL.")]
    elif len(url) > 500:
        errors["url"] = [_("At most %(max)s characters.") % {"max": 500}]
    else:
        try:
            transport.resolve(url)
        except transport.UnsafeTargetError as exc:
            errors["url"] = [str(exc)]
    unknown = [e for e in chosen if e not in EVENTS]
    if unknown or not chosen:
        errors["events"] = [_("Choose one or more of: %(events)s.") % {"events": ", ".join(EVENTS)}]
    if len(description) > 120:
        errors["description"] = [_("At most %(max)s characters.") % {"max": 120}]
    if errors:
        raise ApplicationError(
            _("The webhook was not added: %(problems)s")
            % {"problems": "; ".join(f"{k}: {v[0]}" for k, v in errors.items())},
            code="invalid_webhook",
            fields=errors,
        )
    secret = signing.new_secret()
    with transaction.atomic():
        # The tournament's row serialises additions: two submissions at once (a double tap,
        # a reloaded page re-posting its form) cannot both pass the checks below.
        list(Tournament.objects.select_for_update().filter(pk=tournament.pk).values_list("pk"))
        active = WebhookEndpoint.objects.filter(tournament=tournament, active=True)
        if active.filter(url=url).exists():
            # One active endpoint a URL: a second would sign every event twice, with its own
            # secret, and the first secret (shown once) is the one the receiver keeps.
            raise ApplicationError(
                _(
                    "The webhook was not added: %(url)s already receives this tournament's "
                    "events. Disable that one first to add it again with a new secret."
                )
                % {"url": url},
                code="duplicate_webhook",
                fields={"url": [_("Already an active webhook of this tournament.")]},
            )
        if active.count() >= MAX_ENDPOINTS:
            raise ApplicationError(
                _("A tournament has at most %(max)s active webhooks.") % {"max": MAX_ENDPOINTS},
                code="too_many_webhooks",
            )
        endpoint = WebhookEndpoint.objects.create(
            tournament=tournament,
            url=url,
            secret=secret,
            events=chosen,
            description=description,
            created_by=actor,
        )
        action_log_record(
            tournament=tournament,
            actor=actor,
            verb="webhook.create",
            target=endpoint,
            data={"url": url, "events": chosen},
        )
    endpoints_forget(tournament.pk)
    transaction.on_commit(partial(endpoints_forget, tournament.pk))
    return endpoint, secret


def endpoint_disable(*, tournament: Tournament, actor: Any, endpoint_id: int) -> WebhookEndpoint:
    """Stop sending to an endpoint; its pending deliveries are cancelled (kept in the log)."""
    require_actor(actor, tournament, Action.MANAGE)
    with transaction.atomic():
        endpoint = (
            WebhookEndpoint.objects.select_for_update()
            .filter(tournament=tournament, pk=endpoint_id)
            .first()
        )
        if endpoint is None:
            raise NotFoundError(_("No such webhook in this tournament."), code="not_found")
        if endpoint.active:
            endpoint.active = False
            endpoint.disabled_at = timezone.now()
            endpoint.save(update_fields=["active", "disabled_at", "updated_at"])
            endpoint.deliveries.filter(status=WebhookDelivery.Status.PENDING).update(
                status=WebhookDelivery.Status.CANCELLED, locked_until=None
            )
            action_log_record(
                tournament=tournament,
                actor=actor,
                verb="webhook.disable",
                target=endpoint,
                data={"url": endpoint.url},
            )
    endpoints_forget(tournament.pk)
    transaction.on_commit(partial(endpoints_forget, tournament.pk))
    return endpoint


# -- the outbox -----------------------------------------------------------------------------

BUILDERS: dict[str, Callable[..., tuple[str, dict[str, Any]] | None]] = {
    WebhookEvent.ROUND_PUBLISHED: payloads.round_published,
    WebhookEvent.MATCH_FINISHED: payloads.match_finished,
    WebhookEvent.HAND_RECORDED: payloads.hand_recorded,
}


# Which tournaments have active endpoints, per process, for a few seconds: the handlers run
# after every recorded hand, and almost no tournament has a webhook, so the hand path must not
# pay a query for it. An endpoint added meanwhile misses at most these seconds of events, and
# the backfill writes those (it looks back to the endpoint's creation).
ENDPOINTS_TTL = 5.0
_ENDPOINTS: dict[int, tuple[float, list[WebhookEndpoint]]] = {}


def endpoints_forget(tournament_id: int | None = None) -> None:
    if tournament_id is None:
        _ENDPOINTS.clear()
    else:
        _ENDPOINTS.pop(tournament_id, None)


def _endpoints_for(tournament_id: int, event: str) -> list[WebhookEndpoint]:
    now = time.monotonic()
    cached = _ENDPOINTS.get(tournament_id)
    if cached is None or cached[0] < now:
        endpoints = list(WebhookEndpoint.objects.filter(tournament_id=tournament_id, active=True))
        if len(_ENDPOINTS) > 4096:
            _ENDPOINTS.clear()
        _ENDPOINTS[tournament_id] = (now + ENDPOINTS_TTL, endpoints)
    else:
        endpoints = cached[1]
    return [e for e in endpoints if event in e.events]


def deliveries_write(
    *, tournament_id: int, event: str, built: tuple[str, dict[str, Any]] | None = None, **ids: Any
) -> list[uuid.UUID]:
    """Write the outbox rows of one event (one per active endpoint that wants it) and, after
    they commit, enqueue their sends. Returns the ids of the rows written now: a repeated event
    writes nothing (one row per endpoint and event key)."""
    endpoints = _endpoints_for(tournament_id, event)
    if not endpoints:
        return []
    if built is None:
        built = BUILDERS[event](**ids)
    if built is None:
        return []
    key, data = built
    return _rows_write(endpoints, tournament_id=tournament_id, event=event, key=key, data=data)


def _rows_write(
    endpoints: list[WebhookEndpoint],
    *,
    tournament_id: int,
    event: str,
    key: str,
    data: dict[str, Any],
) -> list[uuid.UUID]:
    """One outbox row per endpoint (none where the event key is already there), each sent
    after commit: the one signed delivery path of every event."""
    slug = Tournament.objects.filter(pk=tournament_id).values_list("slug", flat=True).first()
    now = timezone.now()
    written: list[uuid.UUID] = []
    for endpoint in endpoints:
        delivery_id = uuid.uuid4()
        payload = {
            "id": str(delivery_id),
            "event": event,
            "created": now.isoformat(),
            "tournament": {"id": tournament_id, "slug": slug},
            "data": data,
        }
        try:
            with transaction.atomic():
                WebhookDelivery.objects.create(
                    id=delivery_id,
                    endpoint=endpoint,
                    event=event,
                    event_key=key,
                    payload=payload,
                    next_attempt_at=now,
                )
        except IntegrityError:
            continue  # this endpoint already has the event: a repeated domain event
        written.append(delivery_id)
    for delivery_id in written:
        transaction.on_commit(partial(enqueue, delivery_id), robust=True)
    return written


def ping_event_key(key: str) -> str:
    """The outbox's event key of the test event a request ``key`` names (one per key)."""
    return f"ping:{(key or '').strip()}"


def endpoint_ping(
    *, tournament: Tournament, actor: Any, endpoint_id: int, key: str
) -> WebhookDelivery | None:
    """Send a test event (``ping``) to one active endpoint through the outbox: signed, retried
    and logged like every other delivery. ``key`` names the request (the page's form carries
    one): a repeated submission writes one row (``None`` the second time)."""
    require_actor(actor, tournament, Action.MANAGE)
    key = (key or "").strip()
    with transaction.atomic():
        endpoint = WebhookEndpoint.objects.filter(tournament=tournament, pk=endpoint_id).first()
        if endpoint is None:  # first, as disable does: a 404, whatever the key
            raise NotFoundError(_("No such webhook in this tournament."), code="not_found")
        if not key or len(key) > 64:
            raise ApplicationError(
                _("Reload the page and press the button again (the request has no key)."),
                code="invalid_ping",
                fields={"key": [_("1 to 64 characters.")]},
            )
        if not endpoint.active:
            raise ApplicationError(
                _("This webhook is disabled: nothing is sent to it."),
                code="webhook_disabled",
                status=409,
                fields={"endpoint_id": [_("Disabled.")]},
            )
        data = {
            "endpoint": {"id": endpoint.pk, "events": list(endpoint.events)},
            "message": "A test event sent from the director's webhooks page.",
        }
        written = _rows_write(
            [endpoint],
            tournament_id=tournament.pk,
            event=WebhookEvent.PING,
            key=ping_event_key(key),
            data=data,
        )
        if not written:
            return None
        action_log_record(
            tournament=tournament,
            actor=actor,
            verb="webhook.ping",
            target=endpoint,
            data={"url": endpoint.url, "delivery": str(written[0])},
        )
    return WebhookDelivery.objects.get(pk=written[0])


def enqueue(delivery_id: uuid.UUID | str, *, countdown: float | None = None) -> None:
    """Queue the send of one delivery. The task is looked up by name in Celery's registry
    (``notify.tasks`` registers it and calls back into this module). A web process never
    runs Celery's task autodiscovery (only workers do): ``NotifyConfig.ready`` imports
    ``notify.tasks`` in every process, or the first deliveries of a fresh web process failed
    with ``NotRegistered`` and waited for the outbox sweep."""
    webhook_deliver = current_app.tasks[WEBHOOK_DELIVER_TASK]
    options: dict[str, Any] = {}
    if queue := _setting("NOTIFY_TASK_QUEUE", ""):
        options["queue"] = queue
    if countdown is not None:
        options["countdown"] = countdown
    webhook_deliver.apply_async((str(delivery_id),), **options)


# -- sending --------------------------------------------------------------------------------


@dataclass
class SendResult:
    outcome: str  # delivered | retry | failed | cancelled | locked | done | not_due | missing
    status_code: int | None = None
    retry_in: float | None = None  # seconds until the next attempt (retry, locked)
    error: str = ""
    attempts: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def backoff(attempts: int) -> float:
    """Seconds before attempt ``attempts + 1``: base x 2^(attempts-1), capped."""
    base = float(_setting("WEBHOOK_RETRY_BASE_SECONDS", 10))
    cap = float(_setting("WEBHOOK_RETRY_MAX_SECONDS", 3600))
    return float(min(cap, base * 2 ** max(0, attempts - 1)))


def body_of(delivery: WebhookDelivery) -> bytes:
    return json.dumps(delivery.payload, sort_keys=True, separators=(",", ":")).encode()


def _claim(delivery_id: uuid.UUID | str, now: datetime) -> bool:
    lease = timedelta(seconds=float(_setting("WEBHOOK_LEASE_SECONDS", 60)))
    return bool(
        WebhookDelivery.objects.filter(
            Q(locked_until__isnull=True) | Q(locked_until__lt=now),
            pk=delivery_id,
            status=WebhookDelivery.Status.PENDING,
            next_attempt_at__lte=now,
        ).update(locked_until=now + lease)
    )


def delivery_send(*, delivery_id: uuid.UUID | str) -> SendResult:
    """Make one attempt at a pending, due delivery (or say why not)."""
    now = timezone.now()
    if not _claim(delivery_id, now):
        row = (
            WebhookDelivery.objects.filter(pk=delivery_id)
            .values("status", "locked_until", "next_attempt_at", "attempts")
            .first()
        )
        if row is None:
            return SendResult("missing")
        if row["status"] != WebhookDelivery.Status.PENDING:
            return SendResult("done", attempts=row["attempts"])
        if row["locked_until"] and row["locked_until"] >= now:
            # Another sender holds it (or a killed one did): look again when the lease ends.
            wait = (row["locked_until"] - now).total_seconds() + 0.5
            return SendResult("locked", retry_in=wait, attempts=row["attempts"])
        return SendResult(
            "not_due",
            retry_in=(row["next_attempt_at"] - now).total_seconds(),
            attempts=row["attempts"],
        )
    delivery = WebhookDelivery.objects.select_related("endpoint").get(pk=delivery_id)
    endpoint = delivery.endpoint
    if not endpoint.active:
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            status=WebhookDelivery.Status.CANCELLED, locked_until=None
        )
        return SendResult("cancelled", attempts=delivery.attempts)
    body = body_of(delivery)
    headers = {
        **signing.sign(endpoint.secret, body),
        signing.DELIVERY_HEADER: str(delivery.pk),
        signing.EVENT_HEADER: delivery.event,
    }
    result = transport.post(
        endpoint.url, body, headers, timeout=float(_setting("WEBHOOK_TIMEOUT_SECONDS", 10))
    )
    attempts = delivery.attempts + 1
    done = timezone.now()
    update: dict[str, Any] = {
        "attempts": attempts,
        "last_attempt_at": done,
        "last_status_code": result.status,
        "last_error": result.error[:300],
        "locked_until": None,
        "updated_at": done,
    }
    max_attempts = int(_setting("WEBHOOK_MAX_ATTEMPTS", 8))
    if result.ok:
        update.update(status=WebhookDelivery.Status.DELIVERED, delivered_at=done)
        outcome = SendResult("delivered", status_code=result.status, attempts=attempts)
    elif attempts >= max_attempts or result.permanent:
        update.update(status=WebhookDelivery.Status.FAILED)
        outcome = SendResult(
            "failed", status_code=result.status, error=result.error, attempts=attempts
        )
    else:
        wait = backoff(attempts)
        update["next_attempt_at"] = done + timedelta(seconds=wait)
        outcome = SendResult(
            "retry", status_code=result.status, error=result.error, retry_in=wait, attempts=attempts
        )
    # Only the lease holder writes the outcome (a row cancelled meanwhile stays cancelled).
    WebhookDelivery.objects.filter(pk=delivery.pk, status=WebhookDelivery.Status.PENDING).update(
        **update
    )
    if outcome.outcome != "delivered":
        logger.warning(
            "webhook delivery %s",
            outcome.outcome,
            extra={"delivery": str(delivery.pk), "status": result.status, "error": result.error},
        )
    return outcome


# -- the sweep ------------------------------------------------------------------------------


def outbox_sweep(*, limit: int = 500) -> list[str]:
    """Enqueue every pending delivery that is due and not leased: a lost message, a killed
    worker or a retry too far ahead for a countdown all end here. Returns the ids enqueued."""
    now = timezone.now()
    ids = [
        str(i)
        for i in WebhookDelivery.objects.filter(
            Q(locked_until__isnull=True) | Q(locked_until__lt=now),
            status=WebhookDelivery.Status.PENDING,
            next_attempt_at__lte=now,
        )
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    ]
    for delivery_id in ids:
        enqueue(delivery_id)
    return ids


def outbox_backfill(*, hours: float | None = None) -> int:
    """Write the rows of events whose handler never ran (the process died between the event's
    commit and its dispatch): every round published, match finished and hand recorded within
    the last ``hours`` (and since the endpoint was added) that has no row yet. Returns how many
    rows were written."""
    window = float(_setting("WEBHOOK_BACKFILL_HOURS", 6) if hours is None else hours)
    since_floor = timezone.now() - timedelta(hours=window)
    written = 0
    endpoints = list(WebhookEndpoint.objects.filter(active=True))
    for endpoint in endpoints:
        since = max(endpoint.created_at, since_floor)
        have = set(
            endpoint.deliveries.filter(created_at__gte=since - timedelta(minutes=5)).values_list(
                "event_key", flat=True
            )
        )
        tid = endpoint.tournament_id
        if WebhookEvent.ROUND_PUBLISHED in endpoint.events:
            for rid in Round.objects.filter(
                stage__tournament_id=tid, published_at__gte=since
            ).values_list("pk", flat=True):
                if payloads.round_key(rid) not in have:
                    written += len(
                        deliveries_write(
                            tournament_id=tid, event=WebhookEvent.ROUND_PUBLISHED, round_id=rid
                        )
                    )
        if WebhookEvent.MATCH_FINISHED in endpoint.events:
            for mid, finished_at in Match.objects.filter(
                tournament_id=tid, status=Match.Status.FINISHED, finished_at__gte=since
            ).values_list("pk", "finished_at"):
                if payloads.match_key(mid, finished_at) not in have:
                    written += len(
                        deliveries_write(
                            tournament_id=tid, event=WebhookEvent.MATCH_FINISHED, match_id=mid
                        )
                    )
        if WebhookEvent.HAND_RECORDED in endpoint.events:
            for hid, mid, number in Hand.objects.filter(
                match__tournament_id=tid, void=False, recorded_at__gte=since
            ).values_list("pk", "match_id", "number"):
                if payloads.hand_key(hid) not in have:
                    written += len(
                        deliveries_write(
                            tournament_id=tid,
                            event=WebhookEvent.HAND_RECORDED,
                            match_id=mid,
                            hand_number=number,
                        )
                    )
    return written


# -- players' e-mail addresses --------------------------------------------------------------


def contacts_update(
    *,
    tournament: Tournament,
    actor: Any,
    emails: dict[int, str],
    languages: dict[int, str] | None = None,
    default_language: str | None = None,
) -> int:
    """Set (or clear, with an empty string) the e-mail of players entered in ``tournament``
    (``emails`` and ``languages`` are keyed by player id), and the language of their e-mails
    (``languages``: a code of ``settings.LANGUAGES`` or "" for the tournament's default; kept
    with the address) and the tournament's default language (``default_language``; "" for
    the site's). Everything is validated first: a bad value changes nothing. Returns how many
    changed.

    The address is the player's entry's in this tournament (``EntryContact``): players are
    shared between events, and entering another event's player gives no access to the
    address that event's director set, nor changes it."""
    from django.core.exceptions import ValidationError
    from django.core.validators import validate_email

    from notify.models import EntryContact
    from tournament.models import Entry

    require_actor(actor, tournament, Action.MANAGE)
    entry_of = dict(
        Entry.objects.filter(tournament=tournament, player_id__in=list(emails)).values_list(
            "player_id", "pk"
        )
    )
    errors: dict[str, list[str]] = {}
    for pid, email in emails.items():
        if pid not in entry_of:
            errors[f"email-{pid}"] = [_("This player is not entered in this tournament.")]
            continue
        if email:
            try:
                validate_email(email)
            except ValidationError:
                errors[f"email-{pid}"] = [
                    _("%(email)s is not an e-mail address.") % {"email": repr(email)}
                ]
    codes = {code for code, _name in settings.LANGUAGES}
    languages = {pid: code.strip() for pid, code in (languages or {}).items()}
    for pid, code in languages.items():
        if code and code not in codes:
            errors[f"language-{pid}"] = [
                _("%(code)s is not a language of this site.") % {"code": repr(code)}
            ]
    if default_language and default_language not in codes:
        errors["default_language"] = [
            _("%(code)s is not a language of this site.") % {"code": repr(default_language)}
        ]
    if errors:
        raise ApplicationError(
            _("No address was saved: %(problems)s")
            % {"problems": "; ".join(v[0] for v in errors.values())},
            code="invalid_email",
            fields=errors,
        )
    current = {
        entry_id: (email, language)
        for entry_id, email, language in EntryContact.objects.filter(
            entry_id__in=list(entry_of.values())
        ).values_list("entry_id", "email", "language")
    }
    changed = 0
    with transaction.atomic():
        for pid, email in emails.items():
            entry_id = entry_of[pid]
            before = current.get(entry_id, ("", ""))
            language = languages.get(pid, before[1]) if email else ""
            if before == (email, language) or (not email and not before[0]):
                continue
            changed += 1
            if email:
                EntryContact.objects.update_or_create(
                    entry_id=entry_id, defaults={"email": email, "language": language}
                )
            else:
                EntryContact.objects.filter(entry_id=entry_id).delete()
        if default_language is not None:
            from notify.models import MailSettings

            row, _created = MailSettings.objects.get_or_create(tournament=tournament)
            if row.language != default_language:
                row.language = default_language
                row.save(update_fields=["language", "updated_at"])
                changed += 1
        if changed:
            action_log_record(
                tournament=tournament,
                actor=actor,
                verb="players.emails",
                data={"changed": changed},
            )
    return changed


def outbox_prune(*, days: float | None = None) -> int:
    """Delete delivered and cancelled rows older than ``days`` (``WEBHOOK_LOG_DAYS``, 30): the
    log of a busy tournament (a row per hand per endpoint) does not grow for ever. Failed
    rows are kept for the director to read. Returns how many rows were deleted."""
    keep = float(_setting("WEBHOOK_LOG_DAYS", 30) if days is None else days)
    cutoff = timezone.now() - timedelta(days=keep)
    deleted, _by_model = WebhookDelivery.objects.filter(
        status__in=[WebhookDelivery.Status.DELIVERED, WebhookDelivery.Status.CANCELLED],
        created_at__lt=cutoff,
    ).delete()
    return deleted
