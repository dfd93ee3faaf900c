"""The seeding list's forms (bench/RESULTS.md, "Pages at 300 players"): a form and a CSRF token
a row and button made 300 players' list 430 KB with 603 forms. Now every row's button (check
in, undo, PIN, late entry) sends the page's one ``row-actions`` form to its own address
(``formaction``), and "Withdraw…" is a link to the withdrawal's page: the number of forms does
not grow with the field, and each button still does what it did, CSRF token included.

The buttons are pressed as a browser would: the fields of the form the button names, plus the
button's own name and value, posted to its ``formaction`` by a client that enforces CSRF.
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from brackets.models import StageEntry
from brackets.services import round_publish, stage_seed
from tests.brackets.factories_pages import tournament_with_stage
from tests.factories import EntryFactory
from tournament.models import ActionLog, Entry, Tournament

pytestmark = pytest.mark.django_db


class _Page(HTMLParser):
    """The forms (with their hidden fields) and the submit buttons of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: dict[str, dict[str, Any]] = {}
        self.buttons: dict[str, dict[str, str]] = {}
        self.form_tags = 0
        self._form: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.form_tags += 1
            self._form = a.get("id") or f"form-{self.form_tags}"
            self.forms[self._form] = {"action": a.get("action", ""), "fields": {}}
        elif tag == "input" and self._form and a.get("type") == "hidden":
            self.forms[self._form]["fields"][a["name"]] = a.get("value", "")
        elif tag == "button" and a.get("id"):
            self.buttons[a["id"]] = {"form": a.get("form") or self._form or "", **a}

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None


def _read(client: Client, target: str) -> _Page:
    response = client.get(target)
    assert response.status_code == 200
    page = _Page()
    page.feed(response.content.decode())
    return page


def _press(client: Client, page: _Page, button_id: str) -> Any:
    """POST what pressing ``button_id`` sends: its form's fields and its own name/value."""
    button = page.buttons[button_id]
    form = page.forms[button["form"]]
    data = dict(form["fields"])
    if button.get("name"):
        data[button["name"]] = button.get("value", "")
    return client.post(button.get("formaction") or form["action"], data)


def _csrf_client(user: Any) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def _seeding(t: Tournament, stage: Any) -> str:
    return reverse("brackets:seeding", args=[t.slug, stage.pk])


