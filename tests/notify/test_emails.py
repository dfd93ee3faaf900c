"""E-mail to players when their table for a round is published (issue 16, item 6): through
Django's mail backends, once per player and round, and once through real SMTP to a local sink.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.test import Client, override_settings
from django.urls import reverse
from rest_framework.test import APIClient

from brackets.models import RoundMatch
from core.events import round_published
from core.exceptions import ApplicationError
from notify import services
from notify.emails import round_emails_send
from notify.models import EntryContact, RoundEmail
from scoring.models import Seat
from tests.brackets.conftest import make_tournament
from tests.factories import UserFactory
from tests.notify.conftest import emit, publish, seed_stage, seeded_stage
from tests.notify.receivers import SmtpSink
from tournament.models import Entry, Tournament

pytestmark = pytest.mark.django_db


def _with_addresses(tournament: Any, director: Any, n: int) -> dict[int, str]:
    """Give the first ``n`` players (by name) an address; the rest have none."""
    pids = list(
        Entry.objects.filter(tournament=tournament)
        .order_by("player__name")
        .values_list("player_id", flat=True)
    )
    emails = {pid: f"p{pid}@example.org" for pid in pids[:n]}
    assert services.contacts_update(tournament=tournament, actor=director, emails=emails) == n
    return emails


def _contact(tournament: Tournament, player_id: int) -> EntryContact:
    """The contact of ``player_id``'s entry in ``tournament``."""
    return EntryContact.objects.get(entry__tournament=tournament, entry__player_id=player_id)


def _table_of(round_id: int) -> dict[int, tuple[int, int]]:
    """player id -> (table, seat) in the round."""
    links = dict(
        RoundMatch.objects.filter(round_id=round_id).values_list("match_id", "table_number")
    )
    return {
        pid: (links[mid], seat)
        for mid, seat, pid in Seat.objects.filter(match_id__in=list(links)).values_list(
            "match_id", "seat", "entry__player_id"
        )
    }


def test_players_with_an_address_get_their_table_once() -> None:
    tournament, director, stage = seeded_stage(8)
    emails = _with_addresses(tournament, director, 5)
    rnd = publish(stage, director)
    emit(round_published, round_id=rnd.pk, stage_id=stage.pk, tournament_id=tournament.pk)
    assert len(mail.outbox) == 5
    by_address = {m.to[0]: m for m in mail.outbox}
    assert set(by_address) == set(emails.values())
    seats = _table_of(rnd.pk)
    for pid, address in emails.items():
        table, seat = seats[pid]
        message = by_address[address]
        assert f"table {table}" in message.subject
        assert f"table {table}, seat {seat + 1}" in message.body
        assert "/live/" in message.body
    # A repeated event (or a retried task) mails nobody twice.
    emit(round_published, round_id=rnd.pk, stage_id=stage.pk, tournament_id=tournament.pk)
    assert round_emails_send(round_id=rnd.pk) == {"sent": 0, "skipped": 5, "failed": 0}
    assert len(mail.outbox) == 5
    assert RoundEmail.objects.filter(round_id=rnd.pk, sent_at__isnull=False).count() == 5


def test_a_linked_account_address_is_used_when_there_is_no_contact() -> None:
    tournament, director, stage = seeded_stage(8)
    entry = Entry.objects.filter(tournament=tournament).select_related("player").first()
    assert entry is not None
    entry.player.user = UserFactory(email="account@example.org")
    entry.player.save()
    rnd = publish(stage, director)
    round_emails_send(round_id=rnd.pk)
    assert [m.to for m in mail.outbox] == [["account@example.org"]]
    # The page says so without showing the account's address: any director may enter any
    # player (players are shared), so it would give every player's address away.
    client = Client()
    client.force_login(director)
    page = client.get(reverse("notify:emails", args=[tournament.slug])).content.decode()
    assert "account@example.org" not in page
    assert f'id="account-{entry.player_id}"' in page


def test_a_bad_address_saves_nothing() -> None:
    tournament, director, _ = seeded_stage(4)
    pids = list(Entry.objects.filter(tournament=tournament).values_list("player_id", flat=True))
    with pytest.raises(ApplicationError) as err:
        services.contacts_update(
            tournament=tournament,
            actor=director,
            emails={pids[0]: "ok@example.org", pids[1]: "not an address"},
        )
    assert f"email-{pids[1]}" in err.value.fields
    assert not EntryContact.objects.exists()


