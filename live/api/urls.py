"""``/api/live/<slug>/...``: the public live JSON API (views in :mod:`live.api.views`)."""

from django.urls import path

from live.api import views

app_name = "live-api"
urlpatterns = [
    path("live/<slug:slug>/", views.summary, name="summary"),
    path("live/<slug:slug>/tables/", views.tables, name="tables"),
    path("live/<slug:slug>/standings/", views.standings, name="standings"),
    path("live/<slug:slug>/bracket/", views.bracket, name="bracket"),
    path("live/<slug:slug>/players/<int:entry_id>/", views.player, name="player"),
    path("live/<slug:slug>/matches/<int:match_id>/", views.match, name="match"),
]
