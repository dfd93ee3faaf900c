"""Login throttling backend (django-axes), for sign-ins that come with an HTTP request.

``/accounts/login/`` and ``/admin/login/`` authenticate with the request, so django-axes counts
wrong passwords per username and client address and refuses a locked-out pair. An
``authenticate()`` call without a request (a management command, the test client's
``login()``) is not a web sign-in: axes' own backend would raise, this one steps aside and the
next backend checks the password as usual.
"""

from __future__ import annotations

from typing import Any

from axes.backends import AxesStandaloneBackend
from django.http import HttpRequest


class LoginThrottleBackend(AxesStandaloneBackend):  # type: ignore[misc]  # axes is untyped
    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        if request is None:
            return None
        return super().authenticate(request, username, password, **kwargs)