def test_the_emails_page_saves_and_clears_addresses() -> None:
    tournament, director, _ = seeded_stage(4)
    pids = list(Entry.objects.filter(tournament=tournament).values_list("player_id", flat=True))
    client = Client()
    client.force_login(director)
    url = reverse("notify:emails", args=[tournament.slug])
    assert client.post(url, {f"email-{pids[0]}": "a@example.org"}).status_code == 302
    assert _contact(tournament, pids[0]).email == "a@example.org"
    assert "a@example.org" in client.get(url).content.decode()
    bad = client.post(url, {f"email-{pids[1]}": "nope"})
    assert bad.status_code == 400
    assert "not an e-mail address" in bad.content.decode()
    client.post(url, {f"email-{pids[0]}": ""})
    assert not EntryContact.objects.exists()
    # Not this tournament's player: refused.
    other = seeded_stage(4)[0]
    stranger = Entry.objects.filter(tournament=other).values_list("player_id", flat=True)[0]
    assert client.post(url, {f"email-{stranger}": "x@example.org"}).status_code == 400
    assert not EntryContact.objects.exists()


def test_a_refused_save_keeps_every_typed_address_and_says_which_one_is_wrong() -> None:
    """A director's walkthrough on ``make demo``: typing a bad address in one row and a good
    one in the next, then Save, answered "No address was saved: ..." with every field back
    to the stored (empty) address: the good address typed with it was lost, and no row said
    which one was wrong. Nothing is saved still; the page keeps what was typed and the
    refusal is under the address it is about."""
    tournament, director, _ = seeded_stage(4)
    pids = list(
        Entry.objects.filter(tournament=tournament)
        .order_by("player__name")
        .values_list("player_id", flat=True)
    )
    client = Client()
    client.force_login(director)
    url = reverse("notify:emails", args=[tournament.slug])
    bad = client.post(
        url,
        {
            f"email-{pids[0]}": "not-an-email",
            f"email-{pids[1]}": "kevin@example.org",
            f"language-{pids[1]}": "es",
        },
    )
    assert bad.status_code == 400
    html = bad.content.decode()
    assert 'value="not-an-email"' in html
    assert 'value="kevin@example.org"' in html
    row = html.split(f'id="email-{pids[1]}"', 1)[1].split("</tr>", 1)[0]
    assert '<option value="es" selected>' in row
    error = html.split(f'id="email-error-{pids[0]}">', 1)[1].split("</p>", 1)[0]
    assert "is not an e-mail address." in error
    assert f'aria-describedby="email-error-{pids[0]}"' in html
    assert f'id="email-error-{pids[1]}"' not in html
    assert not EntryContact.objects.exists()


# -- an address belongs to the entry: one tournament's, never shown to another -----------------


