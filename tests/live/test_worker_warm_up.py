"""The spectator worker builds, before serving, what the first live event's frame would
otherwise build (live.workers.warm_up; bench/bench_live_fanout.py measured 0.3-0.5 s on the
first hand after a start): the URL resolver of every language and the table card template."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.template import loader
from django.urls import clear_url_caches, get_resolver

from live import workers


def test_warm_up_populates_the_url_resolver_in_every_language(monkeypatch: Any) -> None:
    clear_url_caches()  # a fresh resolver, as in a new process
    assert not set(get_resolver()._reverse_dict)
    loaded: list[str] = []
    original = loader.get_template

    def get_template(name: str) -> Any:
        loaded.append(name)
        return original(name)

    monkeypatch.setattr(loader, "get_template", get_template)
    workers.warm_up()
    resolver = get_resolver()
    assert {code for code, _ in settings.LANGUAGES} <= set(resolver._reverse_dict)
    assert loaded == ["live/_table_card.html"]


def test_the_worker_warms_up_after_loading_the_application(monkeypatch: Any) -> None:
    calls: list[str] = []
    monkeypatch.setattr(workers.UvicornWorker, "load_wsgi", lambda self: calls.append("load"))
    monkeypatch.setattr(workers, "warm_up", lambda: calls.append("warm"))
    workers.SpectatorWorker.load_wsgi(object.__new__(workers.SpectatorWorker))
    assert calls == ["load", "warm"]
