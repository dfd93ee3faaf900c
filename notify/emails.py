"""E-mail to players when their table for a round is published (issue 16, item 6).

A player gets mail when they have an address: their ``PlayerContact`` (set by a director on
the webhooks & notifications page, or by staff in the admin), else the e-mail of the site
account linked to the player. Django's mail backends send it (``EMAIL_*`` settings: SMTP in
production, the console backend in local development, locmem in most tests).

Each e-mail is written in the player's language: their ``PlayerContact.language``, else the
tournament's default (``MailSettings.language``, set on the same page), else the site's
``LANGUAGE_CODE``.

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
from notify.models import MailSettings, PlayerContact, RoundEmail
from scoring.models import Seat

logger = logging.getLogger(__name__)


def player_emails(player_ids: list[int]) -> dict[int, str]:
    """The address of each player that has one (contact first, then the linked account)."""
    from tournament.models import Player

    out: dict[int, str] = dict(
        Player.objects.filter(pk__in=player_ids, user__isnull=False)
        .exclude(user__email="")
        .values_list("pk", "user__email")
    )
    out.update(
        PlayerContact.objects.filter(player_id__in=player_ids)
        .exclude(email="")
        .values_list("player_id", "email")
    )
    return out


def player_languages(player_ids: list[int], *, tournament_id: int) -> dict[int, str]:
    """The language of each player's e-mail: their contact's, else the tournament's default,
    else the site's (two queries)."""
    codes = {code for code, _name in settings.LANGUAGES}
    default = (
        MailSettings.objects.filter(tournament_id=tournament_id)
        .values_list("language", flat=True)
        .first()
    )
    default = default if default in codes else settings.LANGUAGE_CODE
    own = dict(
        PlayerContact.objects.filter(player_id__in=player_ids)
        .exclude(language="")
        .values_list("player_id", "language")
    )
    return {pid: own[pid] if own.get(pid) in codes else default for pid in player_ids}


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
        .values("match_id", "seat", "entry__player_id", "entry__player__name")
    )
    by_match: dict[int, list[str]] = {}
    for s in seats:
        by_match.setdefault(s["match_id"], []).append(s["entry__player__name"])
    addresses = player_emails([s["entry__player_id"] for s in seats])
    languages = player_languages(list(addresses), tournament_id=tournament.pk)
    live_url = urljoin(settings.SITE_URL, reverse("live:tables", args=[tournament.slug]))
    sent = skipped = failed = 0
    connection = get_connection(fail_silently=False)
    try:
        for s in seats:
            pid = s["entry__player_id"]
            email = addresses.get(pid)
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
            with translation.override(languages.get(pid, settings.LANGUAGE_CODE)):
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
