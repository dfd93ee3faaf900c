"""E-mail to players when their table for a round is published (issue 16, item 6).

A player gets mail when they have an address for that tournament: their entry's
``EntryContact`` (set by that tournament's director on the webhooks & notifications page, or
by staff in the admin), else the e-mail of the site account linked to the player (their own).
An address set in another tournament is never used: contacts belong to the entry, not to the
player shared between events. Django's mail backends send it (``EMAIL_*`` settings: SMTP in
production, the console backend in local development, locmem in most tests).

Each e-mail is written in the player's language: their entry's ``EntryContact.language``,
else the tournament's default (``MailSettings.language``, set on the same page), else the
site's ``LANGUAGE_CODE``.

Each (round, player) is recorded in ``RoundEmail`` before sending and marked sent after, so a
repeated event or a retried task mails a player once; a failed send stays unsent and the
task's retry sends the rest.
"""

from __future__ import annotations

import logging
from urllib.parse import urljoin

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext, pgettext

from brackets.models import Round, RoundMatch
from notify.models import EntryContact, MailSettings, RoundEmail
from scoring.models import Seat

logger = logging.getLogger(__name__)


def entry_emails(entry_ids: list[int]) -> dict[int, str]:
    """The address of each entry that has one: the entry's contact, else the player's linked
    account (two queries). Entries, not players: a player entered in two tournaments has an
    address in each, set by that tournament's director."""
    from tournament.models import Entry

    out: dict[int, str] = dict(
        Entry.objects.filter(pk__in=entry_ids, player__user__isnull=False)
        .exclude(player__user__email="")
        .values_list("pk", "player__user__email")
    )
    out.update(
        EntryContact.objects.filter(entry_id__in=entry_ids)
        .exclude(email="")
        .values_list("entry_id", "email")
    )
    return out


def entry_languages(entry_ids: list[int], *, tournament_id: int) -> dict[int, str]:
    """The language of each entry's e-mail: its contact's, else the tournament's default,
    else the site's (two queries)."""
    codes = {code for code, _name in settings.LANGUAGES}
    default = (
        MailSettings.objects.filter(tournament_id=tournament_id)
        .values_list("language", flat=True)
        .first()
    )
    default = default if default in codes else settings.LANGUAGE_CODE
    own = dict(
        EntryContact.objects.filter(entry_id__in=entry_ids)
        .exclude(language="")
        .values_list("entry_id", "language")
    )
    return {eid: own[eid] if own.get(eid) in codes else default for eid in entry_ids}


def _round_message(
    *,
    player: str,
    tournament: str,
    stage: str,
    round_name: str,
    table: int,
    seat: int,
    others: list[str],
    live_url: str,
) -> tuple[str, str]:
    """Subject and body in the active language."""
    parts = {
        "name": player,
        "tournament": tournament,
        "stage": stage,
        "round": round_name,
        "table": table,
        "seat": seat,
        "others": ", ".join(others),
        "url": live_url,
    }
    if others:
        where = pgettext(
            "round e-mail",
            "%(tournament)s, %(stage)s, %(round)s: you play at table %(table)s, seat %(seat)s, "
            "with %(others)s.",
        )
    else:
        where = pgettext(
            "round e-mail",
            "%(tournament)s, %(stage)s, %(round)s: you play at table %(table)s, seat %(seat)s.",
        )
    body = (
        pgettext("round e-mail", "Hello %(name)s,") % parts
        + "\n\n"
        + where % parts
        + "\n\n"
        + pgettext("round e-mail", "All tables: %(url)s") % parts
        + "\n"
    )
    subject = pgettext("round e-mail", "%(tournament)s: table %(table)s in %(round)s") % parts
    return subject, body


def round_emails_send(*, round_id: int) -> dict[str, int]:
    rnd = Round.objects.select_related("stage__tournament").filter(pk=round_id).first()
    if rnd is None:
        return {"sent": 0, "skipped": 0, "failed": 0}
    tournament = rnd.stage.tournament
    links = dict(RoundMatch.objects.filter(round=rnd).values_list("match_id", "table_number"))
    seats = list(
        Seat.objects.filter(match_id__in=list(links))
        .order_by("match_id", "seat")
        .values("match_id", "seat", "entry_id", "entry__player_id", "entry__player__name")
    )
    by_match: dict[int, list[str]] = {}
    for s in seats:
        by_match.setdefault(s["match_id"], []).append(s["entry__player__name"])
    # The round's seats are this tournament's entries: their own addresses, none of another event.
    addresses = entry_emails([s["entry_id"] for s in seats])
    languages = entry_languages(list(addresses), tournament_id=tournament.pk)
    live_url = urljoin(settings.SITE_URL, reverse("live:tables", args=[tournament.slug]))
    sent = skipped = failed = 0
    connection = get_connection(fail_silently=False)
    try:
        for s in seats:
            pid = s["entry__player_id"]
            email = addresses.get(s["entry_id"])
            if not email:
                continue
            try:
                with transaction.atomic():
                    RoundEmail.objects.create(round_id=rnd.pk, player_id=pid, email=email)
            except IntegrityError:
                pass
            row = RoundEmail.objects.get(round_id=rnd.pk, player_id=pid)
            if row.sent_at is not None:
                skipped += 1
                continue
            others = [n for n in by_match[s["match_id"]] if n != s["entry__player__name"]]
            with translation.override(languages.get(s["entry_id"], settings.LANGUAGE_CODE)):
                round_name = (
                    gettext("Final table")
                    if rnd.kind == Round.Kind.FINAL
                    else pgettext("round e-mail", "round %(number)s") % {"number": rnd.number}
                )
                subject, body = _round_message(
                    player=s["entry__player__name"],
                    tournament=tournament.name,
                    stage=rnd.stage.name,
                    round_name=round_name,
                    table=links[s["match_id"]],
                    seat=s["seat"] + 1,
                    others=others,
                    live_url=live_url,
                )
            message = EmailMessage(
                subject=subject,
                body=body,
                from_email=settings.DEFAULT_FROM_EMAIL,
                to=[email],
                connection=connection,
            )
            try:
                message.send()
            except OSError as exc:  # smtplib errors are OSErrors: retried by the task
                RoundEmail.objects.filter(pk=row.pk).update(error=str(exc)[:300])
                failed += 1
                logger.warning("round e-mail failed", extra={"round": rnd.pk, "player": pid})
                continue
            RoundEmail.objects.filter(pk=row.pk).update(sent_at=timezone.now(), error="")
            sent += 1
    finally:
        connection.close()
    if failed:
        raise ConnectionError(f"{failed} round e-mail(s) of round {rnd.pk} failed; retrying")
    return {"sent": sent, "skipped": skipped, "failed": failed}
