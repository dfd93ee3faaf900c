"""Director download of the tournament archive."""

from django.urls import path

from archive import results, views

app_name = "archive"

urlpatterns = [
    path(
        "director/tournaments/<slug:slug>/archive.zip",
        views.ArchiveDownloadView.as_view(),
        name="download",
    ),
    path(
        "live/<slug:slug>/rounds/<int:round_id>/results/",
        results.results_sheet,
        name="round-results",
    ),
]
