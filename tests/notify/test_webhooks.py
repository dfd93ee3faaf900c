"""Webhooks (issue 16, item 6): signed deliveries written to the outbox after each event,
sent by the task, retried with exponential backoff, logged for the director; SSRF refusals.

A local HTTP receiver (a thread, tests/notify/receivers.py) checks every request's signature
with the documented recipe. Tasks run eagerly here; tests/notify/test_webhook_worker.py kills
real workers.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from core.events import hand_recorded, match_finished, round_published
from core.exceptions import ApplicationError, PermissionDeniedError
from notify import services, signing, transport
from notify.models import WebhookDelivery, WebhookEndpoint
from scoring.models import Hand, Match
from scoring.services import match_result_override
from tests.brackets.conftest import open_matches, play_match
from tests.factories import UserFactory, director_of
from tests.notify.conftest import add_endpoint, commit_callbacks, emit, publish, seeded_stage
from tests.notify.receivers import WebhookReceiver

pytestmark = pytest.mark.django_db


# -- signatures ---------------------------------------------------------------------------


def test_signature_verifies_and_refuses_tampering_old_timestamps_and_other_secrets() -> None:
    body = b'{"event":"match_finished","id":"1"}'
    headers = signing.sign("s3cret", body, now=1_000_000)
    ts, sig = headers[signing.TIMESTAMP_HEADER], headers[signing.SIGNATURE_HEADER]
    assert sig.startswith("v1=")
    assert len(sig) == 3 + 64
    assert signing.verify("s3cret", body, ts, sig, now=1_000_010)
    assert not signing.verify("s3cret", body + b" ", ts, sig, now=1_000_010)  # body changed
    assert not signing.verify("other", body, ts, sig, now=1_000_010)  # another secret
    assert not signing.verify("s3cret", body, str(int(ts) + 1), sig, now=1_000_010)  # ts changed
    assert not signing.verify("s3cret", body, ts, sig, now=1_000_000 + 301)  # too old (replay)
    assert not signing.verify("s3cret", body, "soon", sig, now=1_000_010)
    # A rotated secret may sign twice: any listed signature that matches is accepted.
    assert signing.verify("s3cret", body, ts, f"v1=00, {sig}", now=1_000_010)


# -- the outbox, end to end -----------------------------------------------------------------


def test_round_published_is_delivered_signed_with_the_tables(
    receiver: WebhookReceiver, django_capture_on_commit_callbacks: Any
) -> None:
    tournament, director, stage = seeded_stage(8)
    endpoint = add_endpoint(tournament, director, receiver)
    with django_capture_on_commit_callbacks(execute=True):
        rnd = publish(stage, director)
    [got] = receiver.requests
    assert got.verified
    assert got.event == "round_published"
    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    assert got.delivery_id == str(delivery.pk) == got.body["id"]
    assert got.body["tournament"] == {"id": tournament.pk, "slug": tournament.slug}
    data = got.body["data"]
    assert data["round"]["id"] == rnd.pk
    assert data["round"]["number"] == 1
    assert [t["table"] for t in data["tables"]] == [1, 2]
    assert sum(len(t["players"]) for t in data["tables"]) == 8
    assert delivery.status == "delivered"
    assert delivery.attempts == 1
    assert delivery.last_status_code == 200


def test_match_finished_and_hand_recorded_are_delivered_once_each(
    receiver: WebhookReceiver, django_capture_on_commit_callbacks: Any
) -> None:
    tournament, director, stage = seeded_stage(8)
    add_endpoint(tournament, director, receiver, events=["match_finished", "hand_recorded"])
    rnd = publish(stage, director)  # not subscribed: nothing sent
    first, second = open_matches(rnd)
    with django_capture_on_commit_callbacks(execute=True):
        play_match(first, director, seed=3)
    first.refresh_from_db()
    assert first.status == Match.Status.FINISHED
    hands = list(Hand.objects.filter(match=first, void=False).order_by("number"))
    # scoring emits hand_recorded after each hand's commit (issue 16); emit it here as well so
    # the test holds before and after that emitter is merged: a repeated event sends nothing.
    for h in hands:
        emit(hand_recorded, match_id=first.pk, tournament_id=tournament.pk, hand_number=h.number)
    emit(match_finished, match_id=first.pk, tournament_id=tournament.pk, end_reason="")
    events = [r.event for r in receiver.requests]
    assert events.count("hand_recorded") == len(hands)
    assert events.count("match_finished") == 1
    assert all(r.verified for r in receiver.requests)
    assert len({r.delivery_id for r in receiver.requests}) == len(receiver.requests)
    finished = next(r for r in receiver.requests if r.event == "match_finished")
    seats = finished.body["data"]["match"]["seats"]
    assert sorted(s["placing"] for s in seats) == sorted(
        p or 0 for p in first.seats.values_list("placing", flat=True)
    )
    numbers = sorted(
        r.body["data"]["hand"]["number"] for r in receiver.requests if r.event == "hand_recorded"
    )
    assert numbers == [h.number for h in hands]
    # The other match was decided by the director: a second match_finished.
    with django_capture_on_commit_callbacks(execute=True):
        match_result_override(
            match_id=second.pk,
            actor=director,
            scores=[6, 0, 0, 0][: second.n_players],
            reason="score sheet",
        )
    assert [r.event for r in receiver.requests].count("match_finished") == 2


def test_an_endpoint_gets_only_its_tournament_and_its_events(
    receiver: WebhookReceiver, django_capture_on_commit_callbacks: Any
) -> None:
    tournament, director, stage = seeded_stage(8)
    _other, other_director, other_stage = seeded_stage(8)
    add_endpoint(tournament, director, receiver, events=["match_finished"])
    with django_capture_on_commit_callbacks(execute=True):
        publish(stage, director)
        rnd = publish(other_stage, other_director)
        for m in open_matches(rnd):
            match_result_override(
                match_id=m.pk, actor=other_director, scores=[6, 0, 0, 0], reason="sheet"
            )
    assert receiver.requests == []
    assert not WebhookDelivery.objects.exists()


def test_a_repeated_event_writes_one_row_per_endpoint(receiver: WebhookReceiver) -> None:
    tournament, director, stage = seeded_stage(8)
    a = add_endpoint(tournament, director, receiver, path="/a")
    b = add_endpoint(tournament, director, receiver, path="/b")
    rnd = publish(stage, director)  # on_commit handlers do not run in this test transaction
    for _ in range(3):
        emit(round_published, round_id=rnd.pk, stage_id=stage.pk, tournament_id=tournament.pk)
    assert WebhookDelivery.objects.filter(endpoint=a).count() == 1
    assert WebhookDelivery.objects.filter(endpoint=b).count() == 1
    assert len(receiver.requests) == 2
    assert all(r.verified for r in receiver.requests)


# -- retries, backoff, giving up --------------------------------------------------------------


@override_settings(WEBHOOK_RETRY_BASE_SECONDS=10, WEBHOOK_MAX_ATTEMPTS=4)
def test_failures_are_retried_with_exponential_backoff_then_delivered(
    receiver: WebhookReceiver,
) -> None:
    tournament, director, stage = seeded_stage(8)
    endpoint = add_endpoint(tournament, director, receiver, events=["round_published"])
    receiver.statuses.extend([500, 503])
    rnd = publish(stage, director)
    emit(round_published, round_id=rnd.pk, stage_id=stage.pk, tournament_id=tournament.pk)
    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    assert delivery.status == "pending"
    assert delivery.attempts == 1
    assert delivery.last_status_code == 500
    waits = []
    for expected in ("retry", "delivered"):
        delivery.refresh_from_db()
        assert delivery.last_attempt_at is not None
        waits.append((delivery.next_attempt_at - delivery.last_attempt_at).total_seconds())
        # Not due yet: a send now does nothing.
        assert services.delivery_send(delivery_id=delivery.pk).outcome == "not_due"
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            next_attempt_at=timezone.now() - timedelta(seconds=1)
        )
        assert services.delivery_send(delivery_id=delivery.pk).outcome == expected
    delivery.refresh_from_db()
    assert delivery.status == "delivered"
    assert delivery.attempts == 3
    assert [round(w) for w in waits] == [10, 20]  # base x 2^(n-1)
    assert [r.status for r in receiver.requests] == [500, 503, 200]
    assert len({r.delivery_id for r in receiver.requests}) == 1  # one id for every attempt
    assert all(r.verified for r in receiver.requests)
    # Every attempt is signed afresh; a delivered row is never sent again.
    assert services.delivery_send(delivery_id=delivery.pk).outcome == "done"
    assert len(receiver.requests) == 3


@override_settings(WEBHOOK_RETRY_BASE_SECONDS=1, WEBHOOK_MAX_ATTEMPTS=3)
def test_the_last_failure_marks_the_delivery_failed(receiver: WebhookReceiver) -> None:
    tournament, director, stage = seeded_stage(8)
    endpoint = add_endpoint(tournament, director, receiver, events=["round_published"])
    receiver.statuses.extend([500, 500, 500, 500])
    rnd = publish(stage, director)
    emit(round_published, round_id=rnd.pk, stage_id=stage.pk, tournament_id=tournament.pk)
    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    outcomes = []
    for _ in range(2):
        WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
        outcomes.append(services.delivery_send(delivery_id=delivery.pk).outcome)
    delivery.refresh_from_db()
    assert outcomes == ["retry", "failed"]
    assert delivery.status == "failed"
    assert delivery.attempts == 3
    assert "HTTP 500" in delivery.last_error
    assert services.outbox_sweep() == []  # given up: the sweep leaves it


def test_a_leased_delivery_is_not_sent_twice_at_once(receiver: WebhookReceiver) -> None:
    tournament, director, stage = seeded_stage(8)
    endpoint = add_endpoint(tournament, director, receiver, events=["round_published"])
    rnd = publish(stage, director)
    with commit_callbacks():  # after commit the send is enqueued (eager: at once): delivered
        services.deliveries_write(
            tournament_id=tournament.pk, event="round_published", built=("k", {"x": 1})
        )
    delivery = WebhookDelivery.objects.get(endpoint=endpoint, event_key="k")
    assert delivery.status == "delivered"
    # Another row, leased by a sender that is still working (or was killed a moment ago).
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status="pending", locked_until=timezone.now() + timedelta(seconds=30)
    )
    result = services.delivery_send(delivery_id=delivery.pk)
    assert result.outcome == "locked"
    assert 29 < (result.retry_in or 0) <= 31
    assert services.outbox_sweep() == []
    assert len(receiver.requests) == 1
    # The lease runs out (the sender died): the sweep sends it again, with the same id.
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        locked_until=timezone.now() - timedelta(seconds=1)
    )
    with commit_callbacks():
        assert services.outbox_sweep() == [str(delivery.pk)]
    assert [r.delivery_id for r in receiver.requests] == [str(delivery.pk)] * 2
    assert rnd.pk


def test_disabling_an_endpoint_cancels_its_pending_deliveries(receiver: WebhookReceiver) -> None:
    tournament, director, stage = seeded_stage(8)
    endpoint = add_endpoint(tournament, director, receiver, events=["round_published"])
    receiver.statuses.append(500)
    rnd = publish(stage, director)
    emit(round_published, round_id=rnd.pk, stage_id=stage.pk, tournament_id=tournament.pk)
    services.endpoint_disable(tournament=tournament, actor=director, endpoint_id=endpoint.pk)
    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    assert delivery.status == "cancelled"
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
    assert services.outbox_sweep() == []
    assert len(receiver.requests) == 1


def test_backfill_writes_the_rows_of_events_whose_handler_never_ran(
    receiver: WebhookReceiver,
) -> None:
    tournament, director, stage = seeded_stage(8)
    endpoint = add_endpoint(tournament, director, receiver)
    rnd = publish(stage, director)  # its on_commit handler never runs here: a "lost" event
    for m in open_matches(rnd):
        match_result_override(match_id=m.pk, actor=director, scores=[6, 0, 0, 0], reason="s")
    assert not WebhookDelivery.objects.exists()
    with commit_callbacks():
        written = services.outbox_backfill()
    assert written == 3  # the round and its two matches
    assert sorted(r.event for r in receiver.requests) == [
        "match_finished",
        "match_finished",
        "round_published",
    ]
    assert services.outbox_backfill() == 0  # idempotent
    assert WebhookDelivery.objects.filter(endpoint=endpoint, status="delivered").count() == 3


# -- validation and SSRF ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/hook",
        "http://localhost/hook",
        "http://10.1.2.3/hook",
        "http://192.168.0.10/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/hook",
        "http://[::ffff:127.0.0.1]/hook",
        "http://0.0.0.0/hook",
        # NAT64 and 6to4 forms of 127.0.0.1: ipaddress calls them global.
        "http://[64:ff9b::7f00:1]/hook",
        "http://[2002:7f00:1::]/hook",
    ],
)
def test_private_and_loopback_targets_are_refused(url: str) -> None:
    tournament, director, _ = seeded_stage(4)
    with (
        override_settings(WEBHOOK_ALLOW_PRIVATE_TARGETS=False),
        pytest.raises(ApplicationError) as err,
    ):
        services.endpoint_create(
            tournament=tournament, actor=director, url=url, events=["match_finished"]
        )
    assert err.value.status_code == 400
    assert "url" in err.value.fields
    assert not WebhookEndpoint.objects.exists()


# An IPv6 address that carries an IPv4 one reaches that IPv4 address through a translator or
# tunnel; ipaddress' is_global is true for NAT64 and 6to4 whatever they embed.
@pytest.mark.parametrize(
    ("address", "allowed"),
    [
        ("8.8.8.8", True),
        ("2606:4700:4700::1111", True),
        ("127.0.0.1", False),
        ("::1", False),
        ("::ffff:127.0.0.1", False),  # IPv4-mapped
        ("::ffff:8.8.8.8", True),
        ("64:ff9b::7f00:1", False),  # NAT64 (RFC 6052) of 127.0.0.1
        ("64:ff9b::a9fe:a9fe", False),  # ... of 169.254.169.254 (cloud metadata)
        ("64:ff9b::a00:1", False),  # ... of 10.0.0.1
        ("64:ff9b::808:808", True),  # ... of 8.8.8.8
        ("64:ff9b:1::7f00:1", False),  # local-use NAT64 (RFC 8215): never global
        ("64:ff9b:1::808:808", False),
        ("2002:7f00:1::", False),  # 6to4 of 127.0.0.1
        ("2002:a9fe:a9fe::1", False),  # 6to4 of 169.254.169.254
        ("2002:808:808::1", True),  # 6to4 of 8.8.8.8
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", False),  # Teredo, client 127.0.0.1
        ("::127.0.0.1", False),  # IPv4-compatible (deprecated)
        ("::", False),
        ("64:ff9b::e000:1", False),  # ... of 224.0.0.1 (multicast)
    ],
)
def test_an_ipv6_address_embedding_ipv4_is_judged_by_that_ipv4(address: str, allowed: bool) -> None:
    with override_settings(WEBHOOK_ALLOW_PRIVATE_TARGETS=False):
        assert transport.address_allowed(address) is allowed


@pytest.mark.parametrize(
    ("url", "events", "field"),
    [
        ("ftp://example.com/hook", ["match_finished"], "url"),
        ("http://user:pw@example.com/hook", ["match_finished"], "url"),
        ("", ["match_finished"], "url"),
        ("http://127.0.0.1/hook", [], "events"),
        ("http://127.0.0.1/hook", ["match_deleted"], "events"),
    ],
)
def test_bad_endpoints_are_refused_naming_the_field(
    url: str, events: list[str], field: str
) -> None:
    tournament, director, _ = seeded_stage(4)
    with pytest.raises(ApplicationError) as err:
        services.endpoint_create(tournament=tournament, actor=director, url=url, events=events)
    assert field in err.value.fields
    assert not WebhookEndpoint.objects.exists()


def test_a_target_that_became_private_is_refused_at_send_time(receiver: WebhookReceiver) -> None:
    tournament, director, stage = seeded_stage(8)
    endpoint = add_endpoint(tournament, director, receiver, events=["round_published"])
    rnd = publish(stage, director)
    with override_settings(WEBHOOK_ALLOW_PRIVATE_TARGETS=False):
        emit(round_published, round_id=rnd.pk, stage_id=stage.pk, tournament_id=tournament.pk)
    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    assert receiver.requests == []
    assert delivery.status == "failed"
    assert "private" in delivery.last_error


def test_only_directors_manage_endpoints() -> None:
    tournament, _, _ = seeded_stage(4)
    other = director_of(seeded_stage(4)[0])
    with pytest.raises(PermissionDeniedError):
        services.endpoint_create(
            tournament=tournament, actor=other, url="http://127.0.0.1/", events=["match_finished"]
        )


def test_transport_never_follows_redirects(receiver: WebhookReceiver) -> None:
    receiver.statuses.append(302)
    receiver.secrets["/hook"] = "s"
    outcome = transport.post(receiver.url(), b"{}", signing.sign("s", b"{}"), timeout=5)
    assert outcome.status == 302
    assert not outcome.ok
    assert len(receiver.requests) == 1


# -- the director's page -----------------------------------------------------------------------


def test_director_page_adds_an_endpoint_shows_the_secret_once_and_lists_deliveries(
    receiver: WebhookReceiver, django_capture_on_commit_callbacks: Any
) -> None:
    tournament, director, stage = seeded_stage(8)
    client = Client()
    client.force_login(director)
    url = reverse("notify:webhooks", args=[tournament.slug])
    response = client.post(
        url, {"url": receiver.url(), "events": ["round_published"], "description": "scoreboard"}
    )
    assert response.status_code == 200
    endpoint = WebhookEndpoint.objects.get(tournament=tournament)
    assert endpoint.secret in response.content.decode()
    assert response["Cache-Control"] == "no-store"
    receiver.secrets["/hook"] = endpoint.secret
    with django_capture_on_commit_callbacks(execute=True):
        publish(stage, director)
    page = client.get(url).content.decode()
    assert endpoint.secret not in page  # shown once
    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    assert str(delivery.pk) in page
    assert "Delivered" in page
    assert receiver.requests[0].verified
    # The form posted again (a reload of the answer) adds no second receiver for the URL.
    resent = client.post(
        url, {"url": receiver.url(), "events": ["round_published"], "description": "scoreboard"}
    )
    assert resent.status_code == 400
    assert "already receives" in resent.content.decode()
    assert WebhookEndpoint.objects.count() == 1
    # A bad URL is refused with the reason; nothing is added.
    bad = client.post(url, {"url": "gopher://x", "events": ["round_published"]})
    assert bad.status_code == 400
    assert "http and https" in bad.content.decode()
    assert WebhookEndpoint.objects.count() == 1
    # Disable.
    client.post(reverse("notify:webhook-disable", args=[tournament.slug, endpoint.pk]))
    endpoint.refresh_from_db()
    assert not endpoint.active
    assert endpoint.disabled_at is not None


def test_the_delivery_log_filter_ignores_an_endpoint_in_other_digits(
    receiver: WebhookReceiver,
) -> None:
    """``?endpoint=\u00b2`` passed ``str.isdigit()`` and made ``int()`` raise (a 500); like
    ``?endpoint=abc`` it is no filter at all, and the page changes nothing."""
    tournament, director, stage = seeded_stage(8)
    add_endpoint(tournament, director, receiver, events=["round_published"])
    rnd = publish(stage, director)
    emit(round_published, round_id=rnd.pk, stage_id=stage.pk, tournament_id=tournament.pk)
    delivery = WebhookDelivery.objects.get()
    client = Client()
    client.force_login(director)
    url = reverse("notify:webhooks", args=[tournament.slug])
    for value in ("\u00b2", "\u0663", "abc"):
        page = client.get(url, {"endpoint": value})
        assert page.status_code == 200, value
        assert f"<td><code>{delivery.pk}</code></td>" in page.content.decode()  # unfiltered
    assert WebhookDelivery.objects.get() == delivery
    assert WebhookEndpoint.objects.count() == 1


@pytest.mark.parametrize(
    ("posted", "error_id", "words"),
    [
        (
            {"url": "ftp://example.com/hook", "events": ["round_published"]},
            "webhook-url-error",
            "Only http and https URLs may receive webhooks",
        ),
        ({"url": "", "events": ["round_published"]}, "webhook-url-error", "Enter the receiver"),
        (
            {"url": "https://example.org/hook", "events": []},
            "webhook-events-error",
            "Choose one or more of: round_published, match_finished, hand_recorded.",
        ),
    ],
)
def test_a_bad_field_is_said_under_that_field_by_its_label(
    posted: dict[str, Any], error_id: str, words: str
) -> None:
    """A director's walkthrough on ``make demo``: a refused webhook read, at the top of the
    page, "The webhook was not added: url: only http and https URLs ..." or "events: ...":
    the field named by its code, away from it. The refusal is now under the field it is
    about (the Receiver URL input, the Events box), what was typed is kept and no code is
    shown."""
    tournament, director, _ = seeded_stage(4)
    client = Client()
    client.force_login(director)
    response = client.post(reverse("notify:webhooks", args=[tournament.slug]), posted)
    assert response.status_code == 400
    html = response.content.decode()
    form = html.split('id="webhook-add"', 1)[1].split("</form>", 1)[0]
    assert f'id="{error_id}"' in form
    error = form.split(f'id="{error_id}">', 1)[1].split("</p>", 1)[0]
    assert words.replace("'", "&#x27;") in error, error
    assert f'aria-describedby="{error_id}"' in form
    assert f'value="{posted["url"]}"' in form  # what was typed is kept
    assert "url: " not in html
    assert "events: " not in html
    assert not WebhookEndpoint.objects.exists()


def test_the_page_is_for_directors_only() -> None:
    tournament, _, _ = seeded_stage(4)
    url = reverse("notify:webhooks", args=[tournament.slug])
    client = Client()
    assert client.get(url).status_code == 302  # to the login page
    client.force_login(UserFactory())
    assert client.get(url).status_code == 403
    assert (
        client.post(url, {"url": "http://127.0.0.1/", "events": ["round_published"]}).status_code
        == 403
    )
    assert not WebhookEndpoint.objects.exists()


def test_payload_body_is_stable_json(receiver: WebhookReceiver) -> None:
    tournament, director, stage = seeded_stage(8)
    add_endpoint(tournament, director, receiver, events=["round_published"])
    rnd = publish(stage, director)
    emit(round_published, round_id=rnd.pk, stage_id=stage.pk, tournament_id=tournament.pk)
    delivery = WebhookDelivery.objects.get()
    assert json.loads(services.body_of(delivery)) == receiver.requests[0].body


def test_the_hand_path_pays_no_query_when_no_webhook_is_set(
    django_assert_num_queries: Any,
) -> None:
    tournament, director, stage = seeded_stage(8)
    rnd = publish(stage, director)
    match = open_matches(rnd)[0]
    play_match(match, director, seed=3)
    emit(hand_recorded, match_id=match.pk, tournament_id=tournament.pk, hand_number=1)  # looks
    with django_assert_num_queries(0):
        for n in (2, 3, 4):
            emit(hand_recorded, match_id=match.pk, tournament_id=tournament.pk, hand_number=n)
    assert not WebhookDelivery.objects.exists()


def test_https_targets_have_their_certificate_verified(tmp_path: Any) -> None:
    """A receiver with a certificate no authority signed is refused (TLS is verified for the
    URL's host name although the connection goes to the checked address)."""
    import shutil
    import ssl
    import subprocess
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=localhost", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        outcome = transport.post(f"https://localhost:{port}/hook", b"{}", {}, timeout=5)
    finally:
        server.shutdown()
        server.server_close()
    assert outcome.status is None
    assert "CERTIFICATE_VERIFY_FAILED" in outcome.error or "certificate" in outcome.error.lower()
    assert hits == []


def test_prune_deletes_old_delivered_rows_and_keeps_failed_ones(receiver: WebhookReceiver) -> None:
    tournament, director, stage = seeded_stage(8)
    endpoint = add_endpoint(tournament, director, receiver)
    rnd = publish(stage, director)
    for m in open_matches(rnd):
        match_result_override(match_id=m.pk, actor=director, scores=[6, 0, 0, 0], reason="s")
    with commit_callbacks():
        services.outbox_backfill()
    rows = list(WebhookDelivery.objects.filter(endpoint=endpoint).order_by("event_key"))
    assert [r.status for r in rows] == ["delivered"] * 3
    old = timezone.now() - timedelta(days=31)
    WebhookDelivery.objects.filter(pk=rows[0].pk).update(created_at=old)
    WebhookDelivery.objects.filter(pk=rows[1].pk).update(created_at=old, status="failed")
    assert services.outbox_prune() == 1
    assert sorted(WebhookDelivery.objects.values_list("pk", flat=True)) == sorted(
        [rows[1].pk, rows[2].pk]
    )


def test_the_page_speaks_spanish() -> None:
    tournament, director, _ = seeded_stage(4)
    client = Client(HTTP_ACCEPT_LANGUAGE="es")
    client.force_login(director)
    html = client.get(reverse("notify:webhooks", args=[tournament.slug])).content.decode()
    assert "Añadir un webhook" in html
    assert "Todavía no hay webhooks." in html
    # A refused receiver is explained in Spanish too (the reason, under the field).
    url = reverse("notify:webhooks", args=[tournament.slug])
    bad = client.post(url, {"url": "gopher://x", "events": ["round_published"]})
    assert bad.status_code == 400
    text = bad.content.decode()
    assert "Solo las URL http y https pueden recibir webhooks" in text
    assert "only http and https" not in text
    empty = client.post(url, {"url": "", "events": []}).content.decode()
    assert "Escribe la URL del receptor." in empty
    assert "Elige uno o más de: round_published" in empty