def test_chain_a_director_who_enters_my_player_neither_reads_nor_changes_my_address() -> None:
    """The finding's chain: director A sets player 1's address; director B (of B only, not
    staff) enters player 1 in B (by design: players are shared between events), opens B's
    e-mail page and saves an address for them. B sees nothing of A's, B's address goes to
    B's entry only, and each tournament's round e-mail goes to its own address."""
    a, director_a, stage_a = seeded_stage(4)
    player_id = (
        Entry.objects.filter(tournament=a).order_by("player__name").values_list("player_id")[0][0]
    )
    as_a = Client()
    as_a.force_login(director_a)
    emails_a = reverse("notify:emails", args=[a.slug])
    saved = as_a.post(
        emails_a, {f"email-{player_id}": "ana@a.example", f"language-{player_id}": "es"}
    )
    assert saved.status_code == 302

    b, director_b = make_tournament(3)
    api = APIClient()
    api.force_authenticate(director_b)
    entered = api.post(f"/api/tournaments/{b.slug}/entries/", {"player": player_id}, format="json")
    assert entered.status_code == 201, entered.content
    checked_in = api.patch(
        f"/api/tournaments/{b.slug}/entries/{entered.json()['id']}/",
        {"checked_in": True},
        format="json",
    )
    assert checked_in.status_code == 200, checked_in.content
    as_b = Client()
    as_b.force_login(director_b)
    emails_b = reverse("notify:emails", args=[b.slug])
    page = as_b.get(emails_b)
    assert page.status_code == 200
    assert "ana@a.example" not in page.content.decode()
    [row] = [r for r in page.context["rows"] if r.player_id == player_id]
    assert (row.email, row.language) == ("", "")  # nothing of A's prefilled either

    assert as_b.post(emails_b, {f"email-{player_id}": "attacker@evil.example"}).status_code == 302
    assert _contact(b, player_id).email == "attacker@evil.example"
    mine = _contact(a, player_id)
    assert (mine.email, mine.language) == ("ana@a.example", "es")
    shown_to_a = as_a.get(emails_a).content.decode()
    assert "ana@a.example" in shown_to_a
    assert "attacker@evil.example" not in shown_to_a

    round_emails_send(round_id=publish(stage_a, director_a).pk)
    assert [m.to for m in mail.outbox] == [["ana@a.example"]]
    assert "Hola " in mail.outbox[0].body  # A's language too
    round_emails_send(round_id=publish(seed_stage(b, director_b), director_b).pk)
    assert [m.to for m in mail.outbox[1:]] == [["attacker@evil.example"]]
    assert "Hello " in mail.outbox[1].body

    # Clearing it in B removes B's address only.
    assert as_b.post(emails_b, {f"email-{player_id}": ""}).status_code == 302
    assert not EntryContact.objects.filter(entry__tournament=b).exists()
    assert _contact(a, player_id).email == "ana@a.example"


def test_an_address_field_named_in_other_digits_is_ignored_and_saves_nothing() -> None:
    """``email-\u00b2`` passed ``str.isdigit()`` and made ``int()`` raise (a 500). A field the
    form never names is ignored, as ``email-abc`` always was: nothing is saved."""
    tournament, director, _ = seeded_stage(4)
    client = Client()
    client.force_login(director)
    url = reverse("notify:emails", args=[tournament.slug])
    for field in ("email-\u00b2", "email-\u0663", "language-\u00b2", "email-abc"):
        value = "es" if field.startswith("language-") else "x@example.org"
        assert client.post(url, {field: value}).status_code == 302, field
    assert not EntryContact.objects.exists()


def test_round_emails_go_through_real_smtp_to_a_local_sink() -> None:
    sink = SmtpSink()
    try:
        tournament, director, stage = seeded_stage(8)
        emails = _with_addresses(tournament, director, 3)
        rnd = publish(stage, director)
        with override_settings(
            EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
            EMAIL_HOST="127.0.0.1",
            EMAIL_PORT=sink.port,
            EMAIL_USE_TLS=False,
            EMAIL_HOST_USER="",
            EMAIL_HOST_PASSWORD="",
            DEFAULT_FROM_EMAIL="director@example.org",
        ):
            emit(round_published, round_id=rnd.pk, stage_id=stage.pk, tournament_id=tournament.pk)
        assert mail.outbox == []  # not the locmem backend: the sink got them
        assert sorted(r for _, rcpts in sink.envelopes for r in rcpts) == sorted(emails.values())
        seats = _table_of(rnd.pk)
        for message in sink.messages:
            pid = next(p for p, a in emails.items() if a == message["To"])
            table, _ = seats[pid]
            assert message["From"] == "director@example.org"
            assert f"table {table}" in message["Subject"]
            assert f"table {table}" in message.get_payload(decode=True).decode()
    finally:
        sink.stop()


def test_an_smtp_failure_leaves_the_mail_unsent_for_the_retry() -> None:
    tournament, director, stage = seeded_stage(8)
    _with_addresses(tournament, director, 2)
    rnd = publish(stage, director)
    sink = SmtpSink()
    port = sink.port
    sink.stop()  # nothing listens there now
    with (
        override_settings(
            EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
            EMAIL_HOST="127.0.0.1",
            EMAIL_PORT=port,
            EMAIL_TIMEOUT=2,
        ),
        pytest.raises(ConnectionError, match=r"round e-mail\(s\)"),
    ):
        round_emails_send(round_id=rnd.pk)
    assert not RoundEmail.objects.filter(sent_at__isnull=False).exists()
    round_emails_send(round_id=rnd.pk)  # the retry, with the mail server back (locmem)
    assert len(mail.outbox) == 2


