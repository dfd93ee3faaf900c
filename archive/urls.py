"""Director download of the tournament archive."""

from django.urls import path

from archive import views

app_name = "archive"

urlpatterns = [
    path(
        "director/tournaments/<slug:slug>/archive.zip",
        views.ArchiveDownloadView.as_view(),
        name="download",
    ),
]
