"""The director's webhooks & notifications page: endpoints (add, disable; the secret is shown
once), the delivery log, and the players' e-mail addresses for round notifications."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _

from brackets.views.base import DirectorTournamentMixin, error_text
from core.choice_labels import choice_label
from core.exceptions import ApplicationError, NotFoundError, PermissionDeniedError
from dominoes.digits import parse_int
from notify import selectors, services
from notify.models import MailSettings, WebhookDelivery, WebhookEvent
from notify.signing import DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER
from tournament.context import Action
from tournament.models import Tournament

PAGE_SIZE = 50


def _gate(view: DirectorTournamentMixin) -> dict[str, Any]:
    """Whether the page's forms can succeed, by the services' own rule (``require_actor`` with
    ``Action.MANAGE``: the permission table and the lifecycle gate, tournament.context): a
    finished tournament shows its endpoints, log and addresses, but no form that could only
    be refused, and says why."""
    tournament = view.tournament
    return {
        "can_manage": view.tournament_context.can(Action.MANAGE),
        "status_label": choice_label(Tournament.Status, tournament.status),
    }


class WebhooksView(DirectorTournamentMixin):
    """``webhooks/``: endpoints, the delivery log (newest first) and the add form."""

    nav = "webhooks"

    def context(self, **extra: Any) -> dict[str, Any]:
        endpoints = list(selectors.webhook_endpoint_list(tournament=self.tournament))
        endpoint_filter = self.request.GET.get("endpoint", "")
        status_filter = self.request.GET.get("status", "")
        deliveries = selectors.webhook_delivery_list(
            tournament=self.tournament,
            endpoint_id=parse_int(endpoint_filter),
            status=status_filter if status_filter in WebhookDelivery.Status.values else None,
        )
        page = Paginator(deliveries, PAGE_SIZE).get_page(self.request.GET.get("page"))
        return self.base_context(
            endpoints=endpoints,
            page=page,
            deliveries=list(page.object_list),
            event_choices=[c for c in WebhookEvent.choices if c[0] != WebhookEvent.PING],
            ping_key=uuid.uuid4().hex,
            status_choices=WebhookDelivery.Status.choices,
            endpoint_filter=endpoint_filter,
            status_filter=status_filter,
            headers=[TIMESTAMP_HEADER, SIGNATURE_HEADER, DELIVERY_HEADER, EVENT_HEADER],
            **_gate(self),
            **extra,
        )

    def get(self, request: HttpRequest, slug: str) -> HttpResponse:
        return render(request, "notify/webhooks.html", self.context())

    def post(self, request: HttpRequest, slug: str) -> HttpResponse:
        url = str(request.POST.get("url", ""))
        events = [str(e) for e in request.POST.getlist("events")]
        description = str(request.POST.get("description", ""))
        form = {"url": url, "events": events, "description": description}
        try:
            endpoint, secret = services.endpoint_create(
                tournament=self.tournament,
                actor=request.user,
                url=url,
                events=events,
                description=description,
            )
        except (NotFoundError, PermissionDeniedError):
            raise
        except ApplicationError as exc:
            # A bad field is said under that field, by its label ("Receiver URL"), with what
            # was typed kept; before, one line at the top named it by its code ("url: ...").
            # Any other refusal (a URL already added, too many webhooks) stays at the top.
            errors = exc.fields if exc.code == "invalid_webhook" else {}
            if not errors:
                messages.error(request, error_text(exc))
            return render(
                request,
                "notify/webhooks.html",
                self.context(form=form, errors=errors),
                status=400,
            )
        messages.success(request, _("Webhook added. Copy its secret now: it is not shown again."))
        # Rendered once, in this answer only (never stored in the session or a message).
        response = render(
            request,
            "notify/webhooks.html",
            self.context(new_endpoint=endpoint, new_secret=secret),
        )
        response["Cache-Control"] = "no-store"
        return response


class WebhookDisableView(DirectorTournamentMixin):
    """``webhooks/<endpoint_id>/disable/`` (POST): stop sending; pending rows are cancelled."""

    nav = "webhooks"

    def post(self, request: HttpRequest, slug: str, endpoint_id: int) -> HttpResponse:
        self.run(
            lambda: services.endpoint_disable(
                tournament=self.tournament, actor=request.user, endpoint_id=endpoint_id
            ),
            success=_("Webhook disabled."),
        )
        return HttpResponseRedirect(reverse("notify:webhooks", args=[self.tournament.slug]))


class WebhookPingView(DirectorTournamentMixin):
    """``webhooks/<endpoint_id>/ping/`` (POST): send a ``ping`` test event through the outbox;
    it appears in the delivery log like any other. The form's ``key`` makes a double submit
    send once."""

    nav = "webhooks"

    def post(self, request: HttpRequest, slug: str, endpoint_id: int) -> HttpResponse:
        self.run(
            lambda: services.endpoint_ping(
                tournament=self.tournament,
                actor=request.user,
                endpoint_id=endpoint_id,
                key=str(request.POST.get("key", "")),
            ),
            success=lambda d: (
                _("Test event queued: its delivery is in the log below.")
                if d is not None
                else _("That test event was already sent.")
            ),
        )
        return HttpResponseRedirect(reverse("notify:webhooks", args=[self.tournament.slug]))


class PlayerEmailsView(DirectorTournamentMixin):
    """``notifications/emails/``: the players' e-mail addresses (round table notifications),
    this tournament's entries' only (``selectors.contact_rows``)."""

    nav = "webhooks"

    def page(self, **extra: Any) -> dict[str, Any]:
        default = (
            MailSettings.objects.filter(tournament=self.tournament)
            .values_list("language", flat=True)
            .first()
        )
        context: dict[str, Any] = {
            "rows": selectors.contact_rows(tournament=self.tournament),
            "languages": settings.LANGUAGES,
            "default_language": default or "",
            "site_language": dict(settings.LANGUAGES).get(settings.LANGUAGE_CODE, ""),
            **_gate(self),
        }
        context.update(extra)  # a refused save: the rows as they were sent
        return self.base_context(**context)

    def get(self, request: HttpRequest, slug: str) -> HttpResponse:
        return render(request, "notify/emails.html", self.page())

    def post(self, request: HttpRequest, slug: str) -> HttpResponse:
        emails = {
            pid: str(value).strip()
            for key, value in request.POST.items()
            if key.startswith("email-")
            and (pid := parse_int(key.removeprefix("email-"))) is not None
        }
        languages = {
            pid: str(value)
            for key, value in request.POST.items()
            if key.startswith("language-")
            and (pid := parse_int(key.removeprefix("language-"))) is not None
        }
        default = request.POST.get("default_language")
        try:
            services.contacts_update(
                tournament=self.tournament,
                actor=request.user,
                emails=emails,
                languages=languages,
                default_language=None if default is None else str(default),
            )
        except (NotFoundError, PermissionDeniedError):
            raise
        except ApplicationError as exc:
            # Nothing was saved: the page comes back with what was typed in every row (before,
            # every field went back to the stored address, the good ones typed with it lost),
            # and each refusal under the address or language it is about.
            messages.error(request, error_text(exc))
            return render(
                request,
                "notify/emails.html",
                self.page(
                    rows=[
                        _typed_row(row, emails, languages, exc.fields)
                        for row in selectors.contact_rows(tournament=self.tournament)
                    ],
                    default_language=str(default or ""),
                    default_error=" ".join(exc.fields.get("default_language", [])),
                ),
                status=400,
            )
        messages.success(request, _("E-mail addresses saved."))
        return HttpResponseRedirect(reverse("notify:emails", args=[self.tournament.slug]))


@dataclass(frozen=True, slots=True)
class TypedContactRow:
    """A row of the e-mail addresses page as it was sent, with its refusals (nothing saved)."""

    player_id: int
    name: str
    email: str
    language: str
    account_address: bool
    error: str = ""


def _typed_row(
    row: selectors.ContactRow,
    emails: dict[int, str],
    languages: dict[int, str],
    errors: dict[str, list[str]],
) -> TypedContactRow:
    pid = row.player_id
    return TypedContactRow(
        player_id=pid,
        name=row.name,
        email=emails.get(pid, row.email),
        language=languages.get(pid, row.language),
        account_address=row.account_address,
        error=" ".join(errors.get(f"email-{pid}", []) + errors.get(f"language-{pid}", [])),
    )