def _field(n: int, *, confirmation: str = "match_end") -> tuple[Tournament, Any, Any]:
    """``n`` players, half checked in and seeded, half still to check in (so every row
    button of the list before the stage starts is on the page), players confirming."""
    t, director, stage = tournament_with_stage(n)
    Tournament.objects.filter(pk=t.pk).update(confirmation=confirmation)
    t.refresh_from_db()
    later = Entry.objects.filter(tournament=t).order_by("id")[n // 2 :]
    Entry.objects.filter(pk__in=[e.pk for e in later]).update(checked_in=False)
    stage_seed(stage=stage, actor=director, method="rating")
    return t, director, stage


def test_the_list_has_the_same_forms_and_one_token_whatever_the_field() -> None:
    shapes = []
    for n in (8, 40):
        t, director, stage = _field(n)
        client = _csrf_client(director)
        response = client.get(_seeding(t, stage))
        html = response.content.decode()
        # Every row button is there: check in, undo check-in, PIN, withdraw, the arrows.
        assert html.count(">issue a PIN</button>") == n
        assert html.count('class="withdraw-link"') == n
        assert html.count('name="checked_in" value="1"') == n - n // 2
        assert html.count('name="checked_in" value="0"') == n // 2
        shapes.append((html.count("<form"), html.count("csrfmiddlewaretoken")))
        # Started: the late-entry button of each entry outside the stage.
        round_publish(stage=stage, actor=director)
        for _ in range(n // 4):
            EntryFactory(tournament=t, checked_in=True)
        html = client.get(_seeding(t, stage)).content.decode()
        assert html.count(">Add as late entry</button>") == n // 2 + n // 4
        shapes.append((html.count("<form"), html.count("csrfmiddlewaretoken")))
    assert shapes[0] == shapes[2], shapes
    assert shapes[1] == shapes[3], shapes
    # The seed buttons, check-in of many, the seed order, the rows' one form, the site's own.
    assert all(forms <= 10 for forms, _tokens in shapes), shapes


def test_check_in_and_undo_from_a_row_go_through_the_one_form() -> None:
    t, director, stage = _field(8)
    client = _csrf_client(director)
    seeding = _seeding(t, stage)
    waiting = Entry.objects.filter(tournament=t, checked_in=False).order_by("id").first()
    assert waiting is not None
    page = _read(client, seeding)
    button = page.buttons[f"check-in-{waiting.pk}"]
    assert button["form"] == "row-actions"
    assert button["aria-label"] == f"Check in {waiting.player.name}"
    response = _press(client, page, f"check-in-{waiting.pk}")
    assert response.status_code == 302
    assert response["Location"] == seeding  # the form's "next": back to the list
    assert Entry.objects.get(pk=waiting.pk).checked_in
    page = _read(client, seeding)
    assert _press(client, page, f"check-out-{waiting.pk}").status_code == 302
    assert not Entry.objects.get(pk=waiting.pk).checked_in


def test_a_pin_from_a_row_is_issued_and_a_new_one_asks_first() -> None:
    t, director, stage = _field(8)
    client = _csrf_client(director)
    entry = Entry.objects.filter(tournament=t).order_by("id").first()
    assert entry is not None
    page = _read(client, _seeding(t, stage))
    assert "data-confirm" not in page.buttons[f"pin-button-{entry.pk}"]
    response = _press(client, page, f"pin-button-{entry.pk}")
    assert response.status_code == 302
    assert response["Location"] == reverse("brackets:entry-pin", args=[t.slug, entry.pk])
    assert ActionLog.objects.filter(tournament=t, verb="entry.pin_issue").count() == 1
    # A player with a PIN: the button asks before replacing it (director.js reads it).
    page = _read(client, _seeding(t, stage))
    assert page.buttons[f"pin-button-{entry.pk}"]["data-confirm"] == (
        f"Give {entry.player.name} a new PIN? The old one stops working."
    )


def test_a_late_entry_from_a_row_joins_the_next_round() -> None:
    t, director, stage = _field(8, confirmation="off")
    round_publish(stage=stage, actor=director)
    late = Entry.objects.filter(tournament=t, checked_in=False).order_by("id").first()
    assert late is not None
    client = _csrf_client(director)
    page = _read(client, _seeding(t, stage))
    response = _press(client, page, f"late-{late.pk}")
    assert response.status_code == 302
    joined = StageEntry.objects.get(stage=stage, entry=late)
    assert joined.joined_round == 2


def test_a_row_button_without_the_lists_token_is_refused() -> None:
    t, director, stage = _field(8)
    client = _csrf_client(director)
    waiting = Entry.objects.filter(tournament=t, checked_in=False).order_by("id").first()
    assert waiting is not None
    page = _read(client, _seeding(t, stage))
    page.forms["row-actions"]["fields"].pop("csrfmiddlewaretoken")
    assert _press(client, page, f"check-in-{waiting.pk}").status_code == 403
    assert not Entry.objects.get(pk=waiting.pk).checked_in


def test_a_move_arrow_still_saves_one_move_without_javascript() -> None:
    t, director, stage = _field(8)
    client = _csrf_client(director)
    before = list(
        StageEntry.objects.filter(stage=stage).order_by("seed").values_list("entry_id", flat=True)
    )
    response = client.get(_seeding(t, stage))
    page = _Page()
    page.feed(response.content.decode())
    form = page.forms["reorder-form"]
    # The arrows are in the seed-order form with the rows' order; the row buttons are not.
    html = response.content.decode()
    start, end = (
        html.index('id="reorder-form"'),
        html.index("</form>", html.index('id="reorder-form"')),
    )
    assert html[start:end].count('name="order"') == len(before)
    data = {
        "csrfmiddlewaretoken": form["fields"]["csrfmiddlewaretoken"],
        "order": before,
        "move": f"{before[1]}:up",
    }
    assert client.post(form["action"], data).status_code == 302
    after = list(
        StageEntry.objects.filter(stage=stage).order_by("seed").values_list("entry_id", flat=True)
    )
    assert after == [before[1], before[0], *before[2:]]
