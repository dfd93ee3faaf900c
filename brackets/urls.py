"""Director pages of the brackets app, under ``/director/tournaments/<slug>/``."""

from django.urls import path

from brackets import views

app_name = "brackets"

T = "director/tournaments/<slug:slug>/"

urlpatterns = [
    path("director/new/", views.TournamentCreateView.as_view(), name="tournament-create"),
    path(T + "settings/", views.TournamentEditView.as_view(), name="settings"),
    path(T + "stages/", views.StageListView.as_view(), name="stages"),
    path(T + "stages/<int:stage_id>/edit/", views.StageEditView.as_view(), name="stage-edit"),
    path(T + "stages/<int:stage_id>/seeding/", views.SeedingView.as_view(), name="seeding"),
    path(T + "stages/<int:stage_id>/seed/", views.SeedView.as_view(), name="seed"),
    path(T + "stages/<int:stage_id>/reorder/", views.ReorderView.as_view(), name="reorder"),
    path(
        T + "stages/<int:stage_id>/entries/<int:entry_id>/withdraw/",
        views.WithdrawView.as_view(),
        name="withdraw",
    ),
    path(
        T + "stages/<int:stage_id>/entries/<int:entry_id>/add/",
        views.LateEntryView.as_view(),
        name="late-entry",
    ),
    path(T + "stages/<int:stage_id>/preview/", views.RoundPreviewView.as_view(), name="preview"),
    path(T + "stages/<int:stage_id>/publish/", views.RoundPublishView.as_view(), name="publish"),
    path(
        T + "stages/<int:stage_id>/advance/",
        views.StageAdvanceView.as_view(),
        name="stage-advance",
    ),
    path(T + "entries/<int:entry_id>/check-in/", views.CheckInView.as_view(), name="check-in"),
    path(T + "entries/check-in/", views.CheckInManyView.as_view(), name="check-in-many"),
    path(T + "entries/<int:entry_id>/pin/", views.PinIssueView.as_view(), name="entry-pin"),
    path(T + "players/import/", views.CsvImportView.as_view(), name="import"),
    path(T + "players/add/", views.PlayerAddView.as_view(), name="player-add"),
    path(T + "players/<int:entry_id>/edit/", views.PlayerEditView.as_view(), name="player-edit"),
    path(T + "pairs/", views.PairsView.as_view(), name="pairs"),  # T9
    path(
        T + "pairs/<int:pair_id>/check-in/", views.PairCheckInView.as_view(), name="pair-check-in"
    ),
    path(
        T + "pairs/<int:pair_id>/substitute/",
        views.PairSubstituteView.as_view(),
        name="pair-substitute",
    ),
    path(T + "rounds/<int:round_id>/", views.RoundProgressView.as_view(), name="round"),
    path(T + "rounds/<int:round_id>/clock/", views.RoundClockView.as_view(), name="clock"),
    path(
        T + "rounds/<int:round_id>/call-time/",
        views.RoundCallTimeView.as_view(),
        name="call-time",
    ),
    path(T + "rounds/<int:round_id>/close/", views.RoundCloseView.as_view(), name="close"),
    path(T + "rounds/<int:round_id>/advance/", views.RoundAdvanceView.as_view(), name="advance"),
    path(
        T + "rounds/<int:round_id>/matches/<int:match_id>/<slug:action>/",
        views.MatchActionView.as_view(),
        name="match-action",
    ),
    path(T + "rounds/<int:round_id>/referee/", views.RoundRefereeView.as_view(), name="referee"),
    path(T + "rounds/<int:round_id>/sheets/", views.RoundSheetsView.as_view(), name="sheets"),
    path(
        T + "rounds/<int:round_id>/sheets/links/",
        views.RoundSheetLinksView.as_view(),
        name="sheet-links",
    ),
    path(T + "bracket/", views.BracketView.as_view(), name="bracket"),
    path(T + "log/", views.ActionLogView.as_view(), name="log"),
]