# -- the player's language (issue 16) -----------------------------------------------------------


def _header(value: str) -> str:
    from email.header import decode_header, make_header

    return str(make_header(decode_header(value)))


def test_each_player_is_mailed_in_their_language_through_smtp() -> None:
    """Spanish for a player whose contact says so; the tournament's default (Spanish) for one
    who has none; English for one who chose it. Through real SMTP to the local sink."""
    tournament, director, stage = seeded_stage(8)
    emails = _with_addresses(tournament, director, 3)
    spanish, unset, english = list(emails)
    services.contacts_update(
        tournament=tournament,
        actor=director,
        emails=emails,
        languages={spanish: "es", unset: "", english: "en"},
        default_language="es",
    )
    rnd = publish(stage, director)
    sink = SmtpSink()
    try:
        with override_settings(
            EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
            EMAIL_HOST="127.0.0.1",
            EMAIL_PORT=sink.port,
            EMAIL_USE_TLS=False,
            EMAIL_HOST_USER="",
            EMAIL_HOST_PASSWORD="",
        ):
            emit(round_published, round_id=rnd.pk, stage_id=stage.pk, tournament_id=tournament.pk)
        by_address = {m["To"]: m for m in sink.messages}
    finally:
        sink.stop()
    seats = _table_of(rnd.pk)
    for pid in (spanish, unset):
        table, seat = seats[pid]
        message = by_address[emails[pid]]
        body = message.get_payload(decode=True).decode()
        assert _header(message["Subject"]) == f"{tournament.name}: mesa {table} en ronda 1"
        assert f"juegas en la mesa {table}, asiento {seat + 1}" in body
        assert "Hola " in body
        assert "Todas las mesas: " in body
    table, seat = seats[english]
    message = by_address[emails[english]]
    assert _header(message["Subject"]) == f"{tournament.name}: table {table} in round 1"
    assert (
        f"you play at table {table}, seat {seat + 1}" in message.get_payload(decode=True).decode()
    )


def test_without_any_language_the_mail_is_in_the_site_language() -> None:
    tournament, director, stage = seeded_stage(4)
    _with_addresses(tournament, director, 1)
    rnd = publish(stage, director)
    round_emails_send(round_id=rnd.pk)
    assert len(mail.outbox) == 1
    assert "Hello " in mail.outbox[0].body
    with override_settings(LANGUAGE_CODE="es"):
        RoundEmail.objects.all().delete()
        round_emails_send(round_id=rnd.pk)
    assert "Hola " in mail.outbox[1].body


def test_the_emails_page_saves_languages_and_refuses_an_unknown_one() -> None:
    from notify.models import MailSettings

    tournament, director, _ = seeded_stage(4)
    pids = list(Entry.objects.filter(tournament=tournament).values_list("player_id", flat=True))
    client = Client()
    client.force_login(director)
    url = reverse("notify:emails", args=[tournament.slug])
    page = client.get(url).content.decode()
    assert f'name="language-{pids[0]}"' in page
    assert 'name="default_language"' in page
    saved = client.post(
        url,
        {
            f"email-{pids[0]}": "a@example.org",
            f"language-{pids[0]}": "es",
            f"email-{pids[1]}": "",
            f"language-{pids[1]}": "es",  # no address: nothing to keep it with
            "default_language": "en",
        },
    )
    assert saved.status_code == 302
    assert _contact(tournament, pids[0]).language == "es"
    assert not EntryContact.objects.filter(entry__player_id=pids[1]).exists()
    assert MailSettings.objects.get(tournament=tournament).language == "en"
    bad = client.post(
        url,
        {
            f"email-{pids[0]}": "b@example.org",
            f"language-{pids[0]}": "xx",
            "default_language": "es",
        },
    )
    assert bad.status_code == 400
    assert "is not a language of this site" in bad.content.decode()
    contact = _contact(tournament, pids[0])
    assert (contact.email, contact.language) == ("a@example.org", "es")  # nothing saved
    assert MailSettings.objects.get(tournament=tournament).language == "en"
