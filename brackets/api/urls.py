from django.urls import path

from brackets.api import pairs, views

app_name = "brackets-api"

_T = "tournaments/<slug:slug>"
urlpatterns = [
    path(f"{_T}/stages/", views.StageListApi.as_view(), name="stage-list"),
    path(f"{_T}/stages/<int:stage_id>/", views.StageDetailApi.as_view(), name="stage"),
    path(f"{_T}/stages/<int:stage_id>/seed/", views.StageSeedApi.as_view(), name="stage-seed"),
    path(
        f"{_T}/stages/<int:stage_id>/reorder/",
        views.StageReorderApi.as_view(),
        name="stage-reorder",
    ),
    path(
        f"{_T}/stages/<int:stage_id>/entrants/",
        views.StageEntrantListApi.as_view(),
        name="stage-entrants",
    ),
    path(
        f"{_T}/stages/<int:stage_id>/entrants/<int:entry_id>/withdraw/",
        views.StageEntrantWithdrawApi.as_view(),
        name="stage-entrant-withdraw",
    ),
    path(
        f"{_T}/stages/<int:stage_id>/standings/",
        views.StageStandingsApi.as_view(),
        name="stage-standings",
    ),
    path(
        f"{_T}/stages/<int:stage_id>/preview/",
        views.StagePreviewApi.as_view(),
        name="stage-preview",
    ),
    path(
        f"{_T}/stages/<int:stage_id>/publish/",
        views.StagePublishApi.as_view(),
        name="stage-publish",
    ),
    path(
        f"{_T}/stages/<int:stage_id>/advance/",
        views.StageAdvanceApi.as_view(),
        name="stage-advance",
    ),
    path(
        f"{_T}/stages/<int:stage_id>/rounds/",
        views.StageRoundListApi.as_view(),
        name="stage-rounds",
    ),
    path(f"{_T}/rounds/<int:round_id>/", views.RoundDetailApi.as_view(), name="round"),
    path(f"{_T}/rounds/<int:round_id>/close/", views.RoundCloseApi.as_view(), name="round-close"),
    path(
        f"{_T}/rounds/<int:round_id>/advance/",
        views.RoundAdvanceApi.as_view(),
        name="round-advance",
    ),
    path(f"{_T}/rounds/<int:round_id>/clock/", views.RoundClockApi.as_view(), name="round-clock"),
    path(
        f"{_T}/rounds/<int:round_id>/call-time/",
        views.RoundCallTimeApi.as_view(),
        name="round-call-time",
    ),
    path(
        f"{_T}/rounds/<int:round_id>/replace/",
        views.RoundReplaceApi.as_view(),
        name="round-replace",
    ),
    path(f"{_T}/placings/", views.PlacingListApi.as_view(), name="placings"),
    # Pairs events (T9-T11)
    path(f"{_T}/partnerships/", pairs.PartnershipListApi.as_view(), name="pair-list"),
    path(
        f"{_T}/partnerships/<int:pair_id>/substitute/",
        pairs.PartnershipSubstituteApi.as_view(),
        name="pair-substitute",
    ),
    path(f"{_T}/entry-format/", pairs.EntryFormatApi.as_view(), name="entry-format"),
    path(
        f"{_T}/stages/<int:stage_id>/pair-standings/",
        pairs.StagePairStandingsApi.as_view(),
        name="stage-pair-standings",
    ),
    path(f"{_T}/pair-placings/", pairs.PairPlacingListApi.as_view(), name="pair-placings"),
]
