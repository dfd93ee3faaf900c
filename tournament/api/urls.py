from django.urls import path

from tournament.api import views
from tournament.api.checkin import EntryCheckInApi  # issue 15: table PINs

app_name = "tournament-api"
urlpatterns = [
    path("tournaments/", views.TournamentListApi.as_view(), name="tournament-list"),
    path("tournaments/<slug:slug>/", views.TournamentDetailApi.as_view(), name="tournament"),
    path(
        "tournaments/<slug:slug>/status/",
        views.TournamentStatusApi.as_view(),
        name="tournament-status",
    ),
    path(
        "tournaments/<slug:slug>/reopen/",
        views.TournamentReopenApi.as_view(),
        name="tournament-reopen",
    ),
    path("auth/login/", views.SessionLoginApi.as_view(), name="session-login"),
    path("auth/logout/", views.SessionLogoutApi.as_view(), name="session-logout"),
    path("me/", views.MeApi.as_view(), name="me"),
    path("players/", views.PlayerListApi.as_view(), name="player-list"),
    path("players/<int:player_id>/", views.PlayerDetailApi.as_view(), name="player"),
    path("tournaments/<slug:slug>/entries/", views.EntryListApi.as_view(), name="entry-list"),
    path(
        "tournaments/<slug:slug>/entries/<int:entry_id>/",
        views.EntryDetailApi.as_view(),
        name="entry",
    ),
    path(
        "tournaments/<slug:slug>/entries/<int:entry_id>/check-in/",
        EntryCheckInApi.as_view(),
        name="entry-check-in",
    ),
    path(
        "tournaments/<slug:slug>/entries/<int:entry_id>/withdraw/",
        views.EntryWithdrawApi.as_view(),
        name="entry-withdraw",
    ),
    path(
        "tournaments/<slug:slug>/entries/<int:entry_id>/disqualify/",
        views.EntryDisqualifyApi.as_view(),
        name="entry-disqualify",
    ),
    path("tournaments/<slug:slug>/tables/", views.TableListApi.as_view(), name="table-list"),
    path("tournaments/<slug:slug>/roles/", views.RoleListApi.as_view(), name="role-list"),
    path(
        "tournaments/<slug:slug>/roles/<int:role_id>/",
        views.RoleDetailApi.as_view(),
        name="role",
    ),
    path(
        "tournaments/<slug:slug>/referees/",
        views.RefereeCreateApi.as_view(),
        name="referee-create",
    ),
    path(
        "tournaments/<slug:slug>/referee-tokens/",
        views.RefereeTokenListApi.as_view(),
        name="referee-token-list",
    ),
    path(
        "tournaments/<slug:slug>/referee-tokens/<int:token_id>/revoke/",
        views.RefereeTokenRevokeApi.as_view(),
        name="referee-token-revoke",
    ),
    path(
        "tournaments/<slug:slug>/action-log/",
        views.ActionLogListApi.as_view(),
        name="action-log",
    ),
]
