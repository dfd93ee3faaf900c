from django.urls import path

from scoring.api import confirmation_views, moves, views

app_name = "scoring-api"
urlpatterns = [
    path("tournaments/<slug:slug>/matches/", views.MatchListApi.as_view(), name="match-list"),
    path("matches/<int:match_id>/", views.MatchDetailApi.as_view(), name="match"),
    path("matches/<int:match_id>/start/", views.MatchStartApi.as_view(), name="match-start"),
    path("matches/<int:match_id>/referee/", views.MatchRefereeApi.as_view(), name="match-referee"),
    path("matches/<int:match_id>/hands/", views.HandListApi.as_view(), name="hand-list"),
    path(
        "matches/<int:match_id>/hands/void-last/",
        views.HandVoidLastApi.as_view(),
        name="hand-void-last",
    ),
    path("matches/<int:match_id>/hands/check/", moves.HandLogCheckApi.as_view(), name="hand-check"),
    path(
        "matches/<int:match_id>/feature-table/",
        moves.TableFeatureApi.as_view(),
        name="table-feature",
    ),
    path(
        "matches/<int:match_id>/override/", views.MatchOverrideApi.as_view(), name="match-override"
    ),
    path("matches/<int:match_id>/forfeit/", views.MatchForfeitApi.as_view(), name="match-forfeit"),
    # Confirmation at the table (issue 15).
    path(
        "matches/<int:match_id>/confirmations/",
        confirmation_views.HandConfirmApi.as_view(),
        name="hand-confirm",
    ),
    path(
        "matches/<int:match_id>/disputes/",
        confirmation_views.HandDisputeApi.as_view(),
        name="hand-dispute",
    ),
    path(
        "matches/<int:match_id>/disputes/resolve/",
        confirmation_views.DisputeResolveApi.as_view(),
        name="dispute-resolve",
    ),
    path(
        "tournaments/<slug:slug>/disputes/",
        confirmation_views.DisputeListApi.as_view(),
        name="dispute-list",
    ),
]
