"""A new worker is warmed before its first request (core/warmup.py, config/gunicorn.py).

Each check runs in a fresh interpreter: in the test process the URLconf, templates and
catalogs are long loaded, so only a new process shows what a new gunicorn worker has.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BASE = Path(__file__).resolve().parents[2]

PROBE = """
import gc, json, sys
import django
django.setup()
from django.conf import settings
from django.urls import get_resolver
from django.utils import translation
from core.rules_reference import rules_html

def state():
    resolver = get_resolver()
    return {
        "urlconf": "tournament.urls" in sys.modules and "live.urls" in sys.modules,
        # Django fills the reverse table per language on the first reverse() in it.
        "reverse": sorted(k for k in resolver._reverse_dict if k in dict(settings.LANGUAGES)),
        "catalogs": sorted(translation.trans_real._translations),
        "rules": rules_html.cache_info().currsize,
        "frozen": gc.get_freeze_count() > 10000,
    }

before = state()
timings = None
if sys.argv[1] == "hook":
    from types import SimpleNamespace
    from config.gunicorn import post_worker_init
    lines = []
    worker = SimpleNamespace(pid=1, log=SimpleNamespace(debug=lambda *a: lines.append(a)))
    post_worker_init(worker)
    timings = lines[0][-2]
print(json.dumps({"before": before, "after": state(), "timings": timings}))
"""


def _probe(mode: str) -> dict[str, object]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST", "COV_", "DJANGO_SETTINGS"))
    }
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode],
        cwd=BASE,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_a_new_worker_has_nothing_built_until_its_hook_warms_it() -> None:
    from django.conf import settings

    languages = sorted(code for code, _ in settings.LANGUAGES)
    cold = _probe("none")
    # What the first request would otherwise pay for is really not there in a new process.
    assert cold["after"] == cold["before"]
    assert cold["before"]["urlconf"] is False  # type: ignore[index]
    assert cold["before"]["reverse"] == []  # type: ignore[index]
    assert cold["before"]["rules"] == 0  # type: ignore[index]

    warm = _probe("hook")
    after = warm["after"]
    assert after["urlconf"] is True  # type: ignore[index]
    assert after["reverse"] == languages  # type: ignore[index]
    assert set(languages) <= set(after["catalogs"])  # type: ignore[index]
    assert after["rules"] == len(languages)  # type: ignore[index]
    # Then what the worker holds for life is frozen: full collections no longer walk it.
    assert cold["after"]["frozen"] is False  # type: ignore[index]
    assert after["frozen"] is True  # type: ignore[index]
    timings = warm["timings"]
    assert isinstance(timings, dict)
    assert set(timings) == {
        "urlconf",
        "templates",
        "languages",
        "rules",
        "cache",
        "channel_layer",
        "celery",
    }


def test_a_failing_step_is_logged_and_the_others_still_run(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from core import warmup

    def broken() -> None:
        raise RuntimeError("no templates today")

    ran: list[str] = []
    monkeypatch.setattr(
        warmup,
        "_STEPS",
        (
            ("first", lambda: ran.append("first")),
            ("broken", broken),
            ("last", lambda: ran.append("last")),
        ),
    )
    timings = warmup.warm()
    assert ran == ["first", "last"]
    assert set(timings) == {"first", "last"}
    assert "warm-up step broken failed" in caplog.text
