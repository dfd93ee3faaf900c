"""Public spectator pages under ``/live/``; websockets are in :mod:`live.routing`."""

from django.urls import path, re_path

from live import replay, table_join, views

app_name = "live"
urlpatterns = [
    path("live/", views.index, name="index"),
    path("live/<slug:slug>/", views.home, name="home"),
    path("live/<slug:slug>/tables/", views.tables, name="tables"),
    path("live/<slug:slug>/standings/", views.standings, name="standings"),
    path("live/<slug:slug>/bracket/", views.bracket, name="bracket"),
    path("live/<slug:slug>/players/<int:entry_id>/", views.player, name="player"),
    path("live/<slug:slug>/matches/<int:match_id>/", views.match, name="match"),
    path(
        "live/<slug:slug>/matches/<int:match_id>/hands/<int:number>/replay/",
        replay.hand_replay_page,
        name="hand-replay",
    ),
    path("live/<slug:slug>/projector/", views.projector, name="projector"),
    # The table QR (issue 15): a stable address per physical table.
    path("t/<slug:slug>/table/<int:number>/", table_join.table_join, name="table-join"),
    re_path(
        r"^live/(?P<slug>[-a-zA-Z0-9_]+)/export/(?P<kind>[a-z]+)\.(?P<fmt>csv|json)$",
        views.export,
        name="export",
    ),
]
