"""Login throttling (issue 12, item 7): django-axes on /accounts/login/ and /admin/login/.

Wrong passwords are counted per username AND client address: the pair is refused (429) from
the AXES_FAILURE_LIMIT-th failure on, even with the right password, while another user behind
the same address (one venue NAT) and the same user from another address still sign in.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db

VENUE = "203.0.113.10"
ELSEWHERE = "198.51.100.20"


@pytest.fixture(autouse=True)
def _limit(settings: Any) -> None:
    settings.AXES_FAILURE_LIMIT = 3


def attempt(path: str, username: str, password: str, ip: str) -> Any:
    return Client(REMOTE_ADDR=ip).post(path, {"username": username, "password": password})


@pytest.mark.parametrize("path", ["/accounts/login/", "/admin/login/"])
def test_a_username_is_locked_out_at_one_address_only(path: str) -> None:
    users = get_user_model().objects
    users.create_user("dora", password="right-pass-1", is_staff=True)
    users.create_user("eve", password="right-pass-2", is_staff=True)
    for _ in range(2):
        assert attempt(path, "dora", "wrong", VENUE).status_code == 200  # the form again
    assert attempt(path, "dora", "wrong", VENUE).status_code == 429  # the third failure
    locked = attempt(path, "dora", "right-pass-1", VENUE)
    assert locked.status_code == 429
    assert b"Too many attempts" in locked.content
    # Same venue address, another user: not locked out by dora's typos.
    assert attempt(path, "eve", "right-pass-2", VENUE).status_code == 302
    # Dora from elsewhere: her right password still works.
    assert attempt(path, "dora", "right-pass-1", ELSEWHERE).status_code == 302


def test_a_success_before_the_limit_resets_the_count() -> None:
    get_user_model().objects.create_user("dora", password="right-pass-1")
    for _ in range(2):
        attempt("/accounts/login/", "dora", "wrong", VENUE)
    assert attempt("/accounts/login/", "dora", "right-pass-1", VENUE).status_code == 302
    for _ in range(2):
        attempt("/accounts/login/", "dora", "wrong", VENUE)
    assert attempt("/accounts/login/", "dora", "right-pass-1", VENUE).status_code == 302


def test_programmatic_authenticate_without_a_request_still_works() -> None:
    get_user_model().objects.create_user("dora", password="right-pass-1")
    assert Client().login(username="dora", password="right-pass-1")
